import { describe, expect, it } from "vitest"
import type { TokenEvent } from "../../src/core/text/TokenEvent.js"
import { makeTextStreamReader, type TextStreamPart } from "../../src/ai/text/TextStream.js"
import { textAnswer } from "../../src/ai/text/TextAnswer.js"
import { accumulateNative } from "../../src/core/text/native/NativeAccumulator.js"
import type { NativeChunk } from "../../src/core/text/native/NativeResponse.js"
import { Result } from "effect"
import type { TextFamily } from "../../src/ai/text/TextRequest.js"

// The stream reader both providers share, event by event: the events that carry only text take a
// shorter way than the others, and both ways must give the parts in the same order, so each family's
// sequence mixes text-only events with ones that carry something beside their text (a finish reason,
// tool calls, another choice, thought, a call) and with empty text.
const partsOf = (family: TextFamily, events: ReadonlyArray<unknown>): Array<Array<TextStreamPart>> => {
  const reader = makeTextStreamReader(family, undefined, (i) => `call-${i}`)
  return events.map((event) => {
    const out: Array<TextStreamPart> = []
    expect(reader.read(event as TokenEvent, out)).toBeUndefined()
    return out
  })
}

const chunk = (choices: ReadonlyArray<object>) => ({
  type: "chunk",
  chunk: { id: "c1", created: 1, model: "m", choices }
})

