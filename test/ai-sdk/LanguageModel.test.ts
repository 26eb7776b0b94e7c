import {
  APICallError,
  Output,
  generateObject,
  generateText,
  jsonSchema,
  stepCountIs,
  streamObject,
  streamText,
  tool
} from "ai"
import { inspect } from "node:util"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import * as z from "zod"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { type CountingProxy, startCountingProxy } from "./CountingProxy.js"
import { textFamilies } from "./Families.js"

// umg as an AI SDK provider, driven by the AI SDK's own functions against the emulator through a
// counting proxy: every text family umg routes to, answers and streams, multi-step tools, structured
// output through each family's mechanism, errors that the AI SDK does not retry on top of umg.
let emu: Emulator
let proxy: CountingProxy
let umg: UmgProvider
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  proxy = await startCountingProxy(emu.url)
  umg = createUmg({ baseURL: proxy.url, apiKey: emu.apiKey, retryBaseDelayMs: 1, retryMaxDelayMs: 5 })
})
afterAll(async () => {
  await umg.dispose()
  await proxy.close()
  await emu.close()
})
beforeEach(() => {
  proxy.reset()
  emu.counters.reset()
  emu.clearFaults()
})

const weather = tool({
  description: "Weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => Promise.resolve(`12 °C and windy in ${city}`)
})
const paint = z.object({ colour: z.string(), shade: z.number().int() })

