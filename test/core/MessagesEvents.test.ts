import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import { DecodeError } from "../../src/core/errors/GatewayError.js"
import { decodeMessagesEvent, decodeMessagesEventEither } from "../../src/core/text/messages/MessagesEvents.js"
import { decodeMessage, messageText } from "../../src/core/text/messages/MessagesResponse.js"
import { messagesThinkingToolStream, record, toRecords } from "../fixtures/TextStreams.js"

const decodeAll = (text: string) => toRecords(text).map((r) => Result.getOrThrow(decodeMessagesEventEither(r)))

describe("MessagesResponse", () => {
  it("decodes a message with text, thinking, tool_use and server-tool blocks", () => {
    const body = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "epsilon-x",
      content: [
        { type: "thinking", thinking: "hm", signature: "sig" },
        { type: "redacted_thinking", data: "enc" },
        { type: "text", text: "Hi ", citations: null },
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
        { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
        { type: "text", text: "there" },
        { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } }
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 4 }
    }
    const message = Result.getOrThrow(decodeMessage(body))
    expect(message.content.map((b) => b.type)).toEqual([
      "thinking",
      "redacted_thinking",
      "text",
      "server_tool_use",
      "web_search_tool_result",
      "text",
      "tool_use"
    ])
    expect(message.content[3]).toEqual(body.content[3])
    expect(messageText(message)).toBe("Hi there")
  })

  it("tolerates the optional cache usage fields being absent or null", () => {
    const base = { id: "m", type: "message", role: "assistant", model: "x", content: [], stop_reason: "end_turn" }
    const absent = decodeMessage({ ...base, usage: { input_tokens: 1, output_tokens: 2 } })
    const nulls = decodeMessage({
      ...base,
      usage: { input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: null, cache_read_input_tokens: null }
    })
    expect(Result.isSuccess(absent) && absent.success.stop_sequence).toBe(null)
    expect(Result.isSuccess(nulls) && nulls.success.usage.cache_read_input_tokens).toBe(null)
  })

  it("fails with a DecodeError when a known block kind is malformed", () => {
    const result = decodeMessage({
      id: "m",
      type: "message",
      role: "assistant",
      model: "x",
      content: [{ type: "text" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 2 }
    })
    expect(Result.isFailure(result) && result.failure).toBeInstanceOf(DecodeError)
  })

  it("drops __proto__ keys from opaque blocks instead of setting the prototype", () => {
    const body = JSON.parse(
      '{"id":"m","type":"message","role":"assistant","model":"x","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},' +
        '"content":[{"type":"server_tool_use","__proto__":{"polluted":true},"input":{"__proto__":{"polluted":true}}}]}'
    )
    const message = Result.getOrThrow(decodeMessage(body))
    const block = message.content[0] as Record<string, unknown>
    expect(Object.getPrototypeOf(block)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(block["input"])).toBe(Object.prototype)
    expect(block["polluted"]).toBeUndefined()
  })
})

describe("MessagesEvents", () => {
  it("decodes every event of a stream with thinking, a ping and a tool call", () => {
    expect(decodeAll(messagesThinkingToolStream).map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
  })

  it("decodes an unknown event type to an unknown event instead of failing", () => {
    const event = Result.getOrThrow(decodeMessagesEventEither(record({ type: "agent_status", x: 1 })))
    expect(event).toEqual({ type: "unknown", event: "agent_status", data: { type: "agent_status", x: 1 } })
  })

  it("decodes an unknown delta kind instead of failing", () => {
    const event = Result.getOrThrow(
      decodeMessagesEventEither(
        record({ type: "content_block_delta", index: 0, delta: { type: "compaction_delta", content: "x" } })
      )
    )
    expect(event.type === "content_block_delta" && event.delta.type).toBe("compaction_delta")
  })

  it("decodes an error event", () => {
    const event = Result.getOrThrow(
      decodeMessagesEventEither(record({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }))
    )
    expect(event).toEqual({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })
  })

  it("uses the SSE event name when the payload has no type", () => {
    const event = Result.getOrThrow(decodeMessagesEventEither({ event: "message_stop", data: "{}" }))
    expect(event).toEqual({ type: "message_stop" })
  })

  it("fails with a DecodeError of family messages on non-JSON data", async () => {
    const error = await Effect.runPromise(Effect.flip(decodeMessagesEvent({ event: "ping", data: "{not json" })))
    expect(error).toBeInstanceOf(DecodeError)
    expect(error.family).toBe("messages")
  })

  it("fails with a DecodeError naming the event when a known event is malformed", () => {
    const result = decodeMessagesEventEither(
      record({ type: "content_block_delta", index: "0", delta: { type: "text_delta", text: "x" } })
    )
    expect(Result.isFailure(result) && result.failure.what).toBe("content_block_delta event")
  })

  describe("fragment deltas in upstream's exact text (read without a parse tree)", () => {
    const delta = (data: string) => decodeMessagesEventEither({ event: "content_block_delta", data })

    it("decodes text, thinking and tool-input fragments, escapes included, to what the Schema gives", () => {
      expect(
        Result.getOrThrow(delta('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}'))
      ).toStrictEqual({
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "Hi" }
      })
      expect(
        Result.getOrThrow(
          delta(
            '{"type":"content_block_delta","index":12,"delta":{"type":"thinking_delta","thinking":"a\\n\\"b\\" \\u00e9\\ud83d\\ude00"}}'
          )
        )
      ).toStrictEqual({
        type: "content_block_delta",
        index: 12,
        delta: { type: "thinking_delta", thinking: 'a\n"b" é😀' }
      })
      expect(
        Result.getOrThrow(
          delta(
            '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}'
          )
        )
      ).toStrictEqual({
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: '{"a":' }
      })
    })

    it("decodes the same event written with other spacing, key order, extra keys or number forms", () => {
      const expected = { type: "content_block_delta", index: 100, delta: { type: "text_delta", text: "x" } }
      for (const data of [
        '{ "type": "content_block_delta", "index": 100, "delta": { "type": "text_delta", "text": "x" } }',
        '{"index":100,"type":"content_block_delta","delta":{"text":"x","type":"text_delta"}}',
        '{"type":"content_block_delta","index":1e2,"delta":{"type":"text_delta","text":"x"}}',
        '{"type":"content_block_delta","index":100,"delta":{"type":"text_delta","text":"x"}}\n'
      ])
        expect(Result.getOrThrow(delta(data))).toEqual(expected)
      expect(
        Result.getOrThrow(
          delta('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}')
        )
      ).toEqual({
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "x" }
      })
    })

    it("fails as before on text JSON refuses: a raw control character, a bad escape, a leading zero, a cut record", () => {
      for (const data of [
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\nb"}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\x41"}}',
        '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}'
      ]) {
        const result = delta(data)
        expect(Result.isFailure(result) && result.failure.message).toMatch(/^messages event: data is not JSON/)
      }
    })

    it("keeps the depth bound: a bound of one level refuses a fragment delta", () => {
      const result = decodeMessagesEventEither(
        {
          event: "content_block_delta",
          data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}'
        },
        { maxDepth: 1 }
      )
      expect(Result.isFailure(result) && result.failure.message).toMatch(/nesting deeper than 1 levels/)
    })
  })
})
