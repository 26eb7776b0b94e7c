import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, virtualClock: true })
})
afterAll(() => emu.close())

type Usage = {
  input_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
  cache_creation: Record<string, number>
}

const usage = async (body: unknown): Promise<Usage> => {
  const res = await fetch(`${emu.url}/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { usage: Usage }).usage
}

// About 4 characters a token: 6000 characters ≈ 1500 tokens (above 1024, below 2048).
const longText = (tag: string, chars: number): string => `${tag} `.padEnd(chars, "lorem ipsum ")
const body = (
  system: string,
  cacheControl: Record<string, string> = { type: "ephemeral" },
  model = "epsilon-sonnet-4-5-20250929"
) => ({
  model,
  max_tokens: 64,
  system: [{ type: "text", text: system, cache_control: cacheControl }],
  messages: [{ role: "user", content: "Summarise." }]
})

describe("prompt caching", () => {
  it("writes the cached prefix on the first request and reads it on an identical later one", async () => {
    const b = body(longText("a", 6000))
    const first = await usage(b)
    expect(first.cache_creation_input_tokens).toBe(1500)
    expect(first.cache_read_input_tokens).toBe(0)
    expect(first.cache_creation.ephemeral_5m_input_tokens).toBe(1500)
    const second = await usage(b)
    expect(second.cache_creation_input_tokens).toBe(0)
    expect(second.cache_read_input_tokens).toBe(1500)
    expect(second.input_tokens).toBe(first.input_tokens)
  })

  it("misses the cache when the cached content changes", async () => {
    await usage(body(longText("b", 6000)))
    const changed = await usage(body(longText("B", 6000)))
    expect(changed.cache_read_input_tokens).toBe(0)
    expect(changed.cache_creation_input_tokens).toBe(1500)
  })

  it("does not cache a prefix below the minimum size", async () => {
    const small = await usage(body(longText("c", 2000)))
    expect(small.cache_creation_input_tokens).toBe(0)
    expect(small.cache_read_input_tokens).toBe(0)
  })

  it("asks 2048 tokens of the smaller older model", async () => {
    const haiku = "epsilon-3-haiku-20240307"
    expect((await usage(body(longText("d", 6000), { type: "ephemeral" }, haiku))).cache_creation_input_tokens).toBe(0)
    expect((await usage(body(longText("d", 9000), { type: "ephemeral" }, haiku))).cache_creation_input_tokens).toBe(
      2250
    )
  })

  it("lets an ephemeral entry expire after 5 minutes on the emulator clock", async () => {
    const b = body(longText("e", 6000))
    await usage(b)
    emu.advanceTime(4 * 60_000)
    expect((await usage(b)).cache_read_input_tokens).toBe(1500) // a hit refreshes the lifetime
    emu.advanceTime(5 * 60_000 + 1)
    const expired = await usage(b)
    expect(expired.cache_read_input_tokens).toBe(0)
    expect(expired.cache_creation_input_tokens).toBe(1500)
  })

  it("keeps a persistent entry for an hour", async () => {
    const b = body(longText("f", 6000), { type: "persistent" })
    expect((await usage(b)).cache_creation.ephemeral_1h_input_tokens).toBe(1500)
    emu.advanceTime(59 * 60_000)
    expect((await usage(b)).cache_read_input_tokens).toBe(1500)
    emu.advanceTime(60 * 60_000 + 1)
    expect((await usage(b)).cache_read_input_tokens).toBe(0)
  })

  it("caches the whole prompt for a top-level cache_control and counts tools in the prefix", async () => {
    const tool = { name: "lookup", description: longText("t", 2000), input_schema: { type: "object", properties: {} } }
    const b = {
      model: "epsilon-sonnet-4-5-20250929",
      max_tokens: 64,
      cache_control: { type: "ephemeral" },
      tools: [tool],
      messages: [{ role: "user", content: longText("u", 4000) }]
    }
    const first = await usage(b)
    expect(first.cache_creation_input_tokens).toBeGreaterThan(1500)
    expect(first.input_tokens).toBe(0)
    expect((await usage(b)).cache_read_input_tokens).toBe(first.cache_creation_input_tokens)
  })

  it("caches up to the last block marked with cache_control, not beyond", async () => {
    const b = {
      model: "epsilon-opus-4-5-20251101",
      max_tokens: 64,
      system: [
        { type: "text", text: longText("g", 6000), cache_control: { type: "ephemeral" } },
        { type: "text", text: longText("h", 400) }
      ],
      messages: [{ role: "user", content: "Go." }]
    }
    const first = await usage(b)
    expect(first.cache_creation_input_tokens).toBe(1500)
    expect(first.input_tokens).toBe(100 + 1)
  })
})
