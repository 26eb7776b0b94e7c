// The example streams (test/fixtures/TextStreams.ts) decoded into the events the
// `*.stream$` calls emit, shared by the token operator tests.
import { Result } from "effect"
import type { ChatStreamEvent } from "../../src/core/text/chat/ChatResponse.js"
import { decodeChatEventEither } from "../../src/core/text/chat/ChatResponse.js"
import { decodeMessagesEventEither, type MessagesEvent } from "../../src/core/text/messages/MessagesEvents.js"
import { decodeNativeChunkEither, type NativeChunk } from "../../src/core/text/native/NativeResponse.js"
import { decodeResponsesEventEither, type ResponsesEvent } from "../../src/core/text/responses/ResponsesResponse.js"
import {
  chatTextStream,
  chatToolStream,
  messagesTextStream,
  messagesThinkingToolStream,
  nativeStream,
  record,
  responsesTextStream,
  toRecords
} from "../fixtures/TextStreams.js"

// The adapters drop pings before they reach an Observable.
const messages = (text: string): Array<MessagesEvent> =>
  toRecords(text)
    .map((r) => Result.getOrThrow(decodeMessagesEventEither(r)))
    .filter((e) => e.type !== "ping")

export const messagesText = messages(messagesTextStream)
export const messagesThinkingTool = messages(messagesThinkingToolStream)
export const native: Array<NativeChunk> = toRecords(nativeStream).map((r) =>
  Result.getOrThrow(decodeNativeChunkEither(r))
)
export const chatText: Array<ChatStreamEvent> = toRecords(chatTextStream).map((r) =>
  Result.getOrThrow(decodeChatEventEither(r))
)
export const chatTool: Array<ChatStreamEvent> = toRecords(chatToolStream).map((r) =>
  Result.getOrThrow(decodeChatEventEither(r))
)
export const responsesText: Array<ResponsesEvent> = toRecords(responsesTextStream).map((r) =>
  Result.getOrThrow(decodeResponsesEventEither(r))
)

const responseObject = (status: string, output: ReadonlyArray<unknown>) => ({
  id: "resp_2",
  object: "response",
  created_at: 1723031665,
  status,
  model: "gpt-x",
  output
})
const call = (args: string, status: string) => ({
  type: "function_call",
  id: "fc_1",
  call_id: "call_1",
  name: "get_weather",
  arguments: args,
  status
})
const summary = (seq: number, delta: string) => ({
  type: "response.reasoning_summary_text.delta",
  sequence_number: seq,
  item_id: "rs_1",
  output_index: 0,
  summary_index: 0,
  delta
})

/** A responses stream with a reasoning summary, then a function call whose arguments stream in two pieces. */
export const responsesReasoningTool: Array<ResponsesEvent> = [
  { type: "response.created", sequence_number: 0, response: responseObject("in_progress", []) },
  {
    type: "response.output_item.added",
    sequence_number: 1,
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", summary: [] }
  },
  {
    type: "response.reasoning_summary_part.added",
    sequence_number: 2,
    item_id: "rs_1",
    output_index: 0,
    summary_index: 0,
    part: { type: "summary_text", text: "" }
  },
  summary(3, "Look up "),
  summary(4, "the weather."),
  {
    type: "response.output_item.done",
    sequence_number: 5,
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Look up the weather." }] }
  },
  { type: "response.output_item.added", sequence_number: 6, output_index: 1, item: call("", "in_progress") },
  {
    type: "response.function_call_arguments.delta",
    sequence_number: 7,
    item_id: "fc_1",
    output_index: 1,
    delta: '{"city":'
  },
  {
    type: "response.function_call_arguments.delta",
    sequence_number: 8,
    item_id: "fc_1",
    output_index: 1,
    delta: '"Paris"}'
  },
  {
    type: "response.output_item.done",
    sequence_number: 9,
    output_index: 1,
    item: call('{"city":"Paris"}', "completed")
  },
  { type: "response.completed", sequence_number: 10, response: responseObject("completed", []) }
].map((payload) => Result.getOrThrow(decodeResponsesEventEither(record(payload))))
