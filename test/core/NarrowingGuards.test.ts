/**
 * The guards that narrow the unions ending in a catch-all member (`isMessagesBlock`,
 * `isMessagesDelta`, `isResponsesItem`, `isResponsesPart`, `isRealtimeEvent`): each holds for a
 * decoded value of the kind it names and for no other, and never for a kind the library does not
 * model. test/types/fixtures/narrowing.ts checks what they narrow to.
 */
import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  isRealtimeEvent,
  type RealtimeKnownEvent,
  decodeRealtimeServerEvent
} from "../../src/core/realtime/Realtime.js"
import {
  decodeMessagesEventEither,
  isMessagesDelta,
  type MessagesKnownDelta
} from "../../src/core/text/messages/MessagesEvents.js"
import {
  decodeMessage,
  isMessagesBlock,
  type MessagesKnownBlock
} from "../../src/core/text/messages/MessagesResponse.js"
import {
  decodeResponsesEventEither,
  decodeResponsesResponse,
  isResponsesItem,
  isResponsesPart,
  type ResponsesKnownItem,
  type ResponsesKnownPart
} from "../../src/core/text/responses/ResponsesResponse.js"
import { record } from "../fixtures/TextStreams.js"

/** Each kind's guard holds for its own sample only: every pair of (sample, kind) is checked. */
const expectOnlyOwnKind = <K extends string, A>(
  samples: Readonly<Record<K, A>>,
  guard: (value: A, kind: K) => boolean
) => {
  const kinds = Object.keys(samples) as Array<K>
  for (const of of kinds)
    for (const kind of kinds) expect([of, kind, guard(samples[of], kind)]).toEqual([of, kind, of === kind])
}

describe("isMessagesDelta", () => {
  // Every known delta kind (the `satisfies` fails to compile when a kind is missing), as decoded from a stream.
  const wire = {
    text_delta: { type: "text_delta", text: "Hi" },
    input_json_delta: { type: "input_json_delta", partial_json: '{"a":' },
    thinking_delta: { type: "thinking_delta", thinking: "hm" },
    signature_delta: { type: "signature_delta", signature: "sig" },
    citations_delta: { type: "citations_delta", citation: { cited_text: "x" } }
  } satisfies Record<MessagesKnownDelta["type"], unknown>
  const deltaOf = (delta: unknown) => {
    const event = Result.getOrThrow(decodeMessagesEventEither(record({ type: "content_block_delta", index: 0, delta })))
    if (event.type !== "content_block_delta") throw new Error(`expected a content_block_delta, got ${event.type}`)
    return event.delta
  }

  it("holds for a decoded delta of the kind it names and for no other known kind", () => {
    const samples = Object.fromEntries(Object.entries(wire).map(([kind, delta]) => [kind, deltaOf(delta)]))
    expectOnlyOwnKind(samples as Record<MessagesKnownDelta["type"], ReturnType<typeof deltaOf>>, isMessagesDelta)
  })

  it("is false for a delta kind the library does not model, even one with a known kind's fields", () => {
    const opaque = deltaOf({ type: "future_delta", text: "Hi" })
    for (const kind of Object.keys(wire) as Array<MessagesKnownDelta["type"]>)
      expect(isMessagesDelta(opaque, kind)).toBe(false)
  })
})

describe("isMessagesBlock", () => {
  const wire = {
    text: { type: "text", text: "Hi" },
    thinking: { type: "thinking", thinking: "hm", signature: "sig" },
    redacted_thinking: { type: "redacted_thinking", data: "enc" },
    tool_use: { type: "tool_use", id: "toolu_1", name: "f", input: {} }
  } satisfies Record<MessagesKnownBlock["type"], unknown>
  const contentOf = (content: ReadonlyArray<unknown>) =>
    Result.getOrThrow(
      decodeMessage({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "epsilon-x",
        content,
        stop_reason: "end_turn",
        usage: { input_tokens: 1, output_tokens: 1 }
      })
    ).content

  it("holds for a decoded block of the kind it names and for no other known kind", () => {
    const kinds = Object.keys(wire) as Array<MessagesKnownBlock["type"]>
    const blocks = contentOf(Object.values(wire))
    expectOnlyOwnKind(
      Object.fromEntries(kinds.map((k, i) => [k, blocks[i]!])) as Record<
        (typeof kinds)[number],
        (typeof blocks)[number]
      >,
      isMessagesBlock
    )
  })

  it("is false for a server-tool block", () => {
    const [block] = contentOf([{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }])
    for (const kind of Object.keys(wire) as Array<MessagesKnownBlock["type"]>)
      expect(isMessagesBlock(block!, kind)).toBe(false)
  })
})

