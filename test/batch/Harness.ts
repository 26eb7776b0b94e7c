/**
 * What the batch tests run against: the real emulator, and in front of it a counting proxy (a
 * `node:http` server) that records every video submit that reached the gateway, by prompt — the
 * witness that no line was ever submitted twice, whatever happened to the processes of the batch.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer, request, type Server } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

/**
 * The Node that runs `umg`: this one when it is Node 24 or later (Effect 4's Node platform needs
 * it), else the repository's own (`node_modules/.bin/node`, the `node` dev dependency).
 */
export const nodeBinary = ((): string => {
  if (Number(process.versions.node.split(".")[0]) >= 24) return process.execPath
  const local = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "node_modules", ".bin", "node")
  if (existsSync(local)) return local
  throw new Error(
    `the batch tests need Node 24 or later to run umg (this is ${process.version}); run them with node_modules/.bin on PATH`
  )
})()

export interface Gateway {
  /** The proxy's address: UMG_BASE_URL of the batch processes. */
  readonly url: string
  readonly apiKey: string
  /** Submits that reached the emulator, by prompt. */
  readonly submits: Map<string, number>
  /** Submits forwarded to the emulator, by prompt, whatever it answered (a refused key included). */
  readonly attempts: Map<string, number>
  /** The emulator behind the proxy (its faults, its counters). */
  readonly emulator: Emulator
  /** Prompts whose submits the proxy swallows: never forwarded, never answered (a gateway gone silent). */
  readonly hold: Set<string>
  /** While true, video downloads (E3) get their headers and half their body, then nothing more. */
  stallDownloads: boolean
  /** While true, video submits wait at the proxy (not forwarded yet); set false to send those waiting. */
  pauseSubmits: boolean
  /** Submits waiting at the proxy now. */
  readonly paused: () => number
  /** Downloads stalled so far. */
  readonly stalled: () => number
  close(): Promise<void>
}

/** The emulator with video tasks of `taskMs` in all, behind a counting proxy. */
export const startGateway = async (taskMs = 600): Promise<Gateway> => {
  const emulator = await startEmulator({
    fast: true,
    video: { queuedMs: Math.round(taskMs / 3), inProgressMs: Math.round((2 * taskMs) / 3) }
  })
  const target = new URL(emulator.url)
  const submits = new Map<string, number>()
  const attempts = new Map<string, number>()
  const hold = new Set<string>()
  const state = { stallDownloads: false, stalled: 0, pauseSubmits: false }
  const waiting: Array<() => void> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const isSubmit = req.method === "POST" && req.url === "/v1/video/generations"
      if (isSubmit && hold.has(String((JSON.parse(body.toString("utf8")) as { prompt?: unknown }).prompt))) return
      if (isSubmit && state.pauseSubmits) return void waiting.push(forward)
      forward()
    })
    const forward = () => {
      const body = Buffer.concat(chunks)
      if (req.method === "POST" && req.url === "/v1/video/generations") {
        const prompt = String((JSON.parse(body.toString("utf8")) as { prompt?: unknown }).prompt)
        attempts.set(prompt, (attempts.get(prompt) ?? 0) + 1)
      }
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          // Counted when the gateway has taken the submit (it answered), as a gateway bills.
          if (req.method === "POST" && req.url === "/v1/video/generations" && (answer.statusCode ?? 500) < 300) {
            const prompt = String((JSON.parse(body.toString("utf8")) as { prompt?: unknown }).prompt)
            submits.set(prompt, (submits.get(prompt) ?? 0) + 1)
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          if (state.stallDownloads && req.url?.startsWith("/v1/video/generations/download") === true) {
            // Half the answer, then silence: a download cut in the middle of its body.
            const parts: Array<Buffer> = []
            answer.on("data", (c: Buffer) => parts.push(c))
            answer.on("end", () => {
              const whole = Buffer.concat(parts)
              res.write(whole.subarray(0, Math.floor(whole.length / 2)))
              state.stalled++
            })
            return
          }
          answer.pipe(res)
        }
      )
      upstream.on("error", () => res.destroy())
      upstream.end(body)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: emulator.apiKey,
    submits,
    attempts,
    emulator,
    hold,
    get stallDownloads() {
      return state.stallDownloads
    },
    set stallDownloads(on: boolean) {
      state.stallDownloads = on
    },
    stalled: () => state.stalled,
    get pauseSubmits() {
      return state.pauseSubmits
    },
    set pauseSubmits(on: boolean) {
      state.pauseSubmits = on
      if (!on) for (const send of waiting.splice(0)) send()
    },
    paused: () => waiting.length,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await emulator.close()
    }
  }
}

/** A temporary folder with an input file of `n` lines (`prompt` = `line N`), alpha every third line. */
export const inputFile = (
  n: number,
  dir = mkdtempSync(join(tmpdir(), "umg-batch-"))
): { readonly dir: string; readonly file: string } => {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ model: i % 3 === 0 ? "alpha-2" : "beta-3.0-fast-generate-001", prompt: `line ${i + 1}` })
  )
  const file = join(dir, "inputs.jsonl")
  writeFileSync(file, `${lines.join("\n")}\n`)
  return { dir, file }
}

/** A running `umg` process with its output so far. */
export interface Running {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly done: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

/** Starts `node <bundle> ...args` in `cwd` with the gateway's variables (and nothing else of UMG_*). */
export const startUmg = (
  bundle: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string>>
): Running => {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_")))
  const child = spawn(nodeBinary, [bundle, ...args], {
    cwd,
    env: { ...base, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d))
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d))
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal }))
  )
  return { child, stdout: () => stdout, stderr: () => stderr, done }
}

/** Resolves when `predicate` holds for the process's stderr, or when it ends. */
export const waitForStderr = async (
  run: Running,
  predicate: (stderr: string) => boolean,
  timeoutMs = 30_000
): Promise<boolean> => {
  const end = Date.now() + timeoutMs
  const ended = run.done.then(() => true)
  const tick = () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))
  while (Date.now() < end) {
    if (predicate(run.stderr())) return true
    if (await Promise.race([ended, tick()])) break
  }
  return predicate(run.stderr())
}

/** The results a finished batch wrote: one object per line. */
export const parseResults = (
  text: string
): Array<{ line: number; status: string; task_id: string | null; url?: string; file?: string; error?: string }> =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l))

/** A seeded generator (mulberry32), so the kill moments are the same on every run. */
export const seeded = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** What a CLI test file runs against: the bundled CLI, a gateway, and the environment pointing at it. */
export interface CliRun {
  bundle: string
  gateway: Gateway
  env: Record<string, string>
}

/**
 * A test file's CLI run, made before its tests (`bundleUmg`, `startGateway(taskMs)`, polling every
 * 50 ms) and closed after them.
 */
export const cliRun = (bundleUmg: () => Promise<string>, taskMs = 300): CliRun => {
  const run = {} as CliRun
  beforeAll(async () => {
    run.bundle = await bundleUmg()
    run.gateway = await startGateway(taskMs)
    run.env = { UMG_BASE_URL: run.gateway.url, UMG_API_KEY: run.gateway.apiKey, UMG_POLL_INTERVAL_MS: "50" }
  }, 60_000)
  afterAll(() =>
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    run.gateway?.close()
  )
  return run
}
