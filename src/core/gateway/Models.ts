/**
 * The model list (E11) in its three formats (OpenAI, messages-style, native), which headers select
 * which, and one decoder that normalises any of them to the four-field model record.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { DecodeError } from "../errors/GatewayError.js"
import { isRecord } from "../validation/Rules.js"
import { type DecodeOptions, decodeWith } from "../wire/WireJson.js"
import { entryFor, isKnownModel } from "./Catalog.js"

/** The model record: only these four fields. @category schemas */
export const ModelRecord = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("model"),
  created: Schema.Int,
  owned_by: Schema.String
})
/** @category models */
export type ModelRecord = typeof ModelRecord.Type

/** OpenAI format: `{object: "list", data: [model record]}`. @category schemas */
export const OpenAiModelList = Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(ModelRecord) })

// RFC 3339 date-time, e.g. 2025-02-19T00:00:00Z or with an offset and fractional seconds.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/** Messages-style format: `{data: [{type: "model", id, display_name, created_at}], has_more, first_id, last_id}`. @category schemas */
export const MessagesModelList = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      type: Schema.Literal("model"),
      id: Schema.String,
      display_name: Schema.optionalKey(Schema.String),
      created_at: Schema.String.check(
        Schema.isPattern(RFC3339, { message: "created_at must be an RFC 3339 date-time" })
      )
    })
  ),
  has_more: Schema.optionalKey(Schema.Boolean),
  first_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  last_id: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** Native format: `{models: [{name: "models/<id>", displayName?, …}], nextPageToken?}`. @category schemas */
export const NativeModelList = Schema.Struct({
  models: Schema.Array(
    Schema.Struct({
      name: Schema.String.check(Schema.isStartingWith("models/")),
      displayName: Schema.optionalKey(Schema.String),
      description: Schema.optionalKey(Schema.String),
      supportedGenerationMethods: Schema.optionalKey(Schema.Array(Schema.String))
    })
  ),
  nextPageToken: Schema.optionalKey(Schema.String)
})

import type { ModelListFormat } from "./ModelListFormats.js"
export { type ModelListFormat, modelListFormats } from "./ModelListFormats.js"

/** A decoded model list: the records, and whether (and from where) a next page can be asked for. @category models */
export interface ModelList {
  readonly data: ReadonlyArray<ModelRecord>
  readonly hasMore: boolean
  /** messages-style: the `last_id` to pass as `after_id`; native: the `nextPageToken`. */
  readonly nextCursor?: string
}

// The neutral family words of the contract; a model id that starts with one is owned by it.
const FAMILIES = ["epsilon", "zeta", "alpha", "beta", "gamma", "delta"] as const

/**
 * `owned_by` for formats that lack it, as the openai format gives it: the contract's family word that
 * begins the id (`epsilon-…`, `zeta-…`, `alpha-2`, `gamma2.5-…`); else, for an id the model catalog
 * lists, `rerank` for a rerank model and `openai` for the others (`gpt-4o`, `text-embedding-3-small`,
 * `tts-1`); else the family whose format listed it (messages-style → `epsilon`, native → `zeta`).
 * @category accessors
 */
export const modelOwnerOf = (id: string, format: "messages" | "native"): string => {
  const family = FAMILIES.find((word) => id.startsWith(word))
  if (family !== undefined) return family
  if (isKnownModel(id)) return entryFor(id).capabilities.includes("rerank") ? "rerank" : "openai"
  return format === "messages" ? "epsilon" : "zeta"
}

const decoders = {
  openai: decodeWith(OpenAiModelList, "openai", "model list (openai format)"),
  messages: decodeWith(MessagesModelList, "openai", "model list (messages format)"),
  native: decodeWith(NativeModelList, "openai", "model list (native format)")
}

