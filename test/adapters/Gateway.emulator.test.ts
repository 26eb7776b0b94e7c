import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ConfigProvider, Effect, Layer, Result, Stream } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
})

const layerFor = (over: Partial<GatewayConfigInput> = {}) =>
  Gateway.layer({
    baseUrl: emu.url,
    apiKey: emu.apiKey,
    platformUrl: emu.platformUrl,
    platformUsername: emu.platform.username,
    platformPassword: emu.platform.password,
    retryBaseDelayMs: 10,
    retryMaxDelayMs: 40,
    minPollIntervalMs: 50,
    ...over
  })

const run = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}): Promise<A> =>
  Effect.runPromise(Effect.provide(effect, layerFor(over)) as Effect.Effect<A, E>)
const fail = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}): Promise<E> =>
  Effect.runPromise(Effect.flip(Effect.provide(effect, layerFor(over)) as Effect.Effect<A, E>))

const EPSILON = "epsilon-sonnet-4-5-20250929"
const hello = { model: EPSILON, max_tokens: 64, messages: [{ role: "user" as const, content: "Hello" }] }

describe("Gateway against the emulator", () => {
  it("creates a message", async () => {
    const message = await run(Effect.flatMap(Gateway, (g) => g.messages.create(hello)))
    expect(message.role).toBe("assistant")
    expect(message.content.length).toBeGreaterThan(0)
  })

  it("streams a message to message_stop", async () => {
    const events = await run(Effect.flatMap(Gateway, (g) => Stream.runCollect(g.messages.stream(hello))))
    const types = events.map((e) => e.type)
    expect(types[0]).toBe("message_start")
    expect(types.at(-1)).toBe("message_stop")
    expect(types).not.toContain("ping")
  })

  it("counts tokens", async () => {
    const count = await run(
      Effect.flatMap(Gateway, (g) => g.messages.countTokens({ model: EPSILON, messages: hello.messages }))
    )
    expect(count.input_tokens).toBeGreaterThan(0)
  })

  it("never sends a body the core refuses", async () => {
    emu.counters.reset()
    const error = await fail(Effect.flatMap(Gateway, (g) => g.messages.create({ ...hello, max_tokens: 0 })))
    expect(error._tag).toBe("InvalidRequest")
    expect(emu.counters.snapshot()).toEqual({})
  })

  it("maps a wrong key to AuthenticationError on messages and on count_tokens", async () => {
    const e1 = await fail(
      Effect.flatMap(Gateway, (g) => g.messages.create(hello)),
      { apiKey: "wrong-key" }
    )
    expect(e1).toMatchObject({
      _tag: "AuthenticationError",
      status: 401,
      family: "messages",
      type: "authentication_error"
    })
    const e2 = await fail(
      Effect.flatMap(Gateway, (g) => g.messages.countTokens({ model: EPSILON, messages: hello.messages })),
      { apiKey: "wrong-key" }
    )
    expect(e2).toMatchObject({ _tag: "AuthenticationError", family: "count_tokens" })
    expect(JSON.stringify(e1) + JSON.stringify(e2)).not.toContain("wrong-key")
  })

  for (const nativeAuth of ["bearer", "x-vendor-api-key", "query"] as const) {
    it(`generates native content with ${nativeAuth} auth`, async () => {
      const response = await run(
        Effect.flatMap(Gateway, (g) =>
          g.native.generate({ model: "zeta-2.5-pro", contents: [{ role: "user", parts: [{ text: "Hi" }] }] })
        ),
        { nativeAuth }
      )
      expect(response.candidates?.[0]?.content?.parts?.length).toBeGreaterThan(0)
    })
  }

  it("streams native content until every candidate finished", async () => {
    const chunks = await run(
      Effect.flatMap(Gateway, (g) =>
        Stream.runCollect(
          g.native.stream({ model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: "Hi" }] }] })
        )
      )
    )
    expect(chunks.length).toBeGreaterThan(0)
    expect(chunks.some((c) => c.candidates?.some((k) => k.finishReason !== undefined))).toBe(true)
  })

  it("maps a native 404 to NotFound with the native status name", async () => {
    emu.inject("native.generate", { kind: "status", status: 404 })
    const error = await fail(
      Effect.flatMap(Gateway, (g) =>
        g.native.generate({ model: "zeta-2.5-pro", contents: [{ role: "user", parts: [{ text: "Hi" }] }] })
      )
    )
    expect(error).toMatchObject({ _tag: "NotFound", family: "native", status: 404, type: "NOT_FOUND" })
  })

  it("creates and streams a chat completion", async () => {
    const body = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Hi" }] }
    const completion = await run(Effect.flatMap(Gateway, (g) => g.chat.create(body)))
    expect(completion.choices[0]?.message.content).toMatch(/\S/)
    const events = await run(Effect.flatMap(Gateway, (g) => Stream.runCollect(g.chat.stream(body))))
    expect(events.at(-1)?.type).toBe("done")
  })

  it("creates and streams a response", async () => {
    const body = { model: "gpt-5", max_output_tokens: 64, input: [{ role: "user" as const, content: "Hi" }] }
    const response = await run(Effect.flatMap(Gateway, (g) => g.responses.create(body)))
    expect(response.status).toBe("completed")
    const events = await run(Effect.flatMap(Gateway, (g) => Stream.runCollect(g.responses.stream(body))))
    expect(events.at(-1)?.type).toBe("response.completed")
  })

  it("embeds one text", async () => {
    const result = await run(
      Effect.flatMap(Gateway, (g) => g.embeddings.create({ model: "text-embedding-3-small", input: "hello" }))
    )
    expect(result.data[0]?.embedding.length).toBe(1536)
  })

  it("embeds many texts in input order, through 429s, without dropping any", async () => {
    const inputs = Array.from({ length: 12 }, (_, i) => `text number ${i}`)
    const one = await run(
      Effect.flatMap(Gateway, (g) => g.embeddings.create({ model: "text-embedding-3-small", input: inputs[5]! }))
    )
    emu.counters.reset()
    emu.inject("embeddings", { kind: "status", status: 429, headers: { "retry-after-ms": "20" } }, 6)
    const vectors = await run(
      Effect.flatMap(Gateway, (g) =>
        g.embeddings.embedMany({ model: "text-embedding-3-small", inputs, concurrency: 4 })
      )
    )
    expect(vectors.length).toBe(12)
    expect(Array.from(vectors[5]!)).toEqual(Array.from(one.data[0]!.embedding))
    expect(emu.counters.get("embeddings")).toBe(12)
    expect(emu.counters.get("embeddings.rejected")).toBe(6)
  })

  it("reranks documents", async () => {
    const result = await run(
      Effect.flatMap(Gateway, (g) =>
        g.rerank.create({ model: "rerank-v1", query: "cat", documents: ["a cat", "a car"] })
      )
    )
    expect(result.results.length).toBe(2)
  })

  it("synthesises speech as bytes with a content type, and as a byte stream", async () => {
    const body = { model: "gpt-4o-mini-tts", input: "Hello", voice: "alloy" as const, response_format: "wav" as const }
    const audio = await run(Effect.flatMap(Gateway, (g) => g.speech.create(body)))
    expect(audio.bytes.length).toBeGreaterThan(44)
    expect(audio.contentType).toContain("audio/")
    const chunks = await run(Effect.flatMap(Gateway, (g) => Stream.runCollect(g.speech.stream(body))))
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(audio.bytes.length)
  })

  it("generates images as decoded bytes", async () => {
    const result = await run(
      Effect.flatMap(Gateway, (g) =>
        g.images.generate({ model: "zeta-2.5-flash-image", prompt: "a cat", response_format: "b64_json" })
      )
    )
    expect(result.images[0]?.bytes.length).toBeGreaterThan(0)
  })

  it("lists models in all three formats, normalised", async () => {
    for (const format of ["openai", "messages", "native"] as const) {
      const models = await run(Effect.flatMap(Gateway, (g) => g.models.list({ format })))
      expect(models.length).toBeGreaterThan(0)
      expect(Object.keys(models[0]!).sort()).toEqual(["created", "id", "object", "owned_by"])
    }
  })

  it("fails fast with ModelNotAvailable for a model the key cannot use, asking the gateway once", async () => {
    emu.counters.reset()
    const error = await run(
      Effect.flatMap(Gateway, (g) => Effect.andThen(g.models.has(EPSILON), Effect.flip(g.models.has("no-such-model"))))
    )
    expect(error).toMatchObject({ _tag: "ModelNotAvailable", model: "no-such-model" })
    expect(emu.counters.get("models")).toBe(1)
  })

  it("generates an alpha video: submit, status changes once each, download checked", async () => {
    const result = await run(
      Effect.flatMap(Gateway, (g) =>
        Effect.gen(function* () {
          const submitted = yield* g.video.submit({ model: "alpha-2", prompt: "a calm sea" })
          const statuses = yield* Stream.runCollect(g.video.poll(submitted.task_id, { intervalMs: 50 }))
          const video = yield* g.video.download(submitted.task_id)
          return { statuses: statuses.map((s) => s.status), video }
        })
      )
    )
    expect(result.statuses.at(-1)).toBe("succeeded")
    expect(new Set(result.statuses).size).toBe(result.statuses.length)
    expect(result.video.bytes.length).toBe(result.video.size)
  })

  it("generates a gamma video with its url", async () => {
    const video = await run(
      Effect.flatMap(Gateway, (g) =>
        g.video.generate({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }, { intervalMs: 50 })
      )
    )
    expect(video.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\S+\.mp4$/)
    expect(video.download).toBeUndefined()
  })

  it("fails a rejected video task with VideoTaskFailed", async () => {
    const error = await fail(
      Effect.flatMap(Gateway, (g) =>
        g.video.generate({ model: "gamma2.5-t2v-preview", prompt: "something inappropriate" }, { intervalMs: 50 })
      )
    )
    expect(error).toMatchObject({ _tag: "VideoTaskFailed", family: "video" })
  })

  it("times out a poll that does not finish in time", async () => {
    const error = await fail(
      Effect.flatMap(Gateway, (g) =>
        Effect.flatMap(g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }), (t) =>
          Stream.runDrain(g.video.poll(t.task_id, { intervalMs: 50, timeoutMs: 60 }))
        )
      )
    )
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "poll" })
  })

  it("rejects a download whose size does not match its bytes", async () => {
    const b64 = Buffer.from("not really a video").toString("base64")
    emu.inject("video.download", {
      kind: "status",
      status: 200,
      body: {
        success: true,
        generation_id: "video_x",
        task_id: "video_x",
        format: "mp4",
        size: 999,
        base64: b64,
        data_url: `data:video/mp4;base64,${b64}`
      }
    })
    const error = await fail(Effect.flatMap(Gateway, (g) => g.video.download("video_x")))
    expect(error._tag).toBe("DecodeError")
  })

  it("refuses an answer for another task than the one asked (E2 task_id, E3 generation_id), naming both ids", async () => {
    const other = 'is "video_OTHER", not the requested "video_mine": the answer is for another task'
    emu.inject("video.get", {
      kind: "status",
      status: 200,
      body: { task_id: "video_OTHER", status: "succeeded", format: "mp4", url: "https://cdn.test/other.mp4" }
    })
    expect(await fail(Effect.flatMap(Gateway, (g) => g.video.get("video_mine")))).toMatchObject({
      _tag: "DecodeError",
      what: "video task",
      message: `video task: task_id ${other}`
    })
    const b64 = Buffer.from("another task's video").toString("base64")
    const result = {
      success: true,
      generation_id: "video_OTHER",
      task_id: "video_OTHER",
      format: "mp4",
      size: Buffer.from(b64, "base64").length,
      base64: b64,
      data_url: `data:video/mp4;base64,${b64}`
    }
    emu.inject("video.download", { kind: "status", status: 200, body: result })
    expect(await fail(Effect.flatMap(Gateway, (g) => g.video.download("video_mine")))).toMatchObject({
      _tag: "DecodeError",
      message: `generation_id ${other}`
    })
    // Streamed, the id is checked whether it comes before the video or after it.
    const { generation_id, ...rest } = result
    for (const body of [result, { ...rest, generation_id }]) {
      emu.inject("video.download", {
        kind: "status",
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      expect(
        await fail(Effect.flatMap(Gateway, (g) => Stream.runDrain(g.video.downloadStream("video_mine"))))
      ).toMatchObject({ _tag: "DecodeError", message: `generation_id ${other}` })
    }
  })

  it("refuses a restricted key alpha with 400 and a hidden model with 404", async () => {
    const key = emu.restrictedKey!
    const alpha = await fail(
      Effect.flatMap(Gateway, (g) => g.video.submit({ model: "alpha-2", prompt: "x" })),
      { apiKey: key }
    )
    expect(alpha).toMatchObject({ _tag: "BadRequest", status: 400 })
    expect(alpha.message).toContain("invalid api platform: 3")
    const beta = await fail(
      Effect.flatMap(Gateway, (g) => g.video.submit({ model: "beta-3.0-generate-preview", prompt: "x" })),
      { apiKey: key, allowUnknownModels: true }
    )
    expect(beta).toMatchObject({ status: 404 })
  })

  it("runs the platform calls with the E7 token", async () => {
    const out = await run(
      Effect.flatMap(Gateway, (g) =>
        Effect.all({
          t2v: g.platform.textToVideo({
            model: "delta-1-0-lite-t2v-250428",
            prompt: "a sea",
            duration: "5",
            aspect_ratio: "16:9"
          }),
          easy: g.platform.anyShootEasy({ size: "512x512", contents: [{ parts: [{ text: "a cat" }] }] }),
          advanced: g.platform.anyShootAdvanced({
            productImageUrl: "https://x.test/p.png",
            productMaskUrl: "https://x.test/pm.png",
            templateImageUrl: "https://x.test/t.png",
            templateMaskUrl: "https://x.test/tm.png"
          })
        })
      )
    )
    expect(out.t2v.task_id).toMatch(/^ptask_[0-9a-f]{24}$/)
    expect(out.easy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/images\/\S+\.png$/)
    expect(out.advanced).toMatch(/^ptask_[0-9a-f]{24}$/)
    expect(out.advanced).not.toBe(out.t2v.task_id)
  })

  it("gives a chat stream's final answer the shape of the non-streaming answer (refusal and logprobs null)", async () => {
    const body = { model: "gpt-4o", messages: [{ role: "user" as const, content: "Hello" }] }
    const [created, streamed] = await run(
      Effect.flatMap(Gateway, (g) =>
        Effect.all([g.chat.create(body), runToFinal(g.chat.stream(body), () => Effect.void)])
      )
    )
    const shape = (c: typeof created) => [Object.keys(c.choices[0]!).sort(), Object.keys(c.choices[0]!.message).sort()]
    expect(shape(streamed)).toEqual(shape(created))
    expect(streamed.choices[0]).toMatchObject({ logprobs: null, message: { refusal: null } })
  })

  it("fails a platform call with wrong credentials without leaking the password", async () => {
    const error = await fail(
      Effect.flatMap(Gateway, (g) =>
        g.platform.anyShootEasy({ size: "512x512", contents: [{ parts: [{ text: "a cat" }] }] })
      ),
      {
        platformPassword: "hunter2-wrong"
      }
    )
    expect(error._tag).toBe("AuthenticationError")
    expect(JSON.stringify(error) + String(error)).not.toContain("hunter2-wrong")
  })
})

describe("Gateway.layerFromEnv", () => {
  it("fails at start naming UMG_API_KEY when the key is missing", async () => {
    const provider = ConfigProvider.fromEnv({ env: { UMG_BASE_URL: "http://x.test" } })
    const result = await Effect.runPromise(
      Effect.result(Effect.provide(Gateway, Layer.provide(Gateway.layerFromEnv, ConfigProvider.layer(provider))))
    )
    expect(Result.isFailure(result)).toBe(true)
    if (Result.isFailure(result)) expect(String(result.failure)).toContain("UMG_API_KEY")
  })
})
