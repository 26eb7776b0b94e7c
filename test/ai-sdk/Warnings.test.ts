import { generateText } from "ai"
import { describe, expect, it } from "vitest"
import { proxiedUmg } from "./CountingProxy.js"
import { textFamilies } from "./Families.js"

// What of a call cannot be sent as asked, as the AI SDK's warnings: a setting the family does not
// take is `unsupported`, naming it as the official providers name it; anything else stays `other`.
const env = proxiedUmg()

const family = (name: string) => textFamilies.find((f) => f.name === name)!

describe("umg/ai-sdk warnings", () => {
  it("topK on a chat model is unsupported, named topK, as the official provider has it", async () => {
    const r = await generateText({ model: env.umg("gpt-4o"), prompt: "Hi", topK: 5 })
    const o = await generateText({ model: family("chat").official(env.emu.url, env.emu.apiKey), prompt: "Hi", topK: 5 })
    expect(r.warnings).toEqual([{ type: "unsupported", feature: "topK" }])
    expect(o.warnings).toEqual(r.warnings)
  })

  it("seed on a messages-style model and stopSequences on a responses model are unsupported, each named", async () => {
    const m = await generateText({ model: env.umg("epsilon-sonnet-4-5-20250929"), prompt: "Hi", seed: 7 })
    expect(m.warnings).toEqual([{ type: "unsupported", feature: "seed" }])
    const r = await generateText({ model: env.umg("gpt-5"), prompt: "Hi", stopSequences: ["x"] })
    expect(r.warnings).toEqual([{ type: "unsupported", feature: "stopSequences" }])
  })

  it("JSON output without a schema on a messages-style model is unsupported responseFormat, with the details", async () => {
    // The answer is text, which the AI SDK's JSON output would refuse: the model is called directly.
    const r = await env.umg.languageModel("epsilon-sonnet-4-5-20250929").doGenerate({
      prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      responseFormat: { type: "json" }
    })
    expect(r.warnings).toEqual([
      {
        type: "unsupported",
        feature: "responseFormat",
        details: "JSON output without a schema is not supported by a messages-style model; the answer is text"
      }
    ])
  })

  it("a reasoning effort fitted to the model is a compatibility warning on reasoning, as the AI SDK's providers give it", async () => {
    const r = await generateText({ model: env.umg("zeta-2.5-pro"), prompt: "Hi", reasoning: "none" })
    expect(r.warnings).toEqual([
      {
        type: "compatibility",
        feature: "reasoning",
        details: 'reasoning "none": zeta-2.5-pro cannot turn thinking off; thinkingBudget 128 is sent instead'
      }
    ])
  })
})
