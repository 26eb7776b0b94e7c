/**
 * Fits a JSON Schema to what providers accept for structured output, refusing what cannot be sent, and
 * undoes the fitting's changes on the answer. The schema is draft 2020-12, from Effect, a Standard
 * JSON Schema or written by hand.
 *
 * The rules (docs/ARCHITECTURE.md, structured output):
 * - Every object with `properties` gets `additionalProperties: false` and lists every property in
 *   `required` (OpenAI strict mode). A property that was optional becomes nullable (`anyOf: [X,
 *   {type: "null"}]`) unless it already accepted `null`; `relax` drops such a `null` from the answer
 *   before decoding, so the schema's own "optional" still decodes.
 * - Non-recursive `$ref`s are inlined; recursive definitions stay under the root's `$defs` (refs
 *   `#/$defs/Name`, or `#` for the root).
 * - `oneOf` becomes `anyOf`. Annotations providers reject (`default`, `examples`, `$schema`, `$id`,
 *   `readOnly`, …) and formats outside the strict-mode list are dropped; Effect's `"Infinity"`/`"NaN"`
 *   number encodings are dropped from unions (a model sends finite numbers).
 * - Keywords strict mode does not take (`minLength`, `prefixItems`, `allOf`, records, …) are kept,
 *   and `strict` is then `false`: the schema still guides the model, the decoder stays the authority.
 * - A root that is not an object (a string, an array, a union) is wrapped as `{ value: … }`; `relax`
 *   unwraps it.
 * - Refused, naming the JSON Pointer of the part: a part that accepts any value (`{}`, `true`), none
 *   (`false`, `not`), a symbol, an array without `items`, an object of any shape, a `$ref` it cannot
 *   resolve, and schemas deeper or larger than the bounds.
 */
import * as Result from "effect/Result"
import { isRecord } from "../validation/Rules.js"
import { SchemaNotExpressible } from "./StructuredErrors.js"

/** A JSON Schema object as sent to the gateway. @category models */
export type JsonSchemaObject = { readonly [key: string]: unknown }

/** The fitted schema: what is sent, whether strict mode may be asked, and how to read the answer back. @category models */
export interface FittedSchema {
  /** The JSON Schema to send; always `type: "object"`. */
  readonly schema: JsonSchemaObject
  /** True when the schema meets OpenAI strict mode's rules, so `strict: true` may be sent. */
  readonly strict: boolean
  /** True when the value sits under `value` (a root that was not an object). */
  readonly wrapped: boolean
  /** Undoes the fitting on a parsed answer: drops the `null`s of optional properties, unwraps. */
  readonly relax: (answer: unknown) => unknown
}

/** Bounds on the schema walked (nesting depth, parts). @category models */
export interface FitLimits {
  readonly maxDepth: number
  readonly maxNodes: number
}

/** The default bounds: 64 levels, 20 000 parts. @category constants */
export const defaultFitLimits: FitLimits = { maxDepth: 64, maxNodes: 20_000 }

type Node = Record<string, unknown>

// The formats OpenAI strict mode documents; others are dropped (a format is an annotation in 2020-12).
const STRICT_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid"
])
const COPIED_STRICT = new Set([
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems"
])
const COPIED_LOOSE = new Set([
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "uniqueItems",
  "minContains",
  "maxContains",
  "dependentRequired"
])
const SUBSCHEMA_LOOSE = new Set(["contains", "propertyNames", "if", "then", "else", "unevaluatedItems"])
const UNSUPPORTED_REFS = new Set(["$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor"])
const SYMBOL_PATTERN = "^Symbol\\(([\\s\\S]*)\\)$"
const WRAP_KEY = "value"

const ANY_VALUE =
  "accepts any value (Schema.Unknown, Schema.Any, a Schema.declare without a JSON codec, z.any(), z.unknown(), z.custom()); give it a concrete type, or pass an explicit jsonSchema"

class Refusal {
  constructor(
    readonly path: string,
    readonly what: string
  ) {}
}

const refuse = (path: string, what: string): never => {
  throw new Refusal(path, what)
}

