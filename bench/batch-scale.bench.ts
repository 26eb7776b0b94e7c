/**
 * Batches at production scale, measured from outside as a user runs them. Scenarios
 * (`BATCH_SCALE=sqlite,overhead,postgres,follow`, default all four):
 * - `sqlite`: `umg batch video FILE --concurrency 200` (the CLI as installed: `npm run build`'s bundle, in its own process) on a
 *   SQLite store over a JSON Lines file of `BATCH_SCALE_LINES` gamma videos (default 1,000,000),
 *   against the emulator in another process (videos of `BATCH_SCALE_VIDEO_MS`, default 1000 ms;
 *   polls every `BATCH_SCALE_POLL_MS`, default 500 ms). Reports the time to the first submit, lines
 *   per second once submitting, the process's peak RSS (VmHWM) and CPU, and the wall and CPU time
 *   of `umg batch status ID --json` and `umg --version` (Node's start included) while it runs and
 *   after. Stopped after `BATCH_SCALE_MAX_S` seconds (SIGINT) when set.
 * - `overhead`: the same CLI run on `BATCH_SCALE_OVERHEAD_LINES` lines (default 50,000) beside a
 *   journal-free loop in its own process doing the same submits (200 in flight) and the same polls
 *   (`video.follow`, the shared poller): engine CPU per line = (CLI CPU − loop CPU) / lines.
 * - `postgres`: `BATCH_SCALE_PG_LINES` lines (default 100,000) on PostgreSQL, three `umg batch
 *   worker` processes and the submitting one; the worker with the most running lines is killed
 *   (SIGKILL) mid-way. Checks from the store and the emulator's counters: no line claimed twice,
 *   submits at the gateway = claims, every line final, and the killed worker's running lines
 *   finished by the others without a second submit.
 * - `follow`: one runner (in this process, its HTTP client timestamping every query) follows
 *   `BATCH_SCALE_FOLLOW` tasks (default 10,000) of 40 s videos with the contract's 4 s interval:
 *   the gaps between each task's queries, and CPU and RSS.
 * The CLI is built with `tsc` and bundled into a temporary folder (as `npm run build` makes `dist/`),
 * so each command loads only its own chunks as an installed `umg` does; `BATCH_SCALE_CLI=path/to/umg.js`
 * runs a build already made instead.
 * Run: `node --conditions=umg-source --import tsx bench/batch-scale.bench.ts`. Nothing is asserted.
 */
