// A streaming call's `gen_ai.client.operation.time_to_first_chunk` (s): the time from the call's start
// to its first event, as the transport noted it (`Opened.firstEventAt`), read once as the stream ends —
// nothing per event — and recorded with the call's duration and tokens; none for a stream whose first
// event never came, nor for one whose transport notes no first event. Streams of the test's own over
// `Telemetry.spannable`, as the gateway's event streams are made.
import type * as Arr from "effect/Array"
import { Context, Effect, Metric, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { type ChunkPull, ended } from "../../src/adapters/http/ByteSource.js"
import * as Telemetry from "../../src/adapters/internal/Telemetry.js"
import { fromScopedOpen, type Opened } from "../../src/adapters/sse/Consume.js"

const final = { type: "message", model: "epsilon-answering-1", usage: { input_tokens: 2, output_tokens: 3 } }

/** A pull giving `chunks`, then the end. */
const pullOf = (chunks: ReadonlyArray<Arr.NonEmptyReadonlyArray<string>>): ChunkPull<string, never> => {
  let i = 0
  return Effect.suspend(() => (i < chunks.length ? Effect.succeed(chunks[i++]!) : ended))
}

/**
 * A `messages` group whose stream gives three chunks and `final`; its opening notes the first event
 * `firstAfterMs` after it started (none when `undefined`, no note at all when `"unnoted"`).
 */
const groupOf = (firstAfterMs: number | undefined | "unnoted", reads: { count: number }) =>
  Telemetry.traceGroup("messages", {
    stream: (_body: { readonly model: string }) =>
      Telemetry.spannable(() =>
        fromScopedOpen(
          Effect.clockWith((clock) => {
            const at = clock.currentTimeMillisUnsafe()
            const opened: Opened<string, never, typeof final> = {
              pull: pullOf([["a"], ["b", "c"], ["d"]]),
              result: Effect.succeed(final)
            }
            if (firstAfterMs === "unnoted") return Effect.succeed(opened)
            return Effect.succeed({
              ...opened,
              firstEventAt: () => {
                reads.count++
                return firstAfterMs === undefined ? undefined : at + firstAfterMs
              }
            })
          })
        )
      )
  })

const metricsOf = async (firstAfterMs: number | undefined | "unnoted") => {
  const registry: Metric.MetricRegistry = new Map()
  const reads = { count: 0 }
  const group = groupOf(firstAfterMs, reads)
  await Effect.runPromise(
    Effect.provideService(Stream.runDrain(group.stream({ model: "epsilon-1" })), Metric.MetricRegistry, registry)
  )
  const metrics = Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry))
  const named = (name: string) => metrics.filter((m) => m.id === name)
  return { named, reads }
}

describe("a streaming call's time to its first chunk", () => {
  it("is recorded once as the stream ends, from the call's start to its first event, with the conventions' unit and boundaries", async () => {
    const { named, reads } = await metricsOf(250)
    const [first, ...more] = named("gen_ai.client.operation.time_to_first_chunk")
    expect(more).toEqual([])
    const state = first!.state as Metric.HistogramState
    expect(state.count).toBe(1)
    // The opening started within a few milliseconds of the call.
    expect(state.sum).toBeGreaterThanOrEqual(0.25)
    expect(state.sum).toBeLessThan(0.3)
    expect(first!.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "epsilon",
      "gen_ai.system": "epsilon",
      "gen_ai.request.model": "epsilon-1",
      "gen_ai.response.model": "epsilon-answering-1",
      unit: "s"
    })
    expect(state.buckets.map(([bound]) => bound)).toEqual([
      0.01,
      0.02,
      0.04,
      0.08,
      0.16,
      0.32,
      0.64,
      1.28,
      2.56,
      5.12,
      10.24,
      20.48,
      40.96,
      81.92,
      Infinity
    ])
    // Read once for the whole stream (three chunks, four events): nothing per event.
    expect(reads.count).toBe(1)
    // With the call's duration and tokens.
    expect(named("gen_ai.client.operation.duration").map((m) => (m.state as Metric.HistogramState).count)).toEqual([1])
    expect(named("gen_ai.client.token.usage").map((m) => (m.state as Metric.HistogramState).sum)).toEqual([2, 3])
  })

  it("is not recorded for a stream whose first event never came", async () => {
    const { named, reads } = await metricsOf(undefined)
    expect(named("gen_ai.client.operation.time_to_first_chunk")).toEqual([])
    expect(reads.count).toBe(1)
    expect(named("gen_ai.client.operation.duration")).toHaveLength(1)
  })

  it("is not recorded for a stream whose transport notes no first event", async () => {
    const { named } = await metricsOf("unnoted")
    expect(named("gen_ai.client.operation.time_to_first_chunk")).toEqual([])
    expect(named("gen_ai.client.operation.duration")).toHaveLength(1)
  })
})

describe("the answering models the metrics tell apart", () => {
  it("are bounded: past the bound a new name counts as _OTHER, the names seen before keep their series", () => {
    // A server may name a new model in every answer; each name would be a series kept for the process's life.
    const series = Telemetry.modelSeries(3)
    expect(["a", "b", "c"].map(series)).toEqual(["a", "b", "c"])
    expect(series("d")).toBe("_OTHER")
    expect(series("e")).toBe("_OTHER")
    expect(series("b")).toBe("b")
  })
})
