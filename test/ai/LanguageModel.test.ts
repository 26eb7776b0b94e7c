import { Duration, Effect, ExecutionPlan, Layer, Schema, Stream } from "effect"
import { AiError, Chat, EmbeddingModel, LanguageModel, Model, Tool, Toolkit } from "effect/ai"
import { inspect } from "node:util"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { UmgEmbeddingModel, UmgLanguageModel } from "../../src/ai/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { type CountingProxy, startCountingProxy, embeddingsWithoutUsage } from "../ai-sdk/CountingProxy.js"
import { textFamilies } from "../ai-sdk/Families.js"

// umg as an Effect AI provider, driven by `effect/ai`'s own API against the emulator through a
// counting proxy: LanguageModel's generateText, streamText and generateObject, a Chat with a Toolkit
// over several tool steps, EmbeddingModel.embedMany, AiError reasons, and an ExecutionPlan fallback.
let emu: Emulator
let proxy: CountingProxy
let gateway: Layer.Layer<Gateway>
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  proxy = await startCountingProxy(emu.url)
  gateway = Gateway.layer({ baseUrl: proxy.url, apiKey: emu.apiKey, retryBaseDelayMs: 1, retryMaxDelayMs: 5 })
})
afterAll(async () => {
  await proxy.close()
  await emu.close()
})
beforeEach(() => {
  proxy.reset()
  emu.clearFaults()
})

const run = <A, E>(effect: Effect.Effect<A, E, LanguageModel.LanguageModel>, model: string): Promise<A> =>
  Effect.runPromise(Effect.provide(effect, UmgLanguageModel.layer({ model }).pipe(Layer.provide(gateway))))

const Weather = Tool.make("weather", {
  description: "Weather of a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String
})
const Tools = Toolkit.make(Weather)
const ToolsLayer = Tools.toLayer({ weather: ({ city }) => Effect.succeed(`12 °C and windy in ${city}`) })

const Paint = Schema.Struct({ colour: Schema.String, shade: Schema.Int })