import { fork, spawn, type ChildProcess } from "node:child_process"
import { copyFileSync, createWriteStream, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const ROLE = process.env.BATCH_SCALE_ROLE ?? "main"
const SCENARIOS = (process.env.BATCH_SCALE ?? "sqlite,overhead,postgres,follow").split(",")
const LINES = Number(process.env.BATCH_SCALE_LINES ?? 1_000_000)
const OVERHEAD_LINES = Number(process.env.BATCH_SCALE_OVERHEAD_LINES ?? 50_000)
const PG_LINES = Number(process.env.BATCH_SCALE_PG_LINES ?? 100_000)
const FOLLOW = Number(process.env.BATCH_SCALE_FOLLOW ?? 10_000)
const VIDEO_MS = Number(process.env.BATCH_SCALE_VIDEO_MS ?? 1_000)
const POLL_MS = Number(process.env.BATCH_SCALE_POLL_MS ?? 500)
const MAX_S = Number(process.env.BATCH_SCALE_MAX_S ?? 0)
const CONCURRENCY = 200
const MODEL = "gamma2.5-t2v-preview"

const self = fileURLToPath(import.meta.url)
const execArgv = ["--conditions=umg-source", "--import", "tsx"]
// Effect 4's Node platform needs Node 24: this one, or the repository's own.
const nodeBinary =
  Number(process.versions.node.split(".")[0]) >= 24
    ? process.execPath
    : fileURLToPath(new URL("../node_modules/.bin/node", import.meta.url))

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`

// ---------------------------------------------------------------- the emulator, in its own process

interface EmulatorHandle {
  readonly url: string
  readonly apiKey: string
  readonly counters: () => Promise<Record<string, number>>
  readonly close: () => void
}

const runEmulator = async () => {
  const { startEmulator } = await import("../src/emulator/index.js")
  const videoMs = Number(process.env.BATCH_SCALE_EMULATOR_VIDEO_MS)
  const emulator = await startEmulator({
    fast: true,
    video: { queuedMs: Math.round(videoMs * 0.3), inProgressMs: Math.round(videoMs * 0.7) }
  })
  process.on("message", () => process.send?.({ counters: emulator.counters.snapshot() }))
  process.send?.({ url: emulator.url, apiKey: emulator.apiKey })
}

const startEmulatorProcess = async (videoMs: number): Promise<EmulatorHandle> => {
  const child = fork(self, [], {
    env: { ...process.env, BATCH_SCALE_ROLE: "emulator", BATCH_SCALE_EMULATOR_VIDEO_MS: String(videoMs) },
    execArgv,
    execPath: nodeBinary
  })
  const { url, apiKey } = await new Promise<{ url: string; apiKey: string }>((resolve) =>
    child.once("message", (m) => resolve(m as never))
  )
  return {
    url,
    apiKey,
    counters: () =>
      new Promise((resolve) => {
        child.once("message", (m) => resolve((m as { counters: Record<string, number> }).counters))
        child.send("counters")
      }),
    close: () => void child.kill()
  }
}

// ---------------------------------------------------------------- the CLI, built, as a process

const root = fileURLToPath(new URL("..", import.meta.url))

/**
 * The CLI as `npm run build` makes it, built into a temporary folder with the package's manifest
 * (for its `#umg/*` imports) and this repository's node_modules: its `dist/cli/main.js`.
 */
const build = async (): Promise<string> => {
  if (process.env.BATCH_SCALE_CLI !== undefined) return process.env.BATCH_SCALE_CLI
  const dir = mkdtempSync(join(tmpdir(), "umg-batch-scale-cli-"))
  copyFileSync(join(root, "package.json"), join(dir, "package.json"))
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir")
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
  const built = spawn(nodeBinary, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", join(dir, "dist")], {
    stdio: "inherit"
  })
  const code = await new Promise<number | null>((r) => built.on("close", r))
  if (code !== 0) throw new Error(`tsc exited ${code}`)
  const bundled = spawn(nodeBinary, [join(root, "scripts", "bundle-cli.mjs"), join(dir, "dist")], { stdio: "inherit" })
  const bundleCode = await new Promise<number | null>((r) => bundled.on("close", r))
  if (bundleCode !== 0) throw new Error(`bundle-cli exited ${bundleCode}`)
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }))
  return join(dir, "dist", "bin", "umg.js")
}

/** A JSON Lines file of `n` gamma inputs, written as a stream. */
const writeInputs = async (dir: string, n: number, tag: string): Promise<string> => {
  const file = join(dir, "inputs.jsonl")
  const out = createWriteStream(file)
  for (let i = 0; i < n; i += 10_000) {
    let text = ""
    for (let k = i; k < Math.min(n, i + 10_000); k++)
      text += `${JSON.stringify({ model: MODEL, prompt: `${tag} line ${k + 1}: a lighthouse at dawn, waves on rocks` })}\n`
    if (!out.write(text)) await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => out.end(r))
  return file
}

/** A process's peak RSS (VmHWM) and CPU so far, from /proc (Linux). */
const procStats = (pid: number): { peakRss: number; rss: number; cpuMs: number } | undefined => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    // utime and stime are fields 14 and 15 of the stat line, in clock ticks (100 per second on Linux).
    const cpuMs = (Number(stat[11]) + Number(stat[12])) * 10
    return { peakRss: kb("VmHWM"), rss: kb("VmRSS"), cpuMs }
  } catch {
    return undefined
  }
}

interface Umg {
  readonly child: ChildProcess
  readonly stderr: () => string
  readonly done: Promise<number | null>
}

