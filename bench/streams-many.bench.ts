/**
 * 10,000 concurrent SSE streams through `gateway.messages.stream`, against a fake gateway in another
 * process (bench/harness/sseServer.mjs) that keeps every stream open: how much memory the client holds
 * per open stream, and how long interrupting all of them takes until the server sees every socket
 * closed.
 *
 * Run: `node --expose-gc --conditions=umg-source --import tsx bench/streams-many.bench.ts` (`STREAMS=n`
 * changes the count, default 10,000; `BENCH_QUICK=1` makes it 1,000). It prints figures; nothing is
 * asserted. Bounded: it gives up after 120 s.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect, Fiber, Stream } from "effect"
import { Gateway } from "../src/adapters/Gateway.js"

const streams = Math.min(Number(process.env.STREAMS ?? (process.env.BENCH_QUICK === "1" ? 1_000 : 10_000)), 20_000)
const deadline = Date.now() + 120_000
const server = spawn(process.execPath, [fileURLToPath(new URL("./harness/sseServer.mjs", import.meta.url))], { stdio: ["ignore", "pipe", "inherit"] })
const port: number = await new Promise((resolve) => server.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))))
const baseUrl = `http://127.0.0.1:${port}`
const openOnServer = async (): Promise<number> => ((await (await fetch(`${baseUrl}/stats`)).json()) as { open: number }).open

const mib = (n: number) => (n / (1024 * 1024)).toFixed(1)
const gc = () => (globalThis as { gc?: () => void }).gc?.()

gc()
const before = process.memoryUsage()
let firstEvents = 0
const body = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] }
const layer = Gateway.layer({ baseUrl, apiKey: "bench-key", maxRetries: 0, streamFirstByteTimeoutMs: 110_000, streamIdleTimeoutMs: 110_000 })

const program = Effect.gen(function* () {
  const gateway = yield* Gateway
  const one = gateway.messages.stream(body).pipe(
    Stream.tap((e) => Effect.sync(() => (e.type === "message_start" ? firstEvents++ : undefined))),
    Stream.runDrain
  )
  const fibers = yield* Effect.forEach(Array.from({ length: streams }), () => Effect.fork(one))
  while (firstEvents < streams && Date.now() < deadline) yield* Effect.sleep("200 millis")
  gc()
  const during = process.memoryUsage()
  const open = yield* Effect.promise(openOnServer)
  const started = performance.now()
  yield* Fiber.interruptAll(fibers)
  const interrupted = performance.now() - started
  let closedAt = interrupted
  while (Date.now() < deadline) {
    if ((yield* Effect.promise(openOnServer)) === 0) {
      closedAt = performance.now() - started
      break
    }
    yield* Effect.sleep("50 millis")
  }
  return { during, open, interrupted, closedAt }
})

const result = await Effect.runPromise(Effect.provide(program, layer))
gc()
const after = process.memoryUsage()
console.log(`streams: ${streams}; every stream's first event seen: ${firstEvents === streams}; open on the server while running: ${result.open}`)
console.log(`client RSS growth while all are open: ${mib(result.during.rss - before.rss)} MiB (${((result.during.rss - before.rss) / streams / 1024).toFixed(1)} KiB per stream); heap growth ${mib(result.during.heapUsed - before.heapUsed)} MiB`)
console.log(`interrupting all: ${result.interrupted.toFixed(0)} ms until every fiber ended, ${result.closedAt.toFixed(0)} ms until the server saw every socket closed`)
console.log(`after: RSS ${mib(after.rss)} MiB, heap ${mib(after.heapUsed)} MiB`)
server.kill()
process.exit(0)
