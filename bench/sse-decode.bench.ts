/**
 * What each stage of umg's stream decoding costs per event, in memory, where the
 * loopback's noise does not hide a tenth of a microsecond: the same 2,006-event messages stream
 * (`bench/harness/fixtures.ts`, the one bench/text-streams.bench.ts serves) as an Effect `Stream`
 * built four ways, each a step more of umg's work than the one before:
 * - Effect floor: eventsource-parser + `JSON.parse`, the events of each read handed to one pull
 *   (`bench/harness/floor.ts`, the floor of text-streams): what any Effect stream of these events costs;
 * - umg, parse only: umg's `decodeSse` (its SSE parser, the time limits, the hand-over to the consumer,
 *   the connection's release) with each event only `JSON.parse`d: no validation, no fold;
 * - umg, validated: the same with the messages events' own decoder (fragment deltas read straight
 *   from upstream's exact text by `MessagesDeltaScan`, every other event parsed, depth-bounded and
 *   checked against its Schema), still no fold;
 * - umg: the messages stream exactly as `gateway.messages.stream` decodes it, with the fold kept for
 *   `IncompleteStream`'s partial result and the final-event test.
 * Every contender is fed the same reads the same way — one read per macrotask (`setImmediate`), as a
 * socket's reads come, through umg's own body-source interface for umg — and consumed the same way:
 * `Stream.runForEach`, each event counted and its text deltas' lengths summed (checked against the
 * fixture, so a contender that loses text is not measured). Cells: 64 KiB reads (what Node's socket
 * gives a fast stream), and one event per read (how tokens arrive). Each contender runs in its own
 * process, the order rotates each repetition, the CPU time of the measured streams is divided by the
 * events on the wire (2,006 per stream), and each ratio to the floor is taken per repetition and
 * printed as median (min–max). Nothing is asserted; the table goes to `bench/results/sse-decode.md`.
 *
 * The differences between columns are what each guarantee costs per event; the floor's own margin
 * below the official SDK is in bench/results/text-streams.md.
 *
 * Run: `npm run bench -- sse-decode`, or `node --conditions=umg-source --import tsx
 * bench/sse-decode.bench.ts` after `npm run build` (5 repetitions, under a minute); `BENCH_QUICK=1`
 * for 2 repetitions of fewer streams after the same warm-up (a check that it runs: two repetitions
 * on a noisy machine do not tell the stages apart); `SSE_DECODE_REPS=n` overrides the repetitions.
 */
import {
  cpuOf,
  perUnitOf,
  QUICK,
  report,
  rowsAgainst,
  runInMemory,
  summarize,
  table,
  writeResult,
  type CellResult
} from "./harness/contest.js"
import { messagesStreamFixture, renderFrame } from "./harness/fixtures.js"
import { sseModules } from "./harness/umg.js"

const REPS = Math.max(1, Number(process.env.SSE_DECODE_REPS ?? (QUICK ? 2 : 5)))

const CONTENDERS = ["floor", "parse", "validated", "umg"] as const
type Contender = (typeof CONTENDERS)[number]
const COLUMN: Record<Contender, string> = {
  floor: "Effect floor: eventsource-parser + JSON.parse as an Effect Stream",
  parse: "umg decodeSse, parse only (JSON.parse, no validation, no fold)",
  validated:
    "umg decodeSse, validated (the events' own decoder: fragment deltas scanned, the rest parsed and Schema-checked), no fold",
  umg: "umg decodeSse as messages.stream (+ the fold)"
}

const CELLS = [
  { name: "64 KiB reads", read: 64 * 1024, plan: QUICK ? { warm: 30, measured: 30 } : { warm: 30, measured: 100 } },
  { name: "one event per read", read: 0, plan: QUICK ? { warm: 5, measured: 4 } : { warm: 5, measured: 15 } }
] as const

const fixture = messagesStreamFixture()

/** The fixture's bytes cut into reads of `size` bytes, or one read per event (`0`). */
const readsOf = (size: number): ReadonlyArray<Uint8Array> => {
  const frames = fixture.frames.map((frame) => Buffer.from(renderFrame(frame)))
  if (size === 0) return frames
  const whole = Buffer.concat(frames)
  const reads: Array<Uint8Array> = []
  for (let at = 0; at < whole.length; at += size) reads.push(whole.subarray(at, at + size))
  return reads
}

/** Delivers `reads` one per macrotask, then ends; `stopped()` stops the delivery (the reader let go). */
const deliver = (
  reads: ReadonlyArray<Uint8Array>,
  read: (bytes: Uint8Array) => void,
  end: () => void,
  stopped: () => boolean = () => false
): void => {
  let i = 0
  const next = () => {
    if (stopped()) return
    if (i === reads.length) return end()
    read(reads[i++]!)
    setImmediate(next)
  }
  setImmediate(next)
}

interface Tally {
  events: number
  text: number
}
interface MessagesEventLike {
  readonly type: string
  readonly delta?: { readonly type: string; readonly text?: string }
}
const touch = (t: Tally, e: MessagesEventLike): void => {
  t.events++
  if (e.type === "content_block_delta" && e.delta!.type === "text_delta") t.text += e.delta!.text!.length
}

// ---- the contenders (worker side) ----

type StreamOnce = (reads: ReadonlyArray<Uint8Array>, t: Tally) => Promise<void>

