// A streaming call's span carries the token usage of its final answer, as a create's does: every text
// family, whether the stream is drained by Effect's own `Stream` functions or by `runToFinal`, the
// counts set before the span ends. A stream without usage (chat without `include_usage`) or stopped
// before its final answer carries none.
import { Effect, Layer, Stream, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { Gateway } from "../../src/adapters/Gateway.js"
import { usageOf } from "../../src/adapters/internal/Telemetry.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { recordingTracer, type RecordedSpan } from "../support/tracers.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const traced = async <A>(program: Effect.Effect<A, unknown, Gateway>): Promise<[A, Array<RecordedSpan>]> => {
  const { tracer, spans } = recordingTracer()
  const layer = Layer.merge(
    Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey }),
    Layer.succeed(Tracer.Tracer, tracer)
  )
  const value = await Effect.runPromise(Effect.provide(program, layer))
  return [value, spans]
}

const hi = "hi"
const messagesBody = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 32,
  messages: [{ role: "user" as const, content: hi }]
}
const chatBody = {
  model: "gpt-4o-mini",
  stream_options: { include_usage: true },
  messages: [{ role: "user" as const, content: hi }]
}
const responsesBody = { model: "gpt-4o-mini", input: hi }
const nativeBody = { model: "zeta-2.5-flash", contents: [{ role: "user" as const, parts: [{ text: hi }] }] }

const usageAtEnd = (span: RecordedSpan | undefined) => ({
  input: span?.atEnd?.get("gen_ai.usage.input_tokens"),
  output: span?.atEnd?.get("gen_ai.usage.output_tokens")
})

describe("a streaming call's span", () => {
  it("carries its final answer's usage in every text family, run by runToFinal", async () => {
    const [finals, spans] = await traced(
      Effect.gen(function* () {
        const g = yield* Gateway
        return {
          "umg.messages.stream": yield* runToFinal(g.messages.stream(messagesBody), () => Effect.void),
          "umg.chat.stream": yield* runToFinal(g.chat.stream(chatBody), () => Effect.void),
          "umg.responses.stream": yield* runToFinal(g.responses.stream(responsesBody), () => Effect.void),
          "umg.native.stream": yield* runToFinal(g.native.stream(nativeBody), () => Effect.void)
        }
      })
    )
    for (const [name, final] of Object.entries(finals)) {
      const usage = usageOf(final)
      expect(usage.input, name).toEqual(expect.any(Number))
      expect(usage.output, name).toEqual(expect.any(Number))
      const span = spans.find((s) => s.name === name)
      expect(span?.atEnd, name).toBeDefined()
      expect(usageAtEnd(span), name).toEqual({ input: usage.input, output: usage.output })
    }
  })

  it("carries it when the stream is drained by Effect's own Stream functions", async () => {
    const [, spans] = await traced(
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* Stream.runDrain(g.messages.stream(messagesBody))
        yield* Stream.runCollect(g.chat.stream(chatBody))
        yield* Stream.runForEach(g.responses.stream(responsesBody), () => Effect.void)
        yield* Stream.runDrain(g.native.stream(nativeBody))
      })
    )
    for (const name of ["umg.messages.stream", "umg.chat.stream", "umg.responses.stream", "umg.native.stream"]) {
      const usage = usageAtEnd(spans.find((s) => s.name === name))
      expect(usage.input, name).toEqual(expect.any(Number))
      expect(usage.output, name).toEqual(expect.any(Number))
    }
  })

  it("carries none when the answer has none or the stream stops before its final answer", async () => {
    const [, spans] = await traced(
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* Stream.runDrain(g.chat.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: hi }] }))
        yield* Stream.runDrain(Stream.take(g.messages.stream(messagesBody), 1))
      })
    )
    const chat = spans.find((s) => s.name === "umg.chat.stream")
    const messages = spans.find((s) => s.name === "umg.messages.stream")
    for (const span of [chat, messages]) {
      expect(span?.atEnd).toBeDefined()
      expect(usageAtEnd(span)).toEqual({ input: undefined, output: undefined })
      expect(span?.atEnd?.get("http.response.status_code")).toBe(200)
    }
  })
})
