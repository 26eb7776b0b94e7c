/**
 * The poller's own cost, apart from the transport's: bench/poll.bench.ts measures whole queries over
 * loopback; this measures what umg adds around a query. Run one part per process:
 * `node --expose-gc --conditions=umg-source --import tsx bench/harness/pollParts.ts <part>` with part
 * - `cpu`: CPU per query of `VideoPoller` with a free query (10,000 tasks, 3 queries each, 3 s apart)
 *   against a `setTimeout` loop per task calling the same free query;
 * - `waitAll`, `wait`, `poll`, `rx`: heap per task (after GC, every poll live) of each face over a
 *   fake `HttpClient` that answers at once, so no socket or pool is counted, only what a poll keeps.
 * `PARTS_TASKS=n` changes the 10,000. It prints figures; nothing is asserted.
 */
import { HttpClient, HttpClientResponse } from "effect/http"
import { Effect, Fiber, Layer, ManagedRuntime, Stream } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as VideoPoller from "../../src/adapters/polling/VideoPoller.js"
import { createGateway } from "../../src/streams/index.js"

const TASKS = Math.max(1, Number(process.env.PARTS_TASKS ?? 10_000))
const part = process.argv[2] ?? "cpu"
const gc = () => (globalThis as { gc?: () => void }).gc?.()
const heap = () => {
  gc()
  return process.memoryUsage().heapUsed
}
const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

if (part === "cpu") {
  const QUERIES = 3
  const free = (i: number, n: number) => ({ task_id: `t${i}`, status: n >= QUERIES ? "succeeded" : "queued" })
  for (let rep = 0; rep < 2; rep++) {
    // The baseline: a timer per task, from each query's start.
    let c0 = process.cpuUsage()
    await new Promise<void>((resolve) => {
      let left = TASKS
      for (let i = 0; i < TASKS; i++) {
        let n = 0
        const tick = () => {
          const began = performance.now()
          if (free(i, ++n).status === "succeeded") return void (--left === 0 && resolve())
          setTimeout(tick, Math.max(0, 3_000 - (performance.now() - began)))
        }
        tick()
      }
    })
    const loop = cpuUs(process.cpuUsage(c0)) / (TASKS * QUERIES)
    const services = Effect.runSync(Effect.context<never>())
    const poller = VideoPoller.make()
    c0 = process.cpuUsage()
    await new Promise<void>((resolve) => {
      let left = TASKS
      for (let i = 0; i < TASKS; i++) {
        let n = 0
        poller.start(
          services,
          { query: Effect.sync(() => free(i, ++n)), intervalMs: 3_000, timeoutMs: 60_000 },
          () => void (--left === 0 && resolve())
        )
      }
    })
    const umg = cpuUs(process.cpuUsage(c0)) / (TASKS * QUERIES)
    console.log(
      `rep ${rep + 1}: VideoPoller ${umg.toFixed(1)} µs/query, setTimeout loop ${loop.toFixed(1)} µs/query (${TASKS} tasks × ${QUERIES})`
    )
  }
  process.exit(0)
}

// A gateway over a fake HttpClient: every task answers `queued` at once.
const client = HttpClient.make((request) =>
  Effect.sync(() =>
    HttpClientResponse.fromWeb(
      request,
      new Response(
        JSON.stringify({
          task_id: request.url.slice(request.url.lastIndexOf("/") + 1),
          status: "queued",
          format: "mp4"
        }),
        {
          headers: { "content-type": "application/json" }
        }
      )
    )
  )
)
const config = {
  baseUrl: "http://gateway.test",
  apiKey: "bench-key",
  httpClient: Layer.succeed(HttpClient.HttpClient, client)
}
const ids = Array.from({ length: TASKS }, (_, i) => `task_${i}`)
let before: number
let stop: () => Promise<void>
if (part === "rx") {
  const gateway = createGateway(config)
  await new Promise<void>((r) =>
    gateway.video.poll$("warm", { timeoutMs: 100 }).subscribe({ error: () => r(), complete: () => r() })
  )
  before = heap()
  const subscriptions = ids.map((id) => gateway.video.poll$(id).subscribe({ error: () => undefined }))
  stop = async () => {
    for (const s of subscriptions) s.unsubscribe()
    await gateway.dispose()
  }
} else {
  const runtime = ManagedRuntime.make(Gateway.layer(config))
  const g = await runtime.runPromise(Effect.service(Gateway))
  await runtime.runPromise(Effect.result(g.video.waitAll(["warm"], { timeoutMs: 100 })))
  await runtime.runPromise(Effect.result(Stream.runDrain(g.video.poll("warm", { timeoutMs: 100 }))))
  before = heap()
  const each = (f: (id: string) => Effect.Effect<unknown, unknown>) =>
    Effect.forEach(ids, (id) => Effect.result(f(id)), { concurrency: "unbounded", discard: true })
  const fiber = runtime.runFork(
    part === "waitAll"
      ? g.video.waitAll(ids)
      : part === "wait"
        ? each((id) => g.video.wait(id))
        : each((id) => Stream.runDrain(g.video.poll(id)))
  )
  stop = async () => {
    await runtime.runPromise(Fiber.interrupt(fiber))
    await runtime.dispose()
  }
}
// The first queries are answered at once; 2 s in, every poll waits for its next query.
await sleep(2_000)
console.log(
  `${part}: ${((heap() - before) / TASKS).toFixed(0)} bytes per polled task (${TASKS} tasks, fake HttpClient, no sockets)`
)
await stop()
process.exit(0)
