/**
 * Polling many video tasks from one process: umg's one poll loop — `video.waitAll` (one fiber for
 * every task), `video.wait` run once per task (`Effect.forEach`, a fiber each) through `Gateway.layer`,
 * and `video.poll$` on umg/rx — against the baseline, a plain `fetch` + `setTimeout` loop per task,
 * also from each query's start; each contender in its own process, against a fake gateway in another
 * process over loopback (this file, run as the server).
 *
 * Run: `node --expose-gc --conditions=umg-source --import tsx bench/poll.bench.ts`
 * (`BENCH_QUICK=1` or `POLL_BENCH_QUICK=1`: 1,000 tasks, one repetition, about three minutes; default
 * 10,000 tasks, two repetitions with the contenders' order rotated; `POLL_BENCH_TASKS=n`,
 * `POLL_BENCH_REPS=n` and `POLL_BENCH_ONLY=fetch,effect,…` override; `POLL_BENCH_CPU_PROF=dir` runs
 * each client under `--cpu-prof`, `POLL_BENCH_SNAPSHOT=dir` writes heap snapshots (slow: minutes)).
 * It prints figures and ratios; nothing is asserted. `bench/harness/pollParts.ts` measures the
 * poller's own CPU (a free query instead of HTTP) and each face's heap per task without sockets.
 *
 * Each client first polls 20 warm-up tasks to their end through the same path (so code is compiled
 * and pools exist before anything is measured). Then every task is started at once, queried at umg's default cadence (4 s from one query's start to the
 * next) and answers `queued`, then `in_progress`, then `succeeded` after `TASK_MS` from its first
 * query, so each task is queried about six times. Per contender it prints:
 * - gaps: the time between two queries of one task, as the server saw them arrive — min and max over
 *   every gap of every task (the gateway contract asks for 3–5 s), and how many fell outside;
 * - heap per task: the client's heap growth (after a GC) from before polling to a moment when every
 *   poll is live (10 s in), divided by the tasks (the sockets a contender holds included);
 * - sockets: the most connections the server saw open at once;
 * - CPU per query: the client process's CPU time over the poll phase divided by the queries the
 *   server answered (the probe's own GC left out), and its ratio to the fetch loop's in the same
 *   repetition; with several repetitions, the median ratio and its range.
 */
import { fork, type ChildProcess } from "node:child_process"
import { createServer } from "node:http"
import { cpus, loadavg } from "node:os"
import { fileURLToPath } from "node:url"

const ROLE = process.env.POLL_BENCH_ROLE ?? "main"
const QUICK = process.env.BENCH_QUICK === "1" || process.env.POLL_BENCH_QUICK === "1"
const TASKS = Math.min(20_000, Math.max(1, Number(process.env.POLL_BENCH_TASKS ?? (QUICK ? 1_000 : 10_000))))
const REPS = Math.max(1, Number(process.env.POLL_BENCH_REPS ?? (QUICK ? 1 : 2)))
const INTERVAL_MS = 4_000
const TASK_MS = 22_000
const WARM_MS = 6_000
const WARM_TASKS = 20
const API_KEY = "bench-key"
const CONTENDERS = ["fetch", "effect", "effect-wait", "rx"] as const
const ONLY = process.env.POLL_BENCH_ONLY?.split(",")
type Contender = (typeof CONTENDERS)[number]

interface ServerStats {
  readonly queries: number
  readonly tasks: number
  readonly minGap: number
  readonly maxGap: number
  readonly outside: number
  readonly peakSockets: number
}
interface ClientReport {
  readonly contender: Contender
  readonly ended: number
  readonly failed: number
  readonly errors: Readonly<Record<string, number>>
  readonly heapPerTaskKiB: number
  readonly cpuMs: number
  readonly wallMs: number
}

const gc = () => (globalThis as { gc?: () => void }).gc?.()

