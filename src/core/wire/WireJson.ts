/**
 * Reading JSON from the wire safely. It holds Schemas for values passed through opaquely (with
 * `__proto__`-style keys dropped), parsing JSON text, and the one decode path every decoder of the
 * core shares (depth bound, unsafe keys dropped, failures as a `DecodeError` that never quotes the value).
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaParser from "effect/SchemaParser"
import { compileParsers } from "../validation/ParserCompiler.js"
import { DecodeError, type Family } from "../errors/GatewayError.js"
import { selectorsOf } from "../validation/Conform.js"
import { isRecord, type Json, sanitize } from "../validation/Rules.js"
import { redactText } from "../errors/Redact.js"
import {
  defaultMaxJsonDepth,
  exceedsJsonDepth,
  NOT_PLAIN,
  parsedTreeHasUnsafeKey,
  plainCheck,
  plainProjection,
  type PlainWalk,
  plainView,
  RECURSION_LIMIT,
  TOO_DEEP,
  walkParsedTree
} from "./JsonSafety.js"

// Why not `Schema.Record(Schema.String, Schema.Unknown)` for opaque objects: it would keep the keys it
// is given as they are. These schemas copy through `sanitize`, which drops `__proto__`-style keys.

// A declaration that accepts what `is` accepts and decodes it to its sanitized copy.
const sanitized = <T>(
  is: (u: unknown) => u is T,
  annotations: { readonly identifier: string; readonly expected: string }
) => {
  const schema = Schema.declareConstructor<T>()(
    [],
    () => (input, ast, options) =>
      // `sanitize` copies JSON-like data without unsafe keys: the copy of a `T` is a `T`.
      is(input) ? Effect.succeed(sanitize(input) as T) : Effect.fail(new SchemaIssue.InvalidType(ast, input, options)),
    annotations
  )
  sanitizingRuns.add(schema.ast.run)
  return schema
}

// The parser factories of the declarations `sanitized` made (kept by an annotated copy of one).
const sanitizingRuns = new WeakSet<object>()

/** Any JSON object, passed through opaquely without `__proto__`/`constructor`/`prototype` keys. @category schemas */
export const JsonObject: Schema.Codec<Json> = sanitized((u: unknown): u is Json => isRecord(u), {
  identifier: "JsonObject",
  expected: "a JSON object"
})

