import { createOpenAI } from "@ai-sdk/openai"
import { generateText } from "ai"
import { describe, expect, it } from "vitest"
import { textCall } from "../../src/ai/text/TextCall.js"
import type { ReasoningEffort } from "../../src/ai/text/TextRequest.js"
import { proxiedUmg } from "./CountingProxy.js"

// The AI SDK's `reasoning` levels fitted to what a model takes, as the official providers do: a zeta
// 2.5 model's thinking budget clamped into its range (with a warning where thinking could not be
// turned off), and a messages-style model's max_tokens raised by the thinking budget so that a small
// maxOutputTokens still leaves the answer its tokens; a GPT-5 release's effort fitted to the efforts
// it takes, and its sampling settings kept where it takes them (reasoning none on GPT-5.1 and later).
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

describe("reasoning on a GPT-5 release, as @ai-sdk/openai fits it", () => {
  /**
   * @ai-sdk/openai's body and warnings for `model`: the body is recorded, then sent as gpt-5's (the
   * emulator serves gpt-5 only), so that the call answers and gives its warnings.
   */
  const official = async (api: "chat" | "responses", model: string, reasoning: ReasoningEffort) => {
    const bodies: Array<Record<string, unknown>> = []
    const openai = createOpenAI({
      baseURL: `${env.emu.url}/v1`,
      apiKey: env.emu.apiKey,
      fetch: (url, init) => {
        const body = JSON.parse(String(init?.body)) as Record<string, unknown>
        bodies.push(body)
        return fetch(url, { ...init, body: JSON.stringify({ ...body, model: "gpt-5" }) })
      }
    })
    const r = await generateText({ model: openai[api](model), prompt: "Hi", temperature: 0.5, topP: 0.9, reasoning })
    return { body: bodies[0]!, warnings: r.warnings }
  }
  const ours = (api: "chat" | "responses", model: string, reasoning: ReasoningEffort) => {
    const call = textCall(
      api,
      {
        model,
        messages: [{ role: "user", parts: [{ type: "text", text: "Hi" }] }],
        tools: [],
        temperature: 0.5,
        topP: 0.9,
        reasoning
      },
      false
    )
    if (call._tag !== "Success") throw new Error(`the ${api} body was refused`)
    const warnings = call.success.warnings.map((w) => ({
      type: w.kind ?? "unsupported",
      feature: w.feature,
      ...(w.details === undefined ? {} : { details: w.details })
    }))
    return { body: call.success.body as unknown as Record<string, unknown>, warnings }
  }
  const effortOf = (body: Record<string, unknown>) =>
    (body["reasoning"] as { effort?: string } | undefined)?.effort ?? body["reasoning_effort"]

  it.each<["chat" | "responses", string, ReasoningEffort, string, boolean]>([
    ["responses", "gpt-5", "none", "minimal", false],
    ["chat", "gpt-5", "none", "minimal", false],
    ["responses", "gpt-5", "max", "high", false],
    ["responses", "gpt-5-mini", "xhigh", "high", false],
    ["responses", "gpt-5.1", "none", "none", true],
    ["chat", "gpt-5.1", "none", "none", true],
    ["responses", "gpt-5.1", "minimal", "low", false],
    ["responses", "gpt-5.1", "low", "low", false],
    ["responses", "gpt-5.2", "max", "xhigh", false],
    ["responses", "gpt-5-nano-2025-08-07", "none", "minimal", false],
    ["responses", "gpt-5.1-codex", "none", "none", true],
    ["responses", "gpt-5-pro", "minimal", "minimal", false]
  ])("%s %s, reasoning %s: effort %s, sampling kept: %s", async (api, model, reasoning, effort, sampling) => {
    const o = await official(api, model, reasoning)
    const u = ours(api, model, reasoning)
    expect(effortOf(u.body)).toBe(effort)
    expect(effortOf(o.body)).toBe(effort)
    expect(u.body["temperature"]).toBe(sampling ? 0.5 : undefined)
    expect(o.body["temperature"]).toBe(u.body["temperature"])
    expect(u.warnings).toEqual(o.warnings)
  })

  it("a GPT-5 ChatGPT snapshot does not reason: routed to chat, temperature kept, no warning", async () => {
    const u = ours("chat", "gpt-5-chat-latest", "low")
    expect(u.body).toMatchObject({ temperature: 0.5, top_p: 0.9 })
    expect(u.warnings).toEqual([])
    const r = await generateText({ model: env.umg("gpt-5"), prompt: "x", reasoning: "none", temperature: 0.5 })
    // End to end on the emulator's gpt-5: minimal sent, the fit and the dropped temperature said.
    expect(sent()).toMatchObject({ reasoning: { effort: "minimal" } })
    expect((r.warnings ?? []).map((w) => ("feature" in w ? w.feature : w.type))).toEqual(["reasoning", "temperature"])
  })
})