const startUmg = (file: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string>): Umg => {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_")))
  const child = spawn(nodeBinary, [file, ...args], { cwd, env: { ...base, NO_COLOR: "1", ...env } })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-20_000)))
  child.stdout.resume()
  return { child, stderr: () => stderr, done: new Promise((r) => child.on("close", (code) => r(code))) }
}

/** The wall and CPU time of one command, Node's start included. */
interface Timed {
  readonly wallMs: number
  readonly cpuMs: number
}

/** Runs `umg ARGS` and times it: the wall time, and the CPU time the shell's `time` reads from the process. */
const timeUmg = async (cli: string, args: ReadonlyArray<string>, cwd: string): Promise<Timed> => {
  const quoted = [nodeBinary, cli, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_")))
  const began = performance.now()
  const child = spawn("bash", ["-c", `TIMEFORMAT='%U %S'; time ${quoted} > /dev/null 2>&1`], {
    cwd,
    env: { ...base, NO_COLOR: "1" }
  })
  let times = ""
  child.stderr.setEncoding("utf8").on("data", (d: string) => (times += d))
  await new Promise((r) => child.on("close", r))
  const wallMs = performance.now() - began
  const [user, system] = times.trim().split(/\s+/).map(Number)
  return { wallMs, cpuMs: ((user ?? Number.NaN) + (system ?? Number.NaN)) * 1_000 }
}

/** `umg batch status ID --json` and `umg --version`, timed one after the other. */
const timeStatus = async (cli: string, id: string, store: string, cwd: string) => ({
  status: await timeUmg(cli, ["batch", "status", id, "--store", store, "--json"], cwd),
  version: await timeUmg(cli, ["--version"], cwd)
})

type StatusTimes = Awaited<ReturnType<typeof timeStatus>>

interface CliRun {
  readonly lines: number
  readonly firstSubmitMs: number
  readonly wallMs: number
  readonly linesPerSecond: number
  readonly peakRss: number
  readonly cpuMs: number
  readonly statusRuns: ReadonlyArray<StatusTimes>
  readonly statusAfter: StatusTimes
  readonly exit: number | null
  readonly submits: number
}

/** Runs one `umg batch video` on a SQLite store and measures it from outside. */
const runCli = async (emulator: EmulatorHandle, cli: string, n: number, maxS: number): Promise<CliRun> => {
  const dir = mkdtempSync(join(tmpdir(), "umg-batch-scale-"))
  const file = await writeInputs(dir, n, `sqlite-${Date.now()}`)
  const store = join(dir, "b.db")
  const before = (await emulator.counters())["video.submit"] ?? 0
  const env = { UMG_BASE_URL: emulator.url, UMG_API_KEY: emulator.apiKey, UMG_POLL_INTERVAL_MS: String(POLL_MS) }
  const began = performance.now()
  const run = startUmg(
    cli,
    ["batch", "video", file, "--store", store, "--concurrency", String(CONCURRENCY), "--out", join(dir, "out.jsonl")],
    dir,
    env
  )
  let ended = false
  void run.done.then(() => (ended = true))
  // Read through a function: the process may end during any await of the loop.
  const running = () => !ended
  let last = procStats(run.child.pid!)
  let firstSubmitMs = Number.NaN
  let submittedAt = 0
  const statusRuns: Array<StatusTimes> = []
  let lastStatus = performance.now()
  while (running()) {
    await sleep(250)
    last = procStats(run.child.pid!) ?? last
    const now = performance.now()
    if (Number.isNaN(firstSubmitMs) && ((await emulator.counters())["video.submit"] ?? 0) > before) {
      firstSubmitMs = now - began
      submittedAt = now
    }
    const id = /batch (\S+):/.exec(run.stderr())?.[1]
    if (id !== undefined && now - lastStatus > 15_000 && running()) {
      statusRuns.push(await timeStatus(cli, id, store, dir))
      lastStatus = performance.now()
    }
    if (maxS > 0 && now - began > maxS * 1_000 && running()) run.child.kill("SIGINT")
  }
  const exit = await run.done
  const wallMs = performance.now() - began
  const submits = ((await emulator.counters())["video.submit"] ?? 0) - before
  const id = /batch (\S+):/.exec(run.stderr())?.[1] ?? ""
  const statusAfter = await timeStatus(cli, id, store, dir)
  if (exit !== 0 && exit !== 130) console.log(run.stderr().slice(-2_000))
  rmSync(dir, { recursive: true, force: true })
  return {
    lines: n,
    firstSubmitMs,
    wallMs,
    linesPerSecond:
      submits / ((performance.now() - submittedAt - statusAfter.status.wallMs - statusAfter.version.wallMs) / 1_000),
    peakRss: last?.peakRss ?? 0,
    cpuMs: last?.cpuMs ?? 0,
    statusRuns,
    statusAfter,
    exit,
    submits
  }
}

const describeRun = (r: CliRun) =>
  `${r.lines} lines: exit ${r.exit}, ${r.submits} submits, first submit after ${(r.firstSubmitMs / 1000).toFixed(1)} s, ` +
  `${r.linesPerSecond.toFixed(0)} lines/s once submitting, wall ${(r.wallMs / 1000).toFixed(0)} s, ` +
  `peak RSS ${mib(r.peakRss)}, CPU ${(r.cpuMs / 1000).toFixed(1)} s (${((r.cpuMs / Math.max(1, r.submits)) * 1000).toFixed(0)} µs/line); ` +
  `status while running ${spread(r.statusRuns.map((t) => t.status))}, after ${spread([r.statusAfter.status])}; ` +
  `--version while running ${spread(r.statusRuns.map((t) => t.version))}, after ${spread([r.statusAfter.version])}`

/** Times as `wall 420–910 ms (median 600), CPU 380–520 ms (median 450), 12 runs`. */
const spread = (times: ReadonlyArray<Timed>): string => {
  if (times.length === 0) return "n/a"
  const range = (xs: ReadonlyArray<number>) => {
    const sorted = [...xs].sort((a, b) => a - b)
    const median = sorted[Math.floor(sorted.length / 2)]!
    return sorted.length === 1
      ? `${median.toFixed(0)} ms`
      : `${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)} ms (median ${median.toFixed(0)})`
  }
  return `wall ${range(times.map((t) => t.wallMs))}, CPU ${range(times.map((t) => t.cpuMs))}${times.length > 1 ? `, ${times.length} runs` : ""}`
}

// ---------------------------------------------------------------- the journal-free loop

const runDirect = async () => {
  const { Effect, Exit } = await import("effect")
  const { Gateway } = await import("../src/adapters/Gateway.js")
  const n = Number(process.env.BATCH_SCALE_DIRECT_LINES)
  const layer = Gateway.layer({
    baseUrl: process.env.BATCH_SCALE_URL!,
    apiKey: process.env.BATCH_SCALE_KEY!,
    minPollIntervalMs: POLL_MS,
    timeoutMs: 60_000
  })
  const cpu = process.cpuUsage()
  const began = performance.now()
  let succeeded = 0
  await Effect.runPromise(
    Effect.gen(function* () {
      const g = yield* Gateway
      const tag = `direct-${process.pid}`
      let followed = 0
      let wake: (() => void) | undefined
      const ended = Effect.callback<void>((resume) => {
        if (followed === 0) return resume(Effect.void)
        wake = () => resume(Effect.void)
      })
      yield* Effect.forEach(
        Array.from({ length: n }, (_, i) => i),
        (i) =>
          Effect.flatMap(
            g.video.submit({ model: MODEL, prompt: `${tag} line ${i + 1}: a lighthouse at dawn, waves on rocks` }),
            (s) =>
              Effect.sync(() => followed++).pipe(
                Effect.andThen(
                  g.video.follow(s.task_id, { intervalMs: POLL_MS, timeoutMs: 600_000 }, (exit) => {
                    if (Exit.isSuccess(exit)) succeeded++
                    if (--followed === 0) wake?.()
                  })
                )
              )
          ).pipe(Effect.ignore),
        { concurrency: CONCURRENCY, discard: true }
      )
      yield* ended
    }).pipe(Effect.provide(layer))
  )
  const used = process.cpuUsage(cpu)
  process.send?.({ cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - began, succeeded })
}

const startDirect = (emulator: EmulatorHandle, n: number) =>
  new Promise<{ cpuMs: number; wallMs: number; succeeded: number }>((resolve, reject) => {
    const child = fork(self, [], {
      env: {
        ...process.env,
        BATCH_SCALE_ROLE: "direct",
        BATCH_SCALE_DIRECT_LINES: String(n),
        BATCH_SCALE_URL: emulator.url,
        BATCH_SCALE_KEY: emulator.apiKey
      },
      execArgv,
      execPath: nodeBinary
    })
    child.once("message", (m) => resolve(m as never))
    child.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`direct loop exited ${code}`))))
  })