/** Any value, passed through opaquely with unsafe keys dropped at every depth. @category schemas */
export const JsonValue: Schema.Codec<unknown> = sanitized((_u: unknown): _u is unknown => true, {
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

/** What `keyBlindness` finds of a schema: whether it reads only declared keys, and whether its output holds no input object. */
interface KeyBlindness {
  /** Decoding reads input objects by declared, safe keys only, and hands none to code that could read others. */
  readonly blind: boolean
  /** What it decodes to holds no object of the input (each object in it was made by the decoder). */
  readonly fresh: boolean
}

const UNSAFE_NAMES: ReadonlySet<PropertyKey> = new Set(["__proto__", "constructor", "prototype"])
const NOT_BLIND: KeyBlindness = { blind: false, fresh: false }
const PRIMITIVE: KeyBlindness = { blind: true, fresh: true }
const PASSED_THROUGH: KeyBlindness = { blind: true, fresh: false }

/**
 * Whether decoding with `ast` gives for a value what it gives for the value's sanitised copy, but for
 * the unsafe keys a pass-through (`Unknown`) keeps in what it decodes to (which the caller's copy of
 * the result drops): it reads input objects only by their declared keys, none of them unsafe, and
 * hands no input object to code that could read other keys (a check, a transformation, a declaration
 * other than this module's sanitising ones). Conservative: what it cannot tell is not blind.
 */
const keyBlindness = (ast: AST.AST, walk: BlindnessWalk = { onPath: new Set(), known: new Map() }): KeyBlindness => {
  const known = walk.known.get(ast)
  if (known !== undefined) return known
  // A recursive schema met again: blind as far as the walk already on it finds (anything else it
  // meets makes the whole answer `false`, so what is found below under this guess stands within the
  // walk); its output is taken as holding input objects, so that a check above it is not trusted.
  if (walk.onPath.has(ast)) return PASSED_THROUGH
  walk.onPath.add(ast)
  let found = ownBlindness(ast, walk)
  if (found.blind && ast.encoding !== undefined) found = encodingBlindness(ast.encoding, found, walk)
  // A check reads the value it is given: only one the decoder made entirely is safe to hand it.
  if (found.blind && ast.checks !== undefined && !found.fresh) found = NOT_BLIND
  walk.onPath.delete(ast)
  walk.known.set(ast, found)
  return found
}

/** The nodes one `keyBlindness` walk is in, and what it found of the others (for that walk only). */
interface BlindnessWalk {
  readonly onPath: Set<AST.AST>
  readonly known: Map<AST.AST, KeyBlindness>
}

const both = (a: KeyBlindness, b: KeyBlindness): KeyBlindness =>
  a.blind && b.blind ? (a.fresh && b.fresh ? PRIMITIVE : PASSED_THROUGH) : NOT_BLIND

const allOf = (asts: ReadonlyArray<AST.AST>, walk: BlindnessWalk): KeyBlindness => {
  let found = PRIMITIVE
  for (const member of asts) {
    found = both(found, keyBlindness(member, walk))
    if (!found.blind) return NOT_BLIND
  }
  return found
}

/** `keyBlindness` of the node itself (its checks and encoding aside). */
const ownBlindness = (ast: AST.AST, walk: BlindnessWalk): KeyBlindness => {
  switch (ast._tag) {
    case "Unknown":
    case "Any":
    case "ObjectKeyword":
      return PASSED_THROUGH
    case "Declaration":
      return sanitizingRuns.has(ast.run) ? PRIMITIVE : NOT_BLIND
    case "Arrays":
      return allOf([...ast.elements, ...ast.rest], walk)
    case "Objects": {
      if (ast.indexSignatures.length > 0) return NOT_BLIND
      if (ast.propertySignatures.some((p) => UNSAFE_NAMES.has(p.name))) return NOT_BLIND
      // An object of no declared key decodes to the input object itself.
      if (ast.propertySignatures.length === 0) return PASSED_THROUGH
      return allOf(
        ast.propertySignatures.map((p) => p.type),
        walk
      )
    }
    case "Union":
      return allOf(ast.types, walk)
    case "Suspend":
      return keyBlindness(ast.thunk(), walk)
    default:
      // Null, Undefined, Void, Never, String, Number, Boolean, BigInt, Symbol, Literal, UniqueSymbol,
      // Enum, TemplateLiteral: nothing of an object is read.
      return PRIMITIVE
  }
}

/** A transformation is handed what its encoded side decodes to: blind only when that is made entirely by the decoder. */
const encodingBlindness = (encoding: AST.Encoding, own: KeyBlindness, walk: BlindnessWalk): KeyBlindness => {
  for (const link of encoding) {
    if (link.transformation._tag !== "Transformation") return NOT_BLIND
    const from = keyBlindness(link.to, walk)
    if (!from.blind || !from.fresh) return NOT_BLIND
  }
  return own
}

/**
 * The keys a decoding with `ast` reads of the value's top object, when it reads no other and hands
 * the object itself to nothing else (an object, or a union of objects and primitives, none with an
 * index signature, an unsafe key, a check or a transformation at that level); else `undefined`.
 */
const topKeysOf = (ast: AST.AST): ReadonlySet<string> | undefined => {
  const keys = new Set<string>()
  const add = (node: AST.AST): boolean => {
    if (node.encoding !== undefined || node.checks !== undefined) return false
    switch (node._tag) {
      case "Objects":
        if (node.indexSignatures.length > 0 || node.propertySignatures.length === 0) return false
        for (const p of node.propertySignatures) {
          if (typeof p.name !== "string" || UNSAFE_NAMES.has(p.name)) return false
          keys.add(p.name)
        }
        return true
      case "Union":
        return node.types.every(add)
      case "Null":
      case "Undefined":
      case "String":
      case "Number":
      case "Boolean":
      case "Literal":
      case "Enum":
      case "TemplateLiteral":
        return true
      default:
        return false
    }
  }
  return add(ast) ? keys : undefined
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
  return filter.annotations?.representation
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

/**
 * The tree `parseJsonTree` made last when it has an unsafe key, and its depth (walked past such keys):
 * a decoder that reads no unsafe key and is given that very tree next skips the depth walk too. Taken
 * by the first decoder that looks, as `parsedTree` is.
 */
let walkedTree: object | undefined
let walkedTreeDepth = 0

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
  walkedTree = undefined
  const json: unknown = JSON.parse(text)
  if (json === null || typeof json !== "object") return json
  // One walk tells the depth and whether a key a decoder must not see is there.
  const depth = walkParsedTree(json, maxDepth)
  if (depth === -1) {
    // Too deep, or a bound deeper than the walk goes: then the general check tells.
    if (maxDepth <= RECURSION_LIMIT || exceedsJsonDepth(json, maxDepth)) return TooDeep
  } else if (parsedTreeHasUnsafeKey()) {
    walkedTree = json
    walkedTreeDepth = depth
  } else {
    parsedTree = json
    parsedTreeDepthOf = depth
  }
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
 * as too deep) and decoded as its copy without `__proto__`/`constructor`/`prototype` keys would be,
 * without making that copy where it can: a Schema that reads no such key is given the value itself, one
 * that reads only some keys of the top object a view of those, any other a view that copies only what
 * leads to such a key; only the result is copied (unless the Schema made all of it). Refusing costs no
 * copy. A value that cannot be read (a throwing getter, a Proxy) is a `DecodeError` too.
 * @category decoding
 */
export const decodeWith = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, family: Family, what: string) => {
  // Made once, at the first call (decoders are made when their modules load, before the platform's
  // compiler is chosen: `ParserCompiler.ts`), and compiled where it was. The input is kept in the
  // issues so a union's tags can be named; the messages never quote it.
  let parser: ((input: unknown) => Result.Result<S["Type"], SchemaIssue.Issue>) | undefined
  const decode = (input: unknown): Result.Result<S["Type"], SchemaIssue.Issue> => {
    if (parser === undefined) {
      compileParsers(schema.ast)
      parser = SchemaParser.decodeUnknownResult(schema, { reportInput: true })
    }
    return parser(input)
  }
  const fail = (message: string) => Result.fail(new DecodeError({ family, what, message: `${what}: ${message}` }))
  const tooDeep = (maxDepth: number) =>
    Result.fail(new DecodeError({ family, what, message: depthMessage(what, maxDepth) }))
  const done = (result: Result.Result<S["Type"], SchemaIssue.Issue>): Result.Result<S["Type"], DecodeError> =>
    Result.isSuccess(result) ? Result.succeed(result.success) : fail(formatDecodeIssues(result.failure))
  const decodeOne = (input: unknown, options?: DecodeOptions): Result.Result<S["Type"], DecodeError> => {
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
      const walkedDepth = input === walkedTree ? walkedTreeDepth : -1
      walkedTree = undefined
      // A parsed tree typed in place that is not clean: decoded with its type, then given back.
      if (input !== typedTree) untype()
      blindness ??= blindnessOf(schema.ast)
      const result = blindness.blind
        ? decodeAsGiven(input, maxDepth, walkedDepth, blindness.fresh)
        : decodeAsCopy(input, maxDepth, walkedDepth)
      untype()
      return result
    } catch {
      untype()
      return fail("the value could not be read as JSON data")
    }
  }
  // Any other value is decoded as its sanitised copy: by a Schema that reads no unsafe key, as it is
  // given (what it decodes to copied unless the decoder made all of it), else as `decodeAsCopy` does.
  // Refusing costs no copy either way. `walkedDepth` is the depth `parseJsonTree` found, or -1.
  const decodeAsGiven = (
    input: unknown,
    maxDepth: number,
    walkedDepth: number,
    fresh: boolean
  ): Result.Result<S["Type"], DecodeError> => {
    plainWalk.left = walkBudget
    const wrong =
      walkedDepth === -1 ? plainCheck(input, maxDepth, plainWalk) : walkedDepth > maxDepth ? TOO_DEEP : undefined
    if (wrong === TOO_DEEP) return tooDeep(maxDepth)
    if (wrong === NOT_PLAIN)
      return exceedsJsonDepth(input, maxDepth) ? tooDeep(maxDepth) : done(decode(sanitize(input)))
    const first = decode(input)
    // A result holding parts of the input is copied (before a typed tree gets its `type` back): a copy
    // of an `S["Type"]` value is one.
    return Result.isFailure(first) || fresh ? done(first) : Result.succeed(sanitize(first.success) as S["Type"])
  }
  // Refusing stays cheap whatever the value's size: plain data is decoded as the copy would read it,
  // without copying (`plainView`: the value itself, or copies of only what leads to an unsafe key), so
  // what will be refused is never copied; only what it decodes to is. A small value, or one that is not
  // plain data, is copied first, then decoded.
  const decodeAsCopy = (
    input: unknown,
    maxDepth: number,
    walkedDepth: number
  ): Result.Result<S["Type"], DecodeError> => {
    plainWalk.left = walkBudget
    // A Schema that reads only some keys of the top object is given a view of those alone: the others
    // (an attacker's many keys) are checked, never copied.
    topKeys ??= topKeysOf(schema.ast) ?? NO_KEYS
    const projected = topKeys !== NO_KEYS && isRecord(input)
    const view = !projected
      ? plainView(input, maxDepth, plainWalk)
      : walkedDepth > maxDepth
        ? TOO_DEEP
        : plainProjection(input, topKeys, maxDepth, plainWalk, walkedDepth !== -1)
    if (view === TOO_DEEP) return tooDeep(maxDepth)
    if (view === NOT_PLAIN) {
      if (exceedsJsonDepth(input, maxDepth)) return tooDeep(maxDepth)
    } else if (projected || walkBudget - plainWalk.left > smallValue) {
      const first = decode(view)
      // The view is the copy's data: its refusal is the copy's, and what it decodes to, copied (so
      // nothing of the input is kept), is what the copy decodes to. A copy of an `S["Type"]` value is one.
      return Result.isFailure(first) ? done(first) : Result.succeed(sanitize(first.success) as S["Type"])
    }
    return done(decode(sanitize(input)))
  }
  let blindness: KeyBlindness | undefined
  let topKeys: ReadonlySet<string> | undefined
  return decodeOne
}

// Told on a decoder's first call, so a recursive Schema's parts are all defined; a Schema that cannot
// be walked is decoded as its copy.
const blindnessOf = (ast: AST.AST): KeyBlindness => {
  try {
    return keyBlindness(ast)
  } catch {
    return NOT_BLIND
  }
}

// The members a decoder's walk may read (`plainView`), and the most a value may have to be copied
// before it is decoded (the walk's own cost does not pay off below).
const walkBudget = 1 << 22
const smallValue = 256
const NO_KEYS: ReadonlySet<string> = new Set()
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
