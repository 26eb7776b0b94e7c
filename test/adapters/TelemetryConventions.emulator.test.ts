// A call's span as an OpenTelemetry GenAI backend (Langfuse, Datadog, Honeycomb) reads it, per the
// current GenAI semantic conventions (open-telemetry/semantic-conventions-genai, "client inference"):
// `gen_ai.provider.name`, the request's parameters, the answer's id, model and finish reasons,
// `server.address` / `server.port`, and `error.type` when the call fails — read from counts, ids and
// statuses only, with a secret the server echoes into an id never on the span.
import { Effect, Fiber, Layer, Stream, Tracer } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { recordingTracer, type RecordedSpan } from "../support/tracers.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())
beforeEach(() => emu.clearFaults())

/** The spans `program` made against `config` (the emulator by default), each as it was when it ended. */
const traced = async (
  program: Effect.Effect<unknown, unknown, Gateway>,
  config: Partial<GatewayConfigInput> = {}
): Promise<Array<RecordedSpan>> => {
  const { tracer, spans } = recordingTracer()
  const layer = Layer.merge(
    Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0, ...config }),
    Layer.succeed(Tracer.Tracer, tracer)
  )
  await Effect.runPromise(Effect.provide(Effect.ignore(program), layer))
  return spans
}

const atEnd = (spans: ReadonlyArray<RecordedSpan>, name: string): ReadonlyMap<string, unknown> => {
  const span = spans.find((s) => s.name === name)
  expect(span?.atEnd, name).toBeDefined()
  return span!.atEnd!
}

const hi = [{ role: "user" as const, content: "hi" }]
const messagesBody = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 32, messages: hi }

