/**
 * 10,000 concurrent SSE streams, against a fake gateway in another process
 * (bench/harness/sseServer.mjs) that keeps every stream open and sends a text delta every 500 ms: how
 * much memory the client holds per open stream, and how long stopping all of them takes until the
 * server sees every socket closed. Contenders, each in its own process, one after another:
 * - raw node:http: `http.request` on a keep-alive agent + eventsource-parser + `JSON.parse` (what the
 *   streams themselves need: a socket, a parser, the decoded events);
 * - raw fetch: `fetch` + eventsource-parser + `JSON.parse`;
 * - Effect floor: the raw node:http stream as an Effect `Stream` (`Stream.fromPull` of the parsed
 *   events, the leanest Effect's public API builds; the request destroyed by `Stream.ensuring`), run
 *   by `Stream.runForEach`
 *   in a daemon fiber and stopped by interrupting it — what any Effect stream consumed the way umg's
 *   users consume one costs, before decoding, validating, accumulating and time limits;
 * - umg over fetch: `gateway.messages.stream` with `httpClient: FetchHttpClient.layer`;
 * - umg: `gateway.messages.stream` with the default client (`node:http` in Node).
 * Each stream reads every event (umg decodes, validates and accumulates it; the raw ones parse it and
 * keep the text). Stopping is `destroy()` / `AbortController.abort()` for the raw ones and fiber
 * interruption for umg.
 *
 * Run: `node --expose-gc --conditions=umg-source --import tsx bench/streams-many.bench.ts` (`STREAMS=n`
 * changes the count, default 10,000; `BENCH_QUICK=1` makes it 1,000; `STREAMS_CONTENDERS=a,b` picks
 * contenders). It prints a table; nothing is asserted. Each contender gives up waiting for its streams to start after 120 s, and for the server to see them closed a minute after stopping.
 */
