/**
 * Schemas of the responses API: the `Response` object, its output items, the stream event union and
 * the decoder of one SSE record. The `Response` object is the non-stream answer and sits inside
 * lifecycle events; the event union tolerates unknown event types and `[DONE]`.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { DecodeError } from "../../errors/GatewayError.js"
import { isRecord } from "../../validation/Rules.js"
import {
  type DecodeOptions,
  decodeWith,
  guarded,
  JsonValue,
  opaqueTagged,
  parseJsonText,
  type SseRecord,
  typedPayload,
  wrappedOnce
} from "../../wire/WireJson.js"

/** An `output_text` content part. @category schemas */
export const ResponsesOutputText = Schema.Struct({
  type: Schema.Literal("output_text"),
  text: Schema.String,
  annotations: Schema.optional(Schema.Array(JsonValue)),
  logprobs: Schema.optional(Schema.Array(JsonValue))
})
/** A `refusal` content part. @category schemas */
export const ResponsesRefusal = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })

/** One content part of a message item; other part kinds pass through opaquely. @category schemas */
export const ResponsesContentPart = Schema.Union([
  ResponsesOutputText,
  ResponsesRefusal,
  opaqueTagged(["output_text", "refusal"], "ResponsesOpaquePart")
])
/** @category models */
export type ResponsesContentPart = Schema.Schema.Type<typeof ResponsesContentPart>

/** The content part kinds this library models, discriminated by `type`. @category models */
export type ResponsesKnownPart =
  Schema.Schema.Type<typeof ResponsesOutputText> | Schema.Schema.Type<typeof ResponsesRefusal>

/**
 * Narrows a content part to a known kind, as `part.type === kind` cannot (the opaque member's `type`
 * is any string, so `part.text` would stay `unknown`). Sound: the opaque member never decodes a known `type`.
 * @category guards
 */
export const isResponsesPart = <K extends ResponsesKnownPart["type"]>(
  part: ResponsesContentPart,
  kind: K
): part is Extract<ResponsesKnownPart, { readonly type: K }> => part.type === kind

/** A message output item. @category schemas */
export const ResponsesMessageItem = Schema.Struct({
  type: Schema.Literal("message"),
  id: Schema.String,
  role: Schema.String,
  status: Schema.optional(Schema.String),
  content: Schema.Array(ResponsesContentPart)
})
/** A function call output item; `arguments` is a JSON string. @category schemas */
export const ResponsesFunctionCallItem = Schema.Struct({
  type: Schema.Literal("function_call"),
  id: Schema.optional(Schema.String),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
  status: Schema.optional(Schema.String)
})
/** A reasoning summary part. @category schemas */
export const ResponsesSummaryPart = Schema.Struct({ type: Schema.String, text: Schema.String })
/** A reasoning output item. @category schemas */
export const ResponsesReasoningItem = Schema.Struct({
  type: Schema.Literal("reasoning"),
  id: Schema.String,
  summary: Schema.Array(ResponsesSummaryPart),
  content: Schema.optional(Schema.NullOr(Schema.Array(JsonValue))),
  encrypted_content: Schema.optional(Schema.NullOr(Schema.String)),
  status: Schema.optional(Schema.String)
})

/** One output item; hosted-tool call items and newer kinds pass through opaquely. @category schemas */
export const ResponsesOutputItem = Schema.Union([
  ResponsesMessageItem,
  ResponsesFunctionCallItem,
  ResponsesReasoningItem,
  opaqueTagged(["message", "function_call", "reasoning"], "ResponsesOpaqueItem")
])
/** @category models */
export type ResponsesOutputItem = Schema.Schema.Type<typeof ResponsesOutputItem>

/** The item kinds this library models, discriminated by `type`. @category models */
export type ResponsesKnownItem =
  | Schema.Schema.Type<typeof ResponsesMessageItem>
  | Schema.Schema.Type<typeof ResponsesFunctionCallItem>
  | Schema.Schema.Type<typeof ResponsesReasoningItem>

/** Narrows an item to a known kind (sound: the opaque member never decodes a known `type`). @category guards */
export const isResponsesItem = <K extends ResponsesKnownItem["type"]>(
  item: ResponsesOutputItem,
  kind: K
): item is Extract<ResponsesKnownItem, { readonly type: K }> => item.type === kind

