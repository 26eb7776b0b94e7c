/** The rerank body (E13) checked before sending, and its response decoded against the documents that were sent. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { ensureRoute } from "../gateway/Routing.js"
import { type RoutingOptions } from "../gateway/Catalog.js"
import { type WithExtra, closedBody, buildWith, ModelId } from "../validation/Closed.js"
import { expected, NonBlank, nonEmptyArray, range } from "../validation/FieldRules.js"

/** A document to rank: a string, or an object with `text` (extra fields pass through). @category schemas */
export const RerankDocument = Schema.Union([
  Schema.String,
  Schema.StructWithRest(Schema.Struct({ text: Schema.String }), [Schema.Record(Schema.String, Schema.Unknown)])
])
/** @category models */
export type RerankDocument = typeof RerankDocument.Type

const PositiveInt = Schema.Int.pipe(range({ min: 1 }))

/**
 * The rerank request body (closed: other fields go in `extra`; a document object stays open); its
 * rules live here. `top_n` has no upper bound (E13: "integer, default all"): a `top_n` above the
 * number of documents keeps them all.
 * @category schemas
 */
export const RerankBody = Schema.Struct({
  model: ModelId,
  query: NonBlank,
  documents: nonEmptyArray(RerankDocument.pipe(expected("a string or an object with text"))),
  top_n: Schema.optionalKey(PositiveInt),
  return_documents: Schema.optionalKey(Schema.Boolean),
  max_chunks_per_doc: Schema.optionalKey(PositiveInt)
})
/** @category models */
export type RerankBody = typeof RerankBody.Type
/** A rerank body as callers write it, with the `extra` escape hatch. @category models */
export type RerankBodyInput = WithExtra<RerankBody>

const rerankBody = closedBody(RerankBody, "a rerank body")

/**
 * Validates a rerank request: `model` a rerank model of the catalog, then the Schema's rules (a
 * non-empty `query`, a non-empty `documents` array of strings or `{ text }` objects, integers of at
 * least 1 for `top_n` and `max_chunks_per_doc`, a boolean `return_documents`; `top_n` absent or above
 * the number of documents = all).
 * @category constructors
 */
export const buildRerankBody = (
  input: unknown,
  options: RoutingOptions = {}
): Effect.Effect<RerankBody, InvalidRequest> =>
  buildWith(() => rerankBody.build(input, (model) => ensureRoute(model, "rerank", options), { nameModel: false }))

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** One ranked result: the original document `index`, a score in 0..1, the document when asked for. @category schemas */
export const RerankResult = Schema.Struct({
  index: NonNegativeInt,
  relevance_score: Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 })),
  document: Schema.optionalKey(RerankDocument)
})

/** The rerank response; `model` and `usage` tolerated missing. @category schemas */
export const RerankResponse = Schema.Struct({
  model: Schema.optionalKey(Schema.String),
  results: Schema.Array(RerankResult),
  usage: Schema.optionalKey(Schema.Struct({ total_tokens: NonNegativeInt }))
})
/** @category models */
export type RerankResponse = typeof RerankResponse.Type

const decodeResponse = decodeWith(RerankResponse, "openai", "rerank response")

/**
 * Decodes a rerank response and checks every `index` points at one of the documents that were sent
 * (give them, or their count), at most once. Fails with `DecodeError`, never throws.
 * @category decoding
 */
export const decodeRerank = (
  json: unknown,
  documents: number | ReadonlyArray<unknown>,
  options?: DecodeOptions
): Effect.Effect<RerankResponse, DecodeError> =>
  Effect.suspend(() => {
    const documentCount = typeof documents === "number" ? documents : Array.isArray(documents) ? documents.length : 0
    const fail = (message: string) =>
      Effect.fail(new DecodeError({ family: "openai", what: "rerank response", message }))
    const parsed = decodeResponse(json, options)
    if (Result.isFailure(parsed)) return Effect.fail(parsed.failure)
    const seen = new Set<number>()
    for (const [i, result] of parsed.success.results.entries()) {
      if (result.index >= documentCount)
        return fail(`results[${i}].index: ${result.index} is not one of the ${documentCount} documents sent`)
      if (seen.has(result.index)) return fail(`results[${i}].index: ${result.index} appears twice`)
      seen.add(result.index)
    }
    return Effect.succeed(parsed.success)
  })
