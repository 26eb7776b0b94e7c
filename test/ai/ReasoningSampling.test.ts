import { describe, expect, it } from "vitest"
import type { UmgModelConfig } from "../../src/ai/index.js"
import { proxiedGateway } from "../ai-sdk/CountingProxy.js"
import { firstBodySent, generateLogged } from "./GenerateLogged.js"

// umg/ai drops the sampling settings a model does not take in its mode, as umg/ai-sdk does: Effect
// AI's responses carry no warnings, so each dropped setting is logged as a warning instead.
const env = proxiedGateway()

const generate = (model: string, config: UmgModelConfig) => generateLogged(env, model, config)
const sent = () => firstBodySent(env)

describe("umg/ai sampling settings a model does not take", () => {
  it("gpt-5 is sent no temperature or top_p; each is logged as a warning", async () => {
    const r = await generate("gpt-5", { temperature: 0.5, topP: 0.9 })
    expect(r.text).toMatch(/\S/)
    expect(sent()).not.toHaveProperty("temperature")
    expect(sent()).not.toHaveProperty("top_p")
    expect(r.warnings).toEqual([
      "umg: temperature is not supported for reasoning models (gpt-5); not sent",
      "umg: topP is not supported for reasoning models (gpt-5); not sent"
    ])
  })

  it("an epsilon model thinking is sent no temperature or top_k; each is logged as a warning", async () => {
    const model = "epsilon-sonnet-4-5-20250929"
    const r = await generate(model, { reasoning: "medium", temperature: 0.5, topK: 5 })
    expect(r.text).toMatch(/\S/)
    expect(sent()).toMatchObject({ thinking: { type: "enabled", budget_tokens: 8192 } })
    expect(sent()).not.toHaveProperty("temperature")
    expect(sent()).not.toHaveProperty("top_k")
    expect(r.warnings).toEqual([
      `umg: temperature is not supported when thinking is enabled (${model}); not sent`,
      `umg: topK is not supported when thinking is enabled (${model}); not sent`
    ])
  })

  it("gpt-4o keeps its temperature, and nothing is logged", async () => {
    const r = await generate("gpt-4o", { temperature: 0.5 })
    expect(sent()).toMatchObject({ temperature: 0.5 })
    expect(r.warnings).toEqual([])
  })
})