const escapeToken = (token: string): string => token.replace(/~/g, "~0").replace(/\//g, "~1")
const unescapeToken = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~")

// An own data property even for `__proto__` (a property name a schema or an answer may well use).
const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

const withoutKey = (node: Node, key: string): Node => {
  const { [key]: _, ...rest } = node
  return rest
}

const isEmptySchema = (node: Node): boolean =>
  Object.entries(node).every(([key, value]) => value === undefined || key === "title" || key === "description")

const acceptsNull = (node: Node): boolean => {
  const type = node["type"]
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true
  if (Array.isArray(node["enum"]) && node["enum"].includes(null)) return true
  if ("const" in node && node["const"] === null) return true
  const anyOf = node["anyOf"]
  return Array.isArray(anyOf) && anyOf.some((member) => isRecord(member) && acceptsNull(member as Node))
}

// A union's members with nested bare unions spliced in and `{type: "null"}` kept once.
const flatMembers = (members: ReadonlyArray<Node>): Array<Node> => {
  const out: Array<Node> = []
  let hasNull = false
  const add = (member: Node): void => {
    const inner = member["anyOf"]
    if (Array.isArray(inner) && Object.keys(member).length === 1) {
      for (const m of inner as ReadonlyArray<Node>) add(m)
      return
    }
    const isNull = member["type"] === "null" && Object.keys(member).length === 1
    if (isNull && hasNull) return
    hasNull ||= isNull
    out.push(member)
  }
  for (const member of members) add(member)
  return out
}

// `node` with `more` members, keeping what `relax` knows of it.
const copyNode = (state: State, node: Node, more: Node, drop: ReadonlyArray<string> = []): Node => {
  const copy: Node = { ...node, ...more }
  for (const key of drop) delete copy[key]
  const nulled = state.nulled.get(node)
  if (nulled !== undefined) state.nulled.set(copy, nulled)
  return copy
}

// Effect's JSON codec encodes non-finite numbers as these strings; a model sends finite numbers.
const isNumberEncoding = (node: unknown): boolean =>
  isRecord(node) &&
  node["type"] === "string" &&
  Array.isArray(node["enum"]) &&
  node["enum"].length === 3 &&
  ["Infinity", "-Infinity", "NaN"].every((v) => (node["enum"] as ReadonlyArray<unknown>).includes(v))

const isNumeric = (node: unknown): boolean =>
  isRecord(node) && (node["type"] === "number" || node["type"] === "integer")

// `node` or `null`: the annotations lifted to the union, `node` itself kept when it has none.
const nullable = (state: State, node: Node): Node => {
  const { title, description, ...rest } = node
  const annotations: Node = {}
  if (title !== undefined) annotations["title"] = title
  if (description !== undefined) annotations["description"] = description
  if (Array.isArray(rest["anyOf"]) && Object.keys(rest).length === 1)
    return { ...annotations, anyOf: [...rest["anyOf"], { type: "null" }] }
  const member = Object.keys(annotations).length === 0 ? node : copyNode(state, node, {}, ["title", "description"])
  return { ...annotations, anyOf: [member, { type: "null" }] }
}

interface State {
  readonly limits: FitLimits
  readonly defs: Readonly<Record<string, unknown>>
  readonly stack: Set<string>
  readonly recursive: Set<string>
  readonly outDefs: Map<string, Node>
  readonly rootRefs: Array<Node>
  readonly nulled: WeakMap<Node, ReadonlySet<string>>
  nodes: number
  strict: boolean
}

const defName = (ref: string): string | undefined => {
  for (const prefix of ["#/$defs/", "#/definitions/"]) {
    if (!ref.startsWith(prefix)) continue
    const rest = ref.slice(prefix.length)
    if (rest.includes("/")) return undefined
    try {
      return unescapeToken(decodeURIComponent(rest))
    } catch {
      return undefined
    }
  }
  return undefined
}

// A `$ref`: `#` (the root) stays; a definition is inlined unless it is recursive, then kept in `$defs`.
const refNode = (state: State, input: Node, path: string, depth: number): Node => {
  const { $ref: ref, ...siblings } = input
  let resolved: Node
  if (ref === "#") {
    resolved = { $ref: "#" }
    state.rootRefs.push(resolved)
  } else {
    const name = typeof ref === "string" ? defName(ref) : undefined
    if (name === undefined || !Object.hasOwn(state.defs, name))
      return refuse(path, `refers to ${String(ref)}, which the schema does not define under $defs`)
    const target = `#/$defs/${escapeToken(name)}`
    if (state.stack.has(name) || state.outDefs.has(name)) {
      state.recursive.add(name)
      resolved = { $ref: target }
    } else {
      state.stack.add(name)
      const inlined = walk(state, state.defs[name], path, depth + 1)
      state.stack.delete(name)
      if (state.recursive.has(name)) {
        state.outDefs.set(name, inlined)
        resolved = { $ref: target }
      } else resolved = inlined
    }
  }
  const rest = Object.keys(siblings).length === 0 ? {} : walkKeywords(state, siblings, path, depth, true)
  if (Object.keys(rest).length === 0) return resolved
  if (isEmptySchema(rest)) {
    return copyNode(state, resolved, rest)
  }
  state.strict = false
  return { allOf: [resolved, rest] }
}

// Copies the keywords it knows (walking subschemas), drops annotations, refuses what cannot be sent.
const walkKeywords = (state: State, input: Node, path: string, depth: number, partial = false): Node => {
  const out: Node = {}
  const sub = (value: unknown, at: string) => walk(state, value, `${path}${at}`, depth + 1)
  const subs = (value: unknown, key: string) => {
    if (!Array.isArray(value)) return refuse(`${path}/${key}`, `is not an array of schemas`)
    return value.map((member, i) => sub(member, `/${key}/${i}`))
  }
  for (const [key, value] of Object.entries(input)) {
    if (key === "type" || key === "enum" || key === "const" || key === "required") out[key] = value
    else if (key === "title" || key === "description") {
      if (typeof value === "string") out[key] = value
    } else if (key === "format") {
      if (typeof value === "string" && STRICT_FORMATS.has(value)) out[key] = value
    } else if (COPIED_STRICT.has(key)) out[key] = value
    else if (COPIED_LOOSE.has(key)) {
      out[key] = value
      state.strict = false
    } else if (key === "properties" || key === "patternProperties") {
      if (!isRecord(value)) return refuse(`${path}/${key}`, "is not an object of schemas")
      const props: Node = {}
      for (const [name, schema] of Object.entries(value))
        setOwn(props, name, sub(schema, `/${key}/${escapeToken(name)}`))
      out[key] = props
      if (key === "patternProperties") state.strict = false
    } else if (key === "additionalProperties") {
      if (value === false) out[key] = false
      else if (value !== true) {
        out[key] = sub(value, "/additionalProperties")
        state.strict = false
      }
    } else if (key === "items") {
      if (Array.isArray(value)) {
        out["prefixItems"] = subs(value, "items")
        state.strict = false
      } else if (value === false) {
        // No items past `prefixItems` (a closed tuple, as zod writes `z.tuple`), or an empty array.
        out[key] = false
        state.strict = false
      } else if (value !== true) out[key] = sub(value, "/items")
    } else if (key === "prefixItems" || key === "allOf") {
      out[key] = subs(value, key)
      state.strict = false
    } else if (key === "anyOf" || key === "oneOf") {
      const members = flatMembers([
        ...(Array.isArray(out["anyOf"]) ? (out["anyOf"] as Array<Node>) : []),
        ...subs(value, key)
      ])
      const numeric = members.some(isNumeric)
      out["anyOf"] = numeric ? members.filter((m) => !isNumberEncoding(m)) : members
    } else if (SUBSCHEMA_LOOSE.has(key)) {
      out[key] = sub(value, `/${key}`)
      state.strict = false
    } else if (key === "not")
      return refuse(
        path,
        isRecord(value) && Object.keys(value).length === 0
          ? "accepts no value (Schema.Never, z.never())"
          : "negates a schema (`not`, e.g. Schema.Struct({}) or Schema.NonNull)"
      )
    else if (key === "$defs" || key === "definitions")
      return refuse(`${path}/${key}`, "holds definitions below the root; keep them under the root's $defs")
    else if (UNSUPPORTED_REFS.has(key))
      return refuse(`${path}/${key}`, `uses ${key}; only $ref to #/$defs is supported`)
    else if (key === "dependentSchemas" || key === "unevaluatedProperties")
      return refuse(`${path}/${key}`, `uses ${key}, which providers do not accept`)
  }
  if (partial) return out
  return finish(state, out, path)
}

// Rules on the whole node: simplify a one-member union, refuse what accepts anything, close objects.
const finish = (state: State, node: Node, path: string): Node => {
  let out = node
  const anyOf = out["anyOf"]
  if (Array.isArray(anyOf) && anyOf.length === 1 && isEmptySchema({ ...out, anyOf: undefined }))
    out = copyNode(state, anyOf[0] as Node, withoutKey(out, "anyOf"))
  else if (Array.isArray(anyOf) && anyOf.length === 0) return refuse(path, "is a union with no member")
  if (isEmptySchema(out)) return refuse(path, ANY_VALUE)
  if (out["pattern"] === SYMBOL_PATTERN) return refuse(path, "is a symbol, which JSON cannot carry")
  const type = out["type"]
  if (type === "array" && out["items"] === undefined && out["prefixItems"] === undefined)
    return refuse(path, "is an array of any values; give its items a type")
  if (type === "object" || (type === undefined && out["properties"] !== undefined)) return closeObject(state, out, path)
  return out
}

const closeObject = (state: State, node: Node, path: string): Node => {
  const properties = node["properties"]
  if (!isRecord(properties)) {
    if (node["additionalProperties"] === undefined && node["patternProperties"] === undefined)
      return refuse(path, "is an object of any shape; give it properties")
    return node
  }
  const required = new Set(Array.isArray(node["required"]) ? node["required"] : [])
  const props: Node = {}
  const nulled = new Set<string>()
  for (const [name, schema] of Object.entries(properties)) {
    const prop = schema as Node
    if (required.has(name) || acceptsNull(prop)) setOwn(props, name, prop)
    else {
      setOwn(props, name, nullable(state, prop))
      nulled.add(name)
    }
  }
  const out: Node = { type: "object", ...node, properties: props, required: Object.keys(props) }
  if (out["additionalProperties"] === undefined) out["additionalProperties"] = false
  if (nulled.size > 0) state.nulled.set(out, nulled)
  return out
}

const walk = (state: State, input: unknown, path: string, depth: number): Node => {
  state.nodes += 1
  if (state.nodes > state.limits.maxNodes)
    return refuse(path, `makes the schema larger than ${state.limits.maxNodes} parts`)
  if (depth > state.limits.maxDepth) return refuse(path, `nests deeper than ${state.limits.maxDepth} levels`)
  if (input === true) return refuse(path, ANY_VALUE)
  if (input === false) return refuse(path, "accepts no value (`false`, Schema.Never, z.never())")
  if (!isRecord(input)) return refuse(path, "is not a JSON Schema object")
  if (typeof input["$ref"] === "string") return refNode(state, input, path, depth)
  return walkKeywords(state, input, path, depth)
}

/**
 * Fits `root` (with its definitions, the `$defs` its `#/$defs/…` refs name) to the structured-output
 * rules above, or refuses naming the JSON Pointer of the part that cannot be sent.
 * @category constructors
 */
export const fitJsonSchema = (
  root: unknown,
  defs: Readonly<Record<string, unknown>> = {},
  limits: FitLimits = defaultFitLimits
): Result.Result<FittedSchema, SchemaNotExpressible> => {
  const state: State = {
    limits,
    defs,
    stack: new Set(),
    recursive: new Set(),
    outDefs: new Map(),
    rootRefs: [],
    nulled: new WeakMap(),
    nodes: 0,
    strict: true
  }
  let fitted: Node
  try {
    fitted = walk(state, root, "", 0)
  } catch (e) {
    if (e instanceof Refusal)
      return Result.fail(
        new SchemaNotExpressible({
          path: e.path,
          message: `The schema cannot be sent for structured output: the part at ${e.path === "" ? "the root" : e.path} ${e.what}.`
        })
      )
    throw e
  }
  return Result.succeed(assemble(state, fitted))
}

const uniqueName = (defs: Node, base: string): string => {
  let name = base
  for (let i = 1; Object.hasOwn(defs, name); i++) name = `${base}_${i}`
  return name
}

// The root: a recursive root ref becomes its definition; a non-object root is wrapped; `$defs` attached.
const assemble = (state: State, fitted: Node): FittedSchema => {
  let root = fitted
  const rootRef = typeof root["$ref"] === "string" ? defName(root["$ref"]) : undefined
  if (rootRef !== undefined && Object.keys(root).length === 1) root = state.outDefs.get(rootRef) ?? root
  const wrapped = root["type"] !== "object"
  const defs: Node = {}
  for (const [name, def] of state.outDefs) setOwn(defs, name, def)
  if (wrapped) {
    if (state.rootRefs.length > 0) {
      const rootName = uniqueName(defs, "Root")
      for (const ref of state.rootRefs) ref["$ref"] = `#/$defs/${escapeToken(rootName)}`
      setOwn(defs, rootName, root)
    }
    const outer: Node = {
      type: "object",
      properties: { [WRAP_KEY]: root },
      required: [WRAP_KEY],
      additionalProperties: false
    }
    root = outer
  }
  const schema: Node = Object.keys(defs).length === 0 ? root : copyNode(state, root, { $defs: defs })
  const resolve = (ref: string): Node | undefined => {
    if (ref === "#") return schema
    const name = defName(ref)
    return name === undefined || !Object.hasOwn(defs, name) ? undefined : (defs[name] as Node)
  }
  const relaxed = (answer: unknown): unknown => {
    const value = relaxWith(state, resolve, schema, answer, 0)
    return wrapped && isRecord(value) && Object.hasOwn(value, WRAP_KEY) ? value[WRAP_KEY] : value
  }
  return { schema, strict: state.strict, wrapped, relax: relaxed }
}

// The object member of a union a value belongs to: the first whose non-optional properties are all
// present and whose `const`/`enum` properties match; else (a value still growing) the first whose
// properties include every key present, the present `const`/`enum` ones matching (or growing into a match).
const memberFor = (
  members: ReadonlyArray<Node>,
  value: Readonly<Record<string, unknown>>,
  nulled: WeakMap<Node, ReadonlySet<string>>
): Node | undefined => {
  const fits = (member: Node, complete: boolean): boolean => {
    const props = member["properties"]
    if (!isRecord(props)) return false
    if (!complete && !Object.keys(value).every((key) => Object.hasOwn(props, key))) return false
    const optional = nulled.get(member)
    return Object.entries(props).every(([name, schema]) => {
      if (!Object.hasOwn(value, name)) return !complete || optional?.has(name) === true
      const s = schema as Node
      const allowed: ReadonlyArray<unknown> | undefined =
        "const" in s ? [s["const"]] : Array.isArray(s["enum"]) ? s["enum"] : undefined
      const given = value[name]
      // A string still growing matches the values it can grow into.
      return (
        allowed === undefined ||
        allowed.some(
          (a) => a === given || (!complete && typeof a === "string" && typeof given === "string" && a.startsWith(given))
        )
      )
    })
  }
  return members.find((m) => fits(m, true)) ?? members.find((m) => fits(m, false))
}

const relaxWith = (
  state: State,
  resolve: (ref: string) => Node | undefined,
  schema: Node,
  value: unknown,
  depth: number
): unknown => {
  if (depth > state.limits.maxDepth) return value
  const next = (s: unknown, v: unknown) => (isRecord(s) ? relaxWith(state, resolve, s as Node, v, depth + 1) : v)
  const ref = schema["$ref"]
  if (typeof ref === "string") return next(resolve(ref), value)
  const anyOf = schema["anyOf"]
  if (Array.isArray(anyOf) && isRecord(value)) {
    const members = anyOf.map((m) => (isRecord(m) && typeof m["$ref"] === "string" ? resolve(m["$ref"]) : m))
    const objects = members.filter((m): m is Node => isRecord(m) && isRecord(m["properties"]))
    return next(memberFor(objects, value, state.nulled), value)
  }
  if (Array.isArray(anyOf) && Array.isArray(value))
    return next(
      anyOf.find((m) => isRecord(m) && m["type"] === "array"),
      value
    )
  const properties = schema["properties"]
  if (isRecord(value) && isRecord(properties)) {
    const optional = state.nulled.get(schema)
    const out: Record<string, unknown> = {}
    for (const [key, v] of Object.entries(value)) {
      if (v === null && optional?.has(key) === true) continue
      setOwn(out, key, Object.hasOwn(properties, key) ? next(properties[key], v) : v)
    }
    return out
  }
  if (Array.isArray(value)) {
    const prefix = schema["prefixItems"]
    const items = schema["items"]
    return value.map((v, i) => next(Array.isArray(prefix) && i < prefix.length ? prefix[i] : items, v))
  }
  return value
}