// ---------------------------------------------------------------- scenarios

const sqliteScenario = async (cli: string) => {
  const emulator = await startEmulatorProcess(VIDEO_MS)
  try {
    console.log(
      `sqlite: umg batch video --concurrency ${CONCURRENCY}, ${LINES} gamma lines, videos ${VIDEO_MS} ms, polls every ${POLL_MS} ms${MAX_S > 0 ? `, SIGINT after ${MAX_S} s` : ""}`
    )
    console.log(`sqlite: ${describeRun(await runCli(emulator, cli, LINES, MAX_S))}`)
  } finally {
    emulator.close()
  }
}

const overheadScenario = async (cli: string) => {
  const emulator = await startEmulatorProcess(VIDEO_MS)
  try {
    console.log(
      `overhead: ${OVERHEAD_LINES} lines each, videos ${VIDEO_MS} ms, polls every ${POLL_MS} ms, ${CONCURRENCY} submits in flight`
    )
    const direct = await startDirect(emulator, OVERHEAD_LINES)
    console.log(
      `overhead: journal-free loop ${(direct.cpuMs / 1000).toFixed(1)} s CPU (${((direct.cpuMs / OVERHEAD_LINES) * 1000).toFixed(0)} µs/line), wall ${(direct.wallMs / 1000).toFixed(0)} s, ${direct.succeeded} ok`
    )
    const batch = await runCli(emulator, cli, OVERHEAD_LINES, 0)
    console.log(`overhead: umg batch video ${describeRun(batch)}`)
    console.log(
      `overhead: engine CPU beyond the loop: ${(((batch.cpuMs - direct.cpuMs) / OVERHEAD_LINES) * 1000).toFixed(0)} µs per line (goal ≤ 1000)`
    )
  } finally {
    emulator.close()
  }
}

