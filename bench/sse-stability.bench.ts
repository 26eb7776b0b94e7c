/**
 * Stability of umg's SSE parser against eventsource-parser across fresh processes: `bench/sse.bench.ts`
 * measures each cell in one pair of processes, which hides a parser whose speed depends on what its
 * first calls saw (a JIT decision taken once per process). Here every cell is measured in N fresh
 * pairs of processes ("rounds"), and the spread is taken over the rounds.
 *
 * Run: `node --conditions=umg-source --import tsx bench/sse-stability.bench.ts` (10 rounds per cell,
 * ~9 minutes on 2 cores); `BENCH_QUICK=1` (or `SSE_BENCH_QUICK=1`): 3 rounds and smaller streams,
 * about two minutes. `SSE_BENCH_ONLY=CRLF` runs only the cells whose "stream / chunks" label holds
 * that text; `SSE_STABILITY_ROUNDS=n` sets the rounds; `SSE_STABILITY_RESULT=name` writes
 * `bench/results/<name>.md` instead. `UMG_BENCH_SOURCE=1` measures the sources, `UMG_BENCH_DIST=dir`
 * another build (see `bench/harness/umg.ts`).
 *
 * Method: the children are `bench/sse.bench.ts`'s own (same streams, chunkings, contenders, warm-up
 * and CPU-time repetitions). In a round, both contenders start at once in fresh processes, then
 * measure `reps` repetitions, one at a time, the order alternated; the round's ratio is the median
 * of its per-repetition ratios (eventsource-parser time / umg time: > 1 means umg is faster). Per
 * cell the table gives the rounds' ratios, min / median / max, and umg's and eventsource-parser's
 * MB/s range over the rounds (a bimodal parser shows as a wide umg range with a steady
 * eventsource-parser); each round's ratio is printed with both MB/s, so a dip can be told apart
 * (umg slower, or eventsource-parser faster). Writes `bench/results/sse-stability.md`. Nothing is
 * asserted on time.
 */
import { type Runner, spawnRunner } from "./harness/child.js"
import { fileURLToPath } from "node:url"
import { summarize, writeResult } from "./harness/contest.js"

const quick = process.env.BENCH_QUICK === "1" || process.env.SSE_BENCH_QUICK === "1"
const rounds = Number(process.env.SSE_STABILITY_ROUNDS ?? (quick ? 3 : 10))
const reps = quick ? 3 : 5
const only = process.env.SSE_BENCH_ONLY
// `SSE_STABILITY_RESULT=name`: the results go to `bench/results/<name>.md` (default `sse-stability`).
const resultName = process.env.SSE_STABILITY_RESULT ?? "sse-stability"
const MiB = 1024 * 1024

// The cells of `bench/sse.bench.ts`, in its order.
const streams = ["messages", "OpenAI chat", "messages CRLF", "1 MB events"]
const chunkings = ["1–16 KiB", "0.1–2 KiB", "1–7 B", "one chunk"]
type Contender = "umg" | "esp"

interface Ready {
  readonly ready: true
  readonly tally: { readonly events: number; readonly dataLength: number }
  readonly bytes: number
  readonly parses: number
}

type Child = Runner<Ready, number>

const childFile = fileURLToPath(new URL("./sse.bench.ts", import.meta.url))

const spawn = (contender: Contender, stream: string, chunking: string): Promise<Child> =>
  spawnRunner({
    name: contender,
    file: childFile,
    args: ["--child", contender, stream, chunking],
    execArgv: process.execArgv,
    env: { ...process.env, ...(quick ? { SSE_BENCH_QUICK: "1" } : {}) },
    resultOf: (message: { readonly seconds: number }) => message.seconds
  })

const median = (xs: ReadonlyArray<number>): number => summarize(xs).median
const f2 = (x: number): string => x.toFixed(2)

