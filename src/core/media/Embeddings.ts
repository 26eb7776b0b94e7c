/** The embeddings body (E12) checked before sending, and its response decoded to `Float32Array`s, float or base64 alike. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Base64 from "../wire/Base64.js"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { ensureRoute } from "../gateway/Routing.js"
import { type EmbeddingModel, embeddingModelOf, embeddingSizes, type RoutingOptions } from "../gateway/Catalog.js"
import { type WithExtra, closedBody, buildWith, ModelId } from "../validation/Closed.js"
import { range, type RuleAnnotation, RuleAnnotationId, withRule } from "../validation/FieldRules.js"
import { at, describe, fail } from "../validation/Rules.js"

/**
 * The embedding models of E12 and their native sizes, read from the one model catalog. Extend the
 * catalog (`extendRouteCatalog([{ match: { exact: id }, capabilities: ["embeddings"], embedding: {…} }])`)
 * and pass it as `catalog`. A model the catalog has no size for may carry any positive `dimensions`
 * (only the gateway can refuse a size too large).
 * @category models
 */
export const embeddingModels: Readonly<Record<string, EmbeddingModel>> = embeddingSizes()

/** The two encodings of E12. @category models */
export const EncodingFormat = Schema.Literals(["float", "base64"])
/** @category models */
export type EncodingFormat = typeof EncodingFormat.Type

// One request embeds one string: an array is pointed to `embedMany`, any other kind named as usual.
const OneText = Schema.String.annotate({
  [RuleAnnotationId]: {
    rule: (value) => (Array.isArray(value) ? "one-text" : "type"),
    message: (field, value) =>
      Array.isArray(value)
        ? `${field}: ${describe(value)} given; one request embeds one string; use embedMany for several texts`
        : `${field}: expected a string, got ${describe(value)}`
  } satisfies RuleAnnotation
}).pipe(withRule<string>((s) => s.length > 0, { rule: "non-empty", message: (field) => `${field} must not be empty` }))

/** The embeddings request body (closed: other fields go in `extra`); its rules live here. @category schemas */
export const EmbeddingsBody = Schema.Struct({
  model: ModelId,
  input: OneText,
  encoding_format: Schema.optionalKey(EncodingFormat),
  dimensions: Schema.optionalKey(Schema.Int.pipe(range({ min: 1 }))),
  user: Schema.optionalKey(Schema.String)
})
/** @category models */
export type EmbeddingsBody = typeof EmbeddingsBody.Type
/** An embeddings body as callers write it, with the `extra` escape hatch. @category models */
export type EmbeddingsBodyInput = WithExtra<EmbeddingsBody>

/** Options of `buildEmbeddingsBody`: the catalog (with the models' sizes) and `allowUnknownModels`. @category models */
export type EmbeddingsOptions = RoutingOptions

const embeddingsBody = closedBody(EmbeddingsBody, "an embeddings body")

/**
 * Validates an embeddings request: `model` an embedding model of the catalog; `input` ONE non-empty
 * string (an array is refused and points to `embedMany`); `encoding_format` float or base64, left out
 * when not given, so the gateway's default (`float`) applies and the minimal payload stays minimal
 * (`decodeEmbeddings` reads both encodings anyway); `dimensions` an integer from 1 to the model's
 * native size (from the catalog), only for models that support it.
 * @category constructors
 */
