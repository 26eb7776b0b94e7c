// A call's metrics as an OpenTelemetry GenAI dashboard reads them, per the GenAI semantic conventions
// (open-telemetry/semantic-conventions-genai, model/gen-ai/metrics.yaml, docs/gen-ai/gen-ai-metrics.md):
// `gen_ai.client.operation.duration` (s) and `gen_ai.client.token.usage` ({token}, by `gen_ai.token.type`),
// histograms with the conventions' bucket boundaries, recorded once per call in the program's
// `Metric.MetricRegistry` (read here from a registry of the test's own), with the span's values for the
// attributes they share, token counts equal to the answer's usage, and no secret in any attribute. (A
// stream's time to its first event: TelemetryMetrics.test.ts.)
import { Context, Deferred, Effect, Fiber, Layer, Metric, Stream, Tracer } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { httpClients } from "../support/floodServer.js"
import { recordingTracer, type RecordedSpan } from "../support/tracers.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())
beforeEach(() => emu.clearFaults())

interface Measured<A> {
  readonly value: A
  readonly metrics: ReadonlyArray<Metric.Metric.Snapshot>
  readonly spans: ReadonlyArray<RecordedSpan>
}

/** Runs `program` against the emulator (by default) with a registry of its own; its metrics, and the spans of a recording tracer. */
const measured = async <A>(
  program: Effect.Effect<A, unknown, Gateway>,
  config: Partial<GatewayConfigInput> = {}
): Promise<Measured<A>> => {
  const registry: Metric.MetricRegistry = new Map()
  const { tracer, spans } = recordingTracer()
  const layer = Layer.merge(
    Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0, ...config }),
    Layer.succeed(Tracer.Tracer, tracer)
  )
  const value = await Effect.runPromise(
    Effect.provideService(Effect.provide(program, layer), Metric.MetricRegistry, registry)
  )
  return { value, metrics: Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry)), spans }
}

type Point = Metric.Metric.Snapshot & { readonly type: "Histogram"; readonly state: Metric.HistogramState }

/** The points of metric `name` whose attributes include `attributes`. */
const pointsOf = (
  metrics: ReadonlyArray<Metric.Metric.Snapshot>,
  name: string,
  attributes: Readonly<Record<string, string>> = {}
): Array<Point> =>
  metrics.filter(
    (m): m is Point =>
      m.id === name &&
      m.type === "Histogram" &&
      Object.entries(attributes).every(([key, value]) => m.attributes?.[key] === value)
  )

/** The one point of metric `name` with `attributes`. */
const pointOf = (
  metrics: ReadonlyArray<Metric.Metric.Snapshot>,
  name: string,
  attributes: Readonly<Record<string, string>> = {}
): Point => {
  const found = pointsOf(metrics, name, attributes)
  expect(found, `${name} ${JSON.stringify(attributes)}`).toHaveLength(1)
  return found[0]!
}

const bounds = (point: Point) => point.state.buckets.map(([bound]) => bound)

const durationBounds = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
const tokenBounds = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]

const hi = [{ role: "user" as const, content: "hi" }]
const messagesBody = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 32, messages: hi }
const duration = "gen_ai.client.operation.duration"
const tokens = "gen_ai.client.token.usage"
const firstChunk = "gen_ai.client.operation.time_to_first_chunk"