// ---------------------------------------------------------------------------------------------
// The fake gateway: E2 answers from a clock per task id, every arrival noted to measure the gaps.
const runServer = () => {
  const first = new Map<string, number>()
  const last = new Map<string, number>()
  let queries = 0
  let minGap = Number.POSITIVE_INFINITY
  let maxGap = 0
  let outside = 0
  // Sockets are counted per run: one left open by the previous contender's process is not this one's.
  let run = 0
  let sockets = 0
  let peakSockets = 0
  const server = createServer((req, res) => {
    const url = req.url ?? ""
    if (url === "/stats") {
      res.writeHead(200, { "content-type": "application/json" })
      const stats: ServerStats = {
        queries,
        tasks: [...first.keys()].filter((k) => !k.startsWith("warm")).length,
        minGap: Number.isFinite(minGap) ? minGap : 0,
        maxGap,
        outside,
        peakSockets
      }
      return void res.end(JSON.stringify(stats))
    }
    if (url === "/reset") {
      first.clear()
      last.clear()
      queries = 0
      minGap = Number.POSITIVE_INFINITY
      maxGap = outside = 0
      run++
      sockets = peakSockets = 0
      return void res.end("{}")
    }
    const m = /^\/v1\/video\/generations\/([^/?]+)$/.exec(url)
    if (m === null || req.headers.authorization !== `Bearer ${API_KEY}`) {
      res.writeHead(404, { "content-type": "application/json" })
      return void res.end(JSON.stringify({ error: { message: "not found", type: "not_found" } }))
    }
    const id = m[1]!
    const now = performance.now()
    const counted = !id.startsWith("warm")
    if (counted) queries++
    const seen = last.get(id)
    if (seen !== undefined && counted) {
      const gap = now - seen
      if (gap < minGap) minGap = gap
      if (gap > maxGap) maxGap = gap
      if (gap < 3_000 || gap > 5_000) outside++
    } else if (seen === undefined) first.set(id, now)
    last.set(id, now)
    const age = now - first.get(id)!
    // Warm-up tasks run every status in a few seconds; their queries are not counted.
    const span = id.startsWith("warm") ? WARM_MS : TASK_MS
    const status = age >= span ? "succeeded" : age >= span / 2 ? "in_progress" : "queued"
    const body = JSON.stringify({
      task_id: id,
      status,
      format: "mp4",
      ...(status === "succeeded" ? { url: `https://videos.test/${id}.mp4` } : {})
    })
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  })
  server.on("connection", (socket) => {
    const mine = run
    peakSockets = Math.max(peakSockets, ++sockets)
    socket.on("close", () => {
      if (mine === run) sockets--
    })
  })
  server.keepAliveTimeout = 60_000
  server.maxConnections = 30_000
  server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as { port: number }).port }))
}

