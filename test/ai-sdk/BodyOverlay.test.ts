import { Output, generateText } from "ai"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { proxiedUmg } from "./CountingProxy.js"

// `providerOptions.umg` laid over the body umg built, through the AI SDK: an object of the body is
// merged into the built one, so what umg built beside the caller's fields (sampling, thinking,
// structured output) is still sent, and structured output still works.
const env = proxiedUmg()

const paint = z.object({ colour: z.string(), shade: z.number().int() })
const sent = (): Record<string, Record<string, unknown>> =>
  JSON.parse(env.proxy.requests[0]!.body) as Record<string, Record<string, unknown>>

describe("providerOptions.umg", () => {
  it("native content: generationConfig fields join the built generationConfig", async () => {
    const r = await generateText({
      model: env.umg("zeta-2.5-flash"),
      output: Output.object({ schema: paint }),
      prompt: "Pick a paint.",
      maxOutputTokens: 900,
      temperature: 0.3,
      reasoning: "low",
      providerOptions: { umg: { generationConfig: { candidateCount: 1 } } }
    })
    expect(paint.parse(r.output)).toEqual(r.output)
    expect(sent()["generationConfig"]).toMatchObject({
      candidateCount: 1,
      maxOutputTokens: 900,
      temperature: 0.3,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
      responseMimeType: "application/json",
      responseJsonSchema: expect.any(Object)
    })
  })

  it("responses: text.verbosity keeps text.format, reasoning.summary keeps reasoning.effort", async () => {
    const r = await generateText({
      model: env.umg("gpt-5"),
      output: Output.object({ schema: paint }),
      prompt: "Pick a paint.",
      reasoning: "low",
      providerOptions: { umg: { text: { verbosity: "low" }, reasoning: { summary: "detailed" } } }
    })
    expect(paint.parse(r.output)).toEqual(r.output)
    expect(sent()["text"]).toMatchObject({ verbosity: "low", format: { type: "json_schema" } })
    expect(sent()["reasoning"]).toEqual({ effort: "low", summary: "detailed" })
  })

  it("chat and messages-style: an object field joins the built one, another field is added", async () => {
    await generateText({
      model: env.umg("gpt-4o"),
      output: Output.object({ schema: paint }),
      prompt: "Pick a paint.",
      providerOptions: {
        umg: { response_format: { json_schema: { description: "A paint" } }, service_tier: "default" }
      }
    })
    expect(sent()["response_format"]).toMatchObject({
      type: "json_schema",
      json_schema: { description: "A paint", schema: expect.any(Object) }
    })
    expect(sent()["service_tier"]).toBe("default")
    env.proxy.reset()
    await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      prompt: "Hi",
      reasoning: "low",
      providerOptions: { umg: { thinking: { budget_tokens: 3000 } } }
    })
    expect(sent()["thinking"]).toEqual({ type: "enabled", budget_tokens: 3000 })
  })
})