const main = async (): Promise<void> => {
  const started = Date.now()
  const build =
    process.env.UMG_BENCH_SOURCE === "1"
      ? "umg from its sources (tsx)"
      : process.env.UMG_BENCH_DIST !== undefined
        ? `umg from ${process.env.UMG_BENCH_DIST}`
        : "umg from dist/"
  const header =
    `${build}: umg createSseParser vs eventsource-parser (TextDecoder + createParser), sse.bench.ts's cells; ${rounds} rounds per cell, ` +
    `each a fresh pair of processes measuring ${reps} CPU-time repetitions, order alternated; round ratio = median of ` +
    `its per-repetition ratios (esp time / umg time, > 1: umg faster); MB = 2^20 bytes${quick ? " [quick]" : ""}`
  console.log(header + "\n")
  const rows: Array<string> = []
  const line = (cells: ReadonlyArray<string>): string => `| ${cells.join(" | ")} |`
  rows.push(
    line([
      "stream",
      "chunks",
      "ratio min",
      "median",
      "max",
      "bar",
      "rounds ≥ bar",
      "umg MB/s (min–max)",
      "esp MB/s (min–max)",
      "each round: ratio (umg/esp MB/s)"
    ])
  )
  rows.push(line(["---", "---", "---", "---", "---", "---", "---", "---", "---", "---"]))
  console.log(rows.join("\n"))
  for (const stream of streams) {
    for (const chunking of chunkings) {
      if (only !== undefined && !`${stream} / ${chunking}`.includes(only)) continue
      const bar = chunking === "1–16 KiB" ? 1.3 : 1.0
      const roundRatios: Array<number> = []
      const umgRates: Array<number> = []
      const espRates: Array<number> = []
      for (let round = 0; round < rounds; round++) {
        const [umg, esp] = await Promise.all([spawn("umg", stream, chunking), spawn("esp", stream, chunking)])
        try {
          if (
            umg.ready.tally.events !== esp.ready.tally.events ||
            umg.ready.tally.dataLength !== esp.ready.tally.dataLength
          ) {
            throw new Error(
              `${stream} / ${chunking}: umg saw ${JSON.stringify(umg.ready.tally)}, eventsource-parser ${JSON.stringify(esp.ready.tally)}`
            )
          }
          const ratios: Array<number> = []
          const times: Record<Contender, Array<number>> = { umg: [], esp: [] }
          for (let rep = 0; rep < reps; rep++) {
            // Alternated per repetition, and the first contender alternated per round.
            const umgFirst = (rep + round) % 2 === 0
            const first = umgFirst ? umg : esp
            const second = umgFirst ? esp : umg
            const a = await first.run()
            const b = await second.run()
            const u = umgFirst ? a : b
            const e = umgFirst ? b : a
            times.umg.push(u)
            times.esp.push(e)
            ratios.push(e / u)
          }
          roundRatios.push(median(ratios))
          umgRates.push(umg.ready.bytes / MiB / median(times.umg))
          espRates.push(esp.ready.bytes / MiB / median(times.esp))
        } finally {
          umg.close()
          esp.close()
        }
      }
      const s = summarize(roundRatios)
      const u = summarize(umgRates)
      const e = summarize(espRates)
      const row = line([
        stream,
        chunking,
        `${f2(s.min)}×`,
        `${f2(s.median)}×`,
        `${f2(s.max)}×`,
        `${bar.toFixed(1)}×`,
        `${roundRatios.filter((r) => r >= bar).length}/${rounds}`,
        `${u.median.toFixed(0)} (${u.min.toFixed(0)}–${u.max.toFixed(0)})`,
        `${e.median.toFixed(0)} (${e.min.toFixed(0)}–${e.max.toFixed(0)})`,
        roundRatios.map((r, i) => `${f2(r)} (${umgRates[i]!.toFixed(0)}/${espRates[i]!.toFixed(0)})`).join(" ")
      ])
      rows.push(row)
      console.log(row)
    }
  }
  const seconds = Math.round((Date.now() - started) / 1000)
  writeResult(
    resultName,
    "sse-stability (bench/sse-stability.bench.ts)",
    `${header}. The bar: ≥ 1.3× in 1–16 KiB chunks, ≥ 1.0× otherwise, for the median and (stability) for the slowest round. ${seconds} s.\n\n${rows.join("\n")}`
  )
  console.log(`\nwritten: bench/results/${resultName}.md (${seconds} s)`)
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
