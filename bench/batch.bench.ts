/**
 * What a durable batch costs beyond its gateway calls. Two contenders do the same gateway work for
 * the same inputs at the same concurrency and poll interval, each in its own process, against the
 * emulator (fast timings) in a third process over loopback:
 * - `direct`: `gateway.video.submit` then `gateway.video.wait` per input, `Effect.forEach` with the
 *   concurrency — no journal;
 * - `batch`: `Batch.video` on a SQLite store (the journal, the cluster runner, the slot workflows),
 *   its `progress` consumed as a CLI would, then its `results`.
 * Beta inputs only, so neither writes video files. Per repetition (the order alternates) it takes
 * the batch's CPU time minus the direct one's, divided by the lines: the engine's overhead per line.
 * It also reports the batch process's peak RSS and the longest gap between two progress updates.
 *
 * Run: `node --conditions=umg-source --import tsx bench/batch.bench.ts` (10,000 lines, 3
 * repetitions, a few minutes); `BATCH_BENCH_QUICK=1` for 1,000 lines and one repetition, `BENCH_QUICK=1`
 * (`npm run bench:quick`) for 500 lines and one repetition;
 * `BATCH_BENCH_LINES`, `BATCH_BENCH_REPS`, `BATCH_BENCH_CONCURRENCY` override. Nothing is asserted.
 */
import { fork } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const ROLE = process.env.BATCH_BENCH_ROLE ?? "main"
const QUICKEST = process.env.BENCH_QUICK === "1"
const QUICK = QUICKEST || process.env.BATCH_BENCH_QUICK === "1"
const LINES = Number(process.env.BATCH_BENCH_LINES ?? (QUICKEST ? 500 : QUICK ? 1_000 : 10_000))
const REPS = Number(process.env.BATCH_BENCH_REPS ?? (QUICK ? 1 : 3))
const CONCURRENCY = Number(process.env.BATCH_BENCH_CONCURRENCY ?? 100)
const POLL_MS = 20

interface Report {
  readonly contender: "direct" | "batch"
  readonly cpuMs: number
  readonly wallMs: number
  readonly peakRssMiB: number
  readonly maxProgressGapMs: number
  readonly succeeded: number
}

const inputs = (tag: string) =>
  Array.from({ length: LINES }, (_, i) => ({ model: "beta-3.0-fast-generate-001", prompt: `${tag} ${i + 1}` }))

const runEmulator = async () => {
  const { startEmulator } = await import("../src/emulator/index.js")
  const emulator = await startEmulator({ fast: true, video: { queuedMs: 30, inProgressMs: 60 } })
  process.send?.({ url: emulator.url, apiKey: emulator.apiKey })
}

