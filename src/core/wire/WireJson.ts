/**
 * Reading JSON from the wire safely: Schemas for values passed through opaquely (with
 * `__proto__`-style keys dropped), parsing JSON text, and the one decode path every decoder of the
 * core shares (depth bound, unsafe keys dropped, failures as a `DecodeError` that never quotes the value).
 */
import { Either, ParseResult, Schema } from "effect"
import { DecodeError, type Family } from "../errors/GatewayError.js"
import { isRecord, type Json, sanitize } from "../validation/Rules.js"
import { redactText } from "../errors/Redact.js"
import { defaultMaxJsonDepth, exceedsJsonDepth, parsedTreeDepth } from "./JsonSafety.js"
import * as FastDecode from "./FastDecode.js"

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

/**
 * Options of every decoder: `maxDepth` is the deepest nesting accepted (adapters pass
 * `config.limits.maxJsonDepth`; default `defaultMaxJsonDepth`, 64).
 * @category models
 */
export interface DecodeOptions {
  readonly maxDepth?: number
}

/**
 * The depth bound `options` sets, else `defaultMaxJsonDepth`. Decoders are also passed as callbacks
 * (`array.map(decode)`), so a non-object argument is ignored.
 * @category decoding
 */
export const maxDepthOf = (options: unknown): number => {
  const n = typeof options === "object" && options !== null ? (options as DecodeOptions).maxDepth : undefined
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : defaultMaxJsonDepth
}

const depthMessage = (what: string, maxDepth: number): string => `${what}: nesting deeper than ${maxDepth} levels (the JSON depth bound)`

// How much of one schema issue an error message carries; the value itself never (see formatDecodeIssues).
const maxIssues = 3
const maxIssueChars = 160

// An input key is shown in a path only when it reads as a field name; anything else could be the
// value an attacker (or an echoing server) chose, such as a key.
const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0
    ? "(top level)"
    : path
        .map((k, i) =>
          typeof k === "number" ? `[${k}]` : typeof k === "string" && /^[A-Za-z_$][\w$-]{0,39}$/.test(k) ? (i === 0 ? k : `.${k}`) : "[…]"
        )
        .join("")

/**
 * What a schema failure says in an error: the path and the expected type of the first few issues,
 * never the offending value (a 200 answer failing its schema can carry the API key). Effect's
 * formatters append `, actual <value>`; that part is cut, and the rest is bounded by `redactText`.
 * @category decoding
 */
export const formatDecodeIssues = (error: ParseResult.ParseError): string => {
  let issues: ReadonlyArray<ParseResult.ArrayFormatterIssue>
  try {
    issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  } catch {
    return "does not match the expected shape"
  }
  // A union reports every member's issue; the members whose `type` did not match say least, and
  // the deepest issue is usually the one that tells what is wrong.
  const wrongMember = (issue: ParseResult.ArrayFormatterIssue) => issue.path.at(-1) === "type" && issue.message.startsWith('Expected "')
  const ranked = [...issues].sort((a, b) => Number(wrongMember(a)) - Number(wrongMember(b)) || b.path.length - a.path.length)
  // One line per path: a union's alternatives at the same place read `Expected "a" | "b"`.
  const byPath = new Map<string, Array<string>>()
  for (const issue of ranked) {
    const cut = issue.message.indexOf(", actual ")
    const message = (cut === -1 ? issue.message : issue.message.slice(0, cut)).replace(/\bStruct \((?:Encoded|Type) side\)/g, "an object")
    const where = pathText(issue.path)
    byPath.set(where, [...(byPath.get(where) ?? []), message])
  }
  const lines = [...byPath].map(([where, messages]) => {
    const expected = messages.filter((m) => m.startsWith("Expected ")).map((m) => m.slice("Expected ".length))
    const other = messages.filter((m) => !m.startsWith("Expected "))
    const text = [...other, ...(expected.length > 0 ? [`Expected ${expected.join(" | ")}`] : [])].join("; ")
    return `${where}: ${redactText(text, [], maxIssueChars)}`
  })
  const shown = lines.slice(0, maxIssues)
  const more = lines.length > maxIssues ? ` (and ${lines.length - maxIssues} more)` : ""
  return shown.length === 0 ? "does not match the expected shape" : `${shown.join("; ")}${more}`
}

/**
 * The tree `parseJsonText` made last, when it has no unsafe key, and its depth: a decoder given that
 * very tree next skips the depth walk and the sanitising copy (both already answered by the one walk
 * after parsing). One slot, taken by the first decoder that looks: a stream's events are parsed and
 * decoded one after the other, and a slot costs nothing where a `WeakMap` entry per event measured
 * about 0.8 µs per decoded event (its set, and its weight on the garbage collector).
 */
let parsedTree: object | undefined
let parsedTreeDepthOf = 0

/** What `parseJsonTree` gives for a tree nested deeper than the bound. @category decoding */
export const TooDeep: unique symbol = Symbol.for("umg/core/WireJson/TooDeep")

