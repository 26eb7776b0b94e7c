import { readUIMessageStream, stepCountIs, streamText, tool } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as z from "zod"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { textFamilies } from "./Families.js"

// The swap: the same `streamText` call, once with the family's official AI SDK provider and
// once with `umg/ai-sdk`, gives the same stream — the same text pieces in the same order, the same
// tool calls, finish reasons and token counts — for every family the gateway routes to.
let emu: Emulator
let umg: UmgProvider
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  umg = createUmg({ baseURL: emu.url, apiKey: emu.apiKey })
})
afterAll(async () => {
  await umg.dispose()
  await emu.close()
})

const weather = tool({
  description: "Weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => Promise.resolve(`12 °C and windy in ${city}`)
})

/** What a `streamText` call gives, as a user of the AI SDK sees it. */
const run = async (call: Parameters<typeof streamText>[0]) => {
  const s = streamText(call)
  const pieces: Array<string> = []
  for await (const piece of s.textStream) pieces.push(piece)
  const steps = await s.steps
  return {
    pieces,
    steps: steps.map((step) => ({
      finishReason: step.finishReason,
      calls: step.toolCalls.map((c) => ({ toolName: c.toolName, input: c.input })),
      results: step.toolResults.map((r) => r.output),
      usage: [step.usage.inputTokens, step.usage.outputTokens]
    }))
  }
}

describe.each(textFamilies)("swapping the $name provider for umg/ai-sdk", (family) => {
  it("streamText gives the same text pieces, finish reason and usage", async () => {
    const call = { prompt: "Tell me about the sea.", maxOutputTokens: 512 }
    const official = await run({ ...call, model: family.official(emu.url, emu.apiKey) })
    const swapped = await run({ ...call, model: umg(family.model) })
    expect(official.pieces.length).toBeGreaterThan(1)
    expect(swapped).toEqual(official)
  })

  it("streamText with tools gives the same steps, calls and results, and a final text built on them", async () => {
    const call = { prompt: "Weather in Paris?", tools: { weather }, stopWhen: stepCountIs(3), maxOutputTokens: 512 }
    const official = await run({ ...call, model: family.official(emu.url, emu.apiKey) })
    const swapped = await run({ ...call, model: umg(family.model) })
    // The emulator draws its words from a hash of the whole request — the call ids it makes afresh,
    // and each provider's own extras (`eager_input_streaming`, `strict`, …) — so the words differ;
    // the steps, the calls and their results, and the answer built on them must not.
    const shape = (r: typeof official) =>
      r.steps.map((s) => ({
        finishReason: s.finishReason,
        calls: s.calls.map((c) => c.toolName),
        results: s.results.map((out, i) => out === `12 °C and windy in ${(s.calls[i]!.input as { city: string }).city}`)
      }))
    expect(shape(official)).toEqual([
      { finishReason: "tool-calls", calls: ["weather"], results: [true] },
      { finishReason: "stop", calls: [], results: [] }
    ])
    expect(shape(swapped)).toEqual(shape(official))
    for (const r of [official, swapped])
      expect(r.pieces.join("")).toContain(
        `12 °C and windy in ${(r.steps[0]!.calls[0]!.input as { city: string }).city}`
      )
  })
})

describe.each(textFamilies)("the UI message stream (useChat's protocol) with the $name provider swapped", (family) => {
  it("carries the same chunks, and useChat's reader builds the same message", async () => {
    const ui = async (model: Parameters<typeof streamText>[0]["model"]) => {
      const result = streamText({ model, prompt: "Tell me about the sea.", maxOutputTokens: 512 })
      const kinds: Array<string> = []
      const messages = readUIMessageStream({
        stream: result.toUIMessageStream().pipeThrough(
          new TransformStream({
            transform: (chunk, controller) => {
              // `custom` chunks are a provider's own (the messages-style provider sends one of its own metadata).
              if (chunk.type !== "custom") kinds.push(chunk.type)
              controller.enqueue(chunk)
            }
          })
        )
      })
      let last: unknown
      for await (const message of messages) last = message
      const parts = (last as { parts: Array<{ type: string; text?: string }> }).parts
      return { kinds, text: parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") }
    }
    const official = await ui(family.official(emu.url, emu.apiKey))
    const swapped = await ui(umg(family.model))
    expect(official.kinds).toContain("text-delta")
    expect(swapped).toEqual(official)
  })
})
