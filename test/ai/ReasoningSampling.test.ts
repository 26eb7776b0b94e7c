import { Effect, Layer, Logger } from "effect"
import { LanguageModel } from "effect/ai"
import { describe, expect, it } from "vitest"
import { UmgLanguageModel } from "../../src/ai/index.js"
import type { UmgModelConfig } from "../../src/ai/index.js"
import { proxiedGateway } from "../ai-sdk/CountingProxy.js"

// umg/ai drops the sampling settings a model does not take in its mode, as umg/ai-sdk does: Effect
// AI's responses carry no warnings, so each dropped setting is logged as a warning instead.
const env = proxiedGateway()

/** Runs generateText on `model` with `config`, giving its text and the warnings logged. */
const generate = async (model: string, config: UmgModelConfig) => {
  const warnings: Array<string> = []
  const capture = Logger.layer([
    Logger.make(({ logLevel, message }) => {
      if (logLevel === "Warn") warnings.push([message].flat().map(String).join(" "))
    })
  ])
  const layer = Layer.mergeAll(UmgLanguageModel.layer({ model, config }).pipe(Layer.provide(env.gateway)), capture)
  const r = await Effect.runPromise(Effect.provide(LanguageModel.generateText({ prompt: "x" }), layer))
  return { text: r.text, warnings }
}

const sent = (): Record<string, unknown> => JSON.parse(env.proxy.requests[0]!.body) as Record<string, unknown>

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