const runClient = async () => {
  const { Effect, Layer, Result, Stream } = await import("effect")
  const { Gateway } = await import("../src/adapters/Gateway.js")
  const { Batch } = await import("../src/batch/index.js")
  const contender = process.env.BATCH_BENCH_CONTENDER as Report["contender"]
  const gateway = Gateway.layer({
    baseUrl: process.env.BATCH_BENCH_URL!,
    apiKey: process.env.BATCH_BENCH_KEY!,
    minPollIntervalMs: 10,
    timeoutMs: 60_000
  })
  let peakRss = process.memoryUsage.rss()
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50)
  const tag = `${contender}-${process.pid}`
  let cpu = process.cpuUsage()
  let began = performance.now()
  const start = Effect.sync(() => {
    cpu = process.cpuUsage()
    began = performance.now()
  })
  let maxGap = 0
  let succeeded = 0
  if (contender === "direct") {
    await Effect.runPromise(
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* g.video.get("warmup").pipe(Effect.ignore)
        yield* start
        const outcomes = yield* Effect.forEach(
          inputs(tag),
          (input) =>
            Effect.flatMap(g.video.submit(input), (s) =>
              g.video.wait(s.task_id, { intervalMs: POLL_MS, timeoutMs: 600_000 })
            ).pipe(Effect.result),
          { concurrency: CONCURRENCY }
        )
        succeeded = outcomes.filter(Result.isSuccess).length
      }).pipe(Effect.provide(gateway))
    )
  } else {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-bench-"))
    await Effect.runPromise(
      Effect.gen(function* () {
        const g = yield* Gateway
        yield* g.video.get("warmup").pipe(Effect.ignore)
        yield* start
        const batch = yield* Batch.video({ id: tag, inputs: inputs(tag), concurrency: CONCURRENCY })
        let last = performance.now()
        yield* Stream.runForEach(batch.progress, () =>
          Effect.sync(() => {
            const now = performance.now()
            maxGap = Math.max(maxGap, now - last)
            last = now
          })
        )
        const results = yield* batch.results
        succeeded = results.filter((r) => r.status === "succeeded").length
      }).pipe(
        Effect.provide(
          Layer.provideMerge(Batch.layer({ store: Batch.sqlite(join(dir, "b.db")), pollIntervalMs: POLL_MS }), gateway)
        )
      )
    )
    rmSync(dir, { recursive: true, force: true })
  }
  const used = process.cpuUsage(cpu)
  clearInterval(sampler)
  const report: Report = {
    contender,
    cpuMs: (used.user + used.system) / 1000,
    wallMs: performance.now() - began,
    peakRssMiB: peakRss / 2 ** 20,
    maxProgressGapMs: maxGap,
    succeeded
  }
  process.send?.(report)
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const runMain = async () => {
  const self = fileURLToPath(import.meta.url)
  const execArgv = ["--conditions=umg-source", "--import", "tsx"]
  // Effect 4's Node platform needs Node 24: this one, or the repository's own.
  const execPath =
    Number(process.versions.node.split(".")[0]) >= 24
      ? process.execPath
      : fileURLToPath(new URL("../node_modules/.bin/node", import.meta.url))
  const emulator = fork(self, [], { env: { ...process.env, BATCH_BENCH_ROLE: "emulator" }, execArgv, execPath })
  const { url, apiKey } = await new Promise<{ url: string; apiKey: string }>((resolve) =>
    emulator.once("message", (m) => resolve(m as never))
  )
  const client = (contender: Report["contender"]) =>
    new Promise<Report>((resolve, reject) => {
      const child = fork(self, [], {
        env: {
          ...process.env,
          BATCH_BENCH_ROLE: "client",
          BATCH_BENCH_CONTENDER: contender,
          BATCH_BENCH_URL: url,
          BATCH_BENCH_KEY: apiKey
        },
        execArgv,
        execPath
      })
      child.once("message", (m) => resolve(m as Report))
      child.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`${contender} exited ${code}`))))
    })
  console.log(`batch bench: ${LINES} lines, concurrency ${CONCURRENCY}, poll ${POLL_MS} ms, ${REPS} repetition(s)`)
  const overheads: Array<number> = []
  const rss: Array<number> = []
  const gaps: Array<number> = []
  for (let rep = 0; rep < REPS; rep++) {
    const order: Array<Report["contender"]> = rep % 2 === 0 ? ["direct", "batch"] : ["batch", "direct"]
    const reports: Partial<Record<Report["contender"], Report>> = {}
    for (const c of order) reports[c] = await client(c)
    const d = reports.direct!
    const b = reports.batch!
    const perLine = (b.cpuMs - d.cpuMs) / LINES
    overheads.push(perLine)
    rss.push(b.peakRssMiB)
    gaps.push(b.maxProgressGapMs)
    console.log(
      `rep ${rep + 1}: direct ${d.cpuMs.toFixed(0)} ms CPU (${d.wallMs.toFixed(0)} ms wall, ${d.succeeded} ok); batch ${b.cpuMs.toFixed(0)} ms CPU (${b.wallMs.toFixed(0)} ms wall, ${b.succeeded} ok, peak RSS ${b.peakRssMiB.toFixed(0)} MiB, longest progress gap ${b.maxProgressGapMs.toFixed(0)} ms); overhead ${perLine.toFixed(3)} ms CPU per line`
    )
  }
  console.log(
    `overhead per line: median ${median(overheads).toFixed(3)} ms CPU (min ${Math.min(...overheads).toFixed(3)}, max ${Math.max(...overheads).toFixed(3)}); goal ≤ 5 ms`
  )
  console.log(
    `batch peak RSS: max ${Math.max(...rss).toFixed(0)} MiB (goal ≤ 1024); longest progress gap: max ${Math.max(...gaps).toFixed(0)} ms (goal ≤ 1000)`
  )
  emulator.kill()
}

if (ROLE === "emulator") void runEmulator()
else if (ROLE === "client") void runClient().then(() => process.exit(0))
else void runMain()
