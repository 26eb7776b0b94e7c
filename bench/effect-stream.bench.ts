/**
 * What Effect 4 itself costs a stream's consumer, in memory, with no umg code at
 * all: the same values delivered the same way — one read per macrotask (`setImmediate`), as a
 * socket's reads come — to five consumers, each in its own process:
 * - `for await`: an async generator over the reads, iterated with `for await` — how the official SDKs
 *   hand their events to a caller;
 * - Effect fiber: one fiber woken per read (`Effect.callback`), no `Stream`;
 * - `Stream.toPull` loop: the stream below, pulled by a loop in one fiber;
 * - `Stream.runForEachArray`: the same stream, a callback per array of values;
 * - `Stream.runForEach`: the same stream, an effect per element — how the text-streams bench's
 *   Effect floor and umg Effect are consumed.
 * The stream is the leanest stream of pulls Effect's public API builds (`streamOfPulls` in
 * `bench/harness/floor.ts`: one channel that runs a pull and writes its chunk), the floor's and
 * umg's shape. Every consumer touches every value the same way (sums it; checked).
 *
 * Cells: a stream of one value (what starting and ending a stream costs, per stream); 1,000 values,
 * one per read (per pull); 2,000 values in one read (per element). The ratio is to `for await` in the
 * same repetition, median (min–max). It separates what the Effect runtime costs from what umg does:
 * bench/text-streams.bench.ts's Effect floor over its official SDK is this table's last column over
 * its first, plus the network.
 *
 * Run: `npm run bench -- effect-stream`, or `node --conditions=umg-source --import tsx
 * bench/effect-stream.bench.ts` (5 repetitions, about a minute); `BENCH_QUICK=1` for 2 repetitions.
 * Nothing is asserted; the table goes to `bench/results/effect-stream.md`.
 */
import type { Effect } from "effect"
import {
  cpuOf,
  QUICK,
  report,
  rowsAgainst,
  runInMemory,
  table,
  writeResult,
  type CellResult
} from "./harness/contest.js"

const REPS = Math.max(1, Number(process.env.EFFECT_STREAM_REPS ?? (QUICK ? 2 : 5)))

const CONTENDERS = ["forAwait", "fiber", "toPull", "runForEachArray", "runForEach"] as const
type Contender = (typeof CONTENDERS)[number]
const COLUMN: Record<Contender, string> = {
  forAwait: "`for await` over an async generator",
  fiber: "Effect fiber, no Stream",
  toPull: "`Stream.toPull` loop",
  runForEachArray: "`Stream.runForEachArray`",
  runForEach: "`Stream.runForEach`"
}

const CELLS = [
  {
    name: "a stream of one value, per stream",
    values: 1,
    perRead: 1,
    unit: "stream",
    plan: QUICK ? { warm: 500, measured: 1_000 } : { warm: 2_000, measured: 4_000 }
  },
  {
    name: "1,000 values one per read, per pull",
    values: 1_000,
    perRead: 1,
    unit: "pull",
    plan: QUICK ? { warm: 3, measured: 5 } : { warm: 5, measured: 20 }
  },
  {
    name: "2,000 values in one read, per element",
    values: 2_000,
    perRead: 2_000,
    unit: "element",
    plan: QUICK ? { warm: 50, measured: 100 } : { warm: 200, measured: 400 }
  }
] as const

/** The reads of a stream: `values` numbers (1, 2, …), `perRead` to a read. */
const readsOf = (values: number, perRead: number): ReadonlyArray<ReadonlyArray<number>> => {
  const reads: Array<Array<number>> = []
  for (let v = 1; v <= values; v += perRead)
    reads.push(Array.from({ length: Math.min(perRead, values - v + 1) }, (_, i) => v + i))
  return reads
}

/**
 * The values of `reads`, one read per macrotask, kept until taken, and one waiter woken when there
 * are values or the end: what every consumer reads from.
 */
const sourceOf = (reads: ReadonlyArray<ReadonlyArray<number>>) => {
  let pending: Array<number> = []
  let done = false
  let waiter: (() => void) | undefined
  let i = 0
  const wake = () => {
    const w = waiter
    waiter = undefined
    w?.()
  }
  const next = () => {
    if (i === reads.length) done = true
    else {
      for (const v of reads[i++]!) pending.push(v)
      setImmediate(next)
    }
    wake()
  }
  setImmediate(next)
  return {
    ready: () => pending.length > 0 || done,
    done: () => done,
    take: (): Array<number> => {
      const out = pending
      pending = []
      return out
    },
    /** `wake` is called once, when there are values or the end. */
    onReady: (wake: () => void) => {
      waiter = wake
    }
  }
}

type StreamOnce = (reads: ReadonlyArray<ReadonlyArray<number>>) => Promise<number>

