/**
 * A paired A/B of two builds of umg: one contender of one bench, run from build A and from build B
 * alternately (A B, B A, A B, …), each worker in its own process against the same fake gateway, and
 * the ratio B ÷ A of CPU per unit taken per pair and printed per cell as median (min–max). For a
 * change whose effect (a few per cent) the full bench's spread between repetitions hides: every
 * other contender is left out, so the pairs come close together in time.
 *
 * Run: `npm run build`, build the other revision too (for example `git worktree add /tmp/old HEAD~1`,
 * `ln -s "$PWD/node_modules" /tmp/old/` and `npx tsc -p /tmp/old/tsconfig.build.json`), then
 * `node --conditions=umg-source --import tsx bench/ab.ts text-streams effect /tmp/old/dist dist 10`
 * (bench: `text-streams`, `requests` or `sse-decode`; contender: one of that bench's; then the
 * builds A and B and the number of pairs, default 10). The workers inherit the environment, so a
 * bench's own filters apply (`TEXT_STREAMS_CELLS="messages stream, big"`). Nothing is written to
 * `bench/results/`.
 */
import { resolve } from "node:path"
import { fmtRatio, fmtUs, runWorker, summarize, table, type WorkerResult } from "./harness/contest.js"
import { startFakeGateway } from "./harness/fakeGateway.js"

const [bench, contender, distA, distB, pairsText] = process.argv.slice(2)
if (bench === undefined || contender === undefined || distA === undefined || distB === undefined) {
  console.error("usage: bench/ab.ts <bench> <contender> <dist A> <dist B> [pairs]")
  process.exit(2)
}
const pairs = Math.max(1, Number(pairsText ?? 10))
const file = new URL(`./${bench}.bench.ts`, import.meta.url).href
const builds = { A: resolve(distA), B: resolve(distB) } as const

const gateway = await startFakeGateway()
const runs: Array<{ A: WorkerResult; B: WorkerResult }> = []
try {
  for (let pair = 0; pair < pairs; pair++) {
    const order = pair % 2 === 0 ? (["A", "B"] as const) : (["B", "A"] as const)
    const got: Partial<Record<"A" | "B", WorkerResult>> = {}
    for (const build of order) {
      got[build] = await runWorker(file, contender, gateway, { UMG_BENCH_DIST: builds[build] })
      process.stderr.write(`ab: pair ${pair + 1}/${pairs}, ${build} done\n`)
    }
    runs.push({ A: got.A!, B: got.B! })
  }
} finally {
  gateway.close()
}

const perUnit = (r: WorkerResult, cell: string) => {
  const c = r.cells.find((x) => x.cell === cell)!
  return c.cpuUs / c.units
}
const rows = runs[0]!.A.cells.map(({ cell }) => {
  const a = summarize(runs.map((run) => perUnit(run.A, cell)))
  const b = summarize(runs.map((run) => perUnit(run.B, cell)))
  const ratio = summarize(runs.map((run) => perUnit(run.B, cell) / perUnit(run.A, cell)))
  return [cell, `${fmtUs(a.median)} µs`, `${fmtUs(b.median)} µs`, fmtRatio(ratio)]
})
console.log(
  `A/B of ${bench} · ${contender}: A = ${builds.A}, B = ${builds.B}; ${pairs} pairs, the order alternated; ${new Date().toISOString().slice(0, 16)} UTC\n`
)
console.log(table(["cell", "A (median)", "B (median)", "B ÷ A per pair, median (min–max)"], rows))
