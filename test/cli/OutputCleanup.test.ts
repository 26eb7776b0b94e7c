// `umg image` and `umg speak` check their output path before paying for the call, making the folders
// it needs; when the call then fails (a gateway fault, a model the gateway refuses, Ctrl-C), the
// folders they made go again, and nothing is left at the path. What was there before stays untouched.
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { bundleUmg, runUmg } from "./RunUmg.js"

let emulator: Emulator
let umg: string
let env: Record<string, string>
const dir = mkdtempSync(join(tmpdir(), "umg-cli-cleanup-"))

beforeAll(async () => {
  ;[emulator, umg] = await Promise.all([startEmulator({ fast: true }), bundleUmg()])
  // No retry: one injected fault is the call's failure.
  env = { UMG_BASE_URL: emulator.url, UMG_API_KEY: emulator.apiKey, UMG_MAX_RETRIES: "0" }
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await emulator?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
  rmSync(dir, { recursive: true, force: true })
})

beforeEach(() => emulator.clearFaults())

/** The two commands, each with its route and the arguments of a call that writes to `out`. */
const commands = {
  image: {
    route: "images",
    args: (out: string, model = "zeta-2.5-flash-image") => ["image", "-m", model, "-o", out, "a fox"]
  },
  speak: {
    route: "speech",
    args: (out: string, model = "gpt-4o-mini-tts") => ["speak", "-m", model, "--voice", "alloy", "-o", out, "hello"]
  }
} as const

/** A fresh folder for one case. */
const caseDir = (name: string): string => mkdtempSync(join(dir, `${name}-`))

describe("umg image and umg speak whose call fails", () => {
  it.each(Object.entries(commands))(
    "umg %s removes the folders it made for -o when the gateway fails (an injected 500)",
    async (name, command) => {
      const base = caseDir(name)
      emulator.inject(command.route, { kind: "status", status: 500 })
      const run = await runUmg(umg, command.args(join(base, "made", "deeper", "out.bin")), env)
      expect(run.code).toBe(1)
      expect(run.stderr).toContain("500")
      expect(readdirSync(base)).toEqual([])
    }
  )

  it.each(Object.entries(commands))(
    "umg %s removes the folders it made for -o when the gateway refuses the model",
    async (name, command) => {
      const base = caseDir(name)
      const run = await runUmg(
        umg,
        [...command.args(join(base, "made", "out.bin"), "acme-media-1"), "--allow-unknown-models"],
        env
      )
      expect(run.code).toBe(1)
      expect(readdirSync(base)).toEqual([])
    }
  )

  it.each(Object.entries(commands))(
    "umg %s never removes a folder that was there before, nor what it holds, nor an earlier file at -o",
    async (name, command) => {
      const base = caseDir(name)
      writeFileSync(join(base, "keep.txt"), "mine")
      emulator.inject(command.route, { kind: "status", status: 500 }, 3)
      // Under a folder that was there: only the folders made for the path go.
      expect((await runUmg(umg, command.args(join(base, "new", "out.bin")), env)).code).toBe(1)
      expect(readdirSync(base)).toEqual(["keep.txt"])
      // In a folder that was there: nothing was made, nothing goes.
      expect((await runUmg(umg, command.args(join(base, "out.bin")), env)).code).toBe(1)
      expect(readdirSync(base)).toEqual(["keep.txt"])
      // An earlier file at the path stays as it was.
      writeFileSync(join(base, "earlier.bin"), "earlier")
      expect((await runUmg(umg, command.args(join(base, "earlier.bin")), env)).code).toBe(1)
      expect(readFileSync(join(base, "earlier.bin"), "utf8")).toBe("earlier")
      expect(readdirSync(base).sort()).toEqual(["earlier.bin", "keep.txt"])
    },
    60_000
  )

  it.each(Object.entries(commands))(
    "umg %s stopped by SIGINT while it waits for the answer removes the folders it made, exit 130",
    async (name, command) => {
      const base = caseDir(name)
      const made = join(base, "made")
      const before = emulator.counters.get(command.route)
      emulator.inject(command.route, { kind: "stall" })
      const child = spawn(process.execPath, [umg, ...command.args(join(made, "out.bin"))], {
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_"))),
          NO_COLOR: "1",
          ...env
        },
        stdio: ["ignore", "pipe", "pipe"]
      })
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
      // The request is at the gateway, after the folder was made for it.
      for (let i = 0; i < 500 && emulator.counters.get(command.route) === before; i++)
        await new Promise((r) => setTimeout(r, 20))
      expect(existsSync(made)).toBe(true)
      child.kill("SIGINT")
      expect(await exited).toBe(130)
      expect(readdirSync(base)).toEqual([])
    },
    30_000
  )

  it.each(Object.entries(commands))(
    "umg %s that succeeds keeps the folders it made and the file it wrote",
    async (name, command) => {
      const base = caseDir(name)
      const out = join(base, "made", "out.bin")
      expect((await runUmg(umg, command.args(out), env)).code).toBe(0)
      expect(readFileSync(out).length).toBeGreaterThan(0)
      expect(readdirSync(join(base, "made"))).toEqual(["out.bin"])
    }
  )
})
