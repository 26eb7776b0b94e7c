/**
 * The OpenTelemetry GenAI client metrics umg records, as Effect metrics: `gen_ai.client.token.usage`,
 * `gen_ai.client.operation.duration` and `gen_ai.client.operation.time_to_first_chunk`.
 *
 * Each is a histogram with the unit and bucket boundaries the conventions give it
 * (open-telemetry/semantic-conventions-genai, `model/gen-ai/metrics.yaml` and
 * `docs/gen-ai/gen-ai-metrics.md`). Effect's metrics have no unit of their own: it goes in their `unit`
 * attribute, which Effect's OTLP exporter and `@effect/opentelemetry` read as the instrument's unit.
 * Which values a call records, and with which attributes, is Telemetry's rule; this module only holds
 * the instruments and their series.
 *
 * Every set of attribute values is one series: one Effect histogram per instrument, made the first time
 * the set is seen and kept, found again by a few map lookups — Effect itself would build and sort a key
 * from the attributes on every update of a metric given them per call.
 */
import type * as Context from "effect/Context"
import * as Metric from "effect/Metric"

/** One of the conventions' histograms. @category models */
export interface Instrument {
  readonly name: string
  readonly unit: string
  readonly description: string
  readonly boundaries: ReadonlyArray<number>
}

const instrument = (
  name: string,
  unit: string,
  description: string,
  boundaries: ReadonlyArray<number>
): Instrument => ({
  name,
  unit,
  description,
  // Effect's histograms end with an open bucket at +Infinity; exporters send the bounds before it.
  boundaries: Metric.boundariesFromIterable(boundaries)
})

/** The conventions' boundaries for token counts: powers of 4, from 1 to 4^13. */
const tokenBoundaries = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]

/** The conventions' boundaries for durations, in seconds: 0.01 doubled up to 81.92. */
const secondBoundaries = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]

/**
 * `gen_ai.client.token.usage`: the input and output tokens of a call, one value each, told apart by
 * `gen_ai.token.type`.
 * @category constants
 */
export const tokenUsage: Instrument = instrument(
  "gen_ai.client.token.usage",
  "{token}",
  "Number of input and output tokens used.",
  tokenBoundaries
)

/**
 * `gen_ai.client.operation.duration`: how long a call took, in seconds, with `error.type` when it failed.
 * @category constants
 */
export const operationDuration: Instrument = instrument(
  "gen_ai.client.operation.duration",
  "s",
  "GenAI operation duration.",
  secondBoundaries
)

/**
 * `gen_ai.client.operation.time_to_first_chunk`: for a streaming call, the seconds from the request's
 * start to the first event.
 * @category constants
 */
export const timeToFirstChunk: Instrument = instrument(
  "gen_ai.client.operation.time_to_first_chunk",
  "s",
  "Time to receive the first chunk, measured from when the client issues the generation request to when the first chunk is received in the response stream.",
  secondBoundaries
)

/**
 * One level of the series made so far, by attribute: for each attribute name the next level by its
 * value; at the end of a set of attributes, the histogram of each instrument recorded with it.
 */
interface SeriesNode {
  readonly next: Map<string, Map<string, SeriesNode>>
  histograms: Map<Instrument, Metric.Metric<number, Metric.HistogramState>> | undefined
}

const node = (): SeriesNode => ({ next: new Map(), histograms: undefined })

/** The level under `at` for attribute `name` with `value`, made when first seen. */
const child = (at: SeriesNode, name: string, value: string): SeriesNode => {
  let byValue = at.next.get(name)
  if (byValue === undefined) at.next.set(name, (byValue = new Map()))
  let next = byValue.get(value)
  if (next === undefined) byValue.set(value, (next = node()))
  return next
}

/**
 * Past this many histograms, those kept are dropped and made again as they come (each finds its values
 * where Effect's registry holds them): what a process with ever new attribute values keeps stays bounded.
 */
const maxHistograms = 3000

let series = node()
let histograms = 0

/** A set of attributes, and where its series are kept. @category models */
export interface Series {
  readonly attributes: Readonly<Record<string, string>>
  readonly node: SeriesNode
}

/**
 * The series of `attributes`, found by a level per attribute (by name, then value), so no key is built
 * from them: a few map lookups. The same attributes in another order find other histograms of the same
 * series (Effect's registry keys a series by its sorted attributes).
 * @category constructors
 */
export const seriesOf = (attributes: Readonly<Record<string, string>>): Series => {
  let at = series
  for (const name in attributes) at = child(at, name, attributes[name]!)
  return { attributes, node: at }
}

/**
 * Records `value` in `instrument`'s series of `attributes` (and, when given, one `extra` attribute), in
 * the metric registry of `context` (the call's: a program or test may provide its own
 * `Metric.MetricRegistry`).
 * @category mutations
 */
export const record = (
  instrument: Instrument,
  { attributes, node: base }: Series,
  value: number,
  context: Context.Context<never>,
  extra?: readonly [name: string, value: string]
): void => {
  const at = extra === undefined ? base : child(base, extra[0], extra[1])
  let histogram = at.histograms?.get(instrument)
  if (histogram === undefined) {
    if (histograms >= maxHistograms) {
      series = node()
      histograms = 0
    }
    histograms++
    histogram = Metric.histogram(instrument.name, {
      description: instrument.description,
      boundaries: instrument.boundaries,
      attributes: { ...attributes, ...(extra === undefined ? {} : { [extra[0]]: extra[1] }), unit: instrument.unit }
    })
    if (at.histograms === undefined) at.histograms = new Map()
    at.histograms.set(instrument, histogram)
  }
  histogram.updateUnsafe(value, context)
}