describe("a call's span under the GenAI semantic conventions", () => {
  it("names the server a realtime or live session goes to, as an HTTP call's span does", async () => {
    const spans = await traced(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          yield* g.realtime.connect({ model: "gpt-realtime" })
          yield* g.live.connect({ model: "zeta-live-2.5-flash-native-audio" })
        })
      )
    )
    const port = Number(new URL(emu.url).port)
    for (const name of ["umg.realtime.connect", "umg.live.connect"]) {
      expect(atEnd(spans, name).get("server.address"), name).toBe("127.0.0.1")
      expect(atEnd(spans, name).get("server.port"), name).toBe(port)
    }
  })

  it("names the provider as gen_ai.provider.name, keeping the deprecated gen_ai.system alike", async () => {
    const spans = await traced(
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* g.messages.create(messagesBody)
        yield* g.chat.create({ model: "gpt-4o-mini", messages: hi })
      })
    )
    expect(atEnd(spans, "umg.messages.create").get("gen_ai.provider.name")).toBe("epsilon")
    expect(atEnd(spans, "umg.messages.create").get("gen_ai.system")).toBe("epsilon")
    expect(atEnd(spans, "umg.chat.create").get("gen_ai.provider.name")).toBe("openai")
  })

  it("carries the request's parameters, whichever family's fields hold them, and whether it streams", async () => {
    const spans = await traced(
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* g.chat.create({
          model: "gpt-4o-mini",
          messages: hi,
          max_completion_tokens: 40,
          temperature: 0,
          top_p: 0.5,
          seed: 7,
          frequency_penalty: 0.25,
          presence_penalty: 0.5,
          n: 2,
          response_format: { type: "json_object" }
        })
        yield* Stream.runDrain(g.messages.stream({ ...messagesBody, temperature: 0.7, top_k: 5 }))
        yield* g.native.generate({
          model: "zeta-2.5-flash",
          contents: [{ role: "user", parts: [{ text: "hi" }] }],
          generationConfig: { maxOutputTokens: 64, topP: 0.9, candidateCount: 1, responseMimeType: "text/plain" }
        })
        yield* g.responses.create({
          model: "gpt-4o-mini",
          input: "hi",
          max_output_tokens: 50,
          text: { format: { type: "text" } }
        })
        yield* g.embeddings.create({ model: "text-embedding-3-small", input: "x", dimensions: 256 })
      })
    )
    const chat = atEnd(spans, "umg.chat.create")
    expect(Object.fromEntries([...chat].filter(([key]) => key.startsWith("gen_ai.request.")))).toEqual({
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.request.max_tokens": 40,
      "gen_ai.request.temperature": 0,
      "gen_ai.request.top_p": 0.5,
      "gen_ai.request.seed": 7,
      "gen_ai.request.frequency_penalty": 0.25,
      "gen_ai.request.presence_penalty": 0.5,
      "gen_ai.request.choice.count": 2
    })
    expect(chat.get("gen_ai.output.type")).toBe("json")
    const stream = atEnd(spans, "umg.messages.stream")
    expect(stream.get("gen_ai.request.stream")).toBe(true)
    expect(stream.get("gen_ai.request.max_tokens")).toBe(32)
    expect(stream.get("gen_ai.request.temperature")).toBe(0.7)
    expect(stream.get("gen_ai.request.top_k")).toBe(5)
    const native = atEnd(spans, "umg.native.generate")
    expect(native.get("gen_ai.request.max_tokens")).toBe(64)
    expect(native.get("gen_ai.request.top_p")).toBe(0.9)
    // One candidate is the default: the convention records the count only when it is not 1.
    expect(native.has("gen_ai.request.choice.count")).toBe(false)
    expect(native.has("gen_ai.request.stream")).toBe(false)
    expect(native.get("gen_ai.output.type")).toBe("text")
    const responses = atEnd(spans, "umg.responses.create")
    expect(responses.get("gen_ai.request.max_tokens")).toBe(50)
    expect(responses.get("gen_ai.output.type")).toBe("text")
    const embeddings = atEnd(spans, "umg.embeddings.create")
    expect(embeddings.get("gen_ai.embeddings.dimension.count")).toBe(256)
    // Sampling parameters belong to text generation only.
    expect([...embeddings.keys()].filter((key) => key.startsWith("gen_ai.request."))).toEqual(["gen_ai.request.model"])
  })

  it("carries the answer's id, model and finish reasons, from a create's answer and a stream's final one", async () => {
    const spans = await traced(
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* g.messages.create(messagesBody)
        yield* Stream.runDrain(g.chat.stream({ model: "gpt-4o-mini", messages: hi }))
        yield* g.native.generate({ model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: "hi" }] }] })
        yield* g.responses.create({ model: "gpt-4o-mini", input: "hi" })
      })
    )
    const messages = atEnd(spans, "umg.messages.create")
    expect(messages.get("gen_ai.response.id")).toMatch(/^msg_/)
    expect(messages.get("gen_ai.response.model")).toBe("epsilon-sonnet-4-5-20250929")
    expect(messages.get("gen_ai.response.finish_reasons")).toEqual(["end_turn"])
    const chat = atEnd(spans, "umg.chat.stream")
    expect(chat.get("gen_ai.response.id")).toMatch(/^chatcmpl/)
    expect(chat.get("gen_ai.response.model")).toEqual(expect.stringContaining("gpt-4o-mini"))
    expect(chat.get("gen_ai.response.finish_reasons")).toEqual(["stop"])
    const native = atEnd(spans, "umg.native.generate")
    expect(native.get("gen_ai.response.id")).toEqual(expect.any(String))
    expect(native.get("gen_ai.response.finish_reasons")).toEqual(["STOP"])
    expect(atEnd(spans, "umg.responses.create").get("gen_ai.response.finish_reasons")).toEqual(["completed"])
  })

  it("counts cached input tokens within gen_ai.usage.input_tokens, and apart as cache_read / cache_creation", async () => {
    // Some 1,800 tokens: past the least a prompt must have to be cached (1,024).
    const rules = Array.from(
      { length: 60 },
      (_, i) => `Rule ${i + 1}: answer briefly, in plain words, and say when something is not known; prefer facts.`
    )
    const system = [{ type: "text" as const, text: rules.join("\n"), cache_control: { type: "ephemeral" as const } }]
    const body = { ...messagesBody, system }
    const answers: Array<unknown> = []
    const spans = await traced(
      Effect.gen(function* () {
        const g = yield* Gateway
        answers.push(yield* g.messages.create(body))
        answers.push(yield* g.messages.create(body))
        yield* g.chat.create({ model: "gpt-4o-mini", messages: hi })
      })
    )
    const [written, read] = spans.filter((s) => s.name === "umg.messages.create").map((s) => s.atEnd!)
    const usage = answers.map(
      (a) =>
        (a as { usage: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number } })
          .usage
    )
    // The first call writes the system prompt to the cache, the second reads it.
    expect(usage[0]!.cache_creation_input_tokens).toBeGreaterThan(0)
    expect(usage[1]!.cache_read_input_tokens).toBeGreaterThan(0)
    for (const [span, u] of [
      [written!, usage[0]!],
      [read!, usage[1]!]
    ] as const) {
      expect(span.get("gen_ai.usage.input_tokens")).toBe(
        u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
      )
      expect(span.get("gen_ai.usage.cache_read.input_tokens")).toBe(u.cache_read_input_tokens)
      expect(span.get("gen_ai.usage.cache_creation.input_tokens")).toBe(u.cache_creation_input_tokens)
    }
    // Chat counts cached tokens within prompt_tokens: its input count is prompt_tokens as it is.
    const chat = atEnd(spans, "umg.chat.create")
    expect(chat.get("gen_ai.usage.input_tokens")).toEqual(expect.any(Number))
    expect(chat.has("gen_ai.usage.cache_creation.input_tokens")).toBe(false)
  })

  it("reports the finish reason `error` for a stream ended before its final answer", async () => {
    const spans = await traced(
      Effect.flatMap(Gateway, (g) => Stream.runDrain(Stream.take(g.messages.stream(messagesBody), 1)))
    )
    expect(atEnd(spans, "umg.messages.stream").get("gen_ai.response.finish_reasons")).toEqual(["error"])
  })

  it("names the gateway's host and port as server.address and server.port", async () => {
    const spans = await traced(Effect.flatMap(Gateway, (g) => g.messages.create(messagesBody)))
    const url = new URL(emu.url)
    const span = atEnd(spans, "umg.messages.create")
    expect(span.get("server.address")).toBe(url.hostname)
    expect(span.get("server.port")).toBe(Number(url.port))
  })

  it("spans a call's retries in the one span, counting them as http.request.resend_count", async () => {
    emu.inject("messages", { kind: "status", status: 500 }, 2)
    const retried = await traced(
      Effect.flatMap(Gateway, (g) => g.messages.create(messagesBody)),
      {
        maxRetries: 3,
        retryBaseDelayMs: 1,
        retryMaxDelayMs: 5
      }
    )
    expect(retried.filter((s) => s.name === "umg.messages.create")).toHaveLength(1)
    const span = atEnd(retried, "umg.messages.create")
    expect(span.get("http.request.resend_count")).toBe(2)
    expect(span.get("http.response.status_code")).toBe(200)
    expect(span.has("error.type")).toBe(false)

    const once = await traced(Effect.flatMap(Gateway, (g) => g.messages.create(messagesBody)))
    expect(atEnd(once, "umg.messages.create").has("http.request.resend_count")).toBe(false)
  })

  it("sets error.type to the failure's tag, on a call and on a stream, and leaves an interrupted call without one", async () => {
    emu.inject("messages", { kind: "status", status: 400 }, 1)
    const refused = await traced(Effect.flatMap(Gateway, (g) => g.messages.create(messagesBody)))
    expect(atEnd(refused, "umg.messages.create").get("error.type")).toBe("BadRequest")

    const invalid = await traced(Effect.flatMap(Gateway, (g) => g.messages.create({ ...messagesBody, max_tokens: -1 })))
    expect(atEnd(invalid, "umg.messages.create").get("error.type")).toBe("InvalidRequest")

    emu.inject("messages", { kind: "sse-cut", afterEvents: 2 }, 1)
    const cut = await traced(Effect.flatMap(Gateway, (g) => Stream.runDrain(g.messages.stream(messagesBody))))
    expect(atEnd(cut, "umg.messages.stream").get("error.type")).toBe("IncompleteStream")

    // A stream of bytes (not events), in Stream.withSpan: the same rule.
    emu.inject("speech", { kind: "status", status: 500 }, 1)
    const speech = await traced(
      Effect.flatMap(Gateway, (g) => Stream.runDrain(g.speech.stream({ model: "tts-1", input: "hi", voice: "alloy" })))
    )
    expect(atEnd(speech, "umg.speech.stream").get("error.type")).toBe("ServerError")

    const interrupted = await traced(
      Effect.flatMap(Gateway, (g) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.forkChild(g.messages.create(messagesBody))
          yield* Fiber.interrupt(fiber)
          yield* Effect.forkChild(Stream.runDrain(g.messages.stream(messagesBody))).pipe(
            Effect.tap(() => Effect.sleep("5 millis")),
            Effect.flatMap(Fiber.interrupt)
          )
        })
      )
    )
    for (const span of interrupted) expect(span.atEnd?.has("error.type"), span.name).toBe(false)
  })
})

describe("a call's span against a server that echoes the key into its answer's ids", () => {
  const KEY = "sk-ECHOED-KEY-5d1f0a"
  let server: Server
  let url = ""
  beforeAll(async () => {
    server = createServer((req, res) => {
      const auth = String(req.headers.authorization ?? "")
      req.resume()
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            id: `chatcmpl-${auth}`,
            object: "chat.completion",
            created: 1,
            model: `gpt-4o-mini ${auth}`,
            choices: [
              { index: 0, message: { role: "assistant", content: "hi" }, finish_reason: `stop ${auth}`, logprobs: null }
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
          })
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("never shows the key in the answer's id, model or finish reasons", async () => {
    const spans = await traced(
      Effect.flatMap(Gateway, (g) => g.chat.create({ model: "gpt-4o-mini", messages: hi })),
      { baseUrl: url, apiKey: KEY }
    )
    const span = atEnd(spans, "umg.chat.create")
    expect(span.get("gen_ai.response.id")).toEqual(expect.stringContaining("[redacted]"))
    expect(JSON.stringify([...span])).not.toContain(KEY)
  })
})
