/**
 * What `umg` prints: errors in the mode its results are in (`--json` as the command line parses it),
 * no secret inside a successful answer, "nothing was sent" said once, no binary with `--json`, and
 * the defaults of the platform commands in their help.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { type Loopback, listenLoopback } from "../fixtures/loopback.js"
import { bundleUmg, runUmg } from "./RunUmg.js"

const apiKey = "sk-echoed-key-0123456789"
const token = "TOKEN-echoed-0123456789"

/** A gateway and platform that echo their credentials inside successful answers. */
const echoingServer = (): Promise<Loopback> =>
  listenLoopback((req, res) => {
    req.resume()
    const json = (body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    const url = req.url ?? ""
    if (url.startsWith("/v1/video/generations/"))
      return json({
        task_id: "vid_1",
        status: "succeeded",
        format: "mp4",
        url: `https://cdn.test/x.mp4?key=${apiKey}`
      })
    if (url.startsWith("/prod-api/v3/auth/getToken"))
      return json({ code: 200, msg: "success", data: `Bearer ${token}` })
    if (url.startsWith("/prod-api/svc/v4/api/anyShootAdvancedModeSubmit"))
      return json({ code: 200, msg: "success", data: `task ${String(req.headers.authorization)}` })
    res.writeHead(404).end()
  })

let umg: string
let emulator: Emulator
let echo: Loopback
const dir = mkdtempSync(join(tmpdir(), "umg-printing-test-"))
const total = () => Object.values(emulator.counters.snapshot()).reduce((a, b) => a + b, 0)
const env = () => ({ UMG_BASE_URL: emulator.url, UMG_API_KEY: emulator.apiKey })

beforeAll(async () => {
  ;[umg, emulator, echo] = await Promise.all([bundleUmg(), startEmulator({ fast: true }), echoingServer()])
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await emulator?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await echo?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
  rmSync(dir, { recursive: true, force: true })
})

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

describe("umg errors and --json", () => {
  it("prints errors as JSON exactly when the parsed command line asks for JSON results", async () => {
    // An invalid request (the temperature out of range), refused before anything is sent.
    const chat = (...flags: Array<string>) =>
      runUmg(umg, ["chat", "-m", "gpt-4o-mini", "--temperature", "9", ...flags], env())
    const [equalsTrue, spaceFalse, equalsFalse, afterDashes, plain] = await Promise.all([
      chat("--json=true", "hi"),
      chat("--json", "false", "hi"),
      chat("--json=false", "hi"),
      chat("--", "--json"),
      chat("--json", "hi")
    ])
    for (const run of [equalsTrue, spaceFalse, equalsFalse, afterDashes, plain]) expect(run.code, run.stderr).toBe(2)
    expect(isJson(equalsTrue.stderr.trim())).toBe(true)
    expect(isJson(plain.stderr.trim())).toBe(true)
    expect(isJson(spaceFalse.stderr.trim())).toBe(false)
    expect(isJson(equalsFalse.stderr.trim())).toBe(false)
    // A prompt that is the text "--json" does not ask for JSON.
    expect(isJson(afterDashes.stderr.trim())).toBe(false)
    expect(afterDashes.stderr).toContain("invalid input")
  })
})

describe("umg speak and image with --json and -o -", () => {
  it("refuses the two together, exit 2 naming both flags, and sends nothing", async () => {
    const before = total()
    const runs = await Promise.all([
      runUmg(umg, ["speak", "-m", "gpt-4o-mini-tts", "--voice", "alloy", "-o", "-", "--json", "hello"], env()),
      runUmg(umg, ["image", "-m", "zeta-2.5-flash-image", "-o", "-", "--json", "a fox"], env())
    ])
    for (const run of runs) {
      expect(run.code).toBe(2)
      expect(run.stdout).toBe("")
      const error = (JSON.parse(run.stderr.trim()) as { error: { field: string; message: string } }).error
      expect(error.field).toBe("--json")
      expect(error.message).toContain("--json and -o -")
    }
    expect(total()).toBe(before)
  })
})

describe("umg and what was not sent", () => {
  it("says once that nothing was sent", async () => {
    const [folder, platform] = await Promise.all([
      runUmg(umg, ["image", "-m", "zeta-2.5-flash-image", "-o", dir, "a fox"], env()),
      runUmg(umg, ["platform", "login"], env())
    ])
    for (const run of [folder, platform]) {
      expect(run.code).toBe(2)
      expect(run.stderr.match(/nothing was sent/g), run.stderr).toHaveLength(1)
    }
  })
})

describe("umg results that echo a secret", () => {
  it("prints a video task whose url holds the API key without the key, as text and as JSON", async () => {
    const withKey = { UMG_BASE_URL: echo.url, UMG_API_KEY: apiKey }
    const [human, json] = await Promise.all([
      runUmg(umg, ["video", "status", "vid_1"], withKey),
      runUmg(umg, ["video", "status", "vid_1", "--json"], withKey)
    ])
    expect(human.code, human.stderr).toBe(0)
    expect(json.code, json.stderr).toBe(0)
    expect(human.stdout).toContain("https://cdn.test/x.mp4?key=[redacted]")
    expect(human.stdout + json.stdout).not.toContain(apiKey)
    expect(JSON.parse(json.stdout) as unknown).toMatchObject({ url: "https://cdn.test/x.mp4?key=[redacted]" })
  })

  it("prints a platform answer that echoes the platform token without the token", async () => {
    const run = await runUmg(
      umg,
      [
        "platform",
        "shoot",
        "--json",
        ...["--product-image", "--product-mask", "--template-image", "--template-mask"].flatMap((f) => [
          f,
          "https://x.test/a.png"
        ])
      ],
      {
        UMG_BASE_URL: echo.url,
        UMG_API_KEY: apiKey,
        UMG_PLATFORM_URL: echo.url,
        UMG_PLATFORM_USERNAME: "user",
        UMG_PLATFORM_PASSWORD: "password-0123456789"
      }
    )
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).not.toContain(token)
    expect(JSON.parse(run.stdout) as unknown).toEqual({ task_id: "task [redacted]" })
  })
})

describe("umg platform help", () => {
  it("shows the defaults of text-to-video and shoot", async () => {
    const [t2v, shoot] = await Promise.all([
      runUmg(umg, ["platform", "text-to-video", "--help"]),
      runUmg(umg, ["platform", "shoot", "--help"])
    ])
    const flat = (text: string) => text.replace(/\s+/g, " ")
    expect(flat(t2v.stdout)).toContain("(default 5)")
    expect(flat(t2v.stdout)).toContain("(default 16:9)")
    expect(flat(shoot.stdout)).toContain("(default 1024x1024)")
  })
})