/** Token usage. @category schemas */
export const ResponsesUsage = Schema.Struct({
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  total_tokens: Schema.Number,
  input_tokens_details: Schema.optional(Schema.NullOr(JsonValue)),
  output_tokens_details: Schema.optional(Schema.NullOr(JsonValue))
})

/**
 * The `Response` object. `status` is `completed`, `failed`, `in_progress`, `cancelled`, `queued` or
 * `incomplete`; `error` is set when failed, `incomplete_details` when incomplete. Request echo fields
 * are passed through; unknown top-level fields are dropped.
 * @category schemas
 */
export const ResponsesResponse = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("response"),
  created_at: Schema.Number,
  status: Schema.optional(Schema.String),
  model: Schema.String,
  output: Schema.Array(ResponsesOutputItem),
  error: Schema.optional(
    Schema.NullOr(Schema.Struct({ code: Schema.optional(Schema.NullOr(Schema.String)), message: Schema.String }))
  ),
  incomplete_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ reason: Schema.optional(Schema.NullOr(Schema.String)) }))
  ),
  usage: Schema.optional(Schema.NullOr(ResponsesUsage)),
  instructions: Schema.optional(JsonValue),
  metadata: Schema.optional(JsonValue),
  parallel_tool_calls: Schema.optional(Schema.Boolean),
  temperature: Schema.optional(Schema.NullOr(Schema.Number)),
  top_p: Schema.optional(Schema.NullOr(Schema.Number)),
  max_output_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  previous_response_id: Schema.optional(Schema.NullOr(Schema.String)),
  // The conversation the response was made in (`{id}`), and whether it is stored.
  conversation: Schema.optional(Schema.NullOr(JsonValue)),
  store: Schema.optional(Schema.Boolean),
  tool_choice: Schema.optional(JsonValue),
  tools: Schema.optional(Schema.Array(JsonValue)),
  reasoning: Schema.optional(JsonValue),
  text: Schema.optional(JsonValue)
})
/** @category models */
export type ResponsesResponse = Schema.Schema.Type<typeof ResponsesResponse>

/** Every event carries a strictly increasing `sequence_number` (optional here, checked when present). */
const Seq = { sequence_number: Schema.optional(Schema.Number) }
const lifecycle = <T extends string>(type: T) =>
  Schema.Struct({ type: Schema.Literal(type), ...Seq, response: ResponsesResponse })
const itemEvent = <T extends string>(type: T) =>
  Schema.Struct({ type: Schema.Literal(type), ...Seq, output_index: Schema.Number, item: ResponsesOutputItem })
const partRef = { item_id: Schema.String, output_index: Schema.Number, content_index: Schema.Number }
const summaryRef = { item_id: Schema.String, output_index: Schema.Number, summary_index: Schema.Number }

