// A trace of umg/ai counts a call's tokens once: Effect AI's `LanguageModel` span carries the usage
// (umg annotates it, as effect/ai's providers do), so the gateway call's span inside it leaves
// `gen_ai.usage.*` out — a backend that sums usage over a trace (Langfuse, Datadog) would otherwise
// count every call twice. A gateway call made outside umg/ai keeps its usage.
import { Effect, Layer, Stream, Tracer } from "effect"
import { LanguageModel } from "effect/ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { UmgLanguageModel } from "../../src/ai/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { recordingTracer, type RecordedSpan } from "../support/tracers.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const model = "epsilon-sonnet-4-5-20250929"

const traced = async (program: Effect.Effect<unknown, unknown, LanguageModel.LanguageModel | Gateway>) => {
  const { tracer, spans } = recordingTracer()
  const gateway = Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0 })
  const layer = Layer.mergeAll(
    UmgLanguageModel.layer({ model }).pipe(Layer.provideMerge(gateway)),
    Layer.succeed(Tracer.Tracer, tracer)
  )
  await Effect.runPromise(Effect.provide(program, layer))
  return spans
}

const withUsage = (spans: ReadonlyArray<RecordedSpan>) =>
  spans.filter((s) => s.atEnd?.has("gen_ai.usage.input_tokens") === true).map((s) => s.name)

describe("umg/ai's spans", () => {
  it("carry a generateText's usage once, on Effect AI's span, not on the gateway call's inside it", async () => {
    const spans = await traced(LanguageModel.generateText({ prompt: "Tell me about the sea." }))
    expect(withUsage(spans)).toEqual(["LanguageModel.generateText"])
    const inner = spans.find((s) => s.name === "umg.messages.create")
    expect(inner?.atEnd?.get("gen_ai.response.model")).toBe(model)
  })

  it("carry a streamText's usage once, on Effect AI's span", async () => {
    const spans = await traced(Stream.runDrain(LanguageModel.streamText({ prompt: "Tell me about the sea." })))
    expect(withUsage(spans)).toEqual(["LanguageModel.streamText"])
    expect(spans.find((s) => s.name === "umg.messages.stream")?.atEnd?.get("gen_ai.response.finish_reasons")).toEqual([
      "end_turn"
    ])
  })

  it("leave a gateway call made outside umg/ai its usage", async () => {
    const spans = await traced(
      Effect.flatMap(Gateway, (g) =>
        g.messages.create({ model, max_tokens: 32, messages: [{ role: "user", content: "hi" }] })
      )
    )
    expect(withUsage(spans)).toEqual(["umg.messages.create"])
  })
})
