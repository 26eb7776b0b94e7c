/**
 * Schemas of the messages-style (epsilon) stream events, one `Schema.Union`, and the decoder of one
 * SSE record into an event. Event types this library does not know decode to `MessagesUnknownEvent`
 * rather than failing, because upstream adds events.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { DecodeError } from "../../errors/GatewayError.js"
import { Message, MessagesContentBlock, MessagesUsage } from "./MessagesResponse.js"
import {
  type DecodeOptions,
  decodeWith,
  guarded,
  maxDepthOf,
  typedPayload,
  JsonValue,
  opaqueTagged,
  parseJsonText,
  type SseRecord,
  wrappedOnce
} from "../../wire/WireJson.js"
import { scanBlockDelta } from "./MessagesDeltaScan.js"

/** `message_start`: the message with empty content and `stop_reason: null`. @category schemas */
export const MessagesMessageStart = Schema.Struct({ type: Schema.Literal("message_start"), message: Message })

/** `content_block_start`: an empty block at `index` (0, 1, 2, … in order). @category schemas */
export const MessagesContentBlockStart = Schema.Struct({
  type: Schema.Literal("content_block_start"),
  index: Schema.Number,
  content_block: MessagesContentBlock
})

/** A delta of text (for `text` blocks). @category schemas */
export const MessagesTextDelta = Schema.Struct({ type: Schema.Literal("text_delta"), text: Schema.String })
/** A piece of a tool call's input JSON (for `tool_use` and server-tool-use blocks); may be `""`. @category schemas */
export const MessagesInputJsonDelta = Schema.Struct({
  type: Schema.Literal("input_json_delta"),
  partial_json: Schema.String
})
/** A delta of thinking text (for `thinking` blocks). @category schemas */
export const MessagesThinkingDelta = Schema.Struct({ type: Schema.Literal("thinking_delta"), thinking: Schema.String })
/** The thinking block's signature, sent once just before its stop. @category schemas */
export const MessagesSignatureDelta = Schema.Struct({
  type: Schema.Literal("signature_delta"),
  signature: Schema.String
})
/** One citation appended to a `text` block. @category schemas */
export const MessagesCitationsDelta = Schema.Struct({ type: Schema.Literal("citations_delta"), citation: JsonValue })

const KNOWN_DELTAS = ["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"] as const

/** A delta kind this library does not model (passed through, ignored by the accumulator). @category schemas */
export const MessagesOpaqueDelta = opaqueTagged(KNOWN_DELTAS, "MessagesOpaqueDelta")

/** The delta of a `content_block_delta`. @category schemas */
export const MessagesDelta = Schema.Union([
  MessagesTextDelta,
  MessagesInputJsonDelta,
  MessagesThinkingDelta,
  MessagesSignatureDelta,
  MessagesCitationsDelta,
  MessagesOpaqueDelta
])
/** @category models */
export type MessagesDelta = Schema.Schema.Type<typeof MessagesDelta>

/** The delta kinds this library models, discriminated by `type`. @category models */
export type MessagesKnownDelta =
  | Schema.Schema.Type<typeof MessagesTextDelta>
  | Schema.Schema.Type<typeof MessagesInputJsonDelta>
  | Schema.Schema.Type<typeof MessagesThinkingDelta>
  | Schema.Schema.Type<typeof MessagesSignatureDelta>
  | Schema.Schema.Type<typeof MessagesCitationsDelta>

/**
 * Narrows a delta to a known kind, as `delta.type === kind` cannot: TypeScript keeps the opaque
 * member (its `type` is any string), so `delta.text` would stay `unknown`. Sound because the opaque
 * member never decodes a known `type`.
 * @category guards
 */
export const isMessagesDelta = <K extends MessagesKnownDelta["type"]>(
  delta: MessagesDelta,
  kind: K
): delta is Extract<MessagesKnownDelta, { readonly type: K }> => delta.type === kind

/** `content_block_delta`. @category schemas */
export const MessagesContentBlockDelta = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  index: Schema.Number,
  delta: MessagesDelta
})

/** `content_block_stop`. @category schemas */
export const MessagesContentBlockStop = Schema.Struct({
  type: Schema.Literal("content_block_stop"),
  index: Schema.Number
})

/** The usage of a `message_delta`: cumulative counts, every field but `output_tokens` optional. @category schemas */
export const MessagesDeltaUsage = Schema.Struct({
  ...MessagesUsage.fields,
  input_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  output_tokens: Schema.optional(Schema.NullOr(Schema.Number))
})
/** @category models */
export type MessagesDeltaUsage = Schema.Schema.Type<typeof MessagesDeltaUsage>