/** Runs a statement on the bench's PostgreSQL database. */
const pgQuery = async (url: string, text: string): Promise<ReadonlyArray<Record<string, unknown>>> =>
  ((await (await import("../test/support/postgres.js")).query(url, text))[0] ?? []) as ReadonlyArray<
    Record<string, unknown>
  >

/** Waits until the cluster has `n` healthy runners, then for them to share the shards. */
const waitForRunners = async (url: string, n: number) => {
  const until = Date.now() + 60_000
  while (Date.now() < until) {
    const rows = await pgQuery(url, "SELECT COUNT(*) AS n FROM umg_cluster_runners WHERE healthy").catch(() => [])
    if (Number(rows[0]?.n ?? 0) >= n) break
    await sleep(250)
  }
  await sleep(5_000)
}

/** Kills (SIGKILL) the worker following the most tasks once `share` of the lines are claimed; what it followed. */
const killMidway = async (url: string, workers: ReadonlyArray<Umg>, n: number, share: number) => {
  for (;;) {
    const rows = await pgQuery(url, "SELECT state, n FROM umg_batch_counts").catch(() => [])
    const pending = Number(rows.find((r) => r.state === "pending")?.n ?? n)
    if (rows.length > 0 && n - pending >= n * share) break
    await sleep(200)
  }
  const running = await pgQuery(
    url,
    "SELECT runner, COUNT(*) AS n FROM umg_batch_lines WHERE state = 'running' GROUP BY runner"
  )
  const byPid = new Map(running.map((r) => [Number(String(r.runner).split(":").pop()), Number(r.n)]))
  const victim = [...workers].sort((a, b) => (byPid.get(b.child.pid!) ?? 0) - (byPid.get(a.child.pid!) ?? 0))[0]!
  victim.child.kill("SIGKILL")
  await victim.done
  const killedAt = performance.now()
  const orphaned = (
    await pgQuery(
      url,
      `SELECT line FROM umg_batch_lines WHERE runner LIKE '%:${victim.child.pid}' AND state = 'running'`
    )
  ).map((r) => Number(r.line))
  return { victim, killedAt, orphaned }
}