describe.each(textFamilies)("umg/ai-sdk with a $name model", (family) => {
  const model = () => umg(family.model)

  it("generateText gets the text, finish reason, usage and the request id in one request", async () => {
    const r = await generateText({ model: model(), prompt: "Tell me about the sea." })
    expect(r.text).toMatch(/^\S+( \S+)+$/)
    expect(r.finishReason).toBe("stop")
    expect(r.usage.inputTokens).toBeGreaterThan(0)
    expect(r.usage.outputTokens).toBeGreaterThan(0)
    expect(r.providerMetadata?.["umg"]).toEqual({
      family: family.name === "messages-style" ? "messages" : family.name === "native content" ? "native" : family.name,
      requestId: expect.stringMatching(/^req_/)
    })
    expect(r.response.modelId).toEqual(expect.any(String))
    expect(proxy.requests.map((q) => q.status)).toEqual([200])
  })

  it("streamText streams the same text in several pieces, then the finish reason and usage", async () => {
    const whole = await generateText({ model: model(), prompt: "Tell me about the sea." })
    const errors: Array<unknown> = []
    const s = streamText({
      model: model(),
      prompt: "Tell me about the sea.",
      onError: ({ error }) => void errors.push(error)
    })
    const pieces: Array<string> = []
    for await (const piece of s.textStream) pieces.push(piece)
    expect(errors).toEqual([])
    expect(pieces.length).toBeGreaterThan(1)
    expect(pieces.join("")).toBe(whole.text)
    expect(await s.finishReason).toBe("stop")
    expect((await s.usage).outputTokens).toBeGreaterThan(0)
    expect((await s.providerMetadata)?.["umg"]?.["requestId"]).toMatch(/^req_/)
  })

  it("generateText runs tools over several steps: the call, then an answer built on its output", async () => {
    const r = await generateText({
      model: model(),
      prompt: "Weather in Paris?",
      tools: { weather },
      stopWhen: stepCountIs(3)
    })
    expect(r.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"])
    const call = r.steps[0]!.toolCalls[0]!
    expect(call.toolName).toBe("weather")
    expect(call.input).toEqual({ city: expect.any(String) })
    expect(r.text).toContain(`12 °C and windy in ${(call.input as { city: string }).city}`)
    expect(proxy.requests).toHaveLength(2)
  })

  it("streamText streams the tool call's arguments as they grow (tool-input-start, -delta, -end), over two steps", async () => {
    const errors: Array<unknown> = []
    const s = streamText({
      model: model(),
      prompt: "Weather in Paris?",
      tools: { weather },
      stopWhen: stepCountIs(3),
      onError: ({ error }) => void errors.push(error)
    })
    const kinds: Array<string> = []
    let argumentsText = ""
    for await (const part of s.fullStream) {
      kinds.push(part.type)
      if (part.type === "tool-input-delta") argumentsText += part.delta
    }
    expect(errors).toEqual([])
    const steps = await s.steps
    expect(steps.map((step) => step.finishReason)).toEqual(["tool-calls", "stop"])
    const start = kinds.indexOf("tool-input-start")
    expect(start).toBeGreaterThanOrEqual(0)
    expect(kinds.indexOf("tool-input-delta")).toBeGreaterThan(start)
    expect(kinds.indexOf("tool-input-end")).toBeGreaterThan(kinds.indexOf("tool-input-delta"))
    expect(kinds.indexOf("tool-call")).toBeGreaterThan(kinds.indexOf("tool-input-end"))
    expect(JSON.parse(argumentsText)).toEqual(steps[0]!.toolCalls[0]!.input)
    expect(await s.text).toContain("12 °C and windy in ")
  })

  it("generateObject and Output.object get a value of the schema through the family's structured output", async () => {
    const { object } = await generateObject({ model: model(), schema: paint, prompt: "Pick a paint." })
    expect(object).toEqual({ colour: expect.any(String), shade: expect.any(Number) })
    expect(Number.isInteger(object.shade)).toBe(true)
    const { output } = await generateText({
      model: model(),
      output: Output.object({ schema: paint }),
      prompt: "Pick a paint."
    })
    expect(paint.parse(output)).toEqual(output)
  })

  it.each([
    {
      api: "streamObject",
      stream: () => {
        const s = streamObject({ model: model(), schema: paint, prompt: "Pick a paint." })
        return { partials: s.partialObjectStream, whole: s.object }
      }
    },
    {
      // ai 7's replacement of streamObject.
      api: "streamText with Output.object",
      stream: () => {
        const s = streamText({ model: model(), output: Output.object({ schema: paint }), prompt: "Pick a paint." })
        return { partials: s.partialOutputStream, whole: s.output }
      }
    }
  ])("$api streams the value as it grows, then the whole value", async ({ stream }) => {
    const s = stream()
    const partials: Array<unknown> = []
    for await (const partial of s.partials) partials.push(partial)
    const whole = await s.whole
    expect(paint.parse(whole)).toEqual(whole)
    expect(partials.length).toBeGreaterThan(1)
    expect(partials[partials.length - 1]).toEqual(whole)
  })

  it("an object schema with optional fields decodes: the nulls strict mode sends for them are dropped", async () => {
    const card = z.object({ name: z.string(), nickname: z.string().optional(), age: z.number().int().optional() })
    const { object } = await generateObject({ model: model(), schema: card, prompt: "A person." })
    expect(card.parse(object)).toEqual(object)
    expect(Object.values(object)).not.toContain(null)
    const s = streamObject({ model: model(), schema: card, prompt: "A person." })
    const partials: Array<unknown> = []
    for await (const partial of s.partialObjectStream) partials.push(partial)
    const streamed = await s.object
    expect(card.parse(streamed)).toEqual(streamed)
    // Strict mode's nulls must be dropped before the AI SDK reads the text: it comes whole, at the end.
    expect(partials).toEqual([streamed])
  })

  it("abortSignal closes the stream's connection and ends the stream with the abort", async () => {
    emu.inject(family.streamRoute, { kind: "stall", afterEvents: family.someTextAfter })
    const controller = new AbortController()
    const cut = proxy.nextCut()
    const s = streamText({ model: model(), prompt: "Tell me about the sea.", abortSignal: controller.signal })
    const parts: Array<string> = []
    for await (const part of s.fullStream) {
      parts.push(part.type)
      if (part.type === "text-delta") controller.abort()
    }
    await cut
    expect(parts).toContain("text-delta")
    expect(parts[parts.length - 1]).toBe("abort")
    expect([proxy.cut(), proxy.requests.length]).toEqual([1, 1])
  })

  it("abortSignal closes a whole answer's connection and rejects with the signal's reason", async () => {
    emu.inject(family.route, { kind: "stall" })
    const controller = new AbortController()
    const cut = proxy.nextCut()
    const pending = generateText({ model: model(), prompt: "Hello", abortSignal: controller.signal }).catch(
      (e: unknown) => e
    )
    // Aborted once the request is on the wire (a fixed delay could pass before it is sent, and then
    // there is no connection to close).
    await vi.waitFor(() => expect(proxy.requests).toHaveLength(1), { timeout: 10_000 })
    controller.abort()
    const failure = await pending
    await cut
    expect(failure).toMatchObject({ name: "AbortError" })
    expect([proxy.cut(), proxy.requests.length]).toEqual([1, 1])
  })

  it("a wrong key is a 401 APICallError, not retryable, sent once although the AI SDK retries twice by default", async () => {
    const wrong = createUmg({ baseURL: proxy.url, apiKey: "wrong-key" })
    const failure = await generateText({ model: wrong(family.model), prompt: "Hello" }).catch((e: unknown) => e)
    await wrong.dispose()
    expect(APICallError.isInstance(failure)).toBe(true)
    const e = failure as APICallError
    expect([e.statusCode, e.isRetryable]).toEqual([401, false])
    expect(e.message).toMatch(/Invalid API key/)
    expect(e.data).toMatchObject({ umg: { error: "AuthenticationError" } })
    expect(proxy.requests.map((q) => q.status)).toEqual([401])
  })

  it("a server error is retried by umg only: 1 + maxRetries requests, then an APICallError the AI SDK does not retry", async () => {
    emu.inject(family.route, { kind: "status", status: 503 }, 10)
    const failure = await generateText({ model: model(), prompt: "Hello", maxRetries: 2 }).catch((e: unknown) => e)
    expect(APICallError.isInstance(failure)).toBe(true)
    expect((failure as APICallError).isRetryable).toBe(false)
    expect((failure as APICallError).statusCode).toBe(503)
    // umg's default maxRetries is 2: three attempts, not the nine of two retry loops stacked.
    expect(proxy.requests.map((q) => q.status)).toEqual([503, 503, 503])
  })
})

describe("umg/ai-sdk structured output with a chat model", () => {
  it("sends strict mode's null for an optional field, and the AI SDK reads the value without it", async () => {
    const card = z.object({ name: z.string(), nickname: z.string().optional(), age: z.number().int().optional() })
    const r = await generateObject({ model: umg("gpt-4o"), schema: card, prompt: "A person." })
    const raw = r.response.body as { choices: Array<{ message: { content: string } }> }
    expect(JSON.parse(raw.choices[0]!.message.content)).toMatchObject({ age: null })
    expect(r.object).not.toHaveProperty("age")
    expect(card.parse(r.object)).toEqual(r.object)
  })
})

describe("disposing a umg/ai-sdk provider", () => {
  it("aborts the stream in flight (its connection closes) and every call made afterwards", async () => {
    emu.inject("chat", { kind: "stall", afterEvents: 6 })
    const own = createUmg({ baseURL: proxy.url, apiKey: emu.apiKey })
    const cut = proxy.nextCut()
    const s = streamText({ model: own("gpt-4o"), prompt: "Tell me about the sea." })
    const parts: Array<string> = []
    const read = (async () => {
      for await (const part of s.fullStream) {
        parts.push(part.type)
        if (part.type === "text-delta" && parts.filter((p) => p === "text-delta").length === 1) void own.dispose()
      }
    })().catch((e: unknown) => e)
    await cut
    await read
    expect(parts).toContain("text-delta")
    const after = await generateText({ model: own("gpt-4o"), prompt: "Hi" }).catch((e: unknown) => e)
    expect(after).toMatchObject({ name: "AbortError", message: "The umg provider was disposed." })
    expect(proxy.requests).toHaveLength(1)
  })

  it("aborts an answer in flight (its connection closes) with the disposal's reason", async () => {
    // The answer's headers come, its body never does.
    emu.inject("chat", { kind: "stall" })
    const own = createUmg({ baseURL: proxy.url, apiKey: emu.apiKey, maxRetries: 0 })
    const cut = proxy.nextCut()
    const answer = generateText({ model: own("gpt-4o"), prompt: "Hi", maxRetries: 0 }).catch((e: unknown) => e)
    await vi.waitFor(() => expect(proxy.requests).toHaveLength(1), { timeout: 10_000 })
    await own.dispose()
    await cut
    expect(await answer).toMatchObject({ name: "AbortError", message: "The umg provider was disposed." })
  })
})

describe("umg/ai-sdk files given by URL", () => {
  // An address nothing answers at: a download of it fails, so a URL that reaches the gateway was sent as one.
  const image = new URL("http://127.0.0.1:9/cat.png")
  const pdf = new URL("http://127.0.0.1:9/report.pdf")
  const ask = (model: string, ...files: ReadonlyArray<{ readonly url: URL; readonly mediaType: string }>) =>
    generateText({
      model: umg(model),
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in these?" },
            ...files.map((f) => ({ type: "file" as const, data: f.url, mediaType: f.mediaType }))
          ]
        }
      ]
    })

  it.each([
    ["epsilon-sonnet-4-5-20250929", [image, pdf]],
    ["gpt-5", [image, pdf]],
    ["gpt-4o", [image]]
  ] as const)("%s takes them as URLs: the AI SDK leaves them to the gateway", async (model, urls) => {
    const files = urls.map((url) => ({ url, mediaType: url === pdf ? "application/pdf" : "image/png" }))
    const r = await ask(model, ...files)
    expect(r.text.length).toBeGreaterThan(0)
    const sent = proxy.requests.map((q) => q.body).join("\n")
    for (const url of urls) expect(sent).toContain(url.href)
  })

  it("a chat model's PDF, and a native model's image, are downloaded by the AI SDK (their bodies take no URL)", async () => {
    for (const [model, file] of [
      ["gpt-4o", { url: pdf, mediaType: "application/pdf" }],
      ["zeta-2.5-flash", { url: image, mediaType: "image/png" }]
    ] as const) {
      const failure = await ask(model, file).catch((e: unknown) => e)
      expect(failure).toMatchObject({ name: "AI_DownloadError" })
    }
    expect(proxy.requests).toEqual([])
  })
})