/** `message_delta`: top-level changes (stop reason) and cumulative usage. @category schemas */
export const MessagesMessageDelta = Schema.Struct({
  type: Schema.Literal("message_delta"),
  delta: Schema.Struct({
    stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
    stop_sequence: Schema.optional(Schema.NullOr(Schema.String)),
    stop_details: Schema.optional(JsonValue),
    container: Schema.optional(JsonValue)
  }),
  usage: Schema.optional(Schema.NullOr(MessagesDeltaUsage))
})

/** `message_stop`: the final event. @category schemas */
export const MessagesMessageStop = Schema.Struct({ type: Schema.Literal("message_stop") })

/** `ping`: keep-alive, any number of times anywhere. @category schemas */
export const MessagesPing = Schema.Struct({ type: Schema.Literal("ping") })

/** `error`: a failure after HTTP 200 (e.g. `overloaded_error`). @category schemas */
export const MessagesErrorEvent = Schema.Struct({
  type: Schema.Literal("error"),
  error: Schema.Struct({ type: Schema.String, message: Schema.String })
})

/** An event of a type this library does not know: its SSE name and raw data, kept for the curious. @category schemas */
export const MessagesUnknownEvent = Schema.Struct({
  type: Schema.Literal("unknown"),
  event: Schema.String,
  data: JsonValue
})

/** Every messages-style stream event. @category schemas */
export const MessagesEvent = Schema.Union([
  MessagesMessageStart,
  MessagesContentBlockStart,
  MessagesContentBlockDelta,
  MessagesContentBlockStop,
  MessagesMessageDelta,
  MessagesMessageStop,
  MessagesPing,
  MessagesErrorEvent,
  MessagesUnknownEvent
])
/** @category models */
export type MessagesEvent = Schema.Schema.Type<typeof MessagesEvent>

type EventDecoder = (payload: unknown, options?: DecodeOptions) => Result.Result<MessagesEvent, DecodeError>

/** One decoder per known event type, so a malformed event's error names only its own shape. */
const BY_TYPE: ReadonlyMap<string, EventDecoder> = new Map<string, EventDecoder>([
  ["message_start", decodeWith(MessagesMessageStart, "messages", "message_start event")],
  ["content_block_start", decodeWith(MessagesContentBlockStart, "messages", "content_block_start event")],
  ["content_block_delta", decodeWith(MessagesContentBlockDelta, "messages", "content_block_delta event")],
  ["content_block_stop", decodeWith(MessagesContentBlockStop, "messages", "content_block_stop event")],
  ["message_delta", decodeWith(MessagesMessageDelta, "messages", "message_delta event")],
  ["message_stop", decodeWith(MessagesMessageStop, "messages", "message_stop event")],
  ["ping", decodeWith(MessagesPing, "messages", "ping event")],
  ["error", decodeWith(MessagesErrorEvent, "messages", "error event")]
])

const decodeUnknownEvent = decodeWith(MessagesUnknownEvent, "messages", "messages event")

/**
 * Decodes one SSE record into an event; never throws. The event type is the payload's `type` (the
 * SSE `event` name when the payload has none); an unknown type gives `MessagesUnknownEvent`.
 * @category decoding
 */
export const decodeMessagesEventEither = (
  record: SseRecord,
  options?: DecodeOptions
): Result.Result<MessagesEvent, DecodeError> => guarded("messages", "messages event", decodeRecord, record, options)

// Module-level (no closure per event), run by `guarded` so that whatever it throws becomes a `DecodeError`.
const decodeRecord = (
  record: SseRecord,
  options: DecodeOptions | undefined
): Result.Result<MessagesEvent, DecodeError> => {
  const data = record.data
  // Most events are text (or thinking, or tool-input) fragments in upstream's exact text: read directly.
  const fragment = typeof data === "string" ? scanBlockDelta(data, maxDepthOf(options)) : undefined
  if (fragment !== undefined) return Result.succeed(fragment)
  const parsed = parseJsonText(data, "messages", "messages event", options)
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const typed = typedPayload(parsed.success, record.event)
  const decode = BY_TYPE.get(typed.type)
  return decode === undefined
    ? decodeUnknownEvent({ type: "unknown", event: typed.type, data: parsed.success }, wrappedOnce(options))
    : decode(typed.payload, options)
}

/** Decodes one SSE record into an event, failing with a `DecodeError` (family `messages`). @category decoding */
export const decodeMessagesEvent = (
  record: SseRecord,
  options?: DecodeOptions
): Effect.Effect<MessagesEvent, DecodeError> => Effect.fromResult(decodeMessagesEventEither(record, options))
