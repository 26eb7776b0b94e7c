import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { generateText, streamText } from "ai"
import { describe, expect, it } from "vitest"
import { textCall } from "../../src/ai/text/TextCall.js"
import type { TextRequest } from "../../src/ai/text/TextRequest.js"
import { proxiedUmg } from "./CountingProxy.js"

// Sampling settings a model does not take in its mode are dropped with an `unsupported` warning each,
// as the official providers do: temperature and topP on a reasoning model (GPT-5, o-series; on chat
// the penalties too), temperature, topK and topP on a messages-style model thinking. The official
// providers run against the same emulator, through the same proxy, to compare warnings and bodies.
const env = proxiedUmg()

const sent = (i = -1): Record<string, unknown> => JSON.parse(env.proxy.requests.at(i)!.body) as Record<string, unknown>
const openai = () => createOpenAI({ baseURL: `${env.proxy.url}/v1`, apiKey: env.emu.apiKey })
const anthropic = () => createAnthropic({ baseURL: `${env.proxy.url}/v1`, authToken: env.emu.apiKey })

const dropped = (names: ReadonlyArray<string>, when: string) =>
  names.map((name) => ({ type: "unsupported", feature: name, details: `${name} is not supported ${when}` }))

describe("umg/ai-sdk sampling settings on a reasoning model", () => {
  it("gpt-5 is sent no temperature or top_p, with the warnings @ai-sdk/openai gives", async () => {
    const settings = { prompt: "Hi", temperature: 0.5, topP: 0.9 }
    const r = await generateText({ model: env.umg("gpt-5"), ...settings })
    expect(r.text).toMatch(/\S/)
    expect(r.warnings).toEqual(dropped(["temperature", "topP"], "for reasoning models"))
    expect(sent()).not.toHaveProperty("temperature")
    expect(sent()).not.toHaveProperty("top_p")
    const o = await generateText({ model: openai().responses("gpt-5"), ...settings })
    expect(o.warnings).toEqual(r.warnings)
    expect(sent()).not.toHaveProperty("temperature")
  })

  it("o3 with presencePenalty too: the same warnings as @ai-sdk/openai, in its order", async () => {
    const settings = { prompt: "Hi", temperature: 0, topP: 1, presencePenalty: 0.2 }
    const r = await generateText({ model: env.umg("o3"), ...settings })
    const o = await generateText({ model: openai().responses("o3"), ...settings })
    expect(r.warnings).toEqual([
      { type: "unsupported", feature: "presencePenalty" },
      ...dropped(["temperature", "topP"], "for reasoning models")
    ])
    expect(o.warnings).toEqual(r.warnings)
  })

  it("streamText gives the warnings on the stream and sends neither setting", async () => {
    const r = streamText({ model: env.umg("gpt-5"), prompt: "Hi", temperature: 0.5 })
    expect(await r.text).toMatch(/\S/)
    expect(await r.warnings).toEqual(dropped(["temperature"], "for reasoning models"))
    expect(sent()).not.toHaveProperty("temperature")
    expect(sent()).toMatchObject({ stream: true })
  })

  it("a model that does not reason (gpt-4o) keeps temperature and topP, without a warning", async () => {
    const r = await generateText({ model: env.umg("gpt-4o"), prompt: "Hi", temperature: 0.5, topP: 0.9 })
    expect(r.warnings).toEqual([])
    expect(sent()).toMatchObject({ temperature: 0.5, top_p: 0.9 })
  })

  it("a reasoning model's chat body drops temperature, top_p and the penalties as @ai-sdk/openai's chat does", async () => {
    const request: TextRequest = {
      model: "gpt-5",
      messages: [{ role: "user", parts: [{ type: "text", text: "Hi" }] }],
      tools: [],
      temperature: 0.5,
      topP: 0.9,
      frequencyPenalty: 0.1,
      presencePenalty: 0.2
    }
    const call = textCall("chat", request, false)
    if (call._tag !== "Success") throw new Error("the chat body was refused")
    const body = call.success.body
    for (const field of ["temperature", "top_p", "frequency_penalty", "presence_penalty"])
      expect(body).not.toHaveProperty(field)
    const o = await generateText({
      model: openai().chat("gpt-5"),
      prompt: "Hi",
      temperature: 0.5,
      topP: 0.9,
      frequencyPenalty: 0.1,
      presencePenalty: 0.2
    })
    const features = call.success.warnings.map((w) => ({ type: "unsupported", feature: w.feature, details: w.details }))
    expect(features).toEqual(o.warnings)
  })
})

describe("umg/ai-sdk sampling settings on a messages-style model thinking", () => {
  const model = "epsilon-sonnet-4-5-20250929"
  const settings = { prompt: "Hi", temperature: 0.5, topP: 0.9, topK: 5 }

  it("reasoning high: no temperature, top_p or top_k, with the warnings @ai-sdk/anthropic gives", async () => {
    const r = await generateText({ model: env.umg(model), ...settings, reasoning: "high" })
    expect(r.text).toMatch(/\S/)
    expect(r.warnings).toEqual(dropped(["temperature", "topK", "topP"], "when thinking is enabled"))
    expect(sent()).toMatchObject({ thinking: { type: "enabled" } })
    for (const field of ["temperature", "top_p", "top_k"]) expect(sent()).not.toHaveProperty(field)
    const o = await generateText({ model: anthropic()(model), ...settings, reasoning: "high" })
    // The official provider also warns that it does not know the model's output limit.
    expect((o.warnings ?? []).filter((w) => w.type === "unsupported")).toEqual(r.warnings)
    for (const field of ["temperature", "top_p", "top_k"]) expect(sent()).not.toHaveProperty(field)
  })

  it("thinking asked through the body (providerOptions.umg.thinking) drops them too", async () => {
    const r = await generateText({
      model: env.umg(model),
      ...settings,
      maxOutputTokens: 4096,
      providerOptions: { umg: { thinking: { type: "enabled", budget_tokens: 2048 } } }
    })
    expect(r.warnings).toEqual(dropped(["temperature", "topK", "topP"], "when thinking is enabled"))
    for (const field of ["temperature", "top_p", "top_k"]) expect(sent()).not.toHaveProperty(field)
  })

  it("without thinking (or with the body turning it off) they are sent, without a warning", async () => {
    const r = await generateText({ model: env.umg(model), ...settings })
    expect(r.warnings).toEqual([])
    expect(sent()).toMatchObject({ temperature: 0.5, top_p: 0.9, top_k: 5 })
    const off = await generateText({
      model: env.umg(model),
      ...settings,
      providerOptions: { umg: { thinking: { type: "disabled" } } }
    })
    expect(off.warnings).toEqual([])
    expect(sent()).toMatchObject({ temperature: 0.5, top_p: 0.9, top_k: 5 })
  })
})