// ---------------------------------------------------------------------------------------------
// One contender polling every task, in its own process.
const runClient = async () => {
  const contender = process.env.POLL_BENCH_CONTENDER as Contender
  const baseUrl = process.env.POLL_BENCH_URL!
  const prefix = process.env.POLL_BENCH_PREFIX!
  const ids = Array.from({ length: TASKS }, (_, i) => `${prefix}_${i}`)
  const errors: Record<string, number> = {}
  let ended = 0
  let failed = 0
  const fail = (e: unknown) => {
    const tag =
      typeof e === "object" && e !== null && "_tag" in e
        ? String(e._tag)
        : e instanceof Error
          ? e.message.slice(0, 60)
          : String(e)
    errors[tag] = (errors[tag] ?? 0) + 1
    failed++
  }
  const heap = () => {
    gc()
    return process.memoryUsage().heapUsed
  }

  // Each contender: how it starts polling a list of tasks, calling `onEnd` once per task.
  let start: (ids: ReadonlyArray<string>, onEnd: () => void) => void
  let dispose = async () => {}
  if (contender === "fetch") {
    const get = async (id: string) =>
      (await (
        await fetch(`${baseUrl}/v1/video/generations/${id}`, { headers: { authorization: `Bearer ${API_KEY}` } })
      ).json()) as { status: string }
    start = (list, onEnd) => {
      for (const id of list) {
        const loop = async () => {
          for (;;) {
            const began = performance.now()
            const task = await get(id)
            if (task.status === "succeeded" || task.status === "failed") return
            await new Promise((r) => setTimeout(r, Math.max(0, INTERVAL_MS - (performance.now() - began))))
          }
        }
        loop().then(onEnd, (e: unknown) => {
          fail(e)
          onEnd()
        })
      }
    }
  } else if (contender === "effect" || contender === "effect-wait") {
    const { Effect, Exit, ManagedRuntime } = await import("effect")
    const { Gateway } = await import("../src/adapters/Gateway.js")
    const runtime = ManagedRuntime.make(Gateway.layer({ baseUrl, apiKey: API_KEY, timeoutMs: 60_000 }))
    const gateway = await runtime.runPromise(Effect.service(Gateway))
    start =
      contender === "effect"
        ? // One fiber for every task (`waitAll`).
          (list, onEnd) => {
            runtime.runFork(gateway.video.waitAll(list, { intervalMs: INTERVAL_MS })).addObserver((exit) => {
              if (Exit.isFailure(exit)) fail(exit.cause)
              else for (const outcome of exit.value) if (outcome._tag === "Failure") fail(outcome.failure)
              for (let i = 0; i < list.length; i++) onEnd()
            })
          }
        : // The plain way: `video.wait` per task, each in a fiber of its own.
          (list, onEnd) => {
            runtime.runFork(
              Effect.forEach(
                list,
                (id) =>
                  Effect.match(gateway.video.wait(id, { intervalMs: INTERVAL_MS }), {
                    onFailure: (e) => {
                      fail(e)
                      onEnd()
                    },
                    onSuccess: () => onEnd()
                  }),
                { concurrency: "unbounded", discard: true }
              )
            )
          }
    dispose = () => runtime.dispose()
  } else {
    const { createGateway } = await import("../src/streams/index.js")
    const gateway = createGateway({ baseUrl, apiKey: API_KEY, timeoutMs: 60_000 })
    start = (list, onEnd) => {
      for (const id of list) {
        gateway.video.poll$(id, { intervalMs: INTERVAL_MS }).subscribe({
          error: (e: unknown) => {
            fail(e)
            onEnd()
          },
          complete: onEnd
        })
      }
    }
    dispose = () => gateway.dispose()
  }
  const pollAll = (list: ReadonlyArray<string>) =>
    new Promise<void>((resolve) => {
      let left = list.length
      start(list, () => {
        if (--left === 0) resolve()
      })
    })

  // Warm-up: a few tasks polled to their end through the same path, not measured.
  await pollAll(Array.from({ length: WARM_TASKS }, (_, i) => `warm_${prefix}_${i}`))
  failed = 0
  for (const k of Object.keys(errors)) delete errors[k]

  const heapBefore = heap()
  if (process.env.POLL_BENCH_SNAPSHOT)
    (await import("node:v8")).writeHeapSnapshot(`${process.env.POLL_BENCH_SNAPSHOT}/${contender}-before.heapsnapshot`)
  const cpuBefore = process.cpuUsage()
  const began = performance.now()
  let peakHeap = heapBefore
  let probeCpuUs = 0
  const done = pollAll(ids).then(() => (ended = TASKS))
  // Every poll is live (none can end before TASK_MS) 10 s in: the first burst has drained.
  const probe = setTimeout(
    () => {
      const c0 = process.cpuUsage()
      peakHeap = heap()
      const c = process.cpuUsage(c0)
      probeCpuUs = c.user + c.system
      if (process.env.POLL_BENCH_SNAPSHOT)
        void import("node:v8").then((v8) =>
          v8.writeHeapSnapshot(`${process.env.POLL_BENCH_SNAPSHOT}/${contender}.heapsnapshot`)
        )
    },
    Math.min(TASK_MS / 2, 10_000)
  )
  await done
  clearTimeout(probe)
  const wallMs = performance.now() - began
  const cpu = process.cpuUsage(cpuBefore)
  const report: ClientReport = {
    contender,
    ended,
    failed,
    errors,
    // The GCs of the probe are the client's own time, but they are the same for every contender.
    heapPerTaskKiB: (peakHeap - heapBefore) / TASKS / 1024,
    cpuMs: (cpu.user + cpu.system - probeCpuUs) / 1000,
    wallMs
  }
  await dispose()
  process.send?.(report)
  process.exit(0)
}

