/**
 * Runs every TypeScript sample of the README against the emulator, as a reader would run it: each
 * sample is its own program (`node --conditions=umg-source --import tsx`), `umg`, `umg/rx`,
 * `umg/batch`… resolving to this package's sources, with `UMG_*` pointing at an emulator. A sample
 * marked `<!-- fragment: … -->` just above its fence (one that needs a browser page) is only
 * compiled (test/Readme.test.ts); every other one must exit 0. So the README cannot rot.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")
// tsx's loader by URL: the samples run from folders of their own, where `tsx` would not resolve.
const tsxLoader = pathToFileURL(join(root, "node_modules", "tsx", "dist", "loader.mjs")).href

/** The README's ts samples with whether each is runnable (not marked as a fragment) and its line. */
export const samplesWithMarks = (markdown: string): Array<{ code: string; runnable: boolean; line: number }> =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => {
    const before = markdown.slice(0, m.index).trimEnd().split("\n").at(-1) ?? ""
    return { code: m[1]!, runnable: !/^<!-- fragment\b/.test(before), line: markdown.slice(0, m.index).split("\n").length }
  })

let emulator: Emulator
beforeAll(async () => {
  emulator = await startEmulator({ fast: true })
})
afterAll(() => emulator?.close())

const runSample = (file: string, cwd: string): Promise<{ code: number | null; out: string }> =>
  new Promise((done) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_")))
    const child = spawn(process.execPath, ["--conditions=umg-source", "--import", tsxLoader, file], {
      cwd,
      env: {
        ...base,
        NO_COLOR: "1",
        UMG_BASE_URL: emulator.url,
        UMG_API_KEY: emulator.apiKey,
        UMG_PLATFORM_URL: emulator.platformUrl,
        UMG_PLATFORM_USERNAME: emulator.platform.username,
        UMG_PLATFORM_PASSWORD: emulator.platform.password
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000)
    child.on("close", (code) => {
      clearTimeout(timer)
      done({ code, out })
    })
  })

describe("the README's samples, run", () => {
  it("tells fragments from programs", () => {
    const md = "a\n```ts\nconst a = 1\n```\n<!-- fragment: browser -->\n```ts\ndocument.body\n```\n"
    expect(samplesWithMarks(md).map((s) => s.runnable)).toEqual([true, false])
  })

  it("runs every runnable sample against the emulator: each exits 0", async () => {
    const samples = samplesWithMarks(readFileSync(join(root, "README.md"), "utf8"))
    const runnable = samples.filter((s) => s.runnable)
    expect(runnable.length).toBeGreaterThanOrEqual(15)
    expect(samples.length - runnable.length).toBeLessThanOrEqual(2)
    // Inside the package (so `umg/…` resolves to it by name); each sample runs in its own folder.
    const dir = join(root, "tmp", "readme-run")
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const failures: Array<string> = []
    let next = 0
    const worker = async () => {
      while (next < runnable.length) {
        const sample = runnable[next++]!
        const file = join(dir, `sample-line-${sample.line}.ts`)
        writeFileSync(file, `${sample.code}\nexport {}\n`)
        const cwd = mkdtempSync(join(tmpdir(), "umg-readme-"))
        const { code, out } = await runSample(file, cwd)
        rmSync(cwd, { recursive: true, force: true })
        if (code !== 0) failures.push(`README line ${sample.line}: exit ${code}\n${out.slice(-1500)}`)
      }
    }
    await Promise.all([worker(), worker(), worker()])
    expect(failures).toEqual([])
  }, 240_000)
})