const makeContender = async (contender: Contender): Promise<StreamOnce> => {
  const { Effect, Result, Stream } = await import("effect")
  if (contender === "floor") {
    const { floorEvents } = await import("./harness/floor.js")
    return (reads, t) =>
      Effect.runPromise(
        Stream.runForEach(
          floorEvents(
            (read, end) => deliver(reads, read, end),
            (data) => JSON.parse(data)
          ),
          (value) => Effect.sync(() => touch(t, value as MessagesEventLike))
        )
      )
  }
  const { transport, messages, byteSource, errors } = await sseModules()
  const real = messages.messagesStreamSpec
  // Parse only: each event's data as `JSON.parse` gives it (total, as a decoder must be); no fold.
  const noFold = {
    family: "messages" as const,
    initial: 0,
    step: (n: number) => Result.succeed(n),
    finish: (n: number) => Result.succeed(n),
    folder: () => ({ push: () => undefined, snapshot: () => 0 })
  }
  const parseOnly = (record: { readonly data: string }) => {
    try {
      return Result.succeed(JSON.parse(record.data) as MessagesEventLike)
    } catch {
      return Result.fail(
        new errors.DecodeError({ family: "messages", what: "messages event", message: "data is not JSON" })
      )
    }
  }
  const spec =
    contender === "umg"
      ? real
      : {
          family: "messages" as const,
          decode: contender === "parse" ? parseOnly : real.decode,
          isKeepAlive: real.isKeepAlive,
          isFinal: real.isFinal as (e: unknown) => boolean,
          accumulator: noFold
        }
  const timeouts = { firstEventMs: 60_000, idleMs: 60_000 }
  return (reads, t) => {
    // The body as umg's Node client hands it over: callbacks from its reads (`ByteSource.fromOpen`).
    const source = byteSource.fromOpen<never>((sink) => {
      let closed = false
      deliver(reads, sink.chunk, sink.end, () => closed)
      return { pause: () => {}, resume: () => {}, close: () => void (closed = true) }
    })
    const bytes = byteSource.withSource(Stream.empty, source)
    return Effect.runPromise(
      Stream.runForEach(transport.decodeSse(bytes, spec as typeof real, timeouts), (e) =>
        Effect.sync(() => touch(t, e as MessagesEventLike))
      )
    )
  }
}

const runContender = async (): Promise<void> => {
  const contender = process.env.BENCH_CONTENDER as Contender
  const streamOnce = await makeContender(contender)
  const stream = async (reads: ReadonlyArray<Uint8Array>) => {
    const t: Tally = { events: 0, text: 0 }
    await streamOnce(reads, t)
    if (t.text !== fixture.textLength)
      throw new Error(`${contender}: text length ${t.text}, expected ${fixture.textLength}`)
  }
  const cells: Array<CellResult> = []
  for (const cell of CELLS) {
    const reads = readsOf(cell.read)
    for (let i = 0; i < cell.plan.warm; i++) await stream(reads)
    const cpuUs = await cpuOf(async () => {
      for (let i = 0; i < cell.plan.measured; i++) await stream(reads)
    })
    cells.push({
      cell: cell.name,
      cpuUs,
      units: fixture.events * cell.plan.measured,
      served: cell.plan.measured,
      calls: cell.plan.measured
    })
  }
  report({ contender, cells })
}

// ---- the bench (parent side) ----

const runBench = async (): Promise<void> => {
  const runs = await runInMemory(import.meta.url, "sse-decode", CONTENDERS, REPS)
  const rows = rowsAgainst(
    CELLS.map((c) => c.name),
    CONTENDERS,
    "floor",
    runs
  )
  // What each step adds, per repetition: the cost of one stage or guarantee.
  const steps: ReadonlyArray<readonly [Contender, Contender, string]> = [
    ["floor", "parse", "umg's SSE parser and stream around JSON.parse, over the floor's"],
    ["parse", "validated", "validation (the events' own decoder in place of JSON.parse)"],
    ["validated", "umg", "the fold"]
  ]
  const stepRows = CELLS.map(({ name }) => [
    name,
    ...steps.map(([from, to]) => {
      const s = summarize(runs.map((run) => perUnitOf(run, to, name) - perUnitOf(run, from, name)))
      const f = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`
      return `${f(s.median)} µs (${f(s.min)} to ${f(s.max)})`
    })
  ])
  const plan = CELLS.map((c) => `${c.plan.measured} streams per ${c.name} cell after ${c.plan.warm} to warm up`).join(
    ", "
  )
  const body = [
    `CPU per event of the worker process (µs, median of ${REPS} repetitions) and its ratio to the Effect floor in the same repetition, median (min–max); ${plan}; every stream of 2,006 events, one read per macrotask, consumed with \`Stream.runForEach\`.`,
    "",
    table(["CPU per event", ...CONTENDERS.map((c) => COLUMN[c])], rows),
    "",
    "What each step adds per event (the difference within each repetition, median and range):",
    "",
    table(["cell", ...steps.map(([, , what]) => what)], stepRows)
  ].join("\n")
  console.log(
    writeResult("sse-decode", "SSE decoding stages: CPU per event in memory (bench/sse-decode.bench.ts)", body)
  )
}

if (process.env.BENCH_ROLE === "worker")
  void runContender().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
else
  void runBench().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
