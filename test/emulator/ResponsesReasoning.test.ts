/**
 * A reasoning model's summary on responses, end to end: the emulator answers `reasoning.summary` on
 * GPT-5 and the o-series with a `reasoning` item before the answer (streamed as upstream streams it),
 * and umg reads it on every face: the Effect stream's thinking (`tokenThinking`) and its final
 * answer, umg/rx `thinkingDeltas()`, and umg/ai-sdk's reasoning parts, the same as @ai-sdk/openai's.
 */
import { createOpenAI } from "@ai-sdk/openai"
import { streamText } from "ai"
import { Effect, Stream } from "effect"
import { lastValueFrom, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { tokenThinking } from "../../src/core/text/TokenEvent.js"
import type { ResponsesResponse } from "../../src/core/text/responses/ResponsesResponse.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, type RxGateway, thinkingDeltas } from "../../src/streams/index.js"

let emu: Emulator
let rx: RxGateway
let provider: UmgProvider
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  rx = createGateway({ baseUrl: emu.url, apiKey: emu.apiKey })
  provider = createUmg({ baseURL: emu.url, apiKey: emu.apiKey })
})
afterAll(async () => {
  await rx.dispose()
  await provider.dispose()
  await emu.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<A> =>
  Effect.runPromise(Effect.provide(effect, Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey })))

const body = (model: string, reasoning: Record<string, unknown> | undefined) => ({
  model,
  input: "Tell me about the sea.",
  ...(reasoning === undefined ? {} : { reasoning })
})

/** `usage.output_tokens_details.reasoning_tokens` (the schema keeps the details as JSON). */
const reasoningTokens = (response: ResponsesResponse): unknown =>
  (response.usage?.output_tokens_details as { reasoning_tokens?: number } | null | undefined)?.reasoning_tokens

const summaryOf = (response: ResponsesResponse): string =>
  response.output
    .filter((item) => item.type === "reasoning")
    .map((item) => (item as { summary: ReadonlyArray<{ text: string }> }).summary.map((s) => s.text).join(""))
    .join("")

describe("responses reasoning summaries", () => {
  it("a reasoning model asked for a summary answers with a reasoning item first, its tokens counted", async () => {
    const response = await run(
      Effect.flatMap(Gateway, (g) => g.responses.create(body("o3", { effort: "low", summary: "auto" })))
    )
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"])
    expect(summaryOf(response)).toMatch(/\S/)
    const usage = response.usage!
    expect(reasoningTokens(response)).toBeGreaterThan(0)
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens)
  })

  it.each([
    ["no summary asked", "gpt-5", { effort: "low" }],
    ["effort none", "gpt-5", { effort: "none", summary: "auto" }],
    ["a model that does not reason", "gpt-4o", { summary: "auto" }],
    ["no reasoning field", "gpt-5", undefined]
  ])("%s: no reasoning item", async (_, model, reasoning) => {
    const response = await run(Effect.flatMap(Gateway, (g) => g.responses.create(body(model, reasoning))))
    expect(response.output.map((item) => item.type)).toEqual(["message"])
    expect(reasoningTokens(response)).toBe(0)
  })

  it("the Effect stream's thinking is the summary of its final answer, and the text follows it", async () => {
    const thinking: Array<string> = []
    const seen: Array<string> = []
    const final = await run(
      Effect.flatMap(Gateway, (g) =>
        runToFinal(g.responses.stream(body("gpt-5", { effort: "low", summary: "detailed" })), (event) =>
          Effect.sync(() => {
            thinking.push(...tokenThinking(event))
            seen.push(event.type)
          })
        )
      )
    )
    expect(thinking.length).toBeGreaterThan(1)
    expect(thinking.join("")).toBe(summaryOf(final))
    expect(seen.indexOf("response.reasoning_summary_text.done")).toBeLessThan(
      seen.indexOf("response.output_text.delta")
    )
    expect(final.output.map((item) => item.type)).toEqual(["reasoning", "message"])
  })

  it("a tool call comes after the reasoning item, at the next output index", async () => {
    const events = await run(
      Effect.flatMap(Gateway, (g) =>
        Stream.runCollect(
          g.responses.stream({
            ...body("o4-mini", { effort: "low", summary: "auto" }),
            input: "What is the weather in Paris?",
            tools: [
              {
                type: "function",
                name: "weather",
                parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
              }
            ],
            tool_choice: "required"
          })
        )
      )
    )
    const added = events.filter((e) => e.type === "response.output_item.added")
    expect(
      added.map((e) => [(e as { output_index: number }).output_index, (e as { item: { type: string } }).item.type])
    ).toEqual([
      [0, "reasoning"],
      [1, "function_call"]
    ])
  })

  it("umg/rx thinkingDeltas() gives the same summary", async () => {
    const deltas = await lastValueFrom(
      rx.responses.stream$(body("gpt-5", { effort: "low", summary: "auto" })).pipe(thinkingDeltas(), toArray())
    )
    const answer = await lastValueFrom(rx.responses.create$(body("gpt-5", { effort: "low", summary: "auto" })))
    expect(deltas.join("")).toBe(summaryOf(answer))
  })

  it("umg/ai-sdk streams the reasoning as @ai-sdk/openai does: the same text, before the answer, the same usage", async () => {
    const openai = createOpenAI({ baseURL: `${emu.url}/v1`, apiKey: emu.apiKey })
    const read = async (model: Parameters<typeof streamText>[0]["model"], official: boolean) => {
      const s = streamText({
        model,
        prompt: "Tell me about the sea.",
        reasoning: "low",
        ...(official ? { providerOptions: { openai: { reasoningSummary: "auto" } } } : {})
      })
      const kinds: Array<string> = []
      for await (const part of s.fullStream) if (!part.type.endsWith("-delta")) kinds.push(part.type)
      return { kinds, reasoning: await s.reasoningText, text: await s.text, usage: (await s.usage).outputTokenDetails }
    }
    const ours = await read(provider("gpt-5"), false)
    const theirs = await read(openai.responses("gpt-5"), true)
    expect(ours.reasoning).toMatch(/\S/)
    expect(ours).toEqual(theirs)
    expect(ours.kinds.indexOf("reasoning-end")).toBeLessThan(ours.kinds.indexOf("text-start"))
  })
})