describe("umg/ai-sdk refusals before sending", () => {
  it("a temperature outside the family's range is an InvalidArgumentError and sends nothing", async () => {
    const failure = await generateText({
      model: umg("epsilon-sonnet-4-5-20250929"),
      prompt: "Hi",
      temperature: 1.5
    }).catch((e: unknown) => e)
    expect(failure).toMatchObject({ name: "AI_InvalidArgumentError", argument: "temperature" })
    expect(proxy.requests).toEqual([])
  })

  it("a model of no text family is refused by languageModel with a NoSuchModelError", () => {
    expect(() => umg.languageModel("text-embedding-3-small")).toThrow(/not a text model/)
  })

  it("a model the catalog lists for another capability is a NoSuchModelError from the other model makers too", () => {
    const refusals = [
      [() => umg.embeddingModel("gpt-4o"), "embeddingModel", "is a chat model"],
      [() => umg.rerankingModel("text-embedding-3-small"), "rerankingModel", "is an embedding model"],
      [() => umg.speechModel("rerank-v1"), "speechModel", "is a rerank model"],
      [() => umg.imageModel("gpt-4o"), "imageModel", "is a chat model"]
    ] as const
    for (const [make, modelType, said] of refusals) {
      const thrown = (() => {
        try {
          make()
        } catch (e) {
          return e
        }
        return undefined
      })()
      expect(thrown).toMatchObject({ name: "AI_NoSuchModelError", modelType })
      expect((thrown as Error).message).toContain(said)
    }
    // An id the catalog does not know is left to the call (allowUnknownModels decides there).
    expect(umg.embeddingModel("embed-from-tomorrow").modelId).toBe("embed-from-tomorrow")
    expect(proxy.requests).toEqual([])
  })

  it("a JSON Schema that accepts any value cannot be sent for structured output", async () => {
    const failure = await generateObject({
      model: umg("gpt-4o"),
      schema: jsonSchema({ type: "object", properties: { anything: {} }, required: ["anything"] }),
      prompt: "x"
    }).catch((e: unknown) => e)
    expect(failure).toMatchObject({ name: "AI_InvalidArgumentError", argument: "responseFormat.schema" })
    expect(String((failure as Error).message)).toContain("/properties/anything")
    expect(proxy.requests).toEqual([])
  })
})

afterEach(() => emu.clearFaults())

describe.each(textFamilies)("a $name stream cut mid-way", (family) => {
  it("ends the AI SDK stream with an APICallError whose cause is umg's IncompleteStream, with no key in it", async () => {
    emu.inject(family.streamRoute, { kind: "sse-cut", afterEvents: family.someTextAfter })
    // Straight to the emulator: the counting proxy keeps its side of a cut connection open.
    const direct = createUmg({ baseURL: emu.url, apiKey: emu.apiKey })
    try {
      const s = streamText({ model: direct(family.model), prompt: "Tell me about the sea.", onError: () => undefined })
      let failure: unknown
      for await (const part of s.fullStream) if (part.type === "error") failure = part.error
      expect(APICallError.isInstance(failure)).toBe(true)
      const error = failure as APICallError
      expect([error.isRetryable, error.data]).toEqual([
        false,
        { umg: { error: "IncompleteStream", family: expect.any(String) } }
      ])
      expect(error.cause).toMatchObject({ _tag: "IncompleteStream", reason: "cut" })
      expect(`${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 8 })}`).not.toContain(emu.apiKey)
    } finally {
      await direct.dispose()
    }
  })
})
