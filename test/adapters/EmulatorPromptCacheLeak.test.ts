// The emulator's prompt cache kept every distinct cached prefix for ever (expired or not): a
// long-running emulator (`umg emulator`, a long test run) grew by the prefix's size (≥ 4 KB) for each
// distinct cached prompt it was sent — 88 MB after 20,000 of them.
import { describe, expect, it } from "vitest"
import { makeContext } from "../../src/emulator/server/Context.js"
import { accountCache } from "../../src/emulator/text/messages/PromptCache.js"

const MODEL = "epsilon-sonnet-4-5-20250929"
const filler = "lorem ipsum dolor sit amet ".repeat(160)
/** A body whose system prompt (above the 1,024-token minimum) is cached, distinct for each `i`. */
const body = (i: number) => ({
  model: MODEL,
  max_tokens: 8,
  system: [{ type: "text", text: `${i} ${filler}`, cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: "hi" }]
})

describe("the emulator's prompt cache is bounded", () => {
  it("forgets the least recently used prefixes past its bound, and still caches the recent ones", () => {
    const ctx = makeContext({ fast: true })
    expect(accountCache(ctx, MODEL, body(0)).creation).toBeGreaterThan(0)
    expect(accountCache(ctx, MODEL, body(0)).read).toBeGreaterThan(0)
    const distinct = 12_000
    for (let i = 1; i <= distinct; i++) accountCache(ctx, MODEL, body(i))
    expect(accountCache(ctx, MODEL, body(distinct)).read).toBeGreaterThan(0)
    // The first prefix, not used since, was forgotten: written again.
    const again = accountCache(ctx, MODEL, body(0))
    expect(again.read).toBe(0)
    expect(again.creation).toBeGreaterThan(0)
    expect(accountCache(ctx, MODEL, body(0)).read).toBeGreaterThan(0)
  })
})
