import { generateText, stepCountIs, streamText, tool } from "ai"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { proxiedUmg } from "./CountingProxy.js"

// Reasoning through umg/ai-sdk: the AI SDK's `reasoning` setting becomes each family's thinking
// (a messages-style budget, native thoughts), the reasoning comes back as reasoning parts, streamed
// in their own segments, and a messages-style thinking block's signature goes back with the history.
const env = proxiedUmg()

const weather = tool({
  description: "Weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => Promise.resolve(`12 °C and windy in ${city}`)
})

describe.each([
  { name: "messages-style", model: "epsilon-sonnet-4-5-20250929" },
  { name: "native content", model: "zeta-2.5-flash" },
  { name: "responses (reasoning summary)", model: "gpt-5" }
])("reasoning with a $name model", ({ model }) => {
  it("generateText asks for thinking and gives the reasoning apart from the text", async () => {
    const r = await generateText({ model: env.umg(model), prompt: "Tell me about the sea.", reasoning: "low" })
    expect(r.reasoningText).toMatch(/\S/)
    expect(r.text).toMatch(/\S/)
    expect(r.text).not.toContain(r.reasoningText!)
  })

  it("streamText streams the reasoning in its own segment before the text", async () => {
    const s = streamText({ model: env.umg(model), prompt: "Tell me about the sea.", reasoning: "low" })
    const kinds: Array<string> = []
    for await (const part of s.fullStream) kinds.push(part.type)
    expect(kinds.indexOf("reasoning-start")).toBeGreaterThanOrEqual(0)
    expect(kinds.indexOf("reasoning-end")).toBeLessThan(kinds.indexOf("text-start"))
    expect(await s.reasoningText).toBe(
      (await generateText({ model: env.umg(model), prompt: "Tell me about the sea.", reasoning: "low" })).reasoningText
    )
  })
})

describe("a messages-style thinking block's signature", () => {
  it("comes back in providerMetadata.umg and goes back with the history of a tool loop", async () => {
    const r = await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      prompt: "Weather in Paris?",
      tools: { weather },
      stopWhen: stepCountIs(3),
      reasoning: "low"
    })
    const first = r.steps[0]!.content.find((p) => p.type === "reasoning")
    const signature = first?.providerMetadata?.["umg"]?.["signature"]
    expect(signature).toEqual(expect.any(String))
    const second = JSON.parse(env.proxy.requests[1]!.body) as {
      messages: Array<{ role: string; content: Array<{ type: string; signature?: string }> }>
    }
    expect(second.messages[1]!.content[0]).toMatchObject({ type: "thinking", signature })
    expect(r.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"])
  })
})
