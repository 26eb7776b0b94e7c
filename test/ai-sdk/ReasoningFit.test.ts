import { generateText } from "ai"
import { describe, expect, it } from "vitest"
import { proxiedUmg } from "./CountingProxy.js"

// The AI SDK's `reasoning` levels fitted to what a model takes, as the official providers do: a zeta
// 2.5 model's thinking budget clamped into its range (with a warning where thinking could not be
// turned off), and a messages-style model's max_tokens raised by the thinking budget so that a small
// maxOutputTokens still leaves the answer its tokens.
const env = proxiedUmg()

const sent = (): Record<string, unknown> => JSON.parse(env.proxy.requests[0]!.body) as Record<string, unknown>
const thinkingConfig = () => (sent()["generationConfig"] as { thinkingConfig?: unknown }).thinkingConfig
const reasoningWarnings = (warnings: ReadonlyArray<unknown>) =>
  warnings.filter((w) => JSON.stringify(w).includes("reasoning"))

describe("reasoning on a zeta 2.5 model", () => {
  it.each(["zeta-2.5-flash", "zeta-2.5-flash-lite"])(
    "%s takes reasoning max as its largest budget, 24576, without a warning",
    async (model) => {
      const r = await generateText({ model: env.umg(model), prompt: "x", reasoning: "max" })
      expect(r.text).toMatch(/\S/)
      expect(thinkingConfig()).toEqual({ includeThoughts: true, thinkingBudget: 24576 })
      expect(reasoningWarnings(r.warnings ?? [])).toEqual([])
    }
  )

  it("zeta-2.5-pro, which cannot turn thinking off, takes reasoning none as its smallest budget, with a warning", async () => {
    const r = await generateText({ model: env.umg("zeta-2.5-pro"), prompt: "x", reasoning: "none" })
    expect(r.text).toMatch(/\S/)
    expect(thinkingConfig()).toEqual({ thinkingBudget: 128 })
    expect(reasoningWarnings(r.warnings ?? [])).toEqual([
      {
        type: "compatibility",
        feature: "reasoning",
        details: 'reasoning "none": zeta-2.5-pro cannot turn thinking off; thinkingBudget 128 is sent instead'
      }
    ])
  })

  it("zeta-2.5-pro takes reasoning max as its largest budget, and zeta-2.5-flash reasoning none as 0", async () => {
    await generateText({ model: env.umg("zeta-2.5-pro"), prompt: "x", reasoning: "max" })
    expect(thinkingConfig()).toEqual({ includeThoughts: true, thinkingBudget: 32768 })
    env.proxy.reset()
    await generateText({ model: env.umg("zeta-2.5-flash"), prompt: "x", reasoning: "none" })
    expect(thinkingConfig()).toEqual({ thinkingBudget: 0 })
  })
})

describe("reasoning on a messages-style model", () => {
  it("with a small maxOutputTokens sends max_tokens of maxOutputTokens plus the thinking budget", async () => {
    const r = await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      prompt: "x",
      reasoning: "high",
      maxOutputTokens: 1000
    })
    expect(r.text).toMatch(/\S/)
    expect(sent()).toMatchObject({ max_tokens: 1000 + 16384, thinking: { type: "enabled", budget_tokens: 16384 } })
  })

  it("without maxOutputTokens sends the default 4096 plus the budget, and without reasoning maxOutputTokens alone", async () => {
    await generateText({ model: env.umg("epsilon-sonnet-4-5-20250929"), prompt: "x", reasoning: "low" })
    expect(sent()).toMatchObject({ max_tokens: 4096 + 2048, thinking: { type: "enabled", budget_tokens: 2048 } })
    env.proxy.reset()
    await generateText({ model: env.umg("epsilon-sonnet-4-5-20250929"), prompt: "x", maxOutputTokens: 1000 })
    expect(sent()["max_tokens"]).toBe(1000)
    expect(sent()["thinking"]).toBeUndefined()
  })
})
