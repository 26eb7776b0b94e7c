import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider"
import { readUIMessageStream, streamText, type UIMessage } from "ai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { textFamilies } from "./Families.js"

// A stream that fails mid-way ends as the official providers end one: the error part, the ends of
// what was under way (so a UI message's text is no longer streaming), then `finish` with the reason
// `error`. Straight to the emulator: the counting proxy keeps its side of a cut connection open.
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
beforeEach(() => emu.clearFaults())

const partsOf = async (model: LanguageModelV4): Promise<Array<LanguageModelV4StreamPart>> => {
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "Tell me about the sea." }] }]
  })
  const parts: Array<LanguageModelV4StreamPart> = []
  const reader = stream.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value)
  return parts
}

/** The part types with runs of deltas written once. */
const kinds = (parts: ReadonlyArray<LanguageModelV4StreamPart>) =>
  parts.map((p) => p.type).filter((t, i, all) => !(t.endsWith("-delta") && all[i - 1] === t))

describe.each(textFamilies)("a $name stream that fails mid-way", (family) => {
  it.each(["sse-error", "sse-cut"] as const)(
    "(%s) ends with the error, text-end, then finish with the reason error",
    async (kind) => {
      emu.inject(family.streamRoute, { kind, afterEvents: family.someTextAfter })
      const parts = await partsOf(umg.languageModel(family.model))
      expect(kinds(parts).slice(-5)).toEqual(["text-start", "text-delta", "error", "text-end", "finish"])
      const start = parts.find((p) => p.type === "text-start")
      expect(parts.find((p) => p.type === "text-end")).toEqual({
        type: "text-end",
        id: start?.type === "text-start" && start.id
      })
      expect(parts[parts.length - 1]).toMatchObject({
        type: "finish",
        finishReason: { unified: "error", raw: undefined },
        usage: { inputTokens: { total: undefined }, outputTokens: { total: undefined } },
        providerMetadata: { umg: { family: expect.any(String) } }
      })
    }
  )

  it("leaves no part of a UI message streaming", async () => {
    emu.inject(family.streamRoute, { kind: "sse-error", afterEvents: family.someTextAfter })
    const s = streamText({ model: umg(family.model), prompt: "Tell me about the sea.", onError: () => undefined })
    let last: UIMessage | undefined
    for await (const message of readUIMessageStream({
      stream: s.toUIMessageStream({ onError: () => "failed" }),
      onError: () => undefined
    }))
      last = message
    const text = last?.parts.find((p) => p.type === "text")
    expect(text).toMatchObject({ type: "text", state: "done" })
    expect(await s.finishReason).toBe("error")
  })
})