// ---------------------------------------------------------------------------------------------
const self = fileURLToPath(import.meta.url)
const spawnRole = (role: string, env: Record<string, string>): ChildProcess =>
  fork(self, [], {
    env: { ...process.env, POLL_BENCH_ROLE: role, ...env },
    execArgv: [
      ...(role === "client" && process.env.POLL_BENCH_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.POLL_BENCH_CPU_PROF}`]
        : []),
      "--expose-gc",
      "--max-old-space-size=4096",
      "--conditions=umg-source",
      "--import",
      "tsx"
    ],
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
const message = <T>(child: ChildProcess, deadlineMs: number): Promise<T> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs)
    child.once("message", (m) => {
      clearTimeout(timer)
      resolve(m as T)
    })
    child.once("exit", (code) => code !== 0 && reject(new Error(`exited with ${code}`)))
  })

const runMain = async () => {
  const server = spawnRole("server", {})
  const { port } = await message<{ port: number }>(server, 30_000)
  const baseUrl = `http://127.0.0.1:${port}`
  const stats = async () => (await (await fetch(`${baseUrl}/stats`)).json()) as ServerStats
  console.log(
    `poll bench: ${TASKS} tasks per contender, ${REPS} repetition(s), interval ${INTERVAL_MS} ms, each task ${TASK_MS / 1000} s long`
  )
  // The machine may be shared: its load is printed before and after, to judge the figures by.
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (${cpus().length} cores)`
  )
  const rows: Array<{ rep: number; report: ClientReport; server: ServerStats }> = []
  try {
    for (let rep = 0; rep < REPS; rep++) {
      // Alternate: the order rotates each repetition, so no contender always runs on a warmer machine.
      const order = CONTENDERS.map((_, i) => CONTENDERS[(i + rep) % CONTENDERS.length]!).filter(
        (c) => ONLY === undefined || ONLY.includes(c)
      )
      for (const contender of order) {
        await fetch(`${baseUrl}/reset`)
        const client = spawnRole("client", {
          POLL_BENCH_CONTENDER: contender,
          POLL_BENCH_URL: baseUrl,
          POLL_BENCH_PREFIX: `${contender}${rep}`
        })
        const report = await message<ClientReport>(client, TASK_MS + 240_000)
        const server = await stats()
        rows.push({ rep, report, server })
        const errors = Object.entries(report.errors)
          .map(([k, n]) => `${k} ×${n}`)
          .join(", ")
        console.log(
          `rep ${rep + 1} ${contender.padEnd(11)} gaps ${server.minGap.toFixed(0)}–${server.maxGap.toFixed(0)} ms (${server.outside} of ${server.queries - server.tasks} outside 3–5 s) · heap ${report.heapPerTaskKiB.toFixed(2)} KiB/task · ` +
            `${server.peakSockets} sockets · CPU ${((report.cpuMs * 1000) / Math.max(1, server.queries)).toFixed(1)} µs/query (${server.queries} queries, ${(report.wallMs / 1000).toFixed(1)} s)` +
            (report.failed > 0 ? ` · ${report.failed} failed: ${errors}` : "")
        )
      }
    }
  } finally {
    server.kill()
  }
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (${cpus().length} cores)`
  )
  const perQuery = (r: (typeof rows)[number]) => (r.report.cpuMs * 1000) / Math.max(1, r.server.queries)
  const of = (rep: number, c: Contender) => rows.find((r) => r.rep === rep && r.report.contender === c)
  const others = CONTENDERS.filter((c) => c !== "fetch" && rows.some((r) => r.report.contender === c))
  if (!rows.some((r) => r.report.contender === "fetch") || others.length === 0) return
  // Ratios are taken per repetition (each against the fetch loop of its own repetition), then summarised.
  const ratios = new Map<Contender, Array<number>>(others.map((c) => [c, []]))
  console.log("\nCPU per query against the fetch loop, per repetition:")
  for (let rep = 0; rep < REPS; rep++) {
    const base = perQuery(of(rep, "fetch")!)
    const parts = others.map((c) => {
      const ratio = perQuery(of(rep, c)!) / base
      ratios.get(c)!.push(ratio)
      return `${c} ${ratio.toFixed(2)}×`
    })
    console.log(`rep ${rep + 1}: ${parts.join(", ")} (fetch ${base.toFixed(1)} µs/query)`)
  }
  const median = (xs: ReadonlyArray<number>) => {
    const s = [...xs].sort((a, b) => a - b)
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
  }
  console.log(
    `median over ${REPS}: ` +
      others
        .map(
          (c) =>
            `${c} ${median(ratios.get(c)!).toFixed(2)}× (${Math.min(...ratios.get(c)!).toFixed(2)}–${Math.max(...ratios.get(c)!).toFixed(2)})`
        )
        .join(", ")
  )
}

if (ROLE === "server") runServer()
else if (ROLE === "client") await runClient()
else await runMain()
