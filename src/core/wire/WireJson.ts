/**
 * Reading JSON from the wire safely: Schemas for values passed through opaquely (with
 * `__proto__`-style keys dropped), parsing JSON text, and the one decode path every decoder of the
 * core shares (depth bound, unsafe keys dropped, failures as a `DecodeError` that never quotes the value).
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaParser from "effect/SchemaParser"
import { compileParsers } from "#umg/schema-jit"
import { DecodeError, type Family } from "../errors/GatewayError.js"
import { selectorsOf } from "../validation/Conform.js"
import { isRecord, type Json, sanitize } from "../validation/Rules.js"
import { redactText } from "../errors/Redact.js"
import {
  defaultMaxJsonDepth,
  exceedsJsonDepth,
  NOT_PLAIN,
  parsedTreeDepth,
  type PlainWalk,
  plainView,
  RECURSION_LIMIT,
  TOO_DEEP
} from "./JsonSafety.js"

// Why not `Schema.Record(Schema.String, Schema.Unknown)` for opaque objects: it would keep the keys it
// is given as they are. These schemas copy through `sanitize`, which drops `__proto__`-style keys.

// A declaration that accepts what `is` accepts and decodes it to its sanitized copy.
const sanitized = <T>(
  is: (u: unknown) => u is T,
  annotations: { readonly identifier: string; readonly expected: string }
) =>
  Schema.declareConstructor<T>()(
    [],
    () => (input, ast, options) =>
      // `sanitize` copies JSON-like data without unsafe keys: the copy of a `T` is a `T`.
      is(input) ? Effect.succeed(sanitize(input) as T) : Effect.fail(new SchemaIssue.InvalidType(ast, input, options)),
    annotations
  )

/** Any JSON object, passed through opaquely without `__proto__`/`constructor`/`prototype` keys. @category schemas */
export const JsonObject: Schema.Codec<Json> = sanitized((u: unknown): u is Json => isRecord(u), {
  identifier: "JsonObject",
  expected: "a JSON object"
})

/** Any value, passed through opaquely with unsafe keys dropped at every depth. @category schemas */
export const JsonValue: Schema.Codec<unknown> = sanitized((u: unknown): u is unknown => true, {
  identifier: "JsonValue",
  expected: "a JSON value"
})

/** A JSON object with a string `type` (an upstream block or item this library does not model). @category models */
export type OpaqueTagged = { readonly type: string; readonly [key: string]: unknown }

/**
 * A `{ type, … }` object whose `type` is none of `known`, passed through opaquely. Used as the last
 * member of a union so that new upstream block kinds decode, while a malformed known kind still fails.
 * @category schemas
 */
export const opaqueTagged = (known: ReadonlyArray<string>, identifier: string): Schema.Codec<OpaqueTagged> => {
  const knownSet: ReadonlySet<string> = new Set(known)
  return sanitized(
    (u: unknown): u is OpaqueTagged => isRecord(u) && typeof u["type"] === "string" && !knownSet.has(u["type"]),
    { identifier, expected: `an object whose type is not one of ${known.join(", ")}` }
  )
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

const depthMessage = (what: string, maxDepth: number): string =>
  `${what}: nesting deeper than ${maxDepth} levels (the JSON depth bound)`

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
          typeof k === "number"
            ? `[${k}]`
            : typeof k === "string" && /^[A-Za-z_$][\w$-]{0,39}$/.test(k)
              ? i === 0
                ? k
                : `.${k}`
              : "[…]"
        )
        .join("")