import { fork, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import type * as Fx from "effect"
import { gatewayModule } from "./harness/umg.js"

const ROLE = process.env.STREAMS_ROLE ?? "main"
const streams = Math.min(Number(process.env.STREAMS ?? (process.env.BENCH_QUICK === "1" ? 1_000 : 10_000)), 20_000)
const CONTENDERS = ["raw node:http", "raw fetch", "Effect floor", "umg over fetch", "umg"] as const
type Contender = (typeof CONTENDERS)[number]

interface Result {
  readonly contender: string
  readonly started: number
  readonly failed: string
  readonly openOnServer: number
  readonly rssPerStreamKiB: number
  readonly heapPerStreamKiB: number
  readonly stopMs: number
  readonly closedMs: number
}

const runContender = async (contender: Contender): Promise<Result> => {
  const deadline = Date.now() + 120_000
  const baseUrl = process.env.STREAMS_BASE_URL!
  const openOnServer = async (): Promise<number> =>
    ((await (await fetch(`${baseUrl}/stats`)).json()) as { open: number }).open
  const gc = () => (globalThis as { gc?: () => void }).gc?.()
  const body = {
    model: "epsilon-sonnet-4-5-20250929",
    max_tokens: 64,
    messages: [{ role: "user" as const, content: "hi" }]
  }
  let firstEvents = 0
  const failures: Record<string, number> = {}
  let stop: () => Promise<void>

  const { createParser } = await import("eventsource-parser")
  const rawStream = (read: (onText: (text: string) => void) => void) => {
    let text = ""
    const parser = createParser({
      onEvent: (e) => {
        const json = JSON.parse(e.data) as { type: string; delta?: { text?: string } }
        if (json.type === "message_start") firstEvents++
        text += json.delta?.text ?? ""
      }
    })
    read((chunk) => parser.feed(chunk))
    return () => text
  }
  // Everything a contender loads or builds once comes before the first reading, so the figures are of
  // open streams, not of modules.
  const http = await import("node:http")
  const { Effect, Fiber, Stream } = await import("effect")
  const { FetchHttpClient } = await import("effect/http")
  const { Gateway } = await gatewayModule()
  const gateway = contender.startsWith("umg")
    ? await Effect.runPromise(
        Effect.provide(
          Effect.service(Gateway),
          Gateway.layer({
            baseUrl,
            apiKey: "bench-key",
            maxRetries: 0,
            streamFirstByteTimeoutMs: 110_000,
            streamIdleTimeoutMs: 110_000,
            ...(contender === "umg over fetch" ? { httpClient: FetchHttpClient.layer } : {})
          })
        )
      )
    : undefined
  gc()
  const before = process.memoryUsage()
  if (contender === "raw node:http") {
    const agent = new http.Agent({ keepAlive: true })
    const requests: Array<import("node:http").ClientRequest> = []
    for (let i = 0; i < streams; i++) {
      const req = http.request(
        `${baseUrl}/v1/messages`,
        { method: "POST", agent, headers: { "content-type": "application/json" } },
        (res) => {
          rawStream((feed) => {
            res.setEncoding("utf8")
            res.on("data", feed)
          })
        }
      )
      req.on("error", () => {})
      req.end(JSON.stringify(body))
      requests.push(req)
    }
    stop = async () => {
      for (const req of requests) req.destroy()
    }
  } else if (contender === "raw fetch") {
    const controllers: Array<AbortController> = []
    const done: Array<Promise<void>> = []
    for (let i = 0; i < streams; i++) {
      const controller = new AbortController()
      controllers.push(controller)
      done.push(
        (async () => {
          const res = await fetch(`${baseUrl}/v1/messages`, {
            method: "POST",
            body: JSON.stringify(body),
            headers: { "content-type": "application/json" },
            signal: controller.signal
          })
          const decoder = new TextDecoder()
          let feed: (text: string) => void = () => {}
          rawStream((f) => (feed = f))
          for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>)
            feed(decoder.decode(chunk, { stream: true }))
        })().catch(() => {})
      )
    }
    stop = async () => {
      for (const c of controllers) c.abort()
      await Promise.all(done)
    }
  } else if (contender === "Effect floor") {
    type Events = readonly [{ type: string }, ...Array<{ type: string }>]
    const agent = new http.Agent({ keepAlive: true })
    const floorStream = () =>
      Stream.suspend(() => {
        let pending: Array<{ type: string }> = []
        let waiting: ((next: Fx.Effect.Effect<Events>) => void) | undefined
        let req: import("node:http").ClientRequest | undefined
        const parser = createParser({
          onEvent: (e) => {
            pending.push(JSON.parse(e.data) as { type: string })
            const resume = waiting
            if (resume === undefined) return
            waiting = undefined
            const out = pending as unknown as Events
            pending = []
            resume(Effect.succeed(out))
          }
        })
        const pull = Effect.suspend(() => {
          if (req === undefined) {
            req = http.request(
              `${baseUrl}/v1/messages`,
              { method: "POST", agent, headers: { "content-type": "application/json" } },
              (res) => {
                res.setEncoding("utf8")
                res.on("data", (chunk: string) => parser.feed(chunk))
              }
            )
            req.on("error", () => {})
            req.end(JSON.stringify(body))
          }
          if (pending.length > 0) {
            const out = pending as unknown as Events
            pending = []
            return Effect.succeed(out)
          }
          return Effect.callback<Events>((resume) => {
            waiting = resume
            return Effect.sync(() => {
              waiting = undefined
            })
          })
        })
        // The leanest stream of pulls Effect's public API builds (these streams never end by themselves).
        return Stream.fromPull(Effect.succeed(pull)).pipe(Stream.ensuring(Effect.sync(() => req?.destroy())))
      })
    const one = floorStream().pipe(
      Stream.runForEach((e) => Effect.sync(() => (e.type === "message_start" ? firstEvents++ : undefined)))
    )
    const fibers = await Effect.runPromise(
      Effect.forEach(Array.from({ length: streams }), () => Effect.forkDetach(one))
    )
    stop = () => Effect.runPromise(Fiber.interruptAll(fibers))
  } else {
    const one = gateway!.messages.stream(body).pipe(
      Stream.runForEach((e) => Effect.sync(() => (e.type === "message_start" ? firstEvents++ : undefined))),
      // A stream that fails (a refused connection when the server's backlog overflows) is counted, not lost.
      Effect.catch((error) => Effect.sync(() => void (failures[error._tag] = (failures[error._tag] ?? 0) + 1)))
    )
    // Detached: a fiber forked by `forkChild` would be interrupted as soon as the `runPromise` that forked it ends.
    const fibers = await Effect.runPromise(
      Effect.forEach(Array.from({ length: streams }), () => Effect.forkDetach(one))
    )
    stop = () => Effect.runPromise(Fiber.interruptAll(fibers))
  }
  while (firstEvents < streams && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
  gc()
  const during = process.memoryUsage()
  const open = await openOnServer()
  const t0 = performance.now()
  await stop()
  const stopMs = performance.now() - t0
  let closedMs = Number.NaN
  // Closing gets its own minute, however long the streams took to start.
  const closeDeadline = Date.now() + 60_000
  while (Date.now() < closeDeadline) {
    if ((await openOnServer()) === 0) {
      closedMs = performance.now() - t0
      break
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    contender,
    started: firstEvents,
    failed: Object.entries(failures)
      .map(([tag, n]) => `${n} ${tag}`)
      .join(", "),
    openOnServer: open,
    rssPerStreamKiB: (during.rss - before.rss) / streams / 1024,
    heapPerStreamKiB: (during.heapUsed - before.heapUsed) / streams / 1024,
    stopMs,
    closedMs
  }
}

if (ROLE === "contender") {
  const result = await runContender(process.env.STREAMS_CONTENDER as Contender)
  process.send!(result, () => process.exit(0))
} else {
  const picked = (process.env.STREAMS_CONTENDERS?.split(",") ?? CONTENDERS) as ReadonlyArray<Contender>
  const rows: Array<Result> = []
  for (const contender of picked) {
    // A fresh server per contender, so no contender sees sockets another left behind.
    const server = spawn(process.execPath, [fileURLToPath(new URL("./harness/sseServer.mjs", import.meta.url))], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    const port: number = await new Promise((resolve) =>
      server.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())))
    )
    const child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: ["--expose-gc", "--max-old-space-size=8192", "--conditions=umg-source", "--import", "tsx"],
      env: {
        ...process.env,
        STREAMS_ROLE: "contender",
        STREAMS_CONTENDER: contender,
        STREAMS_BASE_URL: `http://127.0.0.1:${port}`
      }
    })
    const result = await new Promise<Result | undefined>((resolve) => {
      child.once("message", (m) => resolve(m as Result))
      child.once("exit", () => resolve(undefined))
    })
    server.kill()
    if (result === undefined) console.log(`${contender}: the contender process ended without a result`)
    else {
      rows.push(result)
      console.log(`${contender}: ${JSON.stringify(result)}`)
    }
  }
  const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "—")
  console.log(
    `\n${streams.toLocaleString("en")} concurrent SSE streams, each contender in its own process (${new Date().toISOString().slice(0, 16)} UTC)\n`
  )
  console.log(
    "| contender | streams started | RSS per open stream | heap per open stream | stop all (client) | until the server saw every socket closed |"
  )
  console.log("|---|---|---|---|---|---|")
  for (const r of rows)
    console.log(
      `| ${r.contender} | ${r.started} (${r.openOnServer} open on the server${r.failed ? `; failed: ${r.failed}` : ""}) | ${fmt(r.rssPerStreamKiB)} KiB | ${fmt(r.heapPerStreamKiB)} KiB | ${fmt(r.stopMs, 0)} ms | ${fmt(r.closedMs, 0)} ms |`
    )
}
