/** The embeddings body (E12) checked before sending, and its response decoded to `Float32Array`s, float or base64 alike. */
import { Effect, Either, Schema } from "effect"
import * as Base64 from "../wire/Base64.js"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { ensureRoute } from "../gateway/Routing.js"
import { type EmbeddingModel, embeddingModelOf, embeddingSizes, type RoutingOptions } from "../gateway/Catalog.js"
import { type WithExtra, closedBody, guardReads } from "../validation/Closed.js"
import { at, describe, fail, number, oneOf, optional, requiredString, sanitize } from "../validation/Rules.js"

/**
 * The embedding models of E12 and their native sizes, read from the one model catalog. Extend the
 * catalog (`extendRouteCatalog([{ match: { exact: id }, capabilities: ["embeddings"], embedding: {…} }])`)
 * and pass it as `catalog`. A model the catalog has no size for may carry any positive `dimensions`
 * (only the gateway can refuse a size too large).
 * @category models
 */
export const embeddingModels: Readonly<Record<string, EmbeddingModel>> = embeddingSizes()

/** The two encodings of E12. @category models */
export const EncodingFormat = Schema.Literal("float", "base64")
/** @category models */
export type EncodingFormat = typeof EncodingFormat.Type

/** The embeddings request body (closed: other fields go in `extra`). @category schemas */
export const EmbeddingsBody = Schema.Struct({
  model: Schema.String,
  input: Schema.String,
  encoding_format: Schema.optional(EncodingFormat),
  dimensions: Schema.optional(Schema.Int),
  user: Schema.optional(Schema.String)
})
/** @category models */
export type EmbeddingsBody = typeof EmbeddingsBody.Type
/** An embeddings body as callers write it, with the `extra` escape hatch. @category models */
export type EmbeddingsBodyInput = WithExtra<EmbeddingsBody>

/** Options of `buildEmbeddingsBody`: the catalog (with the models' sizes) and `allowUnknownModels`. @category models */
export type EmbeddingsOptions = RoutingOptions

const embeddingsBody = closedBody(EmbeddingsBody, "an embeddings body")

/**
 * Validates an embeddings request. `input` is ONE string (an array is refused and points to
 * `embedMany`). `encoding_format` is left out when not given, so the gateway's default (`float`)
 * applies and the minimal payload stays minimal; `decodeEmbeddings` reads both encodings anyway.
 * `dimensions` is an integer from 1 to the model's native size, only for models that support it.
 * @category constructors
 */
export const buildEmbeddingsBody = (input: unknown, options: EmbeddingsOptions = {}): Effect.Effect<EmbeddingsBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* embeddingsBody.open(input)
    const model = yield* requiredString(obj, "model")
    yield* ensureRoute(model, "embeddings", options)
    const text = optional(obj, "input")
    if (Array.isArray(text))
      return yield* fail(
        "input",
        "one-text",
        `input: ${describe(text)} given; one request embeds one string; use embedMany for several texts`
      )
    if (typeof text !== "string" || text.length === 0)
      return yield* fail("input", text === undefined ? "required" : "type", `input: expected a non-empty string, got ${describe(text)}`)
    const body: Record<string, unknown> = { model, input: text }
    const user = optional(obj, "user")
    if (user !== undefined) body.user = sanitize(user)
    const format = optional(obj, "encoding_format")
    if (format !== undefined) body.encoding_format = yield* oneOf(format, "encoding_format", ["float", "base64"])
    const dims = optional(obj, "dimensions")
    if (dims !== undefined) {
      const known = embeddingModelOf(model, options)
      if (known !== undefined && !known.supportsDimensions)
        return yield* fail(
          "dimensions",
          "not-supported",
          `dimensions: ${describe(dims)} given, but ${model} has a fixed size of ${known.nativeDimensions}; leave dimensions out`
        )
      body.dimensions = yield* number(dims, "dimensions", {
        integer: true,
        min: 1,
        ...(known !== undefined ? { max: known.nativeDimensions } : {}),
        context: model
      })
    }
    return yield* embeddingsBody.seal(obj, body)
  }))

/** One embedding as the gateway sends it: floats, or base64 of little-endian float32. @category schemas */
export const EmbeddingItem = Schema.Struct({
  object: Schema.Literal("embedding"),
  index: Schema.NonNegativeInt,
  embedding: Schema.Union(Schema.Array(Schema.Number), Schema.String)
})

/** The embeddings response. `usage` is documented but tolerated missing. @category schemas */
export const EmbeddingsResponse = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(EmbeddingItem),
  model: Schema.String,
  usage: Schema.optional(Schema.Struct({ prompt_tokens: Schema.NonNegativeInt, total_tokens: Schema.NonNegativeInt }))
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
export const float32FromLittleEndian = (bytes: Uint8Array): Either.Either<Float32Array, string> => {
  if (bytes.length % 4 !== 0) return Either.left(`embedding has ${bytes.length} bytes, not a multiple of 4`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = new Float32Array(bytes.length / 4)
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true)
  return Either.right(out)
}

/** Encodes floats as the base64 of little-endian float32 that `encoding_format: "base64"` returns. @category encoding */
export const encodeEmbeddingBase64 = (floats: ArrayLike<number>): string => {
  const bytes = new Uint8Array(floats.length * 4)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < floats.length; i++) view.setFloat32(i * 4, floats[i]!, true)
  return Base64.encode(bytes)
}

const decodeError = (message: string): DecodeError => new DecodeError({ family: "openai", what: "embeddings response", message })

const decodeResponse = decodeWith(EmbeddingsResponse, "openai", "embeddings response")

/**
 * Decodes an embeddings response: float arrays become `Float32Array`s, base64 strings are decoded
 * strictly as little-endian float32 (length a multiple of 4 bytes). Fails with `DecodeError`, never throws.
 * @category decoding
 */
export const decodeEmbeddings = (json: unknown, options?: DecodeOptions): Effect.Effect<DecodedEmbeddings, DecodeError> =>
  Effect.suspend(() => {
    const parsed = decodeResponse(json, options)
    if (Either.isLeft(parsed)) return Effect.fail(parsed.left)
    const response = parsed.right
    const data: Array<{ index: number; embedding: Float32Array }> = []
    for (const [i, item] of response.data.entries()) {
      if (typeof item.embedding === "string") {
        const bytes = Base64.decode(item.embedding)
        const floats = Either.flatMap(bytes, float32FromLittleEndian)
        if (Either.isLeft(floats)) return Effect.fail(decodeError(`${at("data", i)}.embedding: ${floats.left}`))
        data.push({ index: item.index, embedding: floats.right })
      } else data.push({ index: item.index, embedding: Float32Array.from(item.embedding) })
    }
    data.sort((a, b) => a.index - b.index)
    return Effect.succeed({ model: response.model, data, ...(response.usage ? { usage: response.usage } : {}) })
  })