describe("a call's GenAI client metrics", () => {
  it("record a chat call's duration and tokens, with the conventions' units, boundaries and the span's attributes", async () => {
    const {
      value: answer,
      metrics,
      spans
    } = await measured(Effect.flatMap(Gateway, (g) => g.chat.create({ model: "gpt-4o-mini", messages: hi })))
    const url = new URL(emu.url)
    const call = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.response.model": answer.model,
      "server.address": url.hostname,
      "server.port": url.port
    }
    const time = pointOf(metrics, duration, call)
    expect(time.description).toBe("GenAI operation duration.")
    expect(time.attributes?.unit).toBe("s")
    expect(time.attributes?.["error.type"]).toBeUndefined()
    expect(bounds(time)).toEqual([...durationBounds, Infinity])
    expect(time.state.count).toBe(1)
    expect(time.state.sum).toBeGreaterThan(0)

    const input = pointOf(metrics, tokens, { ...call, "gen_ai.token.type": "input" })
    const output = pointOf(metrics, tokens, { ...call, "gen_ai.token.type": "output" })
    expect(input.description).toBe("Number of input and output tokens used.")
    expect(input.attributes?.unit).toBe("{token}")
    expect(bounds(input)).toEqual([...tokenBounds, Infinity])
    expect([input.state.count, input.state.sum]).toEqual([1, answer.usage!.prompt_tokens])
    expect([output.state.count, output.state.sum]).toEqual([1, answer.usage!.completion_tokens])
    // A call that is no stream has no time to a first chunk.
    expect(pointsOf(metrics, firstChunk)).toEqual([])

    // Every attribute a metric shares with the span has the span's value.
    const span = spans.find((s) => s.name === "umg.chat.create")!.atEnd!
    for (const point of [time, input, output])
      for (const [key, value] of Object.entries(point.attributes ?? {}))
        if (span.has(key)) expect(String(span.get(key)), key).toBe(value)
    expect(Object.keys(time.attributes ?? {}).sort()).toEqual([...Object.keys(call), "gen_ai.system", "unit"].sort())
  })

  // Over umg's Node client the transport's own finalizer records it; over any other, a finalizer of its own.
  it.each(httpClients)(
    "record a messages stream over $name once, as it ends: its duration and its final answer's tokens",
    async ({ layer }) => {
      const { value: final, metrics } = await measured(
        Effect.flatMap(Gateway, (g) => runToFinal(g.messages.stream(messagesBody), () => Effect.void)),
        { httpClient: layer }
      )
      const call = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "epsilon",
        "gen_ai.request.model": messagesBody.model,
        "gen_ai.response.model": final.model
      }
      const time = pointOf(metrics, duration, call)
      expect(time.state.count).toBe(1)
      // A stream's time to its first event: once, in seconds, within the call's duration.
      const first = pointOf(metrics, firstChunk, call)
      expect(first.state.count).toBe(1)
      expect(first.attributes?.unit).toBe("s")
      expect(bounds(first)).toEqual([...durationBounds, Infinity])
      // (The first is noted in whole milliseconds, the duration in nanoseconds: a millisecond apart at most.)
      expect(first.state.sum).toBeLessThanOrEqual(time.state.sum + 0.001)
      const usage = final.usage
      const input = pointOf(metrics, tokens, { ...call, "gen_ai.token.type": "input" })
      // The conventions' input count, as the span's: the tokens read from and written to the cache included.
      expect(input.state.sum).toBe(
        usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0)
      )
      expect(pointOf(metrics, tokens, { ...call, "gen_ai.token.type": "output" }).state.sum).toBe(usage.output_tokens)
    }
  )

  it("record a stream drained by Effect's own Stream functions as runToFinal's: once per call", async () => {
    const { metrics } = await measured(
      Effect.flatMap(Gateway, (g) =>
        Effect.andThen(
          Stream.runDrain(g.messages.stream(messagesBody)),
          Stream.runDrain(
            g.chat.stream({ model: "gpt-4o-mini", messages: hi, stream_options: { include_usage: true } })
          )
        )
      )
    )
    for (const provider of ["epsilon", "openai"]) {
      const call = { "gen_ai.provider.name": provider }
      expect(pointOf(metrics, duration, call).state.count).toBe(1)
      expect(pointOf(metrics, firstChunk, call).state.count).toBe(1)
      expect(pointOf(metrics, tokens, { ...call, "gen_ai.token.type": "input" }).state.count).toBe(1)
      expect(pointOf(metrics, tokens, { ...call, "gen_ai.token.type": "output" }).state.count).toBe(1)
    }
  })

  it("record an embeddings call's input tokens, and no output tokens", async () => {
    const { value: answer, metrics } = await measured(
      Effect.flatMap(Gateway, (g) => g.embeddings.create({ model: "text-embedding-3-small", input: "a few words" }))
    )
    const call = { "gen_ai.operation.name": "embeddings", "gen_ai.request.model": "text-embedding-3-small" }
    expect(pointOf(metrics, duration, call).state.count).toBe(1)
    expect(pointOf(metrics, tokens, { ...call, "gen_ai.token.type": "input" }).state.sum).toBe(
      answer.usage!.prompt_tokens
    )
    expect(pointsOf(metrics, tokens, { "gen_ai.token.type": "output" })).toEqual([])
  })

  it("record a failed call's duration with the span's error.type, and no tokens", async () => {
    emu.inject("messages", { kind: "status", status: 400 }, 1)
    const refused = await measured(Effect.exit(Effect.flatMap(Gateway, (g) => g.messages.create(messagesBody))))
    const time = pointOf(refused.metrics, duration, { "gen_ai.provider.name": "epsilon", "error.type": "BadRequest" })
    expect(time.state.count).toBe(1)
    // The server answered: it is named, as on the span.
    expect(time.attributes?.["server.address"]).toBe(new URL(emu.url).hostname)
    expect(time.attributes?.["error.type"]).toBe(
      refused.spans.find((s) => s.name === "umg.messages.create")?.atEnd?.get("error.type")
    )
    expect(pointsOf(refused.metrics, tokens)).toEqual([])

    // Refused before anything was sent: no server to name.
    const invalid = await measured(
      Effect.exit(Effect.flatMap(Gateway, (g) => g.messages.create({ ...messagesBody, max_tokens: -1 })))
    )
    const refusedHere = pointOf(invalid.metrics, duration, { "error.type": "InvalidRequest" })
    expect(refusedHere.attributes?.["server.address"]).toBeUndefined()

    // A stream refused as it opens (its answer's status): recorded once, as it failed, the server named.
    emu.inject("messages", { kind: "status", status: 400 }, 1)
    const refusedStream = await measured(
      Effect.exit(Effect.flatMap(Gateway, (g) => Stream.runDrain(g.messages.stream(messagesBody))))
    )
    const streamTime = pointOf(refusedStream.metrics, duration, { "error.type": "BadRequest" })
    expect(streamTime.state.count).toBe(1)
    expect(streamTime.attributes?.["server.address"]).toBe(new URL(emu.url).hostname)
    expect(pointsOf(refusedStream.metrics, duration)).toHaveLength(1)
    expect(pointsOf(refusedStream.metrics, firstChunk)).toEqual([])

    // A stream cut after its first events: failed, no tokens.
    emu.inject("messages", { kind: "sse-cut", afterEvents: 2 }, 1)
    const cut = await measured(
      Effect.exit(Effect.flatMap(Gateway, (g) => Stream.runDrain(g.messages.stream(messagesBody))))
    )
    expect(pointOf(cut.metrics, duration, { "error.type": "IncompleteStream" }).state.count).toBe(1)
    // Its first events came: their time is recorded all the same.
    expect(pointOf(cut.metrics, firstChunk).state.count).toBe(1)
    expect(pointsOf(cut.metrics, tokens)).toEqual([])

    // A stream whose consumer fails at its last event failed, as its span did: no tokens, final answer or not.
    const dropped = await measured(
      Effect.exit(
        Effect.flatMap(Gateway, (g) =>
          Stream.runForEach(g.messages.stream(messagesBody), (event) =>
            event.type === "message_stop" ? Effect.fail(new RangeError("the consumer's own failure")) : Effect.void
          )
        )
      )
    )
    expect(dropped.spans.find((s) => s.name === "umg.messages.stream")?.atEnd?.get("error.type")).toBe("RangeError")
    expect(pointOf(dropped.metrics, duration, { "error.type": "RangeError" }).state.count).toBe(1)
    expect(pointsOf(dropped.metrics, tokens)).toEqual([])
  })

  it("record a cancelled stream's duration without error.type, as its span has none, and no tokens", async () => {
    // The stream's first event comes, then nothing: the caller gives up on it.
    emu.inject("messages", { kind: "stall", afterEvents: 1 }, 1)
    const { metrics, spans } = await measured(
      Effect.flatMap(Gateway, (g) =>
        Effect.gen(function* () {
          const first = yield* Deferred.make<void>()
          const fiber = yield* Effect.forkChild(
            Stream.runForEach(g.messages.stream(messagesBody), () => Deferred.succeed(first, undefined))
          )
          yield* Deferred.await(first)
          yield* Fiber.interrupt(fiber)
        })
      )
    )
    const time = pointOf(metrics, duration, { "gen_ai.operation.name": "chat" })
    expect(time.state.count).toBe(1)
    expect(time.attributes?.["error.type"]).toBeUndefined()
    expect(spans.find((s) => s.name === "umg.messages.stream")?.atEnd?.has("error.type")).toBe(false)
    // No final answer came: no tokens, no answering model.
    expect(pointsOf(metrics, tokens)).toEqual([])
    expect(time.attributes?.["gen_ai.response.model"]).toBeUndefined()
    expect(pointOf(metrics, firstChunk).state.count).toBe(1)
  })

  it("record a cancelled call's duration without error.type, and no tokens", async () => {
    emu.inject("messages", { kind: "stall" }, 1)
    const { metrics } = await measured(
      Effect.flatMap(Gateway, (g) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.forkChild(g.messages.create(messagesBody))
          yield* Effect.sleep("20 millis")
          yield* Fiber.interrupt(fiber)
        })
      )
    )
    const time = pointOf(metrics, duration, { "gen_ai.operation.name": "chat" })
    expect(time.state.count).toBe(1)
    expect(time.attributes?.["error.type"]).toBeUndefined()
    expect(pointsOf(metrics, tokens)).toEqual([])
  })

  it("go to the registry of the program that runs the call, each series summed over its calls", async () => {
    const { metrics } = await measured(
      Effect.flatMap(Gateway, (g) =>
        Effect.andThen(
          g.chat.create({ model: "gpt-4o-mini", messages: hi }),
          g.chat.create({ model: "gpt-4o-mini", messages: hi })
        )
      )
    )
    expect(pointOf(metrics, duration, { "gen_ai.request.model": "gpt-4o-mini" }).state.count).toBe(2)
    expect(pointOf(metrics, tokens, { "gen_ai.token.type": "input" }).state.count).toBe(2)
  })
})

describe("a call's metrics against a server that echoes the key into its answer", () => {
  const KEY = "sk-ECHOED-KEY-metrics-7c2e"
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
              { index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop", logprobs: null }
            ],
            usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
          })
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("never shows the key in the answering model", async () => {
    const { metrics } = await measured(
      Effect.flatMap(Gateway, (g) => g.chat.create({ model: "gpt-4o-mini", messages: hi })),
      { baseUrl: url, apiKey: KEY }
    )
    const time = pointOf(metrics, duration)
    expect(time.attributes?.["gen_ai.response.model"]).toEqual(expect.stringContaining("[redacted]"))
    expect(pointOf(metrics, tokens, { "gen_ai.token.type": "input" }).state.sum).toBe(3)
    expect(JSON.stringify(metrics.map((m) => m.attributes))).not.toContain(KEY)
  })
})