/** The lifecycle events, each carrying the whole `response`. @category schemas */
export const ResponsesCreated = lifecycle("response.created")
/** @category schemas */
export const ResponsesQueued = lifecycle("response.queued")
/** @category schemas */
export const ResponsesInProgress = lifecycle("response.in_progress")
/** The final event of a successful stream. @category schemas */
export const ResponsesCompleted = lifecycle("response.completed")
/** A final event: the response failed (`response.error`). @category schemas */
export const ResponsesFailed = lifecycle("response.failed")
/** A final event: the response stopped early (`response.incomplete_details`). @category schemas */
export const ResponsesIncomplete = lifecycle("response.incomplete")
/** @category schemas */
export const ResponsesOutputItemAdded = itemEvent("response.output_item.added")
/** @category schemas */
export const ResponsesOutputItemDone = itemEvent("response.output_item.done")
/** @category schemas */
export const ResponsesContentPartAdded = Schema.Struct({
  type: Schema.Literal("response.content_part.added"),
  ...Seq,
  ...partRef,
  part: ResponsesContentPart
})
/** @category schemas */
export const ResponsesContentPartDone = Schema.Struct({
  type: Schema.Literal("response.content_part.done"),
  ...Seq,
  ...partRef,
  part: ResponsesContentPart
})
/** @category schemas */
export const ResponsesOutputTextDelta = Schema.Struct({
  type: Schema.Literal("response.output_text.delta"),
  ...Seq,
  ...partRef,
  delta: Schema.String,
  logprobs: Schema.optional(Schema.Array(JsonValue))
})
/** @category schemas */
export const ResponsesOutputTextDone = Schema.Struct({
  type: Schema.Literal("response.output_text.done"),
  ...Seq,
  ...partRef,
  text: Schema.String
})
/** @category schemas */
export const ResponsesRefusalDelta = Schema.Struct({
  type: Schema.Literal("response.refusal.delta"),
  ...Seq,
  ...partRef,
  delta: Schema.String
})
/** @category schemas */
export const ResponsesRefusalDone = Schema.Struct({
  type: Schema.Literal("response.refusal.done"),
  ...Seq,
  ...partRef,
  refusal: Schema.String
})
/** @category schemas */
export const ResponsesFunctionCallArgumentsDelta = Schema.Struct({
  type: Schema.Literal("response.function_call_arguments.delta"),
  ...Seq,
  item_id: Schema.String,
  output_index: Schema.Number,
  delta: Schema.String
})
/** @category schemas */
export const ResponsesFunctionCallArgumentsDone = Schema.Struct({
  type: Schema.Literal("response.function_call_arguments.done"),
  ...Seq,
  item_id: Schema.String,
  output_index: Schema.Number,
  arguments: Schema.String,
  name: Schema.optional(Schema.String)
})
/** @category schemas */
export const ResponsesReasoningSummaryPartAdded = Schema.Struct({
  type: Schema.Literal("response.reasoning_summary_part.added"),
  ...Seq,
  ...summaryRef,
  part: ResponsesSummaryPart
})
/** @category schemas */
export const ResponsesReasoningSummaryTextDelta = Schema.Struct({
  type: Schema.Literal("response.reasoning_summary_text.delta"),
  ...Seq,
  ...summaryRef,
  delta: Schema.String
})
/** @category schemas */
export const ResponsesReasoningSummaryTextDone = Schema.Struct({
  type: Schema.Literal("response.reasoning_summary_text.done"),
  ...Seq,
  ...summaryRef,
  text: Schema.String
})
/** The stream `error` event. @category schemas */
export const ResponsesErrorEvent = Schema.Struct({
  type: Schema.Literal("error"),
  ...Seq,
  code: Schema.optional(Schema.NullOr(Schema.String)),
  message: Schema.String,
  param: Schema.optional(Schema.NullOr(Schema.String))
})
/** An event of a type this library does not model (its `sequence_number` is still checked). @category schemas */
export const ResponsesUnknownEvent = Schema.Struct({
  type: Schema.Literal("unknown"),
  ...Seq,
  event: Schema.String,
  data: JsonValue
})
/** A `[DONE]` sentinel (not documented for responses; tolerated after the final event). @category schemas */
export const ResponsesDoneEvent = Schema.Struct({ type: Schema.Literal("done") })

/** Every responses stream event. @category schemas */
export const ResponsesEvent = Schema.Union([
  ResponsesCreated,
  ResponsesQueued,
  ResponsesInProgress,
  ResponsesCompleted,
  ResponsesFailed,
  ResponsesIncomplete,
  ResponsesOutputItemAdded,
  ResponsesOutputItemDone,
  ResponsesContentPartAdded,
  ResponsesContentPartDone,
  ResponsesOutputTextDelta,
  ResponsesOutputTextDone,
  ResponsesRefusalDelta,
  ResponsesRefusalDone,
  ResponsesFunctionCallArgumentsDelta,
  ResponsesFunctionCallArgumentsDone,
  ResponsesReasoningSummaryPartAdded,
  ResponsesReasoningSummaryTextDelta,
  ResponsesReasoningSummaryTextDone,
  ResponsesErrorEvent,
  ResponsesUnknownEvent,
  ResponsesDoneEvent
])
/** @category models */
export type ResponsesEvent = Schema.Schema.Type<typeof ResponsesEvent>

type EventDecoder = (payload: unknown, options?: DecodeOptions) => Result.Result<ResponsesEvent, DecodeError>
const entry = <A extends ResponsesEvent, I>(type: A["type"], schema: Schema.Codec<A, I>): [string, EventDecoder] => [
  type,
  decodeWith(schema, "openai", `${type} event`)
]

/**
 * The error event as the API reference has it (`code`, `message`, `param` at the top) or as the live
 * API is reported to send it (the same under `error`, with `type`): the nested fields stand in for
 * absent top-level ones, so either is the one `ResponsesErrorEvent`.
 */