const normalise = (
  format: ModelListFormat,
  json: unknown,
  options: DecodeOptions | undefined
): Result.Result<ModelList, DecodeError> => {
  switch (format) {
    case "openai":
      return Result.map(decoders.openai(json, options), (list) => ({ data: list.data, hasMore: false }))
    case "messages":
      return Result.map(decoders.messages(json, options), (list) => ({
        data: list.data.map((m) => ({
          id: m.id,
          object: "model" as const,
          created: Math.floor(Date.parse(m.created_at.replace(" ", "T")) / 1000),
          owned_by: modelOwnerOf(m.id, "messages")
        })),
        hasMore: list.has_more === true,
        ...(list.has_more === true && typeof list.last_id === "string" ? { nextCursor: list.last_id } : {})
      }))
    case "native":
      return Result.map(decoders.native(json, options), (list) => ({
        // The native format carries no creation time; 0 says "unknown" and keeps `created` an integer.
        data: list.models.map((m) => {
          const id = m.name.slice("models/".length)
          return { id, object: "model" as const, created: 0, owned_by: modelOwnerOf(id, "native") }
        }),
        hasMore: list.nextPageToken !== undefined && list.nextPageToken !== "",
        ...(list.nextPageToken ? { nextCursor: list.nextPageToken } : {})
      }))
  }
}

/**
 * Decodes a model list in any of the three formats into four-field records. `created` is integer
 * seconds (messages-style `created_at` converted; native lists have none, so 0). Fails with
 * `DecodeError`, never throws.
 * @category decoding
 */
export const decodeModelList = (
  format: ModelListFormat,
  json: unknown,
  options?: DecodeOptions
): Effect.Effect<ModelList, DecodeError> =>
  Effect.suspend(() => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a JavaScript caller may pass any string; this call never throws
    if (format !== "openai" && format !== "messages" && format !== "native")
      return Effect.fail(
        new DecodeError({
          family: "openai",
          what: "model list",
          message: "model list: unknown format (openai, messages or native)"
        })
      )
    const result = normalise(format, json, options)
    if (Result.isFailure(result)) return Effect.fail(result.failure)
    const bad = result.success.data.findIndex((m) => !Number.isSafeInteger(m.created))
    return bad === -1
      ? Effect.succeed(result.success)
      : Effect.fail(
          new DecodeError({
            family: "openai",
            what: `model list (${format} format)`,
            message: `data[${bad}].created is not a valid time`
          })
        )
  })

/** The `anthropic-version` a messages-style model list asks with. @category models */
export const messagesApiVersion = "2023-06-01"

/**
 * The headers (and query) that make `GET /v1/models` answer in a format. Every gateway call carries
 * `authorization: Bearer <key>`; messages-style adds `x-api-key` + `anthropic-version`; native adds
 * `x-vendor-api-key` (a `?key=` query works too but puts the key in URLs and logs, so it is not used).
 * The result holds the key: send it, never log it.
 * @category constructors
 */
export const modelListHeaders = (format: ModelListFormat, key: string): Readonly<Record<string, string>> => {
  const authorization = { authorization: `Bearer ${key}` }
  switch (format) {
    case "messages":
      return { ...authorization, "x-api-key": key, "anthropic-version": messagesApiVersion }
    case "native":
      return { ...authorization, "x-vendor-api-key": key }
    default:
      return authorization
  }
}

/**
 * The format the gateway will answer in, read from request headers (lower-cased names) and query,
 * by the rule of E11: `x-api-key` with `anthropic-version` → messages; `x-vendor-api-key` or `key` → native; else openai.
 * @category routing
 */
export const modelListFormatFor = (
  headers: Readonly<Record<string, string | undefined>>,
  query: Readonly<Record<string, string | undefined>> = {}
): ModelListFormat => {
  // Pure and total: anything that is not a plain record reads as "no headers".
  const has = (r: unknown, k: string) => isRecord(r) && Object.hasOwn(r, k) && typeof r[k] === "string"
  if (has(headers, "x-api-key") && has(headers, "anthropic-version")) return "messages"
  if (has(headers, "x-vendor-api-key") || has(query, "key")) return "native"
  return "openai"
}