/**
 * Parses JSON text (throwing the parser's own error) and checks its nesting: the tree, or `TooDeep`.
 * A tree found clean is marked, so the decoder it is handed to next skips the depth walk and the
 * sanitising copy. The one parse of answers (the transport) and of stream events (`parseJsonText`).
 * @category decoding
 */
export const parseJsonTree = (text: string, maxDepth: number): unknown => {
  const json: unknown = JSON.parse(text)
  if (json === null || typeof json !== "object") return json
  const depth = parsedTreeDepth(json, maxDepth)
  if (depth !== -1) {
    parsedTree = json
    parsedTreeDepthOf = depth
    return json
  }
  // Too deep, or a key a decoder must not see: the general check tells which.
  return exceedsJsonDepth(json, maxDepth) ? TooDeep : json
}

/**
 * Parses JSON text and checks its nesting against the depth bound; never throws. The parser's own
 * message is not kept (it quotes the text), only the position it names.
 * @category decoding
 */
export const parseJsonText = (
  text: unknown,
  family: Family,
  what: string,
  options?: DecodeOptions
): Either.Either<unknown, DecodeError> => {
  if (typeof text !== "string") return Either.left(new DecodeError({ family, what, message: `${what}: expected text data` }))
  const maxDepth = maxDepthOf(options)
  try {
    const json = parseJsonTree(text, maxDepth)
    return json === TooDeep ? Either.left(new DecodeError({ family, what, message: depthMessage(what, maxDepth) })) : Either.right(json)
  } catch (e) {
    const position = e instanceof Error ? /at position (\d+)/.exec(e.message)?.[1] : undefined
    return Either.left(new DecodeError({ family, what, message: `${what}: data is not JSON${position ? ` (at position ${position})` : ""}` }))
  }
}

/**
 * Decodes an unknown value with a Schema, mapping any failure to a `DecodeError`; never throws, on
 * any input. The one shared decode path: the value is first checked against the depth bound (a cycle
 * counts as too deep), then copied without `__proto__`/`constructor`/`prototype` keys, then decoded;
 * a value that cannot be read (a throwing getter, a Proxy) is a `DecodeError` too.
 * @category decoding
 */
export const decodeWith = <A, I>(schema: Schema.Schema<A, I>, family: Family, what: string) => {
  const decode = Schema.decodeUnknownEither(schema)
  // Compiled from the Schema's AST on first use; the Schema decodes whatever it cannot tell.
  let fast: ((input: unknown) => unknown) | undefined
  const fail = (message: string) => Either.left(new DecodeError({ family, what, message: `${what}: ${message}` }))
  return (input: unknown, options?: DecodeOptions): Either.Either<A, DecodeError> => {
    const maxDepth = maxDepthOf(options)
    try {
      // A tree `parseJsonText` just parsed and found clean is decoded as it is: no walk, no copy.
      const parsedDepth = input === parsedTree && parsedTree !== undefined ? parsedTreeDepthOf : undefined
      parsedTree = undefined
      if (parsedDepth !== undefined ? parsedDepth > maxDepth : exceedsJsonDepth(input, maxDepth))
        return Either.left(new DecodeError({ family, what, message: depthMessage(what, maxDepth) }))
      const clean = parsedDepth !== undefined ? input : sanitize(input)
      fast ??= FastDecode.compile(schema.ast)
      const quick = fast(clean)
      if (quick !== FastDecode.NoMatch && quick !== FastDecode.Unknown) return Either.right(quick as A)
      const result = decode(clean)
      return Either.isRight(result) ? Either.right(result.right) : fail(formatDecodeIssues(result.left))
    } catch {
      return fail("the value could not be read as JSON data")
    }
  }
}

/**
 * The options for decoding a payload after wrapping it once (`{ type, chunk: payload }`): one level
 * more, so the payload itself keeps the whole bound it was parsed with.
 * @category decoding
 */
export const wrappedOnce = (options: DecodeOptions | undefined): DecodeOptions => ({ maxDepth: maxDepthOf(options) + 1 })

/**
 * Runs a decoder step that reads outside input (an SSE record's fields can be getters, a frame a
 * Proxy): whatever it throws becomes a `DecodeError`, so the decoder stays total.
 * @category decoding
 */
export const guarded: {
  <A>(family: Family, what: string, run: () => Either.Either<A, DecodeError>): Either.Either<A, DecodeError>
  // The step's inputs passed through, so a hot decoder's step needs no closure per call.
  <A, X, Y>(family: Family, what: string, run: (x: X, y: Y) => Either.Either<A, DecodeError>, x: X, y: Y): Either.Either<A, DecodeError>
} = <A, X, Y>(family: Family, what: string, run: (x?: X, y?: Y) => Either.Either<A, DecodeError>, x?: X, y?: Y): Either.Either<A, DecodeError> => {
  try {
    return run(x, y)
  } catch {
    return Either.left(new DecodeError({ family, what, message: `${what}: the value could not be read as JSON data` }))
  }
}

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