const liftedError =
  (decode: EventDecoder): EventDecoder =>
  (payload, options) => {
    if (!isRecord(payload) || !isRecord(payload.error)) return decode(payload, options)
    const nested = payload.error
    return decode(
      {
        ...payload,
        code: payload.code ?? nested.code ?? nested.type ?? null,
        message: payload.message ?? nested.message,
        param: payload.param ?? nested.param ?? null
      },
      options
    )
  }

/** One decoder per known event type, so a malformed event's error names only its own shape. */
const BY_TYPE: ReadonlyMap<string, EventDecoder> = new Map([
  entry("response.created", ResponsesCreated),
  entry("response.queued", ResponsesQueued),
  entry("response.in_progress", ResponsesInProgress),
  entry("response.completed", ResponsesCompleted),
  entry("response.failed", ResponsesFailed),
  entry("response.incomplete", ResponsesIncomplete),
  entry("response.output_item.added", ResponsesOutputItemAdded),
  entry("response.output_item.done", ResponsesOutputItemDone),
  entry("response.content_part.added", ResponsesContentPartAdded),
  entry("response.content_part.done", ResponsesContentPartDone),
  entry("response.output_text.delta", ResponsesOutputTextDelta),
  entry("response.output_text.done", ResponsesOutputTextDone),
  entry("response.refusal.delta", ResponsesRefusalDelta),
  entry("response.refusal.done", ResponsesRefusalDone),
  entry("response.function_call_arguments.delta", ResponsesFunctionCallArgumentsDelta),
  entry("response.function_call_arguments.done", ResponsesFunctionCallArgumentsDone),
  entry("response.reasoning_summary_part.added", ResponsesReasoningSummaryPartAdded),
  entry("response.reasoning_summary_text.delta", ResponsesReasoningSummaryTextDelta),
  entry("response.reasoning_summary_text.done", ResponsesReasoningSummaryTextDone),
  ["error", liftedError(decodeWith(ResponsesErrorEvent, "openai", "error event"))]
])
const decodeUnknownEvent = decodeWith(ResponsesUnknownEvent, "openai", "responses event")

/**
 * Decodes one SSE record: `[DONE]` → `{ type: "done" }`; a known `type` (payload first, else the SSE
 * event name) → its event; any other type → `ResponsesUnknownEvent`. Never throws.
 * @category decoding
 */
export const decodeResponsesEventEither = (
  record: SseRecord,
  options?: DecodeOptions
): Result.Result<ResponsesEvent, DecodeError> => guarded("openai", "responses event", decodeRecord, record, options)

// Module-level (no closure per event), run by `guarded` so that whatever it throws becomes a `DecodeError`.
const decodeRecord = (
  record: SseRecord,
  options: DecodeOptions | undefined
): Result.Result<ResponsesEvent, DecodeError> => {
  if (typeof record.data === "string" && record.data.trim() === "[DONE]")
    return Result.succeed({ type: "done" as const })
  const parsed = parseJsonText(record.data, "openai", "responses event", options)
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const payload = parsed.success
  const typed = typedPayload(payload, record.event)
  const decode = BY_TYPE.get(typed.type)
  if (decode !== undefined) return decode(typed.payload, options)
  const seq =
    typeof payload === "object" && payload !== null
      ? (payload as { sequence_number?: unknown }).sequence_number
      : undefined
  return decodeUnknownEvent(
    { type: "unknown", event: typed.type, data: payload, ...(typeof seq === "number" ? { sequence_number: seq } : {}) },
    wrappedOnce(options)
  )
}

/** Decodes one SSE record into a responses event, failing with a `DecodeError` (family `openai`). @category decoding */
export const decodeResponsesEvent = (
  record: SseRecord,
  options?: DecodeOptions
): Effect.Effect<ResponsesEvent, DecodeError> => Effect.fromResult(decodeResponsesEventEither(record, options))

/** Decodes a non-stream responses body (already parsed JSON); never throws. @category decoding */
export const decodeResponsesResponse: (
  body: unknown,
  options?: DecodeOptions
) => Result.Result<ResponsesResponse, DecodeError> = decodeWith(ResponsesResponse, "openai", "responses response")

/** The concatenated `output_text` of every message item (what SDKs call `output_text`; not on the wire). @category getters */
export const responsesOutputText = (response: ResponsesResponse): string => {
  let text = ""
  for (const item of response.output) {
    if (!isResponsesItem(item, "message")) continue
    for (const part of item.content) if (isResponsesPart(part, "output_text")) text += part.text
  }
  return text
}
