/**
 * Load on the emulator's video task endpoints: 10,000 live tasks in one emulator.
 *
 * Run: `npx tsx bench/emulator-video.bench.ts` (about 10–40 s). `VIDEO_BENCH_TASKS=n` changes the
 * task count (capped at 50,000; `BENCH_QUICK=1` makes the default 1,000), `VIDEO_BENCH_CONCURRENCY=n`
 * the requests in flight (default 64).
 *
 * It starts one emulator with short timings (queued 500 ms, in progress 1 s), submits every task
 * over raw HTTP (a tenth of the prompts trip the content rule), then polls every unfinished task in
 * rounds until each is `succeeded` or `failed`, and prints submit and poll throughput, the heap used
 * with all tasks live, and any error. It compares against nothing but itself: the bar is 10,000 live
 * tasks without an error. The whole run is bounded by a 120 s deadline.
 */
import { startEmulator } from "../src/emulator/index.js"

const TASKS = Math.min(
  50_000,
  Math.max(1, Number(process.env.VIDEO_BENCH_TASKS ?? (process.env.BENCH_QUICK === "1" ? 1_000 : 10_000)))
)
const CONCURRENCY = Math.min(512, Math.max(1, Number(process.env.VIDEO_BENCH_CONCURRENCY ?? 64)))
const DEADLINE_MS = 120_000

/** Runs `work` over `items` with at most `CONCURRENCY` in flight. */
const pool = async <T>(items: ReadonlyArray<T>, work: (item: T) => Promise<void>): Promise<void> => {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker))
}

const emu = await startEmulator({ video: { queuedMs: 500, inProgressMs: 1_000 } })
const started = Date.now()
const errors: Array<string> = []
const headers = { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }
const models = ["alpha-2", "beta-3.1-fast-generate-001", "gamma2.5-t2v-preview"]

try {
  const ids: Array<string> = []
  const t0 = performance.now()
  await pool(
    Array.from({ length: TASKS }, (_, i) => i),
    async (i) => {
      const prompt = i % 10 === 0 ? `an inappropriate scene ${i}` : `a calm lake, take ${i}`
      const r = await fetch(`${emu.url}/v1/video/generations`, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: models[i % models.length], prompt })
      })
      const body = (await r.json()) as { task_id?: string }
      if (r.status !== 200 || body.task_id === undefined) errors.push(`submit ${i}: HTTP ${r.status}`)
      else ids.push(body.task_id)
    }
  )
  const submitMs = performance.now() - t0
  const heapMb = process.memoryUsage().heapUsed / 1024 / 1024

  const outcome = new Map<string, number>()
  let pending = ids
  let polls = 0
  const t1 = performance.now()
  while (pending.length > 0 && Date.now() - started < DEADLINE_MS) {
    const still: Array<string> = []
    await pool(pending, async (id) => {
      polls++
      const r = await fetch(`${emu.url}/v1/video/generations/${id}`, { headers })
      const body = (await r.json()) as { status?: string; url?: string; error?: { code?: unknown } }
      if (r.status !== 200) return void errors.push(`poll ${id}: HTTP ${r.status}`)
      if (body.status === "succeeded" || body.status === "failed") {
        if (body.status === "failed" && !Number.isInteger(body.error?.code))
          errors.push(`poll ${id}: failed without integer code`)
        outcome.set(body.status, (outcome.get(body.status) ?? 0) + 1)
      } else still.push(id)
    })
    pending = still
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 200))
  }
  const pollMs = performance.now() - t1
  if (pending.length > 0) errors.push(`${pending.length} tasks unfinished at the ${DEADLINE_MS / 1000} s deadline`)

  const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString("en")}/s`
  console.log(`emulator video bench: ${TASKS.toLocaleString("en")} tasks, ${CONCURRENCY} in flight`)
  console.log(`  submit:  ${TASKS} in ${Math.round(submitMs)} ms (${rate(TASKS, submitMs)})`)
  console.log(`  poll:    ${polls} queries in ${Math.round(pollMs)} ms (${rate(polls, pollMs)})`)
  console.log(`  heap:    ${heapMb.toFixed(1)} MB used with ${ids.length} live tasks`)
  console.log(`  outcome: ${[...outcome].map(([k, v]) => `${k} ${v}`).join(", ")}`)
  console.log(
    `  counters: video.submit ${emu.counters.get("video.submit")}, video.get ${emu.counters.get("video.get")}`
  )
  console.log(`  errors:  ${errors.length}${errors.length > 0 ? ` (first: ${errors.slice(0, 3).join("; ")})` : ""}`)
  process.exitCode = errors.length === 0 ? 0 : 1
} finally {
  await emu.close()
}
