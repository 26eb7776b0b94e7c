import { Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { accumulateChat } from "../src/core/text/chat/ChatAccumulator.js"
import {
  type ChatStreamEvent,
  decodeChatCompletion,
  decodeChatEventEither
} from "../src/core/text/chat/ChatResponse.js"
import {
  accumulateMessages,
  initialMessagesSnapshot,
  messagesFolder,
  type MessagesSnapshot,
  stepMessages
} from "../src/core/text/messages/MessagesAccumulator.js"
import { decodeMessagesEventEither, type MessagesEvent } from "../src/core/text/messages/MessagesEvents.js"
import { decodeMessage } from "../src/core/text/messages/MessagesResponse.js"
import { accumulateNative } from "../src/core/text/native/NativeAccumulator.js"
import {
  decodeGenerateContentResponse,
  decodeNativeChunkEither,
  type NativeChunk,
  type NativePart
} from "../src/core/text/native/NativeResponse.js"
import { accumulateResponses } from "../src/core/text/responses/ResponsesAccumulator.js"
import { sanitize } from "../src/core/validation/Rules.js"
import { expectFoldsLike, type Verdict } from "./foldCheck.js"
import {
  decodeResponsesEventEither,
  decodeResponsesResponse,
  type ResponsesEvent
} from "../src/core/text/responses/ResponsesResponse.js"

/** Splits a string at arbitrary points into at least one piece (pieces may be empty). */
const pieces = (text: string, cuts: ReadonlyArray<number>): Array<string> => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const out: Array<string> = []
  let from = 0
  for (const p of points) {
    out.push(text.slice(from, p))
    from = p
  }
  out.push(text.slice(from))
  return out
}

/** Groups items into consecutive non-empty runs at arbitrary points. */
const groups = <A>(items: ReadonlyArray<A>, cuts: ReadonlyArray<number>): Array<Array<A>> => {
  const points = [...new Set(cuts.map((c) => (c % Math.max(items.length, 1)) + 1))]
    .filter((p) => p < items.length)
    .sort((a, b) => a - b)
  const out: Array<Array<A>> = []
  let from = 0
  for (const p of [...points, items.length]) {
    if (p > from) out.push(items.slice(from, p))
    from = p
  }
  return out
}

const splitText = fc.tuple(fc.string({ unit: "binary", maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }))
const toolInput = fc.tuple(
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.array(fc.nat(), { maxLength: 12 })
)
const cuts = fc.array(fc.nat(), { maxLength: 12 })