describe("isResponsesPart and isResponsesItem", () => {
  const parts = {
    output_text: { type: "output_text", text: "Hi", annotations: [] },
    refusal: { type: "refusal", refusal: "no" }
  } satisfies Record<ResponsesKnownPart["type"], unknown>
  const partOf = (part: unknown) => {
    const event = Result.getOrThrow(
      decodeResponsesEventEither(
        record({ type: "response.content_part.done", item_id: "msg_1", output_index: 0, content_index: 0, part })
      )
    )
    if (event.type !== "response.content_part.done") throw new Error(`expected a content part event, got ${event.type}`)
    return event.part
  }
  const items = {
    message: { type: "message", id: "msg_1", role: "assistant", content: [] },
    function_call: { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
    reasoning: { type: "reasoning", id: "rs_1", summary: [] }
  } satisfies Record<ResponsesKnownItem["type"], unknown>
  const outputOf = (output: ReadonlyArray<unknown>) =>
    Result.getOrThrow(
      decodeResponsesResponse({ id: "resp_1", object: "response", created_at: 1, model: "gpt-x", output })
    ).output

  it("isResponsesPart holds for a decoded part of the kind it names and for no other known kind", () => {
    const samples = { output_text: partOf(parts.output_text), refusal: partOf(parts.refusal) }
    expectOnlyOwnKind(samples, isResponsesPart)
  })

  it("isResponsesPart is false for a part kind the library does not model, even one with a text", () => {
    const opaque = partOf({ type: "reasoning_text", text: "hm" })
    expect([isResponsesPart(opaque, "output_text"), isResponsesPart(opaque, "refusal")]).toEqual([false, false])
  })

  it("isResponsesItem holds for a decoded item of the kind it names and for no other known kind", () => {
    const kinds = Object.keys(items) as Array<ResponsesKnownItem["type"]>
    const output = outputOf(Object.values(items))
    expectOnlyOwnKind(
      Object.fromEntries(kinds.map((k, i) => [k, output[i]!])) as Record<
        (typeof kinds)[number],
        (typeof output)[number]
      >,
      isResponsesItem
    )
  })

  it("isResponsesItem is false for a hosted tool call", () => {
    const [item] = outputOf([{ type: "web_search_call", id: "ws_1", status: "completed" }])
    for (const kind of Object.keys(items) as Array<ResponsesKnownItem["type"]>)
      expect(isResponsesItem(item!, kind)).toBe(false)
  })
})

describe("isRealtimeEvent", () => {
  // Every known server event type, v1 and v2 names (the `satisfies` fails to compile when one is missing).
  const delta = { response_id: "resp_1", item_id: "item_1", output_index: 0, content_index: 0, delta: "AAA=" }
  const wire = {
    "session.created": { session: { id: "sess_1" } },
    "session.updated": { session: { id: "sess_1" } },
    error: { error: { type: "invalid_request_error", message: "bad", event_id: "evt_1" } },
    "response.created": { response: { id: "resp_1", status: "in_progress" } },
    "response.done": { response: { id: "resp_1", status: "completed" } },
    "response.text.delta": delta,
    "response.output_text.delta": delta,
    "response.audio.delta": delta,
    "response.output_audio.delta": delta,
    "response.audio_transcript.delta": delta,
    "response.output_audio_transcript.delta": delta,
    "response.text.done": { text: "Hi" },
    "response.output_text.done": { text: "Hi" },
    "response.audio_transcript.done": { transcript: "Hi" },
    "response.output_audio_transcript.done": { transcript: "Hi" },
    "response.audio.done": {},
    "response.output_audio.done": {}
  } satisfies Record<RealtimeKnownEvent["type"], object>
  const decode = (event: object) => Effect.runSync(decodeRealtimeServerEvent(JSON.stringify(event)))

  it("holds for a decoded event of the type it names and for no other known type, sharing a member or not", () => {
    const samples = Object.fromEntries(
      Object.entries(wire).map(([type, fields]) => [type, decode({ type, ...fields })])
    )
    expectOnlyOwnKind(samples as Record<RealtimeKnownEvent["type"], ReturnType<typeof decode>>, isRealtimeEvent)
  })

  it("is false for an event type the library does not model, even one with a known type's fields", () => {
    const other = decode({ type: "conversation.item.added", error: { type: "x", message: "y" }, delta: "AAA=" })
    for (const type of Object.keys(wire) as Array<RealtimeKnownEvent["type"]>)
      expect(isRealtimeEvent(other, type)).toBe(false)
  })
})
