/**
 * Schemas of the chat completions answer (`chat.completion`) and its stream (`chat.completion.chunk`
 * records, an in-stream `error` payload and the `[DONE]` sentinel), and the decoder of one SSE record.
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
  maxDepthOf,
  parseJsonText,
  type SseRecord,
  wrappedOnce
} from "../../wire/WireJson.js"
import { scanContentChunk } from "./ChatChunkScan.js"

/** Token usage (detail objects passed through). @category schemas */
export const ChatUsage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  total_tokens: Schema.Number,
  prompt_tokens_details: Schema.optional(Schema.NullOr(JsonValue)),
  completion_tokens_details: Schema.optional(Schema.NullOr(JsonValue))
})
/** @category models */
export type ChatUsage = Schema.Schema.Type<typeof ChatUsage>

/** A tool call of the answer; `arguments` is a JSON string (not parsed, as upstream sends it). @category schemas */
export const ChatToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})
/** @category models */
export type ChatToolCall = Schema.Schema.Type<typeof ChatToolCall>

/** The assistant message of a choice. @category schemas */
export const ChatMessage = Schema.Struct({
  role: Schema.String,
  content: Schema.NullOr(Schema.String).pipe(Schema.withDecodingDefault(Effect.succeed(null))),
  refusal: Schema.optional(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optional(Schema.Array(ChatToolCall)),
  annotations: Schema.optional(Schema.Array(JsonValue)),
  audio: Schema.optional(Schema.NullOr(JsonValue))
})
/** @category models */
export type ChatMessage = Schema.Schema.Type<typeof ChatMessage>

/** One choice; `finish_reason` is `stop`, `length`, `tool_calls`, `content_filter`, … @category schemas */
export const ChatChoice = Schema.Struct({
  index: Schema.Number,
  message: ChatMessage,
  finish_reason: Schema.NullOr(Schema.String),
  logprobs: Schema.optional(Schema.NullOr(JsonValue))
})
/** @category models */
export type ChatChoice = Schema.Schema.Type<typeof ChatChoice>

/** `chat.completion`: the non-stream answer, and what the stream accumulator rebuilds. @category schemas */
export const ChatCompletion = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("chat.completion"),
  created: Schema.Number,
  model: Schema.String,
  choices: Schema.Array(ChatChoice),
  usage: Schema.optional(Schema.NullOr(ChatUsage)),
  service_tier: Schema.optional(Schema.NullOr(Schema.String)),
  system_fingerprint: Schema.optional(Schema.NullOr(Schema.String))
})
/** @category models */
export type ChatCompletion = Schema.Schema.Type<typeof ChatCompletion>

/** A tool call fragment: the first per `index` carries `id` and `function.name`, later ones pieces of `arguments`. @category schemas */
export const ChatToolCallDelta = Schema.Struct({
  index: Schema.Number,
  id: Schema.optional(Schema.NullOr(Schema.String)),
  type: Schema.optional(Schema.NullOr(Schema.String)),
  function: Schema.optional(
    Schema.Struct({
      name: Schema.optional(Schema.NullOr(Schema.String)),
      arguments: Schema.optional(Schema.NullOr(Schema.String))
    })
  )
})
/** @category models */
export type ChatToolCallDelta = Schema.Schema.Type<typeof ChatToolCallDelta>

/** The delta of a chunk choice. @category schemas */
export const ChatDelta = Schema.Struct({
  role: Schema.optional(Schema.NullOr(Schema.String)),
  content: Schema.optional(Schema.NullOr(Schema.String)),
  refusal: Schema.optional(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optional(Schema.Array(ChatToolCallDelta))
})

/** One choice of a chunk; `finish_reason` is null until the choice's last chunk. @category schemas */
export const ChatChunkChoice = Schema.Struct({
  index: Schema.Number,
  delta: ChatDelta,
  finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
  logprobs: Schema.optional(Schema.NullOr(JsonValue))
})

/** `chat.completion.chunk`; the `include_usage` chunk has `choices: []` and the full `usage`. @category schemas */
export const ChatCompletionChunk = Schema.Struct({
  id: Schema.String,
  /** `chat.completion.chunk`; not checked, since nothing depends on it. */
  object: Schema.optional(Schema.String),
  created: Schema.Number,
  model: Schema.String,
  /** Absent is read as `[]` (some servers leave it out of the usage chunk). */
  choices: Schema.Array(ChatChunkChoice).pipe(Schema.withDecodingDefault(Effect.sync(() => []))),
  usage: Schema.optional(Schema.NullOr(ChatUsage)),
  service_tier: Schema.optional(Schema.NullOr(Schema.String)),
  system_fingerprint: Schema.optional(Schema.NullOr(Schema.String))
})
/** @category models */
export type ChatCompletionChunk = Schema.Schema.Type<typeof ChatCompletionChunk>

/** The OpenAI-style error object (in the HTTP envelope and in an in-stream error payload). @category schemas */
export const ChatStreamError = Schema.Struct({
  message: Schema.String,
  type: Schema.optional(Schema.NullOr(Schema.String)),
  code: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Number]))),
  param: Schema.optional(Schema.NullOr(Schema.String))
})

