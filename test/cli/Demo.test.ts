import { Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as Connection from "../../src/cli/support/Connection.js"
import { runDemo } from "../../src/cli/commands/demo.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

let emulator: Emulator
beforeAll(async () => {
  emulator = await startEmulator({ fast: true })
})
afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await emulator?.close()
})

const layerFor = (e: Emulator) => {
  // Polls every 50 ms: the floor is lowered to match (video.wait refuses an interval below it).
  const config = { ...Connection.emulatorConfig(e), maxRetries: 0, minPollIntervalMs: 50 }
  return Layer.merge(
    Gateway.layer(config),
    Layer.succeed(Connection.Connection, { baseUrl: e.url, embedded: Option.some(e), pollIntervalMs: 50, config })
  )
}

describe("the demo", () => {
  it("shows a failing step as failed and still runs every other step", async () => {
    // The tour prints to stdout; keep the test output readable.
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true)
    const writeErr = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
    try {
      emulator.inject(
        "rerank",
        { kind: "status", status: 500, body: { error: { message: "boom", type: "server_error" } } },
        5
      )
      const out = mkdtempSync(join(tmpdir(), "umg-demo-test-"))
      const results = await Effect.runPromise(Effect.provide(runDemo(out), layerFor(emulator)))
      const byStep = Object.fromEntries(results.map((r) => [r.step, r]))
      expect(byStep["rerank"]?.status).toBe("failed")
      expect(byStep["rerank"]?.result).toContain("500")
      expect(results.filter((r) => r.status === "ok").length).toBe(results.length - 1)
      expect(results.map((r) => r.step).at(-1)).toBe("rejected request (validation)")
      // The refusal is one line, its two sentences apart.
      const printed = write.mock.calls.map(([chunk]) => String(chunk)).join("")
      // eslint-disable-next-line no-control-regex -- the demo colours its lines
      expect(printed.replace(/\u001b\[[0-9;]*m/g, "")).toContain("allowed: 480p, 720p; nothing was sent.")
    } finally {
      write.mockRestore()
      writeErr.mockRestore()
      emulator.clearFaults()
    }
  }, 60_000)

  it("skips the platform step, rather than failing it, on a gateway whose platform settings are not given", async () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true)
    const writeErr = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
    try {
      const {
        platformUrl: _url,
        platformUsername: _user,
        platformPassword: _password,
        ...rest
      } = Connection.emulatorConfig(emulator)
      const config = { ...rest, maxRetries: 0, minPollIntervalMs: 50 }
      const layer = Layer.merge(
        Gateway.layer(config),
        Layer.succeed(Connection.Connection, {
          baseUrl: emulator.url,
          embedded: Option.some(emulator),
          pollIntervalMs: 50,
          config
        })
      )
      const out = mkdtempSync(join(tmpdir(), "umg-demo-test-"))
      const results = await Effect.runPromise(Effect.provide(runDemo(out), layer))
      const platform = results.find((r) => r.step.startsWith("platform"))
      expect(platform).toMatchObject({ status: "skipped" })
      expect(platform?.result).toContain("UMG_PLATFORM_URL")
      expect(results.filter((r) => r.status === "failed")).toEqual([])
      const printed = write.mock.calls.map(([chunk]) => String(chunk)).join("")
      // eslint-disable-next-line no-control-regex -- the demo colours its lines
      expect(printed.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/\d+ ok, 0 failed, 1 skipped in/)
    } finally {
      write.mockRestore()
      writeErr.mockRestore()
    }
  }, 60_000)
})
