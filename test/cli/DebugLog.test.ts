// `UMG_LOG=debug umg …` writes the debug log on stderr, one `key=value` line per request, answer,
// body failed after its answer, retry and stream end (SSE or a video download's bytes), while stdout
// carries the result alone; without it nothing of the kind is written; a
// wrong value is refused (exit 2) naming UMG_LOG. No line holds the key, nor a secret the server echoes.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { bundleUmg, runUmg } from "./RunUmg.js"

const KEY = "sk-umg-cli-debuglog-FAKE-93b7e4"

let emulator: Emulator
let umg: string
let env: Record<string, string>

beforeAll(async () => {
  ;[emulator, umg] = await Promise.all([startEmulator({ fast: true, keys: { [KEY]: "full" } }), bundleUmg()])
  env = { UMG_BASE_URL: emulator.url, UMG_API_KEY: KEY, UMG_MAX_RETRIES: "1" }
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await emulator?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
})

const chat = ["chat", "-m", "gpt-4o-mini", "Say hello"]

describe("UMG_LOG", () => {
  it("debug: each request, answer and stream end is a line on stderr; stdout carries the reply alone", async () => {
    const [quiet, run] = [await runUmg(umg, chat, env), await runUmg(umg, chat, { ...env, UMG_LOG: "debug" })]
    expect(quiet.code).toBe(0)
    expect(quiet.stderr).not.toContain("umg: request")

    expect(run.code).toBe(0)
    expect(run.stdout).toBe(quiet.stdout)
    expect(run.stdout).not.toContain("umg:")
    const lines = run.stderr.split("\n").filter((line) => line.includes('message="umg: '))
    expect(lines.map((line) => /message="([^"]+)"/.exec(line)?.[1])).toEqual([
      "umg: request",
      "umg: response",
      "umg: stream ended"
    ])
    expect(lines[1]).toContain("level=DEBUG")
    expect(lines[1]).toContain("http.request.method=POST")
    expect(lines[1]).toContain("url.path=/v1/chat/completions")
    expect(lines[1]).toContain("http.response.status_code=200")
    expect(lines[1]).toContain("umg.attempt=1")
    expect(lines[2]).toContain("umg.stream.outcome=completed")
    expect(run.stderr).not.toContain(KEY)
  }, 60_000)

  it("logs the retry of a refused attempt, the echoed key redacted", async () => {
    emulator.inject("models", { kind: "status", status: 503, headers: { "x-request-id": `req-${KEY}` } })
    const run = await runUmg(umg, ["models", "--json"], { ...env, UMG_LOG: "debug" })
    expect(run.code).toBe(0)
    const messages = [...run.stderr.matchAll(/message="(umg: [^"]+)"/g)].map((m) => m[1])
    expect(messages).toEqual(["umg: request", "umg: response", "umg: retrying", "umg: request", "umg: response"])
    expect(run.stderr).toContain("umg.gateway.request_id=req-[redacted]")
    expect(run.stderr).not.toContain(KEY)
  }, 60_000)

  it("logs a video download's end with its bytes, and a body that stalled past the time limit", async () => {
    const taskId = await Effect.runPromise(
      Effect.flatMap(Gateway, (g) =>
        Effect.flatMap(g.video.submit({ model: "alpha-2", prompt: "a calm sea" }), (task) =>
          Effect.as(g.video.wait(task.task_id, { intervalMs: 50 }), task.task_id)
        )
      ).pipe(Effect.provide(Gateway.layer({ baseUrl: emulator.url, apiKey: KEY, minPollIntervalMs: 50 })))
    )
    const dir = mkdtempSync(join(tmpdir(), "umg-cli-debuglog-"))
    try {
      const output = join(dir, "out.mp4")
      const run = await runUmg(umg, ["video", "download", "-o", output, taskId], { ...env, UMG_LOG: "debug" })
      expect(run.code).toBe(0)
      const end = run.stderr.split("\n").find((line) => line.includes('message="umg: stream ended"'))
      expect(end).toContain("umg.family=video")
      expect(end).toContain("umg.stream.outcome=completed")
      expect(Number(/umg\.stream\.bytes=(\d+)/.exec(end ?? "")?.[1])).toBeGreaterThan(statSync(output).size)
      expect(run.stderr).not.toContain(KEY)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }

    emulator.inject("models", { kind: "stall" })
    const stalled = await runUmg(umg, ["models", "--json"], {
      ...env,
      UMG_LOG: "debug",
      UMG_MAX_RETRIES: "0",
      UMG_TIMEOUT_MS: "300"
    })
    expect(stalled.code).toBe(1)
    const messages = [...stalled.stderr.matchAll(/message="(umg: [^"]+)"/g)].map((m) => m[1])
    expect(messages).toEqual(["umg: request", "umg: response", "umg: response failed"])
    expect(stalled.stderr).toContain("error.type=TimeoutError(request)")
    expect(stalled.stderr).not.toContain(KEY)
  }, 60_000)

  it("refuses a wrong value (exit 2), naming UMG_LOG and what it allows", async () => {
    const run = await runUmg(umg, ["models"], { ...env, UMG_LOG: "verbose" })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('UMG_LOG: "verbose" is not allowed; allowed: debug, info, warn, error, off')
    expect(run.stdout).toBe("")
  }, 60_000)
})