describe("the text stream reader", () => {
  it("messages-style: thinking, text (empty deltas give nothing), then a tool call", () => {
    const parts = partsOf("messages", [
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hi" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: " there" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "" } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "tu1", name: "f", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"a":1}' } },
      { type: "content_block_stop", index: 2 }
    ])
    expect(parts).toEqual([
      [],
      [
        { type: "reasoning-start", id: "reasoning-0" },
        { type: "reasoning-delta", id: "reasoning-0", delta: "hmm" }
      ],
      [],
      [{ type: "reasoning-end", id: "reasoning-0", signature: "sig" }],
      [],
      [],
      [
        { type: "text-start", id: "text-1" },
        { type: "text-delta", id: "text-1", delta: "Hi" }
      ],
      [{ type: "text-delta", id: "text-1", delta: " there" }],
      [],
      [],
      [
        { type: "text-end", id: "text-1" },
        { type: "tool-input-start", id: "tu1", name: "f" }
      ],
      [{ type: "tool-input-delta", id: "tu1", delta: '{"a":1}' }],
      [
        { type: "tool-input-end", id: "tu1" },
        { type: "tool-call", id: "tu1", name: "f", arguments: '{"a":1}' }
      ]
    ])
  })

  it("chat: the first choice's text, beside a finish reason, another choice or a tool call too", () => {
    const parts = partsOf("chat", [
      chunk([{ index: 0, delta: { role: "assistant", content: "" } }]),
      chunk([{ index: 0, delta: { content: null } }]),
      chunk([{ index: 0, delta: { content: "Hi" }, finish_reason: null }]),
      chunk([{ index: 0, delta: { content: "" } }]),
      chunk([
        { index: 1, delta: { content: "other" } },
        { index: 0, delta: { content: " you" } }
      ]),
      chunk([{ index: 1, delta: { content: "only the second" } }]),
      chunk([
        {
          index: 0,
          delta: { content: ".", tool_calls: [{ index: 0, id: "t1", function: { name: "f", arguments: "{}" } }] }
        }
      ]),
      chunk([{ index: 0, delta: { content: "" }, finish_reason: "tool_calls" }]),
      chunk([])
    ])
    expect(parts).toEqual([
      [],
      [],
      [
        { type: "text-start", id: "text-0" },
        { type: "text-delta", id: "text-0", delta: "Hi" }
      ],
      [],
      [{ type: "text-delta", id: "text-0", delta: " you" }],
      [],
      [
        { type: "text-delta", id: "text-0", delta: "." },
        { type: "text-end", id: "text-0" },
        { type: "tool-input-start", id: "t1", name: "f" },
        { type: "tool-input-delta", id: "t1", delta: "{}" }
      ],
      [
        { type: "tool-input-end", id: "t1" },
        { type: "tool-call", id: "t1", name: "f", arguments: "{}" }
      ],
      []
    ])
  })

  it("chat: text in the chunk that ends the choice is given before the end", () => {
    const parts = partsOf("chat", [chunk([{ index: 0, delta: { content: "Bye" }, finish_reason: "stop" }])])
    expect(parts).toEqual([
      [
        { type: "text-start", id: "text-0" },
        { type: "text-delta", id: "text-0", delta: "Bye" }
      ]
    ])
  })

  it("responses: text deltas, an empty one giving nothing", () => {
    const parts = partsOf("responses", [
      { type: "response.output_text.delta", item_id: "m1", output_index: 0, content_index: 0, delta: "" },
      { type: "response.output_text.delta", item_id: "m1", output_index: 0, content_index: 0, delta: "Hi" },
      { type: "response.reasoning_summary_text.delta", item_id: "r1", output_index: 1, summary_index: 0, delta: "so" }
    ])
    expect(parts).toEqual([
      [],
      [
        { type: "text-start", id: "text-0" },
        { type: "text-delta", id: "text-0", delta: "Hi" }
      ],
      [
        { type: "text-end", id: "text-0" },
        { type: "reasoning-start", id: "reasoning-1" },
        { type: "reasoning-delta", id: "reasoning-1", delta: "so" }
      ]
    ])
  })

  it("native: thought, a text part, several parts, then a call", () => {
    const native = (parts: ReadonlyArray<object>) => ({ candidates: [{ content: { role: "model", parts } }] })
    const parts = partsOf("native", [
      native([{ text: "think", thought: true }]),
      native([{ text: "Hi", thought: false }]),
      native([{ text: "" }]),
      native([{ text: " a" }, { text: " b" }]),
      native([{ text: " c" }, { text: "deep", thought: true }]),
      native([{ functionCall: { name: "f", args: { x: 1 } }, thoughtSignature: "ts" }])
    ])
    expect(parts).toEqual([
      [
        { type: "reasoning-start", id: "reasoning-0" },
        { type: "reasoning-delta", id: "reasoning-0", delta: "think" }
      ],
      [
        { type: "reasoning-end", id: "reasoning-0", signature: undefined },
        { type: "text-start", id: "text-1" },
        { type: "text-delta", id: "text-1", delta: "Hi" }
      ],
      [],
      [
        { type: "text-delta", id: "text-1", delta: " a" },
        { type: "text-delta", id: "text-1", delta: " b" }
      ],
      [
        { type: "text-end", id: "text-1" },
        { type: "reasoning-start", id: "reasoning-2" },
        { type: "reasoning-delta", id: "reasoning-2", delta: "deep" },
        { type: "reasoning-end", id: "reasoning-2", signature: undefined },
        { type: "text-start", id: "text-3" },
        { type: "text-delta", id: "text-3", delta: " c" }
      ],
      [
        { type: "text-end", id: "text-3" },
        { type: "tool-input-start", id: "call-0", name: "f" },
        { type: "tool-input-delta", id: "call-0", delta: '{"x":1}' },
        { type: "tool-input-end", id: "call-0" },
        { type: "tool-call", id: "call-0", name: "f", arguments: '{"x":1}', thoughtSignature: "ts" }
      ]
    ])
  })

  it("native: each signature ends the segment of the part it came on, as the core's accumulator joins them", () => {
    const native = (parts: ReadonlyArray<object>) => ({ candidates: [{ index: 0, content: { role: "model", parts } }] })
    const events = [
      native([{ text: "a", thought: true }]),
      native([{ text: "", thought: true, thoughtSignature: "r1" }]),
      native([{ text: "", thoughtSignature: "t1" }]),
      native([{ text: "b" }]),
      native([{ text: "c", thoughtSignature: "t2" }]),
      native([{ text: "d" }]),
      native([{ text: "e", thought: true, thoughtSignature: "r2" }]),
      native([{ text: "f", thoughtSignature: "t3" }])
    ]
    const reader = makeTextStreamReader("native", undefined, (i) => `call-${i}`)
    const out: Array<TextStreamPart> = []
    for (const event of events) expect(reader.read(event as TokenEvent, out)).toBeUndefined()
    reader.end({ candidates: [{ index: 0, finishReason: "STOP" }] }, out)
    expect(out.slice(0, -1)).toEqual([
      { type: "reasoning-start", id: "reasoning-0" },
      { type: "reasoning-delta", id: "reasoning-0", delta: "a" },
      // An empty signed text part after reasoning is a text part of its own: the text after it joins it.
      { type: "reasoning-end", id: "reasoning-0", thoughtSignature: "r1" },
      { type: "text-start", id: "text-1" },
      { type: "text-delta", id: "text-1", delta: "b" },
      // A second signature is a part of its own (taken from a chunk of one text part, too).
      { type: "text-end", id: "text-1", thoughtSignature: "t1" },
      { type: "text-start", id: "text-2" },
      { type: "text-delta", id: "text-2", delta: "c" },
      { type: "text-delta", id: "text-2", delta: "d" },
      { type: "text-end", id: "text-2", thoughtSignature: "t2" },
      { type: "reasoning-start", id: "reasoning-3" },
      { type: "reasoning-delta", id: "reasoning-3", delta: "e" },
      { type: "reasoning-end", id: "reasoning-3", thoughtSignature: "r2" },
      { type: "text-start", id: "text-4" },
      { type: "text-delta", id: "text-4", delta: "f" },
      { type: "text-end", id: "text-4", thoughtSignature: "t3" }
    ])
    // The segments are the parts of the accumulated answer, as a whole answer reads them.
    const final = Result.getOrThrow(
      accumulateNative([...events, { candidates: [{ index: 0, finishReason: "STOP" }] }] as ReadonlyArray<NativeChunk>)
    )
    const segments: Array<{ type: string; text: string; thoughtSignature?: string }> = []
    for (const part of out)
      if (part.type === "text-start" || part.type === "reasoning-start")
        segments.push({ type: part.type === "text-start" ? "text" : "reasoning", text: "" })
      else if (part.type === "text-delta" || part.type === "reasoning-delta") segments.at(-1)!.text += part.delta
      else if ((part.type === "text-end" || part.type === "reasoning-end") && part.thoughtSignature !== undefined)
        segments.at(-1)!.thoughtSignature = part.thoughtSignature
    expect(textAnswer("native", final, undefined, (i) => `call-${i}`).content).toEqual(segments)
  })
})