interface IssueLine {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const standard = SchemaIssue.makeFormatterStandardSchemaV1()

// "Expected string", "Expected \"a\" | \"b\"": Schema's own name of a type, never with the value.
const expectedOf = (ast: AST.AST): string =>
  standard(new SchemaIssue.InvalidType(ast)).issues[0]?.message ?? "Expected a valid value"

const representationOf = (
  filter: AST.Filter<never>
): { readonly id?: unknown; readonly payload?: unknown } | undefined => {
  const r = filter.annotations?.representation
  return typeof r === "object" && r !== null ? r : undefined
}

// A check's words: its own message, else what it expects, in the words these messages have always used
// ("a string matching the pattern …", "a number between 0 and 1").
const checkText = (filter: AST.Filter<never>, owner: AST.AST | undefined): string | undefined => {
  const annotations = filter.annotations
  if (typeof annotations?.message === "string") return annotations.message
  const representation = representationOf(filter)
  const payload = representation?.payload
  if (
    representation?.id === "effect/schema/isPattern" &&
    typeof payload === "object" &&
    payload !== null &&
    "source" in payload
  )
    return `Expected a string matching the pattern ${String(payload.source)}`
  const expected = annotations?.expected
  if (typeof expected !== "string") return undefined
  return `Expected ${owner !== undefined && AST.isNumber(owner) && expected.startsWith("a value ") ? `a number ${expected.slice("a value ".length)}` : expected}`
}

// A union whose members were all ruled out by a tag: one line per tag the value lacks or has wrong.
const tagLines = (union: AST.Union, value: unknown, path: ReadonlyArray<PropertyKey>): ReadonlyArray<IssueLine> => {
  if (!isRecord(value)) return []
  const out: Array<IssueLine> = []
  for (const [key, values] of selectorsOf(union)) {
    const given = Object.hasOwn(value, key) ? value[key as string] : undefined
    if (given !== undefined && values.some((v) => v === given)) continue
    const message =
      given === undefined && !Object.hasOwn(value, key)
        ? "is missing"
        : expectedOf(new AST.Union(values.map((v) => new AST.Literal(v))))
    out.push({ path: [...path, key], message })
  }
  return out
}

// Every failure an issue holds, each with its path and its words (never the value given).
const issueLines = (root: SchemaIssue.Issue): ReadonlyArray<IssueLine> => {
  const out: Array<IssueLine> = []
  const walk = (
    issue: SchemaIssue.Issue,
    path: ReadonlyArray<PropertyKey>,
    owner: AST.AST | undefined,
    override: string | undefined
  ): void => {
    switch (issue._tag) {
      case "Pointer":
        return walk(issue.issue, [...path, ...issue.path], undefined, override)
      case "Encoding":
        return walk(issue.issue, path, owner, override)
      case "Composite":
        for (const inner of issue.issues) walk(inner, path, issue.ast, override)
        return
      case "AnyOf": {
        // The members a tag rules out are not tried: their failure is the tag's.
        const tags =
          override === undefined ? tagLines(issue.ast, SchemaIssue.hasInput(issue) ? issue.input : undefined, path) : []
        out.push(...tags)
        for (const inner of issue.issues) walk(inner, path, undefined, override)
        if (tags.length === 0 && issue.issues.length === 0)
          out.push({ path, message: override ?? expectedOf(issue.ast) })
        return
      }
      case "Filter":
        return walk(issue.issue, path, owner, override ?? checkText(issue.filter, owner))
      case "InvalidType":
        out.push({ path, message: override ?? expectedOf(issue.ast) })
        return
      case "InvalidValue": {
        const message = issue.annotations?.message
        out.push({ path, message: override ?? (typeof message === "string" ? message : "Expected a valid value") })
        return
      }
      case "MissingKey":
        out.push({ path, message: override ?? "is missing" })
        return
      case "UnexpectedKey":
        out.push({ path, message: override ?? "is unexpected" })
        return
      case "Forbidden":
        out.push({ path, message: override ?? "is forbidden" })
        return
      case "OneOf":
        out.push({ path, message: override ?? "Expected exactly one member to match" })
        return
    }
  }
  walk(root, [], undefined, undefined)
  return out
}

/**
 * What a schema failure says in an error: the path and the expected type of the first few issues,
 * never the offending value (a 200 answer failing its schema can carry the API key). The words are
 * this module's own, made from the issue's types and checks, and bounded by `redactText`.
 * @category decoding
 */
export const formatDecodeIssues = (failure: SchemaIssue.Issue | { readonly issue: SchemaIssue.Issue }): string => {
  let issues: ReadonlyArray<IssueLine>
  try {
    issues = issueLines(SchemaIssue.isIssue(failure) ? failure : failure.issue)
  } catch {
    return "does not match the expected shape"
  }
  // A union reports every member's issue; the members whose `type` did not match say least, and
  // the deepest issue is usually the one that tells what is wrong.
  const wrongMember = (issue: IssueLine) => issue.path.at(-1) === "type" && issue.message.startsWith('Expected "')
  const ranked = [...issues].sort(
    (a, b) => Number(wrongMember(a)) - Number(wrongMember(b)) || b.path.length - a.path.length
  )
  // One line per path: a union's alternatives at the same place read `Expected "a" | "b"`.
  const byPath = new Map<string, Array<string>>()
  for (const issue of ranked) {
    const where = pathText(issue.path)
    const messages = byPath.get(where) ?? []
    if (!messages.includes(issue.message)) messages.push(issue.message)
    byPath.set(where, messages)
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
 * decoded one after the other, and a slot costs nothing where a `WeakMap` entry per event costs time
 * on every decoded event (its set, and its weight on the garbage collector; measured in
 * bench/sse-decode.bench.ts).
 */
let parsedTree: object | undefined
let parsedTreeDepthOf = 0

/**
 * The parsed tree `typedPayload` gave a `type` it did not have, until a decoder runs: the tree's own
 * decoder decodes it with the `type`, and the first decoder to run takes the `type` back, so the tree
 * is as parsed again for anything else (an unknown event keeps its payload as it came).
 */
let typedTree: Record<string, unknown> | undefined

/** The object `parseJsonTree` returned last (clean or not): `typedPayload` may type it in place too. */
let lastParsed: object | undefined

const untype = (): void => {
  if (typedTree !== undefined) {
    delete typedTree["type"]
    typedTree = undefined
  }
}

/** What `parseJsonTree` gives for a tree nested deeper than the bound. @category decoding */
export const TooDeep: unique symbol = Symbol.for("umg/core/WireJson/TooDeep")

/**
 * Parses JSON text (throwing the parser's own error) and checks its nesting: the tree, or `TooDeep`.
 * A tree found clean is marked, so the decoder it is handed to next skips the depth walk and the
 * sanitising copy. The one parse of answers (the transport) and of stream events (`parseJsonText`).
 * @category decoding
 */
export const parseJsonTree = (text: string, maxDepth: number): unknown => {
  untype()
  lastParsed = undefined
  const json: unknown = JSON.parse(text)
  if (json === null || typeof json !== "object") return json
  const depth = parsedTreeDepth(json, maxDepth)
  if (depth !== -1) {
    parsedTree = json
    parsedTreeDepthOf = depth
    lastParsed = json
    return json
  }
  // Too deep, or a key a decoder must not see: the same walk past such keys tells which.
  if (maxDepth > RECURSION_LIMIT ? exceedsJsonDepth(json, maxDepth) : parsedTreeDepth(json, maxDepth, true) === -1)
    return TooDeep
  lastParsed = json
  return json
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
): Result.Result<unknown, DecodeError> => {
  if (typeof text !== "string")
    return Result.fail(new DecodeError({ family, what, message: `${what}: expected text data` }))
  const maxDepth = maxDepthOf(options)
  try {
    const json = parseJsonTree(text, maxDepth)
    return json === TooDeep
      ? Result.fail(new DecodeError({ family, what, message: depthMessage(what, maxDepth) }))
      : Result.succeed(json)
  } catch (e) {
    const position = e instanceof Error ? /at position (\d+)/.exec(e.message)?.[1] : undefined
    return Result.fail(
      new DecodeError({
        family,
        what,
        message: `${what}: data is not JSON${position ? ` (at position ${position})` : ""}`
      })
    )
  }
}

/**
 * Decodes an unknown value with a Schema, mapping any failure to a `DecodeError`; never throws, on
 * any input. The one shared decode path: the value is checked against the depth bound (a cycle counts
 * as too deep) and decoded as its copy without `__proto__`/`constructor`/`prototype` keys (a big plain
 * value is decoded as that copy reads, without making it, and only the result is copied: refusing costs
 * no copy); a value that cannot be read (a throwing getter, a Proxy) is a `DecodeError` too.
 * @category decoding
 */
export const decodeWith = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, family: Family, what: string) => {
  // Compiled once, here, for every call of the decoder (by Effect's JIT compiler where the platform
  // allows it: `#umg/schema-jit`). The input is kept in the issues so a union's tags can be named; the
  // messages never quote it.
  compileParsers(schema.ast)
  const decode = SchemaParser.decodeUnknownResult(schema, { reportInput: true })
  const fail = (message: string) => Result.fail(new DecodeError({ family, what, message: `${what}: ${message}` }))
  const tooDeep = (maxDepth: number) =>
    Result.fail(new DecodeError({ family, what, message: depthMessage(what, maxDepth) }))
  const done = (result: Result.Result<S["Type"], SchemaIssue.Issue>): Result.Result<S["Type"], DecodeError> =>
    Result.isSuccess(result) ? Result.succeed(result.success) : fail(formatDecodeIssues(result.failure))
  return (input: unknown, options?: DecodeOptions): Result.Result<S["Type"], DecodeError> => {
    const maxDepth = maxDepthOf(options)
    try {
      // A tree `parseJsonText` just parsed and found clean is decoded as it is: no walk, no copy.
      if (input === parsedTree && parsedTree !== undefined) {
        parsedTree = undefined
        const tree = typedTree
        if (tree === undefined || input !== tree) {
          untype()
          return parsedTreeDepthOf > maxDepth ? tooDeep(maxDepth) : done(decode(input))
        }
        const type = tree["type"]
        const result = parsedTreeDepthOf > maxDepth ? undefined : decode(tree)
        untype()
        if (result === undefined) return tooDeep(maxDepth)
        // A Schema that passed the tree itself through would keep it: it gets the typed copy instead.
        return Result.isSuccess(result) && result.success === tree ? done(decode({ ...tree, type })) : done(result)
      }
      parsedTree = undefined
      // A parsed tree typed in place that is not clean: decoded with its type, then given back.
      if (input !== typedTree) untype()
      // Any other value is decoded as its sanitised copy. Refusing stays cheap whatever the value's
      // size: plain data is decoded as the copy would read it, without copying (`plainView`: the value
      // itself, or copies of only what leads to an unsafe key), so what will be refused is never
      // copied; only what it decodes to is. A small value, or one that is not plain data, is copied
      // first, then decoded.
      plainWalk.left = walkBudget
      const view = plainView(input, maxDepth, plainWalk)
      let result: Result.Result<S["Type"], DecodeError> | undefined
      if (view === TOO_DEEP) result = tooDeep(maxDepth)
      else if (view === NOT_PLAIN) {
        if (exceedsJsonDepth(input, maxDepth)) result = tooDeep(maxDepth)
      } else if (walkBudget - plainWalk.left > smallValue) {
        const first = decode(view)
        // The view is the copy's data: its refusal is the copy's, and what it decodes to, copied (so
        // nothing of the input is kept), is what the copy decodes to. A copy of an `S["Type"]` value is one.
        result = Result.isFailure(first) ? done(first) : Result.succeed(sanitize(first.success) as S["Type"])
      }
      result ??= done(decode(sanitize(input)))
      untype()
      return result
    } catch {
      untype()
      return fail("the value could not be read as JSON data")
    }
  }
}

// The members a decoder's walk may read (`plainView`), and the most a value may have to be copied
// before it is decoded (the walk's own cost does not pay off below).
const walkBudget = 1 << 22
const smallValue = 256
const plainWalk: PlainWalk = { left: walkBudget }

/**
 * The options for decoding a payload after wrapping it once (`{ type, chunk: payload }`): one level
 * more, so the payload itself keeps the whole bound it was parsed with.
 * @category decoding
 */
export const wrappedOnce = (options: DecodeOptions | undefined): DecodeOptions => ({
  maxDepth: maxDepthOf(options) + 1
})

/**
 * Runs a decoder step that reads outside input (an SSE record's fields can be getters, a frame a
 * Proxy): whatever it throws becomes a `DecodeError`, so the decoder stays total.
 * @category decoding
 */
export const guarded: {
  <A>(family: Family, what: string, run: () => Result.Result<A, DecodeError>): Result.Result<A, DecodeError>
  // The step's inputs passed through, so a hot decoder's step needs no closure per call.
  <A, X, Y>(
    family: Family,
    what: string,
    run: (x: X, y: Y) => Result.Result<A, DecodeError>,
    x: X,
    y: Y
  ): Result.Result<A, DecodeError>
} = <A, X, Y>(
  family: Family,
  what: string,
  run: (x?: X, y?: Y) => Result.Result<A, DecodeError>,
  x?: X,
  y?: Y
): Result.Result<A, DecodeError> => {
  try {
    return run(x, y)
  } catch {
    return Result.fail(new DecodeError({ family, what, message: `${what}: the value could not be read as JSON data` }))
  }
}

/**
 * The `type` of an event payload: its own `type`, else the SSE `event` name (then also set on the
 * returned payload, so the event's schema sees it).
 * @category decoding
 */
export const typedPayload = (
  payload: unknown,
  sseEvent: unknown
): { readonly type: string; readonly payload: unknown } => {
  if (isRecord(payload) && typeof payload["type"] === "string") return { type: payload["type"], payload }
  const type = typeof sseEvent === "string" ? sseEvent : "message"
  if (!isRecord(payload)) return { type, payload }
  if ((payload === parsedTree || payload === lastParsed) && !Object.hasOwn(payload, "type")) {
    // The tree just parsed, without a `type`, is given one for its decoder, which takes it back (as
    // does any other decoder that runs first): copying it instead costs as much as parsing it again
    // when a hostile server sends an object of many keys. Added last, as the spread below adds it.
    untype()
    lastParsed = undefined
    const tree = payload as Record<string, unknown>
    tree["type"] = type
    typedTree = tree
    return { type, payload: tree }
  }
  // Spreading defines own data properties, so a `__proto__` key stays inert data here.
  return { type, payload: { ...payload, type } }
}
