import { describe, expect, it } from "vitest"
import { type TokenEvent, tokenOnlyText, tokenText, tokenThinking } from "../../src/core/text/TokenEvent.js"

// `tokenOnlyText` is a reader's short way through the events that carry only text: wherever it gives
// a text, `tokenText` gives the same (empty text: nothing) and `tokenThinking` nothing; it gives none
// for an event with anything beside its text.
const chunk = (choices: ReadonlyArray<object>) => ({
  type: "chunk",
  chunk: { id: "c", created: 1, model: "m", choices }
})
const native = (parts: ReadonlyArray<object>) => ({ candidates: [{ content: { role: "model", parts } }] })

const textOnly: ReadonlyArray<readonly [unknown, string]> = [
  [{ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }, "Hi"],
  [{ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "" } }, ""],
  [chunk([{ index: 0, delta: { content: "yo" }, finish_reason: null }]), "yo"],
  [chunk([{ index: 0, delta: { role: "assistant" }, finish_reason: null }]), ""],
  [{ type: "response.output_text.delta", item_id: "i", output_index: 0, content_index: 0, delta: "ok" }, "ok"],
  [native([{ text: "hey" }]), "hey"]
]

const notOnlyText: ReadonlyArray<unknown> = [
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{" } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "message_stop" },
  chunk([{ index: 0, delta: { content: "a" }, finish_reason: "stop" }]),
  chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "{" } }] }, finish_reason: null }]),
  chunk([
    { index: 0, delta: { content: "a" }, finish_reason: null },
    { index: 1, delta: { content: "b" }, finish_reason: null }
  ]),
  chunk([{ index: 1, delta: { content: "b" }, finish_reason: null }]),
  chunk([]),
  { type: "response.reasoning_summary_text.delta", item_id: "i", output_index: 0, summary_index: 0, delta: "r" },
  native([{ text: "thought", thought: true }]),
  native([{ text: "a" }, { text: "b" }]),
  native([{ functionCall: { name: "f", args: {} } }]),
  { usageMetadata: { promptTokenCount: 1 } }
]

describe("tokenOnlyText", () => {
  it("gives the text of an event that carries only text, as tokenText reads it, and no reasoning", () => {
    for (const [event, text] of textOnly) {
      const e = event as TokenEvent
      expect(tokenOnlyText(e)).toBe(text)
      expect(tokenText(e)).toEqual(text === "" ? [] : [text])
      expect(tokenThinking(e)).toEqual([])
    }
  })

  it("gives nothing for an event with anything beside its text", () => {
    for (const event of notOnlyText) expect(tokenOnlyText(event as TokenEvent)).toBeUndefined()
  })
})

describe("native chunks of several candidates", () => {
  const candidates = (...list: ReadonlyArray<object>) => ({ candidates: list }) as unknown as TokenEvent
  const text = (index: number | undefined, t: string, thought = false) => ({
    ...(index === undefined ? {} : { index }),
    content: { role: "model", parts: [{ text: t, ...(thought ? { thought } : {}) }] }
  })

  it("read the first candidate by its index: a chunk of the others only (the first done) adds nothing to it", () => {
    // candidateCount 2, the first candidate cut short by a stop sequence: later chunks carry the second only.
    const onlySecond = candidates(text(1, " more of the second"))
    expect(tokenText(onlySecond)).toEqual([])
    expect(tokenOnlyText(onlySecond)).toBeUndefined()
    expect(tokenThinking(candidates(text(1, "second's thought", true)))).toEqual([])
    // Out of order, the first is found by its index; without indexes, by position.
    expect(tokenText(candidates(text(1, "B"), text(0, "A")))).toEqual(["A"])
    expect(tokenOnlyText(candidates(text(1, "B"), text(0, "A")))).toBe("A")
    expect(tokenText(candidates(text(undefined, "first"), text(undefined, "second")))).toEqual(["first"])
  })
})