describe.each(textFamilies)("umg/ai with a $name model", (family) => {
  it("LanguageModel.generateText gets the text, the finish reason, usage and the request id", async () => {
    const r = await run(LanguageModel.generateText({ prompt: "Tell me about the sea." }), family.model)
    expect(r.text).toMatch(/^\S+( \S+)+$/)
    expect(r.finishReason).toBe("stop")
    expect(r.usage.inputTokens.total).toBeGreaterThan(0)
    expect(r.usage.outputTokens.total).toBeGreaterThan(0)
    const finish = r.content.find((p) => p.type === "finish")
    expect(finish?.metadata["umg"]).toMatchObject({ requestId: expect.stringMatching(/^req_/) })
    expect(proxy.requests.map((q) => q.status)).toEqual([200])
  })

  it("LanguageModel.streamText streams the same text in several deltas, then the finish part", async () => {
    const whole = await run(LanguageModel.generateText({ prompt: "Tell me about the sea." }), family.model)
    const parts = await run(
      Stream.runCollect(LanguageModel.streamText({ prompt: "Tell me about the sea." })),
      family.model
    )
    const deltas = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : []))
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join("")).toBe(whole.text)
    const finish = parts.find((p) => p.type === "finish")
    expect(finish).toMatchObject({ reason: "stop" })
  })

  it("LanguageModel.generateObject gets a value of the schema through the family's structured output", async () => {
    const r = await run(LanguageModel.generateObject({ prompt: "Pick a paint.", schema: Paint }), family.model)
    expect(Schema.decodeUnknownSync(Paint)(r.value)).toEqual(r.value)
    const Card = Schema.Struct({ name: Schema.String, age: Schema.optionalKey(Schema.Int) })
    const card = await run(LanguageModel.generateObject({ prompt: "A person.", schema: Card }), family.model)
    expect(Schema.decodeUnknownSync(Card)(card.value)).toEqual(card.value)
  })

  it("a Chat with a Toolkit runs the tool over several steps, then answers with its output", async () => {
    const program = Effect.gen(function* () {
      const chat = yield* Chat.fromPrompt([{ role: "user", content: "Weather in Paris?" }])
      const toolkit = yield* Tools
      const steps: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const response = yield* chat.generateText({ prompt: [], toolkit })
        steps.push(response.finishReason)
        if (response.toolCalls.length === 0) return { steps, text: response.text, results: [] as Array<unknown> }
        expect(response.toolCalls[0]).toMatchObject({ name: "weather", params: { city: expect.any(String) } })
      }
      return { steps, text: "", results: [] }
    }).pipe(Effect.provide(ToolsLayer))
    const r = await run(program, family.model)
    expect(r.steps).toEqual(["tool-calls", "stop"])
    expect(r.text).toContain("12 °C and windy in ")
    expect(proxy.requests).toHaveLength(2)
  })

  it("LanguageModel.streamText streams a tool call's parameters as they grow, then the call and its result", async () => {
    const parts = await run(
      Stream.runCollect(
        LanguageModel.streamText({ prompt: "Weather in Paris?", toolkit: Tools }).pipe(Stream.provide(ToolsLayer))
      ),
      family.model
    )
    const kinds = parts.map((p) => p.type)
    expect(kinds.indexOf("tool-params-start")).toBeGreaterThanOrEqual(0)
    expect(kinds.indexOf("tool-params-delta")).toBeGreaterThan(kinds.indexOf("tool-params-start"))
    expect(kinds.indexOf("tool-params-end")).toBeGreaterThan(kinds.indexOf("tool-params-delta"))
    const result = parts.find((p) => p.type === "tool-result")
    expect(result).toMatchObject({ name: "weather", result: expect.stringContaining("12 °C and windy in ") })
  })

  it("a wrong key is an AiError with an AuthenticationError reason and the gateway's request id", async () => {
    const wrong = UmgLanguageModel.layer({ model: family.model }).pipe(
      Layer.provide(Gateway.layer({ baseUrl: proxy.url, apiKey: "wrong-key" }))
    )
    const error = await Effect.runPromise(
      LanguageModel.generateText({ prompt: "Hello" }).pipe(Effect.flip, Effect.provide(wrong))
    )
    expect(AiError.isAiError(error)).toBe(true)
    const reason = error.reason
    expect(reason._tag).toBe("AuthenticationError")
    expect(reason.isRetryable).toBe(false)
    expect(reason._tag === "AuthenticationError" && reason.metadata).toMatchObject({
      umg: { status: 401, requestId: expect.any(String) }
    })
    expect(proxy.requests).toHaveLength(1)
  })

  it("a stream cut mid-way is a NetworkError whose cause is umg's IncompleteStream, with no key in it", async () => {
    emu.inject(family.streamRoute, { kind: "sse-cut", afterEvents: family.someTextAfter })
    // Straight to the emulator: the counting proxy keeps its side of a cut connection open.
    const direct = UmgLanguageModel.layer({ model: family.model }).pipe(
      Layer.provide(Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey }))
    )
    const error = await Effect.runPromise(
      LanguageModel.streamText({ prompt: "Tell me about the sea." }).pipe(
        Stream.runDrain,
        Effect.flip,
        Effect.provide(direct)
      )
    )
    expect(AiError.isAiError(error)).toBe(true)
    const reason = error.reason
    expect(reason._tag).toBe("NetworkError")
    expect(reason._tag === "NetworkError" && [reason.reason, reason.method, reason.url]).toEqual([
      "TransportError",
      "POST",
      expect.stringMatching(/^\/v1/)
    ])
    expect(reason._tag === "NetworkError" && reason.cause).toMatchObject({
      _tag: "IncompleteStream",
      reason: "cut",
      family: expect.any(String)
    })
    expect(`${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 8 })}`).not.toContain(emu.apiKey)
  })

  it("a stream that ends before its final event stays an InvalidResponseError", async () => {
    emu.inject(family.streamRoute, { kind: "sse-no-final" })
    const error = await run(
      LanguageModel.streamText({ prompt: "Tell me about the sea." }).pipe(Stream.runDrain, Effect.flip),
      family.model
    )
    expect(error.reason._tag).toBe("InvalidResponseError")
  })

  it("a 429 past umg's retries is a RateLimitError that keeps Retry-After", async () => {
    emu.inject(family.route, { kind: "status", status: 429, headers: { "retry-after": "90" } }, 1)
    const error = await run(LanguageModel.generateText({ prompt: "Hello" }).pipe(Effect.flip), family.model)
    expect(error.reason._tag).toBe("RateLimitError")
    // 90 s is past umg's longest wait (maxRetryAfterMs 60 s): no retry, the wait handed on.
    expect(error.retryAfter && Duration.toMillis(error.retryAfter)).toBe(90_000)
    expect(proxy.requests).toHaveLength(1)
  })
})

