/**
 * Reading JSON from the wire safely: Schemas for values passed through opaquely (with
 * `__proto__`-style keys dropped), parsing one SSE record's `data`, and schema failures turned into
 * a `DecodeError`, shared by the response and stream-event decoders of the text families.
 */
import { Either, ParseResult, Schema } from "effect"
import { DecodeError, type Family } from "../errors/GatewayError.js"
import { isRecord, type Json, sanitize } from "../validation/Rules.js"

// Why not `Schema.Record({ key: Schema.String, value: Schema.Unknown })` for opaque objects: its
// decoder assigns every key with `out[key] = …`, so an own `__proto__` key (which `JSON.parse`
// creates) would set the prototype of the decoded object. These schemas copy through `sanitize`.

const JsonObjectIn = Schema.declare((u: unknown): u is Json => isRecord(u), {
  identifier: "JsonObject",
  description: "a JSON object"
})

/** Any JSON object, passed through opaquely without `__proto__`/`constructor`/`prototype` keys. @category schemas */
export const JsonObject: Schema.Schema<Json> = Schema.transform(JsonObjectIn, Schema.typeSchema(JsonObjectIn), {
  strict: true,
  decode: (o) => sanitize(o) as Json,
  encode: (o) => o
})

/** Any value, passed through opaquely with unsafe keys dropped at every depth. @category schemas */
export const JsonValue: Schema.Schema<unknown> = Schema.transform(Schema.Unknown, Schema.Unknown, {
  strict: true,
  decode: (u) => sanitize(u),
  encode: (u) => u
})

/** A JSON object with a string `type` (an upstream block or item this library does not model). @category models */
export type OpaqueTagged = { readonly type: string; readonly [key: string]: unknown }

/**
 * A `{ type, … }` object whose `type` is none of `known`, passed through opaquely. Used as the last
 * member of a union so that new upstream block kinds decode, while a malformed known kind still fails.
 * @category schemas
 */
export const opaqueTagged = (known: ReadonlyArray<string>, identifier: string): Schema.Schema<OpaqueTagged> => {
  const knownSet: ReadonlySet<string> = new Set(known)
  const In = Schema.declare(
    (u: unknown): u is OpaqueTagged => isRecord(u) && typeof u["type"] === "string" && !knownSet.has(u["type"]),
    { identifier, description: `an object whose type is not one of ${known.join(", ")}` }
  )
  return Schema.transform(In, Schema.typeSchema(In), {
    strict: true,
    decode: (o) => sanitize(o) as OpaqueTagged,
    encode: (o) => o
  })
}

/** One SSE record as the parser dispatches it (only the fields the decoders read). @category models */
export interface SseRecord {
  readonly event: string
  readonly data: string
}

/** Parses JSON text; never throws. @category decoding */
export const parseJsonText = (text: unknown, family: Family, what: string): Either.Either<unknown, DecodeError> => {
  if (typeof text !== "string") return Either.left(new DecodeError({ family, what, message: `${what}: expected text data` }))
  try {
    return Either.right(JSON.parse(text))
  } catch (e) {
    return Either.left(
      new DecodeError({ family, what, message: `${what}: data is not JSON (${e instanceof Error ? e.message : "parse error"})` })
    )
  }
}

/** Decodes an unknown value with a Schema, mapping a parse failure to a `DecodeError`; never throws. @category decoding */
export const decodeWith =
  <A, I>(schema: Schema.Schema<A, I>, family: Family, what: string) =>
  (input: unknown): Either.Either<A, DecodeError> =>
    Either.mapLeft(
      Schema.decodeUnknownEither(schema)(input),
      (e) => new DecodeError({ family, what, message: `${what}: ${ParseResult.TreeFormatter.formatErrorSync(e)}` })
    )

/**
 * The `type` of an event payload: its own `type`, else the SSE `event` name (then also set on the
 * returned payload, so the event's schema sees it).
 * @category decoding
 */
export const typedPayload = (payload: unknown, sseEvent: unknown): { readonly type: string; readonly payload: unknown } => {
  if (isRecord(payload) && typeof payload["type"] === "string") return { type: payload["type"], payload }
  const type = typeof sseEvent === "string" ? sseEvent : "message"
  // Spreading defines own data properties, so a `__proto__` key stays inert data here.
  return { type, payload: isRecord(payload) ? { ...payload, type } : payload }
}