export const buildEmbeddingsBody = (
  input: unknown,
  options: EmbeddingsOptions = {}
): Effect.Effect<EmbeddingsBody, InvalidRequest> =>
  buildWith(() => {
    const built = embeddingsBody.build(input, (model) => ensureRoute(model, "embeddings", options))
    if (Result.isFailure(built)) return built
    const body = built.success
    const model = body.model
    const known = embeddingModelOf(model, options)
    if (body.dimensions === undefined || known === undefined) return built
    if (!known.supportsDimensions)
      return fail(
        "dimensions",
        "not-supported",
        `dimensions: ${body.dimensions} given, but ${model} has a fixed size of ${known.nativeDimensions}; leave dimensions out`
      )
    if (body.dimensions > known.nativeDimensions)
      return fail(
        "dimensions",
        "range",
        `dimensions: ${body.dimensions} is out of range for ${model}; allowed: 1 to ${known.nativeDimensions}`
      )
    return built
  })

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** One embedding as the gateway sends it: floats, or base64 of little-endian float32. @category schemas */
export const EmbeddingItem = Schema.Struct({
  object: Schema.Literal("embedding"),
  index: NonNegativeInt,
  embedding: Schema.Union([Schema.Array(Schema.Number), Schema.String])
})

/** The embeddings response. `usage` is documented but tolerated missing. @category schemas */
export const EmbeddingsResponse = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(EmbeddingItem),
  model: Schema.String,
  usage: Schema.optionalKey(Schema.Struct({ prompt_tokens: NonNegativeInt, total_tokens: NonNegativeInt }))
})
/** @category models */
export type EmbeddingsResponse = typeof EmbeddingsResponse.Type

/** A decoded embeddings response: every vector a `Float32Array`, in `index` order. @category models */
export interface DecodedEmbeddings {
  readonly model: string
  readonly data: ReadonlyArray<{ readonly index: number; readonly embedding: Float32Array }>
  readonly usage?: { readonly prompt_tokens: number; readonly total_tokens: number }
}

/** Raw bytes of little-endian float32 as a `Float32Array`, whatever the host's byte order. @category decoding */
export const float32FromLittleEndian = (bytes: Uint8Array): Result.Result<Float32Array, string> => {
  if (bytes.length % 4 !== 0) return Result.fail(`embedding has ${bytes.length} bytes, not a multiple of 4`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = new Float32Array(bytes.length / 4)
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true)
  return Result.succeed(out)
}

/** Encodes floats as the base64 of little-endian float32 that `encoding_format: "base64"` returns. @category encoding */
export const encodeEmbeddingBase64 = (floats: ArrayLike<number>): string => {
  const bytes = new Uint8Array(floats.length * 4)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < floats.length; i++) view.setFloat32(i * 4, floats[i]!, true)
  return Base64.encode(bytes)
}

const decodeError = (message: string): DecodeError =>
  new DecodeError({ family: "openai", what: "embeddings response", message })

const decodeResponse = decodeWith(EmbeddingsResponse, "openai", "embeddings response")

/**
 * Decodes an embeddings response: float arrays become `Float32Array`s, base64 strings are decoded
 * strictly as little-endian float32 (length a multiple of 4 bytes); `data` holds at least one item.
 * Fails with `DecodeError`, never throws.
 * @category decoding
 */
export const decodeEmbeddings = (
  json: unknown,
  options?: DecodeOptions
): Effect.Effect<DecodedEmbeddings, DecodeError> =>
  Effect.suspend(() => {
    const parsed = decodeResponse(json, options)
    if (Result.isFailure(parsed)) return Effect.fail(parsed.failure)
    const response = parsed.success
    // One input was sent: an answer without its vector is not an answer.
    if (response.data.length === 0) return Effect.fail(decodeError("data is empty: the answer holds no embedding"))
    const data: Array<{ index: number; embedding: Float32Array }> = []
    for (const [i, item] of response.data.entries()) {
      if (typeof item.embedding === "string") {
        const bytes = Base64.decode(item.embedding)
        const floats = Result.flatMap(bytes, float32FromLittleEndian)
        if (Result.isFailure(floats)) return Effect.fail(decodeError(`${at("data", i)}.embedding: ${floats.failure}`))
        data.push({ index: item.index, embedding: floats.success })
      } else data.push({ index: item.index, embedding: Float32Array.from(item.embedding) })
    }
    data.sort((a, b) => a.index - b.index)
    return Effect.succeed({ model: response.model, data, ...(response.usage ? { usage: response.usage } : {}) })
  })