describe("umg/ai EmbeddingModel", () => {
  it("EmbeddingModel.embedMany gets one vector per text, in order; embed calls made together are batched", async () => {
    const layer = UmgEmbeddingModel.layer({ model: "text-embedding-3-small" }).pipe(Layer.provide(gateway))
    const texts = ["a fox", "a dog", "a cat"]
    const many = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(EmbeddingModel.EmbeddingModel, (m) => m.embedMany(texts)),
        layer
      )
    )
    expect(many.embeddings.map((e) => e.vector.length)).toEqual([1536, 1536, 1536])
    const one = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(EmbeddingModel.EmbeddingModel, (m) =>
          Effect.all(
            texts.map((t) => m.embed(t)),
            { concurrency: 3 }
          )
        ),
        layer
      )
    )
    expect(one.map((e) => e.vector)).toEqual(many.embeddings.map((e) => e.vector))
    expect(proxy.requests.filter((q) => q.path === "/v1/embeddings")).toHaveLength(6)
  })

  it("EmbeddingModel.embedMany's usage is the input tokens its requests reported, summed", async () => {
    const layer = UmgEmbeddingModel.layer({ model: "text-embedding-3-small" }).pipe(Layer.provide(gateway))
    const usageOf = (texts: ReadonlyArray<string>) =>
      Effect.runPromise(
        Effect.provide(
          Effect.flatMap(EmbeddingModel.EmbeddingModel, (m) => m.embedMany(texts)),
          layer
        )
      ).then((r) => r.usage.inputTokens)
    const each = await Promise.all(["a fox", "a dog", "a cat"].map((t) => usageOf([t])))
    expect(each.every((n) => typeof n === "number" && n > 0)).toBe(true)
    expect(await usageOf(["a fox", "a dog", "a cat"])).toBe(each.reduce((a, b) => a! + b!, 0))
  })

  it("EmbeddingModel.embedMany's usage is unknown when a request reported none (no partial sum)", async () => {
    emu.inject("embeddings", embeddingsWithoutUsage, 1)
    const layer = UmgEmbeddingModel.layer({ model: "text-embedding-3-small" }).pipe(Layer.provide(gateway))
    const r = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(EmbeddingModel.EmbeddingModel, (m) => m.embedMany(["a fox", "a dog"])),
        layer
      )
    )
    expect(r.embeddings).toHaveLength(2)
    expect(r.usage.inputTokens).toBeUndefined()
  })
})

describe("umg/ai with an ExecutionPlan", () => {
  it("falls back from a messages-style model that keeps failing to a chat model", async () => {
    emu.inject("messages", { kind: "status", status: 503 }, 10)
    const plan = ExecutionPlan.make(
      { provide: UmgLanguageModel.model("epsilon-sonnet-4-5-20250929"), attempts: 1 },
      { provide: UmgLanguageModel.model("gpt-4o") }
    )
    const program = Effect.gen(function* () {
      const response = yield* LanguageModel.generateText({ prompt: "Tell me about the sea." })
      return { text: response.text, model: yield* Model.ModelName }
    }).pipe(Effect.withExecutionPlan(plan), Effect.provide(gateway))
    const r = await Effect.runPromise(program)
    expect(r.model).toBe("gpt-4o")
    expect(r.text.length).toBeGreaterThan(0)
    // umg retried the messages-style model itself (three attempts), then the plan moved on.
    expect(proxy.requests.map((q) => `${q.path} ${q.status}`)).toEqual([
      "/v1/messages 503",
      "/v1/messages 503",
      "/v1/messages 503",
      "/v1/chat/completions 200"
    ])
  })
})

