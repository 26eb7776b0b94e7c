import { describe, expect, it } from "vitest"
import type { UmgModelConfig } from "../../src/ai/index.js"
import { proxiedGateway } from "../ai-sdk/CountingProxy.js"
import { firstBodySent, generateLogged } from "./GenerateLogged.js"

// The reasoning effort of umg/ai's model config fitted to what a model takes, as through umg/ai-sdk:
// a zeta 2.5 budget clamped into the model's range, a messages-style max_tokens raised by the thinking
// budget; what could not be met as asked (Effect AI's responses carry no warnings) is logged as a warning.
const env = proxiedGateway()

const generate = (model: string, config: UmgModelConfig) => generateLogged(env, model, config)
const sent = () => firstBodySent(env)

describe("umg/ai reasoning fitted to the model", () => {
  it("zeta-2.5-flash takes reasoning max as its largest budget, 24576, and logs nothing", async () => {
    const r = await generate("zeta-2.5-flash", { reasoning: "max" })
    expect(r.text).toMatch(/\S/)
    expect(sent()["generationConfig"]).toMatchObject({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 24576 }
    })
    expect(r.warnings).toEqual([])
  })

  it("zeta-2.5-pro takes reasoning none as its smallest budget and logs a warning saying so", async () => {
    const r = await generate("zeta-2.5-pro", { reasoning: "none" })
    expect(r.text).toMatch(/\S/)
    expect(sent()["generationConfig"]).toMatchObject({ thinkingConfig: { thinkingBudget: 128 } })
    expect(r.warnings).toEqual([
      'umg: reasoning "none": zeta-2.5-pro cannot turn thinking off; thinkingBudget 128 is sent instead'
    ])
  })

  it("an epsilon model with reasoning high and maxOutputTokens 1000 gets max_tokens 1000 plus the budget", async () => {
    const r = await generate("epsilon-sonnet-4-5-20250929", { reasoning: "high", maxOutputTokens: 1000 })
    expect(r.text).toMatch(/\S/)
    expect(sent()).toMatchObject({ max_tokens: 17384, thinking: { type: "enabled", budget_tokens: 16384 } })
  })

  it("a setting the family does not take is logged as a warning too (topK on a chat model)", async () => {
    const r = await generate("gpt-4o", { topK: 5 })
    expect(r.warnings).toEqual(["umg: topK is not supported by a chat model"])
  })
})