const makeContender = async (contender: Contender): Promise<StreamOnce> => {
  if (contender === "forAwait") {
    async function* values(reads: ReadonlyArray<ReadonlyArray<number>>): AsyncGenerator<number> {
      const source = sourceOf(reads)
      for (;;) {
        if (!source.ready()) await new Promise<void>((resolve) => source.onReady(resolve))
        const out = source.take()
        if (out.length === 0) return
        for (const v of out) yield v
      }
    }
    return async (reads) => {
      let sum = 0
      for await (const v of values(reads)) sum += v
      return sum
    }
  }
  const { Effect, Pull, Stream } = await import("effect")
  const { streamOfPulls } = await import("./harness/floor.js")
  const waitFor = (source: ReturnType<typeof sourceOf>) =>
    Effect.callback<void>((resume) => source.onReady(() => resume(Effect.void)))
  if (contender === "fiber")
    return (reads) =>
      Effect.runPromise(
        Effect.suspend(() => {
          const source = sourceOf(reads)
          let sum = 0
          const loop: Effect.Effect<number> = Effect.suspend(() => {
            if (!source.ready()) return Effect.flatMap(waitFor(source), () => loop)
            for (const v of source.take()) sum += v
            return source.done() ? Effect.succeed(sum) : loop
          })
          return loop
        })
      )
  const streamOf = (reads: ReadonlyArray<ReadonlyArray<number>>) =>
    Stream.suspend(() => {
      const source = sourceOf(reads)
      const take = () => {
        const out = source.take()
        return Effect.succeed(out.length === 0 ? null : (out as unknown as readonly [number, ...Array<number>]))
      }
      const wait = Effect.flatMap(waitFor(source), take)
      return streamOfPulls(Effect.suspend(() => (source.ready() ? take() : wait)))
    })
  switch (contender) {
    case "toPull":
      return (reads) =>
        Effect.runPromise(
          Effect.scoped(
            Effect.flatMap(Stream.toPull(streamOf(reads)), (pull) => {
              let sum = 0
              const loop: Effect.Effect<number> = Pull.matchEffect(pull, {
                onDone: () => Effect.succeed(sum),
                onFailure: Effect.failCause,
                onSuccess: (values) => {
                  for (const v of values) sum += v
                  return loop
                }
              })
              return loop
            })
          )
        )
    case "runForEachArray":
      return (reads) => {
        let sum = 0
        return Effect.runPromise(
          Stream.runForEachArray(streamOf(reads), (values) =>
            Effect.sync(() => {
              for (const v of values) sum += v
            })
          )
        ).then(() => sum)
      }
    case "runForEach":
      return (reads) => {
        let sum = 0
        return Effect.runPromise(Stream.runForEach(streamOf(reads), (v) => Effect.sync(() => void (sum += v)))).then(
          () => sum
        )
      }
  }
}

const runContender = async (): Promise<void> => {
  const contender = process.env.BENCH_CONTENDER as Contender
  const streamOnce = await makeContender(contender)
  const cells: Array<CellResult> = []
  for (const cell of CELLS) {
    const reads = readsOf(cell.values, cell.perRead)
    const expected = (cell.values * (cell.values + 1)) / 2
    const stream = async () => {
      const sum = await streamOnce(reads)
      if (sum !== expected) throw new Error(`${contender}: sum ${sum}, expected ${expected}`)
    }
    for (let i = 0; i < cell.plan.warm; i++) await stream()
    const cpuUs = await cpuOf(async () => {
      for (let i = 0; i < cell.plan.measured; i++) await stream()
    })
    const units = cell.unit === "stream" ? cell.plan.measured : cell.values * cell.plan.measured
    cells.push({ cell: cell.name, cpuUs, units, served: cell.plan.measured, calls: cell.plan.measured })
  }
  report({ contender, cells })
}

const runBench = async (): Promise<void> => {
  const runs = await runInMemory(import.meta.url, "effect-stream", CONTENDERS, REPS)
  const rows = rowsAgainst(
    CELLS.map((c) => c.name),
    CONTENDERS,
    "forAwait",
    runs
  )
  const plan = CELLS.map(
    (c) => `${c.plan.measured} streams in the cell "${c.name}" after ${c.plan.warm} to warm up`
  ).join("; ")
  const text = writeResult(
    "effect-stream",
    "What Effect 4 costs a stream's consumer, in memory (bench/effect-stream.bench.ts)",
    `CPU of the worker process (µs, median of ${REPS} repetitions) per stream, pull or element, and its ratio to \`for await\` in the same repetition, median (min–max); ${plan}; one read per macrotask.\n\n${table(["CPU", ...CONTENDERS.map((c) => COLUMN[c])], rows)}`
  )
  console.log(text)
}

if (process.env.BENCH_ROLE === "worker") await runContender()
else await runBench()