describe("one Effect AI program, any family", () => {
  it("runs unchanged with UmgLanguageModel.layer of a model of each family, where another provider's layer went", async () => {
    // Written against `LanguageModel` only, as for `OpenAiLanguageModel.layer`.
    const program = Effect.gen(function* () {
      const answer = yield* LanguageModel.generateText({ prompt: "Tell me about the sea." })
      const paint = yield* LanguageModel.generateObject({ prompt: "Pick a paint.", schema: Paint })
      const streamed = yield* LanguageModel.streamText({ prompt: "Tell me about the sea." }).pipe(
        Stream.runFold(
          () => "",
          (text, part) => (part.type === "text-delta" ? text + part.delta : text)
        )
      )
      return { same: answer.text === streamed, shade: Number.isInteger(paint.value.shade) }
    })
    for (const family of textFamilies) {
      const layer = UmgLanguageModel.layer({ model: family.model }).pipe(Layer.provide(gateway))
      expect(await Effect.runPromise(Effect.provide(program, layer))).toEqual({ same: true, shade: true })
    }
  })
})

describe("umg/ai reasoning", () => {
  it("gives a messages-style model's thinking as a reasoning part, its signature in metadata.umg", async () => {
    const layer = UmgLanguageModel.layer({ model: "epsilon-sonnet-4-5-20250929", config: { reasoning: "low" } }).pipe(
      Layer.provide(gateway)
    )
    const r = await Effect.runPromise(
      Effect.provide(LanguageModel.generateText({ prompt: "Tell me about the sea." }), layer)
    )
    const reasoning = r.content.find((p) => p.type === "reasoning")
    expect(reasoning?.text).toMatch(/\S/)
    expect(reasoning?.metadata["umg"]).toEqual({ signature: expect.any(String) })
    expect(r.text).toMatch(/\S/)
    const sent = JSON.parse(proxy.requests[0]!.body) as { thinking?: unknown }
    expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 2048 })
  })

  it("gives a reasoning model's summary on responses as a reasoning part, streamed before the text", async () => {
    const layer = UmgLanguageModel.layer({ model: "gpt-5", config: { reasoning: "low" } }).pipe(Layer.provide(gateway))
    const r = await Effect.runPromise(
      Effect.provide(LanguageModel.generateText({ prompt: "Tell me about the sea." }), layer)
    )
    const reasoning = r.content.find((p) => p.type === "reasoning")
    expect(reasoning?.text).toMatch(/\S/)
    expect(r.text).toMatch(/\S/)
    expect(JSON.parse(proxy.requests[0]!.body)).toMatchObject({ reasoning: { effort: "low", summary: "auto" } })
    const parts = await Effect.runPromise(
      Effect.provide(Stream.runCollect(LanguageModel.streamText({ prompt: "Tell me about the sea." })), layer)
    )
    const kinds = parts.map((p) => p.type)
    expect(kinds.indexOf("reasoning-end")).toBeGreaterThanOrEqual(0)
    expect(kinds.indexOf("reasoning-end")).toBeLessThan(kinds.indexOf("text-start"))
    const streamed = parts.flatMap((p) => (p.type === "reasoning-delta" ? [p.delta] : [])).join("")
    expect(streamed).toBe(reasoning?.text)
  })

  it("withConfigOverride changes the model's settings for the calls of one effect", async () => {
    const layer = UmgLanguageModel.layer({ model: "gpt-4o", config: { temperature: 0.2 } }).pipe(Layer.provide(gateway))
    await Effect.runPromise(
      Effect.provide(
        LanguageModel.generateText({ prompt: "Hi" }).pipe(UmgLanguageModel.withConfigOverride({ maxOutputTokens: 64 })),
        layer
      )
    )
    expect(JSON.parse(proxy.requests[0]!.body)).toMatchObject({ temperature: 0.2, max_completion_tokens: 64 })
  })
})
