/**
 * Schemas of the native-content (zeta) `GenerateContentResponse`: the unary answer and, in the same
 * shape, each chunk of `streamGenerateContent?alt=sse`, plus the decoder of one stream record.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { DecodeError } from "../../errors/GatewayError.js"
import { firstCandidate } from "./FirstCandidate.js"
import {
  type DecodeOptions,
  decodeWith,
  guarded,
  JsonObject,
  JsonValue,
  parseJsonText,
  type SseRecord
} from "../../wire/WireJson.js"

/** Base64 bytes with their MIME type (images and audio out, media in). @category schemas */
export const NativeBlob = Schema.Struct({ mimeType: Schema.String, data: Schema.String })

/** A function call; `args` is a JSON object, never a string; `id` is optional. @category schemas */
export const NativeFunctionCall = Schema.Struct({
  name: Schema.String,
  args: Schema.optional(JsonObject),
  id: Schema.optional(Schema.String)
})

/**
 * One part. Exactly one data field per part upstream, with `thought` and `thoughtSignature` as
 * flags that can accompany it; every field is optional here, and any other field (a newer kind of
 * part, a newer flag) is kept as it came, so a part umg does not know reaches the caller whole.
 * @category schemas
 */
export const NativePart = Schema.StructWithRest(
  Schema.Struct({
    text: Schema.optional(Schema.String),
    thought: Schema.optional(Schema.Boolean),
    thoughtSignature: Schema.optional(Schema.String),
    inlineData: Schema.optional(NativeBlob),
    fileData: Schema.optional(Schema.Struct({ mimeType: Schema.optional(Schema.String), fileUri: Schema.String })),
    functionCall: Schema.optional(NativeFunctionCall),
    functionResponse: Schema.optional(JsonObject),
    executableCode: Schema.optional(JsonObject),
    codeExecutionResult: Schema.optional(JsonObject),
    videoMetadata: Schema.optional(JsonObject)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
/** @category models */
export type NativePart = Schema.Schema.Type<typeof NativePart>

/** A turn: `role` `model` in answers; the last stream chunk may carry no `parts`. @category schemas */
export const NativeContent = Schema.Struct({
  role: Schema.optional(Schema.String),
  parts: Schema.optional(Schema.Array(NativePart))
})
/** @category models */
export type NativeContent = Schema.Schema.Type<typeof NativeContent>

/**
 * One candidate. `finishReason` is `STOP`, `MAX_TOKENS`, `SAFETY`, … (kept a string so newer values
 * decode); in a stream it appears only on the last chunk.
 * @category schemas
 */
export const NativeCandidate = Schema.Struct({
  content: Schema.optional(NativeContent),
  finishReason: Schema.optional(Schema.String),
  index: Schema.optional(Schema.Number),
  safetyRatings: Schema.optional(Schema.Array(JsonValue)),
  citationMetadata: Schema.optional(JsonValue),
  groundingMetadata: Schema.optional(JsonValue),
  avgLogprobs: Schema.optional(Schema.Number),
  finishMessage: Schema.optional(Schema.String)
})
/** @category models */
export type NativeCandidate = Schema.Schema.Type<typeof NativeCandidate>

const ModalityCounts = Schema.optional(Schema.Array(JsonValue))

/** Token usage; in a stream every chunk carries the cumulative counts so far. @category schemas */
export const NativeUsageMetadata = Schema.Struct({
  promptTokenCount: Schema.optional(Schema.Number),
  candidatesTokenCount: Schema.optional(Schema.Number),
  thoughtsTokenCount: Schema.optional(Schema.Number),
  toolUsePromptTokenCount: Schema.optional(Schema.Number),
  cachedContentTokenCount: Schema.optional(Schema.Number),
  totalTokenCount: Schema.optional(Schema.Number),
  promptTokensDetails: ModalityCounts,
  candidatesTokensDetails: ModalityCounts,
  cacheTokensDetails: ModalityCounts,
  toolUsePromptTokensDetails: ModalityCounts,
  trafficType: Schema.optional(Schema.String),
  serviceTier: Schema.optional(Schema.String)
})
/** @category models */
export type NativeUsageMetadata = Schema.Schema.Type<typeof NativeUsageMetadata>

/** Present only when the prompt was blocked (then there are no candidates). @category schemas */
export const NativePromptFeedback = Schema.Struct({
  blockReason: Schema.optional(Schema.String),
  blockReasonMessage: Schema.optional(Schema.String),
  safetyRatings: Schema.optional(Schema.Array(JsonValue))
})

/**
 * `GenerateContentResponse`. Unknown top-level fields (such as `turnToken`) are dropped.
 * @category schemas
 */
export const GenerateContentResponse = Schema.Struct({
  candidates: Schema.optional(Schema.Array(NativeCandidate)),
  promptFeedback: Schema.optional(NativePromptFeedback),
  usageMetadata: Schema.optional(NativeUsageMetadata),
  modelVersion: Schema.optional(Schema.String),
  createTime: Schema.optional(Schema.String),
  responseId: Schema.optional(Schema.String)
})
/** @category models */
export type GenerateContentResponse = Schema.Schema.Type<typeof GenerateContentResponse>

/** The error object of a chunk that reports a failure mid-stream. @category schemas */
export const NativeStreamError = Schema.Struct({
  code: Schema.optional(Schema.Number),
  message: Schema.optional(Schema.String),
  status: Schema.optional(Schema.String),
  details: Schema.optional(JsonValue)
})

/** One stream chunk: a `GenerateContentResponse` carrying only the new parts, or an `error`. @category schemas */
export const NativeChunk = Schema.Struct({
  ...GenerateContentResponse.fields,
  error: Schema.optional(NativeStreamError)
})
/** @category models */
export type NativeChunk = Schema.Schema.Type<typeof NativeChunk>

/** Decodes a unary native-content response body (already parsed JSON); never throws. @category decoding */
export const decodeGenerateContentResponse: (
  body: unknown,
  options?: DecodeOptions
) => Result.Result<GenerateContentResponse, DecodeError> = decodeWith(
  GenerateContentResponse,
  "native",
  "native-content response"
)

const decodeChunkValue = decodeWith(NativeChunk, "native", "native-content stream chunk")

/** Decodes one SSE record (data-only, no `[DONE]`) into a chunk; never throws. @category decoding */
export const decodeNativeChunkEither = (
  record: SseRecord,
  options?: DecodeOptions
): Result.Result<NativeChunk, DecodeError> =>
  guarded("native", "native-content stream chunk", decodeRecord, record, options)

// Module-level (no closure per event), run by `guarded` so that whatever it throws becomes a `DecodeError`.
const decodeRecord = (
  record: SseRecord,
  options: DecodeOptions | undefined
): Result.Result<NativeChunk, DecodeError> => {
  const parsed = parseJsonText(record.data, "native", "native-content stream chunk", options)
  return Result.isFailure(parsed) ? Result.fail(parsed.failure) : decodeChunkValue(parsed.success, options)
}

/** Decodes one SSE record into a chunk, failing with a `DecodeError` (family `native`). @category decoding */
export const decodeNativeChunk = (
  record: SseRecord,
  options?: DecodeOptions
): Effect.Effect<NativeChunk, DecodeError> => Effect.fromResult(decodeNativeChunkEither(record, options))

/** The concatenated non-thought text of the first candidate. @category getters */
export const nativeText = (response: GenerateContentResponse): string => {
  let text = ""
  for (const part of firstCandidate(response)?.content?.parts ?? [])
    if (part.text !== undefined && part.thought !== true) text += part.text
  return text
}
