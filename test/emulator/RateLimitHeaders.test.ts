import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { families, post } from "./TextFamilies.js"

// With `rateLimitHeaders: true` the emulator sends rate-limit headers on success: OpenAI-style
// `x-ratelimit-*` on the OpenAI-style routes, `anthropic-ratelimit-*` on the messages-style ones,
// counted in a one-minute window of its clock. Off by default (the contract does not show them).
let emu: Emulator
let plain: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, virtualClock: true, rateLimitHeaders: true })
  plain = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
  await plain.close()
})

const [messages, chat, , native] = families
const ask = (e: Emulator, f = chat!) => post(e, f.path, f.body(f.prompt("Hello"), {}))

describe("rate-limit headers", () => {
  it("sends x-ratelimit-* on the OpenAI-style routes, the remaining counts falling with each request", async () => {
    const a = await ask(emu)
    const b = await ask(emu)
    expect(a.status).toBe(200)
    expect(a.headers.get("x-ratelimit-limit-requests")).toBe("1000")
    expect(a.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/)
    expect(a.headers.get("x-ratelimit-limit-tokens")).toBe("1000000")
    expect(Number(b.headers.get("x-ratelimit-remaining-requests"))).toBe(
      Number(a.headers.get("x-ratelimit-remaining-requests")) - 1
    )
    expect(Number(b.headers.get("x-ratelimit-remaining-tokens"))).toBeLessThan(
      Number(a.headers.get("x-ratelimit-remaining-tokens"))
    )
    expect(a.headers.get("x-request-id")).toMatch(/^req_/)
    expect(a.headers.get("access-control-expose-headers")).toContain("x-ratelimit-remaining-requests")
  })

  it("sends anthropic-ratelimit-* on the messages-style routes, with a reset time in the window", async () => {
    const res = await ask(emu, messages)
    expect(res.status).toBe(200)
    for (const kind of ["requests", "tokens", "input-tokens", "output-tokens"])
      expect(res.headers.get(`anthropic-ratelimit-${kind}-limit`)).toMatch(/^\d+$/)
    const reset = Date.parse(res.headers.get("anthropic-ratelimit-requests-reset")!)
    expect(reset).toBeGreaterThan(emu.now() - 1000)
    expect(reset).toBeLessThanOrEqual(emu.now() + 60_000)
    expect(res.headers.get("request-id")).toMatch(/^req_/)
  })

  it("starts a new window after a minute of the emulator's clock", async () => {
    await ask(emu)
    emu.advanceTime(60_000)
    expect((await ask(emu)).headers.get("x-ratelimit-remaining-requests")).toBe("999")
  })

  it("sends none on the native family, nor when the option is off", async () => {
    const n = await ask(emu, native)
    expect(n.status).toBe(200)
    expect([...n.headers.keys()].filter((k) => k.includes("ratelimit"))).toEqual([])
    const off = await ask(plain)
    expect(off.status).toBe(200)
    expect([...off.headers.keys()].filter((k) => k.includes("ratelimit"))).toEqual([])
  })
})