describe("Accumulators", () => {
  it("give the same final message however the messages-style text, thinking and tool input are split", () => {
    fc.assert(
      fc.property(
        splitText,
        splitText,
        toolInput,
        fc.array(fc.nat(), { maxLength: 4 }),
        ([thinking, tc], [text, xc], [input, ic], pings) => {
          const json = JSON.stringify(input)
          const events: Array<MessagesEvent> = [
            {
              type: "message_start",
              message: {
                id: "m",
                type: "message",
                role: "assistant",
                model: "epsilon-x",
                content: [],
                stop_reason: null,
                stop_sequence: null,
                usage: { input_tokens: 3, output_tokens: 1 }
              }
            },
            { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
            ...pieces(thinking, tc).map((t): MessagesEvent => ({
              type: "content_block_delta",
              index: 0,
              delta: { type: "thinking_delta", thinking: t }
            })),
            { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
            { type: "content_block_stop", index: 0 },
            { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
            ...pieces(text, xc).map((t): MessagesEvent => ({
              type: "content_block_delta",
              index: 1,
              delta: { type: "text_delta", text: t }
            })),
            { type: "content_block_stop", index: 1 },
            {
              type: "content_block_start",
              index: 2,
              content_block: { type: "tool_use", id: "t", name: "f", input: {} }
            },
            ...pieces(json, ic).map((p): MessagesEvent => ({
              type: "content_block_delta",
              index: 2,
              delta: { type: "input_json_delta", partial_json: p }
            })),
            { type: "content_block_stop", index: 2 },
            { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
            { type: "message_stop" }
          ]
          // Pings may come anywhere after message_start.
          for (const p of pings) events.splice(1 + (p % events.length), 0, { type: "ping" })
          const message = Result.getOrThrow(accumulateMessages(events))
          expect(message.content).toEqual([
            { type: "thinking", thinking, signature: "sig" },
            { type: "text", text },
            // Unsafe keys (`__proto__`, `constructor`, `prototype`) are dropped at every depth, by design.
            { type: "tool_use", id: "t", name: "f", input: sanitize(JSON.parse(json)) }
          ])
          expect(message.usage).toEqual({ input_tokens: 3, output_tokens: 9 })
        }
      )
    )
  })

  it("give the same final native-content response however the thought and text parts are split into chunks", () => {
    fc.assert(
      fc.property(splitText, splitText, cuts, ([thought, tc], [text, xc], gc) => {
        const parts: Array<NativePart> = [
          ...pieces(thought, tc).map((t): NativePart => ({ text: t, thought: true })),
          ...pieces(text, xc).map((t, i, all): NativePart =>
            i === all.length - 1 ? { text: t, thoughtSignature: "sig" } : { text: t }
          ),
          { functionCall: { name: "f", args: { a: 1 } } }
        ]
        const chunks: Array<NativeChunk> = groups(parts, gc).map((group, i) => ({
          candidates: [{ content: { role: "model", parts: group }, index: 0 }],
          usageMetadata: { totalTokenCount: i }
        }))
        chunks.push({
          candidates: [{ content: { role: "model" }, finishReason: "STOP", index: 0 }],
          usageMetadata: { totalTokenCount: 99 }
        })
        const response = Result.getOrThrow(accumulateNative(chunks))
        expect(response.candidates?.[0]?.content?.parts).toEqual([
          { text: thought, thought: true },
          { text, thoughtSignature: "sig" },
          { functionCall: { name: "f", args: { a: 1 } } }
        ])
        expect(response.usageMetadata).toEqual({ totalTokenCount: 99 })
      })
    )
  })

  it("give the same final chat completion however the content and tool arguments are split", () => {
    fc.assert(
      fc.property(splitText, toolInput, ([text, xc], [input, ic]) => {
        const args = JSON.stringify(input)
        const chunk = (delta: object, finish: string | null = null): ChatStreamEvent =>
          ({
            type: "chunk",
            chunk: {
              id: "c",
              object: "chat.completion.chunk",
              created: 1,
              model: "m",
              choices: [{ index: 0, delta, finish_reason: finish }]
            }
          }) as ChatStreamEvent
        const events: Array<ChatStreamEvent> = [
          chunk({ role: "assistant", content: "" }),
          ...pieces(text, xc).map((t) => chunk({ content: t })),
          chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }] }),
          ...pieces(args, ic).map((a) => chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
          chunk({}, "tool_calls"),
          { type: "done" }
        ]
        const completion = Result.getOrThrow(accumulateChat(events))
        expect(completion.choices).toEqual([
          {
            index: 0,
            message: {
              role: "assistant",
              content: text,
              refusal: null,
              tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: args } }]
            },
            logprobs: null,
            finish_reason: "tool_calls"
          }
        ])
      })
    )
  })

  it("give the same final response however the responses text and arguments are split", () => {
    fc.assert(
      fc.property(splitText, toolInput, ([text, xc], [input, ic]) => {
        const args = JSON.stringify(input)
        const base = {
          id: "r",
          object: "response",
          created_at: 1,
          model: "m",
          status: "in_progress",
          output: []
        } as const
        const raw: Array<Record<string, unknown>> = [
          { type: "response.created", response: base },
          {
            type: "response.output_item.added",
            output_index: 0,
            item: { type: "message", id: "msg", role: "assistant", content: [] }
          },
          {
            type: "response.content_part.added",
            item_id: "msg",
            output_index: 0,
            content_index: 0,
            part: { type: "output_text", text: "" }
          },
          ...pieces(text, xc).map((delta) => ({
            type: "response.output_text.delta",
            item_id: "msg",
            output_index: 0,
            content_index: 0,
            delta
          })),
          {
            type: "response.output_item.added",
            output_index: 1,
            item: { type: "function_call", id: "fc", call_id: "c", name: "f", arguments: "" }
          },
          ...pieces(args, ic).map((delta) => ({
            type: "response.function_call_arguments.delta",
            item_id: "fc",
            output_index: 1,
            delta
          })),
          { type: "response.completed", response: { ...base, status: "completed" } },
          { type: "done" }
        ]
        const events = raw.map(
          (e, i) => (e["type"] === "done" ? e : { ...e, sequence_number: i * 2 }) as ResponsesEvent
        )
        const response = Result.getOrThrow(accumulateResponses(events))
        expect(response.output).toEqual([
          { type: "message", id: "msg", role: "assistant", content: [{ type: "output_text", text }] },
          { type: "function_call", id: "fc", call_id: "c", name: "f", arguments: args }
        ])
      })
    )
  })

  it("never throw in a messages-style fold, whatever the order of events", () => {
    const pool: Array<MessagesEvent> = [
      {
        type: "message_start",
        message: {
          id: "m",
          type: "message",
          role: "assistant",
          model: "x",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 }
        }
      },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "f", input: {} } },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "x" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
      { type: "ping" },
      { type: "error", error: { type: "overloaded_error", message: "o" } }
    ]
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pool), { maxLength: 20 }), (events) => {
        const result = accumulateMessages(events)
        expect(Result.isResult(result)).toBe(true)
      })
    )
  })

  it("fold a whole messages stream in one draft as one step per event does, and never change a snapshot handed out", () => {
    const pool: Array<MessagesEvent> = [
      {
        type: "message_start",
        message: {
          id: "m",
          type: "message",
          role: "assistant",
          model: "x",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 }
        }
      },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "f", input: {} } },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_start", index: 2, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "1}" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "x" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "y" } },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "citations_delta", citation: { type: "char_location", cited_text: "c" } }
      },
      { type: "content_block_delta", index: 2, delta: { type: "thinking_delta", thinking: "t" } },
      { type: "content_block_delta", index: 2, delta: { type: "signature_delta", signature: "s" } },
      { type: "content_block_delta", index: 1, delta: { type: "future_delta", x: 1 } as never },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_stop", index: 2 },
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: 2, cache_read_input_tokens: 4 }
      },
      { type: "message_stop" },
      { type: "ping" }
    ]
    // Streams in a valid order (start, three blocks, their deltas interleaved, stops, stop), and streams
    // in any order at all (mostly failing early, with the partial snapshot).
    const [start, tool, text, thinking] = pool
    const deltas = pool.filter((e) => e.type === "content_block_delta" || e.type === "ping")
    const closing = pool.filter(
      (e) => e.type === "content_block_stop" || e.type === "message_delta" || e.type === "message_stop"
    )
    const valid = fc
      .array(fc.constantFrom(...deltas), { maxLength: 34 })
      .map((middle) => [start!, tool!, text!, thinking!, ...middle, ...closing])
    const anyOrder = fc.array(fc.constantFrom(...pool.slice(1)), { maxLength: 40 }).map((rest) => [start!, ...rest])
    const stream = fc.oneof(valid, anyOrder)
    // The reference: one pure step per event (a fresh draft each time).
    const byStep = (snapshot: MessagesSnapshot, event: MessagesEvent): Verdict<MessagesSnapshot> => {
      const step = stepMessages(snapshot, event)
      return Result.isFailure(step)
        ? { message: step.failure.message, partial: step.failure.partial as MessagesSnapshot }
        : { ok: step.success }
    }
    fc.assert(
      fc.property(stream, fc.array(fc.boolean(), { minLength: 42, maxLength: 42 }), (events, takes) =>
        expectFoldsLike(messagesFolder(initialMessagesSnapshot), initialMessagesSnapshot, byStep, events, takes)
      ),
      { numRuns: 300 }
    )
  })

  it("have decoders that never throw on arbitrary input", () => {
    const recordDecoders = [
      decodeMessagesEventEither,
      decodeNativeChunkEither,
      decodeChatEventEither,
      decodeResponsesEventEither
    ]
    const bodyDecoders = [decodeMessage, decodeGenerateContentResponse, decodeChatCompletion, decodeResponsesResponse]
    fc.assert(
      fc.property(fc.anything(), fc.string(), fc.jsonValue(), (anything, event, json) => {
        for (const decode of recordDecoders) {
          expect(Result.isResult(decode({ event, data: JSON.stringify(json) }))).toBe(true)
          expect(Result.isResult(decode({ event, data: anything as string }))).toBe(true)
          expect(Result.isResult(decode(anything as never))).toBe(true)
        }
        for (const decode of bodyDecoders) {
          expect(Result.isResult(decode(anything))).toBe(true)
          expect(Result.isResult(decode(json))).toBe(true)
        }
      })
    )
  })
})
