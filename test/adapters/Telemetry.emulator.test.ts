// Every gateway call is a span with the OpenTelemetry GenAI attributes, read here from the tests'
// recording tracer (test/support/tracers.ts) while calls run against the emulator — ended however the
// call ends, and no attribute holds the key.
import { Effect, Layer, Stream, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { recordingTracer, type RecordedSpan } from "../support/tracers.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

/** Runs `program` against the emulator with an in-memory tracer; the spans it recorded. */
const traced = async (
  program: (spans: ReadonlyArray<RecordedSpan>) => Effect.Effect<unknown, unknown, Gateway>
): Promise<Array<RecordedSpan>> => {
  const { tracer, spans } = recordingTracer()
  const layer = Layer.merge(
    Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey }),
    Layer.succeed(Tracer.Tracer, tracer)
  )
  await Effect.runPromise(Effect.provide(program(spans), layer) as Effect.Effect<unknown, unknown>)
  return spans
}

const body = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 32,
  messages: [{ role: "user" as const, content: "hi" }]
}

describe("gateway calls as spans", () => {
  it("carry the GenAI attributes, the HTTP status and the request id, and never the key", async () => {
    const spans = await traced(() =>
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* g.messages.create({
          model: "epsilon-sonnet-4-5-20250929",
          max_tokens: 32,
          messages: [{ role: "user", content: "hi" }]
        })
        yield* g.chat.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })
        yield* Stream.runDrain(g.chat.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }))
        yield* g.embeddings.create({ model: "text-embedding-3-small", input: "x" })
      })
    )
    const byName = (name: string) => spans.find((s) => s.name === name)
    const messages = byName("umg.messages.create")
    expect(messages?.attributes.get("gen_ai.operation.name")).toBe("chat")
    expect(messages?.attributes.get("gen_ai.system")).toBe("epsilon")
    expect(messages?.attributes.get("gen_ai.request.model")).toBe("epsilon-sonnet-4-5-20250929")
    expect(messages?.attributes.get("gen_ai.usage.input_tokens")).toEqual(expect.any(Number))
    expect(messages?.attributes.get("gen_ai.usage.output_tokens")).toEqual(expect.any(Number))
    expect(messages?.attributes.get("http.response.status_code")).toBe(200)
    expect(messages?.attributes.get("umg.gateway.request_id")).toMatch(/^req_/)
    expect(byName("umg.chat.create")?.attributes.get("gen_ai.usage.input_tokens")).toEqual(expect.any(Number))
    expect(byName("umg.chat.stream")?.attributes.get("gen_ai.request.model")).toBe("gpt-4o-mini")
    expect(byName("umg.embeddings.create")?.attributes.get("gen_ai.operation.name")).toBe("embeddings")
    for (const span of spans) {
      expect(span.ended, span.name).toBe(true)
      for (const value of span.attributes.values()) expect(String(value)).not.toContain(emu.apiKey)
    }
  })

  it("give a stream its span when it starts, the status on it, ended however the stream ends", async () => {
    const spans = await traced((recorded) =>
      Effect.gen(function* () {
        const g = yield* Gateway
        const stream = g.messages.stream(body)
        // Building the stream starts nothing: the span comes with the first pull.
        expect(recorded).toHaveLength(0)
        yield* Stream.runDrain(stream)
        // Stopped after the first event: the span still ends.
        yield* Stream.runDrain(Stream.take(g.messages.stream(body), 1))
        // Refused before sending: the span ends with the failure.
        yield* Effect.flip(Stream.runDrain(g.messages.stream({ ...body, max_tokens: -1 })))
      })
    )
    const streams = spans.filter((s) => s.name === "umg.messages.stream")
    expect(streams).toHaveLength(3)
    for (const span of streams) expect(span.ended).toBe(true)
    expect(streams[0]!.attributes.get("http.response.status_code")).toBe(200)
    expect(streams[0]!.attributes.get("gen_ai.system")).toBe("epsilon")
    expect(streams[1]!.attributes.get("http.response.status_code")).toBe(200)
    expect(streams[2]!.attributes.has("http.response.status_code")).toBe(false)
    expect(streams[2]!.exit?._tag).toBe("Failure")
    expect(streams[0]!.exit?._tag).toBe("Success")
  })

  it("give a stream run by runToFinal or Stream.runForEach its span too, ended with the run's exit", async () => {
    const spans = await traced(() =>
      Effect.gen(function* () {
        const g = yield* Gateway
        const message = yield* runToFinal(g.messages.stream(body), () => Effect.void)
        expect(message.role).toBe("assistant")
        // A step failing at the first event: the run fails, and the span ends with that failure.
        expect(
          yield* Effect.flip(Stream.runForEach(g.messages.stream(body), () => Effect.fail("step failed" as const)))
        ).toBe("step failed")
      })
    )
    const streams = spans.filter((s) => s.name === "umg.messages.stream")
    expect(streams).toHaveLength(2)
    for (const span of streams) expect(span.ended).toBe(true)
    expect(streams[0]!.attributes.get("http.response.status_code")).toBe(200)
    expect(streams[0]!.exit?._tag).toBe("Success")
    expect(streams[1]!.exit?._tag).toBe("Failure")
  })
})