describe("the text stream reader's close, for a stream that failed", () => {
  const readAll = (family: TextFamily, events: ReadonlyArray<unknown>) => {
    const reader = makeTextStreamReader(family, undefined, (i) => `call-${i}`)
    const out: Array<TextStreamPart> = []
    for (const event of events) reader.read(event as TokenEvent, out)
    return reader
  }

  it("ends the reasoning under way with its signature so far, and nothing more", () => {
    const reader = readAll("messages", [
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "si" } }
    ])
    const out: Array<TextStreamPart> = []
    reader.close(out)
    expect(out).toEqual([{ type: "reasoning-end", id: "reasoning-0", signature: "si" }])
    const again: Array<TextStreamPart> = []
    reader.close(again)
    expect(again).toEqual([])
  })

  it("ends each tool input begun and not ended, without a call (its arguments are not whole)", () => {
    const reader = readAll("chat", [
      chunk([{ index: 0, delta: { content: "Hi" } }]),
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "f", arguments: '{"a"' } }] }
        }
      ])
    ])
    const out: Array<TextStreamPart> = []
    reader.close(out)
    expect(out).toEqual([{ type: "tool-input-end", id: "c1" }])
  })

  it("ends a call whose arguments failed as a tool input still under way", () => {
    const reader = makeTextStreamReader("messages", undefined, (i) => `call-${i}`)
    const out: Array<TextStreamPart> = []
    const events = [
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "tu1", name: "f", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "[1]" } }
    ]
    for (const event of events) expect(reader.read(event as TokenEvent, out)).toBeUndefined()
    expect(reader.read({ type: "content_block_stop", index: 1 } as TokenEvent, out)).toBeDefined()
    const closed: Array<TextStreamPart> = []
    reader.close(closed)
    expect(closed).toEqual([{ type: "tool-input-end", id: "tu1" }])
  })
})
