import { APICallError, embed, embedMany, generateImage, generateSpeech, rerank } from "ai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { type CountingProxy, startCountingProxy, embeddingsWithoutUsage } from "./CountingProxy.js"

// umg's embedding, image, speech and reranking models, driven by the AI SDK's own functions
// against the emulator through a counting proxy.
let emu: Emulator
let proxy: CountingProxy
let umg: UmgProvider
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  proxy = await startCountingProxy(emu.url)
  umg = createUmg({ baseURL: `${proxy.url}/v1`, apiKey: emu.apiKey })
})
afterAll(async () => {
  await umg.dispose()
  await proxy.close()
  await emu.close()
})
beforeEach(() => {
  proxy.reset()
  emu.clearFaults()
})

describe("umg/ai-sdk embedding model", () => {
  it("embedMany gets one vector per text, in order, one request per text (the gateway takes one text each)", async () => {
    const values = ["a fox", "a dog", "a cat", "a bird", "a fish"]
    const { embeddings } = await embedMany({ model: umg.embeddingModel("text-embedding-3-small"), values })
    expect(embeddings).toHaveLength(values.length)
    const single = await embed({ model: umg.textEmbeddingModel("text-embedding-3-small"), value: "a cat" })
    expect(single.embedding).toEqual(embeddings[2])
    expect(new Set(embeddings.map((e) => e.join(","))).size).toBe(values.length)
    expect(proxy.requests.filter((q) => q.path === "/v1/embeddings")).toHaveLength(values.length + 1)
  })

  it("embed and embedMany give the input tokens the requests reported, summed over embedMany's requests", async () => {
    const model = umg.embeddingModel("text-embedding-3-small")
    const values = ["a fox", "a dog", "a cat"]
    const each = await Promise.all(values.map((value) => embed({ model, value })))
    expect(each.every((r) => r.usage.tokens > 0)).toBe(true)
    const many = await embedMany({ model, values })
    expect(many.usage.tokens).toBe(each.reduce((sum, r) => sum + r.usage.tokens, 0))
  })

  it("gives no usage when a request reported none, rather than a partial sum", async () => {
    emu.inject("embeddings", embeddingsWithoutUsage, 1)
    const many = await embedMany({ model: umg.embeddingModel("text-embedding-3-small"), values: ["a fox", "a dog"] })
    expect(many.embeddings).toHaveLength(2)
    expect(many.usage.tokens).toBeNaN()
  })

  it("a rate-limited text is retried by umg after Retry-After, and the AI SDK sees the vectors", async () => {
    emu.inject("embeddings", { kind: "status", status: 429, headers: { "retry-after": "0" } }, 1)
    const { embeddings } = await embedMany({ model: umg.embeddingModel("text-embedding-3-small"), values: ["x", "y"] })
    expect(embeddings).toHaveLength(2)
    expect(proxy.requests.map((q) => q.status).sort()).toEqual([200, 200, 429])
  })
})

describe("umg/ai-sdk image model", () => {
  it("generateImage gets the image's bytes for an aspect ratio", async () => {
    const { image, usage } = await generateImage({
      model: umg.imageModel("zeta-2.5-flash-image"),
      prompt: "a cat",
      aspectRatio: "16:9"
    })
    expect(image.uint8Array.length).toBeGreaterThan(8)
    // The gateway's usage, which the emulator gives.
    expect(usage.totalTokens).toBeGreaterThan(0)
    expect(usage.totalTokens).toBe(usage.inputTokens! + usage.outputTokens!)
    expect(image.mediaType).toMatch(/^image\//)
    expect(JSON.parse(proxy.requests[0]!.body)).toMatchObject({ size: "16:9", response_format: "b64_json" })
  })
})

describe("umg/ai-sdk image model: what the answer says of its images", () => {
  it("gives the answer's size, quality, background and output format per image in providerMetadata.umg, as @ai-sdk/openai does", async () => {
    const png = (await generateImage({ model: umg.imageModel("zeta-2.5-flash-image"), prompt: "a cat" })).image
    emu.inject("images", {
      kind: "status",
      status: 200,
      body: {
        created: 1700000000,
        data: [{ b64_json: png.base64, revised_prompt: "a tabby cat" }, { b64_json: png.base64 }],
        size: "1024x1024",
        quality: "high",
        background: "opaque",
        output_format: "png"
      }
    })
    const { images, providerMetadata } = await generateImage({
      model: umg.imageModel("zeta-2.5-flash-image"),
      prompt: "a cat"
    })
    expect(images).toHaveLength(2)
    const facts = { size: "1024x1024", quality: "high", background: "opaque", outputFormat: "png" }
    expect(providerMetadata["umg"]).toEqual({ images: [{ revisedPrompt: "a tabby cat", ...facts }, facts] })
  })

  it("gives what the emulator's answer says (pixel size, png), and leaves out what it does not", async () => {
    const { providerMetadata } = await generateImage({
      model: umg.imageModel("zeta-2.5-flash-image"),
      prompt: "a cat",
      aspectRatio: "16:9"
    })
    expect(providerMetadata["umg"]).toEqual({ images: [{ size: "128x72", outputFormat: "png" }] })
  })
})

describe("umg/ai-sdk speech model", () => {
  it("generateSpeech gets the audio in the format asked for", async () => {
    const { audio } = await generateSpeech({
      model: umg.speechModel("gpt-4o-mini-tts"),
      text: "Hello",
      voice: "nova",
      outputFormat: "wav"
    })
    expect(new TextDecoder().decode(audio.uint8Array.slice(0, 4))).toBe("RIFF")
  })

  it("a voice the gateway does not have is refused before sending", async () => {
    const failure = await generateSpeech({ model: umg.speechModel("gpt-4o-mini-tts"), text: "Hi", voice: "bob" }).catch(
      (e: unknown) => e
    )
    expect(failure).toMatchObject({ name: "AI_InvalidArgumentError", argument: "voice" })
    expect(proxy.requests).toEqual([])
  })
})

describe("umg/ai-sdk reranking model", () => {
  it("rerank ranks the documents by relevance", async () => {
    const documents = ["a cat sat", "a car drove", "cats purr"]
    const { ranking, rerankedDocuments } = await rerank({
      model: umg.rerankingModel("rerank-v1"),
      query: "cat",
      documents,
      topN: 2
    })
    expect(ranking).toHaveLength(2)
    expect(ranking[0]!.score).toBeGreaterThanOrEqual(ranking[1]!.score)
    expect(rerankedDocuments.every((d) => documents.includes(d))).toBe(true)
  })

  it("a gateway error is an APICallError with the gateway's status, not retried by the AI SDK", async () => {
    emu.inject("rerank", {
      kind: "status",
      status: 400,
      body: { error: { message: "nope", type: "invalid_request_error" } }
    })
    const failure = await rerank({ model: umg.rerankingModel("rerank-v1"), query: "cat", documents: ["a"] }).catch(
      (e: unknown) => e
    )
    expect(APICallError.isInstance(failure)).toBe(true)
    expect([(failure as APICallError).statusCode, (failure as APICallError).isRetryable]).toEqual([400, false])
    expect(proxy.requests).toHaveLength(1)
  })
})