const postgresScenario = async (cli: string) => {
  const { freshDatabase } = await import("../test/support/postgres.js")
  const db = await freshDatabase()
  const emulator = await startEmulatorProcess(VIDEO_MS)
  const dir = mkdtempSync(join(tmpdir(), "umg-batch-scale-pg-"))
  const env = { UMG_BASE_URL: emulator.url, UMG_API_KEY: emulator.apiKey, UMG_POLL_INTERVAL_MS: String(POLL_MS) }
  const processes: Array<Umg> = []
  try {
    console.log(
      `postgres: ${PG_LINES} gamma lines, 3 workers and the submitter, concurrency ${CONCURRENCY}, one worker killed after 40% are claimed`
    )
    const file = await writeInputs(dir, PG_LINES, `pg-${Date.now()}`)
    const workers = [0, 1, 2].map(() => startUmg(cli, ["batch", "worker", "--store", db.url], dir, env))
    processes.push(...workers)
    await waitForRunners(db.url, 3)
    const before = (await emulator.counters())["video.submit"] ?? 0
    const began = performance.now()
    const out = join(dir, "out.jsonl")
    const submitter = startUmg(
      cli,
      ["batch", "video", file, "--store", db.url, "--concurrency", String(CONCURRENCY), "--out", out],
      dir,
      env
    )
    processes.push(submitter)
    const peaks = new Map<number, number>()
    const sampler = setInterval(() => {
      for (const p of processes) {
        const stats = p.child.pid === undefined ? undefined : procStats(p.child.pid)
        if (stats !== undefined) peaks.set(p.child.pid!, Math.max(peaks.get(p.child.pid!) ?? 0, stats.peakRss))
      }
    }, 500)
    const { victim, killedAt, orphaned } = await killMidway(db.url, workers, PG_LINES, 0.4)
    const exit = await submitter.done
    clearInterval(sampler)
    const wallMs = performance.now() - began
    const submits = ((await emulator.counters())["video.submit"] ?? 0) - before
    const [claims] = await pgQuery(
      db.url,
      "SELECT SUM(submits) AS s, MAX(submits) AS m, COUNT(*) AS n FROM umg_batch_lines"
    )
    const states = await pgQuery(
      db.url,
      "SELECT state, COUNT(*) AS n FROM umg_batch_lines GROUP BY state ORDER BY state"
    )
    const results = readFileSync(out, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { line: number; status: string })
    const orphanedDone = orphaned.filter((line) => results[line - 1]?.status === "succeeded").length
    console.log(
      `postgres: exit ${exit}, ${results.length} results in ${(wallMs / 1000).toFixed(0)} s (${(PG_LINES / (wallMs / 1000)).toFixed(0)} lines/s); ` +
        `states ${states.map((r) => `${String(r.state)} ${String(r.n)}`).join(", ")}; claims ${String(claims?.s)} (at most ${String(claims?.m)} per line) = ${submits} submits at the gateway; ` +
        `killed runner ${victim.child.pid} at ${((killedAt - began) / 1000).toFixed(0)} s following ${orphaned.length} tasks: ${orphanedDone} finished by the others, none submitted again; ` +
        `peak RSS per process ${[...peaks.values()].map(mib).join(", ")}`
    )
  } finally {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL")
    await Promise.all(processes.map((p) => p.done))
    emulator.close()
    await db.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** One runner in this process follows `FOLLOW` tasks of 40 s videos at the contract's 4 s: the gaps between each task's queries. */
const followScenario = async () => {
  const { Effect, Layer, Stream } = await import("effect")
  const { HttpClient } = await import("effect/http")
  const { Gateway } = await import("../src/adapters/Gateway.js")
  const NodeHttpClient = await import("../src/adapters/http/NodeHttpClient.js")
  const { Batch } = await import("../src/batch/index.js")
  const emulator = await startEmulatorProcess(40_000)
  const dir = mkdtempSync(join(tmpdir(), "umg-batch-scale-follow-"))
  const queries = new Map<string, Array<number>>()
  const timed = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(Effect.service(HttpClient.HttpClient), (client) =>
      HttpClient.tapRequest(client, (request) =>
        Effect.sync(() => {
          const id = /\/v1\/video\/generations\/(video_\w+)$/.exec(request.url)?.[1]
          if (id !== undefined && request.method === "GET") {
            const times = queries.get(id)
            if (times === undefined) queries.set(id, [performance.now()])
            else times.push(performance.now())
          }
        })
      )
    )
  ).pipe(Layer.provide(NodeHttpClient.layer))
  const gateway = Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey, httpClient: timed })
  const inputs = Array.from({ length: FOLLOW }, (_, i) => ({ model: MODEL, prompt: `follow line ${i + 1}` }))
  const cpu = process.cpuUsage()
  let most = 0
  let peakRss = 0
  try {
    console.log(`follow: one runner follows ${FOLLOW} tasks of 40 s videos, queries every 4 s (the contract's rule)`)
    await Effect.runPromise(
      Effect.gen(function* () {
        const batch = yield* Batch.video({ id: "follow", inputs, concurrency: CONCURRENCY })
        yield* Stream.runForEach(batch.progress, (c) =>
          Effect.sync(() => {
            most = Math.max(most, c.running)
            peakRss = Math.max(peakRss, process.memoryUsage.rss())
          })
        )
      }).pipe(
        Effect.provide(
          Batch.layer({ store: Batch.sqlite(join(dir, "b.db")), maxFollowed: FOLLOW }).pipe(Layer.provideMerge(gateway))
        )
      )
    )
    const used = process.cpuUsage(cpu)
    const gaps: Array<number> = []
    for (const times of queries.values()) for (let i = 1; i < times.length; i++) gaps.push(times[i]! - times[i - 1]!)
    gaps.sort((a, b) => a - b)
    const outside = gaps.filter((g) => g < 3_000 || g > 5_000).length
    console.log(
      `follow: ${queries.size} tasks, at most ${most} followed at once; ${gaps.length} gaps ${gaps[0]?.toFixed(0)}–${gaps.at(-1)?.toFixed(0)} ms ` +
        `(p50 ${gaps[Math.floor(gaps.length / 2)]?.toFixed(0)}, p99 ${gaps[Math.floor(gaps.length * 0.99)]?.toFixed(0)}), ${outside} outside 3–5 s; ` +
        `CPU ${((used.user + used.system) / 1e6).toFixed(1)} s, peak RSS ${mib(peakRss)}`
    )
  } finally {
    emulator.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")

const run = async () => {
  console.log(
    `batch-scale bench · ${new Date().toISOString()} · ${cpus()[0]?.model ?? "cpu"} · ${cpus().length} cores · Node ${process.version} · load ${load()}`
  )
  const cli = await build()
  const scenarios: ReadonlyArray<readonly [string, () => Promise<void>]> = [
    ["sqlite", () => sqliteScenario(cli)],
    ["overhead", () => overheadScenario(cli)],
    ["postgres", () => postgresScenario(cli)],
    ["follow", followScenario]
  ]
  for (const [name, scenario] of scenarios)
    if (SCENARIOS.includes(name)) {
      await scenario()
      console.log(`${name}: done at ${new Date().toISOString()}, load ${load()}`)
    }
  console.log(`batch-scale bench done · ${new Date().toISOString()} · load ${load()}`)
}

if (ROLE === "emulator") void runEmulator()
else if (ROLE === "direct") void runDirect().then(() => process.exit(0))
else void run().then(() => process.exit(0))
