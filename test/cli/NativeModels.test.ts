import { rmSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { bundleUmg, runUmg } from "./RunUmg.js"

let emulator: Emulator
let umg: string
let env: Record<string, string>
const total = () => Object.values(emulator.counters.snapshot()).reduce((a, b) => a + b, 0)

beforeAll(async () => {
  ;[emulator, umg] = await Promise.all([startEmulator({ fast: true }), bundleUmg()])
  env = { UMG_BASE_URL: emulator.url, UMG_API_KEY: emulator.apiKey }
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await emulator?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
})

describe("umg chat with native (zeta) model ids", () => {
  for (const model of ["zeta-3-pro-preview-thinking-high", "zeta-2.5-pro-thinking-8192"]) {
    it(`answers ${model}: the thinking suffix is routed by its base`, async () => {
      const run = await runUmg(umg, ["chat", "-m", model, "hi"], env)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout.trim()).not.toBe("")
    })
  }

  it("refuses zeta-9-pro without --allow-unknown-models (nothing sent) and sends it with the flag", async () => {
    const before = total()
    const refused = await runUmg(umg, ["chat", "-m", "zeta-9-pro", "hi"], env)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--allow-unknown-models")
    expect(total()).toBe(before)
    // Sent: the emulator does not know the model either and answers 404 (exit 1).
    const flagged = await runUmg(umg, ["chat", "-m", "zeta-9-pro", "--allow-unknown-models", "hi"], env)
    expect(flagged.code, flagged.stderr).toBe(1)
    expect(flagged.stderr).toContain("404")
    expect(total()).toBe(before + 1)
  })
})