/** A chunk of the stream. @category schemas */
export const ChatChunkEvent = Schema.Struct({ type: Schema.Literal("chunk"), chunk: ChatCompletionChunk })
/** The literal `data: [DONE]`: the final event. @category schemas */
export const ChatDoneEvent = Schema.Struct({ type: Schema.Literal("done") })
/** A `data:` payload with a top-level `error` (or an SSE event named `error`). @category schemas */
export const ChatErrorEvent = Schema.Struct({ type: Schema.Literal("error"), error: ChatStreamError })

/** Every chat stream event. @category schemas */
export const ChatStreamEvent = Schema.Union([ChatChunkEvent, ChatDoneEvent, ChatErrorEvent])
/** @category models */
export type ChatStreamEvent = Schema.Schema.Type<typeof ChatStreamEvent>

/** Decodes a non-stream chat completions body (already parsed JSON); never throws. @category decoding */
export const decodeChatCompletion: (
  body: unknown,
  options?: DecodeOptions
) => Result.Result<ChatCompletion, DecodeError> = decodeWith(ChatCompletion, "openai", "chat completion")

const decodeChunk = decodeWith(ChatCompletionChunk, "openai", "chat completion chunk")
const decodeErrorEvent = decodeWith(ChatErrorEvent, "openai", "chat stream error")

/** The literal data of the final event. */
const DONE = "[DONE]"

/**
 * Decodes one SSE record: `[DONE]` → `{ type: "done" }`, a payload with a top-level `error` (or an
 * SSE event named `error`) → `{ type: "error" }`, anything else must be a chunk. Never throws.
 * @category decoding
 */
export const decodeChatEventEither = (
  record: SseRecord,
  options?: DecodeOptions
): Result.Result<ChatStreamEvent, DecodeError> =>
  guarded("openai", "chat completion chunk", decodeRecord, record, options)

// Module-level (no closure per event), run by `guarded` so that whatever it throws becomes a `DecodeError`.
const decodeRecord = (
  record: SseRecord,
  options: DecodeOptions | undefined
): Result.Result<ChatStreamEvent, DecodeError> => {
  const data = record.data
  if (typeof data === "string") {
    // Most records are content fragments in upstream's text: read directly (an `error` event never is).
    const content: ChatCompletionChunk | undefined =
      record.event === "error" ? undefined : scanContentChunk(data, maxDepthOf(options))
    if (content !== undefined) return Result.succeed({ type: "chunk" as const, chunk: content })
    if (data.trim() === DONE) return Result.succeed({ type: "done" as const })
  }
  const parsed = parseJsonText(data, "openai", "chat completion chunk", options)
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const payload = parsed.success
  if (isRecord(payload) && isRecord(payload["error"]))
    return decodeErrorEvent({ type: "error", error: payload["error"] }, wrappedOnce(options))
  if (record.event === "error") return decodeErrorEvent({ type: "error", error: payload }, wrappedOnce(options))
  // The chunk is decoded as parsed (a wrapper object would cost the parsed tree its clean mark: one
  // more walk and a copy per event), then wrapped.
  const chunk = decodeChunk(payload, options)
  return Result.isFailure(chunk)
    ? Result.fail(chunk.failure)
    : Result.succeed({ type: "chunk" as const, chunk: chunk.success })
}

/** Decodes one SSE record into a chat stream event, failing with a `DecodeError` (family `openai`). @category decoding */
export const decodeChatEvent = (
  record: SseRecord,
  options?: DecodeOptions
): Effect.Effect<ChatStreamEvent, DecodeError> => Effect.fromResult(decodeChatEventEither(record, options))
