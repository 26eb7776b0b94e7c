// umg/ai counts a call's tokens once in the GenAI metrics too: Effect AI records no metric of its own,
// so the gateway call's `gen_ai.client.token.usage` is the only record — one input and one output value
// per call, equal to the usage Effect AI's response reports — whether or not its span carries the usage
// (under umg/ai, Effect AI's `LanguageModel` span does, and the gateway call's does not).
import { Context, Effect, Layer, Metric, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { UmgLanguageModel } from "../../src/ai/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const model = "epsilon-sonnet-4-5-20250929"

/** Runs `program` under umg/ai with a registry of its own; its value and the metrics recorded. */
const measured = async <A>(program: Effect.Effect<A, unknown, LanguageModel.LanguageModel>) => {
  const registry: Metric.MetricRegistry = new Map()
  const gateway = Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0 })
  const layer = UmgLanguageModel.layer({ model }).pipe(Layer.provide(gateway))
  const value = await Effect.runPromise(
    Effect.provideService(Effect.provide(program, layer), Metric.MetricRegistry, registry)
  )
  return { value, metrics: Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry)) }
}

const tokenPoints = (metrics: ReadonlyArray<Metric.Metric.Snapshot>, type: string) =>
  metrics
    .filter((m) => m.id === "gen_ai.client.token.usage" && m.attributes?.["gen_ai.token.type"] === type)
    .map((m) => m.state as Metric.HistogramState)

describe("umg/ai's token metrics", () => {
  it("count a generateText's tokens once, as its response reports them", async () => {
    const { value: response, metrics } = await measured(
      LanguageModel.generateText({ prompt: "Tell me about the sea." })
    )
    const input = tokenPoints(metrics, "input")
    const output = tokenPoints(metrics, "output")
    expect(input.map((s) => [s.count, s.sum])).toEqual([[1, response.usage.inputTokens.total]])
    expect(output.map((s) => [s.count, s.sum])).toEqual([[1, response.usage.outputTokens.total]])
  })

  it("count a streamText's tokens once", async () => {
    const { metrics } = await measured(Stream.runDrain(LanguageModel.streamText({ prompt: "Tell me about the sea." })))
    expect(tokenPoints(metrics, "input").map((s) => s.count)).toEqual([1])
    expect(tokenPoints(metrics, "output").map((s) => s.count)).toEqual([1])
    const durations = metrics.filter((m) => m.id === "gen_ai.client.operation.duration")
    expect(durations.map((m) => (m.state as Metric.HistogramState).count)).toEqual([1])
  })
})
