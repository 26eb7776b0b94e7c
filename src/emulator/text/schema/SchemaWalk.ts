/**
 * The JSON Schema subset the emulator answers structured requests from, and its bounds check.
 * Reading a node (JSON Schema 2020-12/draft-7 and the native family's OpenAPI subset with upper-case
 * types and `nullable`), resolving local `$ref`s, and refusing a schema too large, too deep or
 * malformed before any value is made, naming the part.
 */
import { textOf } from "../TextGen.js"

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** Where and why a schema was refused: `path` is a JSON pointer into the schema (`#/properties/a/items`). */
export interface SchemaProblem {
  readonly path: string
  readonly message: string
}

/** The emulator's bounds on a schema and on the value made from it; beyond them a request gets its family's 400. */
export const SCHEMA_BOUNDS = {
  /** Subschemas in one schema, `$defs` included. */
  maxNodes: 2000,
  /** How deep subschemas nest in the schema document. */
  maxSchemaDepth: 32,
  /** Largest `minItems`, `minProperties`. */
  maxMinCount: 256,
  /** Largest `minLength`. */
  maxMinLength: 4096,
  /** Longest `pattern` tried. */
  maxPattern: 512,
  /** Values (nodes) in one generated value. */
  maxValueNodes: 10_000,
  /** Characters of strings in one generated value. */
  maxValueChars: 262_144,
  /** How deep a generated value may nest (a recursive `$ref` must end before). */
  maxValueDepth: 24,
  /** From this depth on, optional parts are left out so that recursive schemas end. */
  softValueDepth: 4
} as const

export const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"] as const
export type JsonType = (typeof TYPES)[number]

const escapePointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1")

/** `path` extended by one key. */
export const at = (path: string, ...keys: ReadonlyArray<string | number>): string =>
  keys.reduce<string>((p, k) => `${p}/${escapePointer(String(k))}`, path)

/** A non-negative integer keyword (the OpenAPI subset writes int64 values as strings: `"minItems": "1"`). */
export const countOf = (v: unknown): number | undefined => {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : undefined
}

/** A numeric keyword (a number, or a numeric string in the OpenAPI subset). */
export const numberOf = (v: unknown): number | undefined => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v
  return typeof n === "number" && Number.isFinite(n) ? n : undefined
}

/** The types a node allows, lower-cased (`"OBJECT"` → `object`), `nullable: true` adding `null`; empty = not said. */
export const typesOf = (s: Obj): Array<JsonType> => {
  const raw: Array<unknown> = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]
  const types = raw.map((t) => textOf(t).toLowerCase()).filter((t): t is JsonType => TYPES.some((k) => k === t))
  if (s.nullable === true && types.length > 0 && !types.includes("null")) types.push("null")
  return types
}

/** Resolves a local `$ref` (`#`, `#/$defs/X`, `#/definitions/X`, any `#/…` pointer) against the root. */
export const resolveRef = (root: unknown, ref: string): { readonly ok: true; readonly target: unknown } | undefined => {
  if (ref === "#") return { ok: true, target: root }
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    let key: string
    try {
      key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~")
    } catch {
      return undefined
    }
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)]
    else if (isObj(node) && Object.hasOwn(node, key)) node = node[key]
    else return undefined
  }
  return node === undefined ? undefined : { ok: true, target: node }
}

/** Keywords a description may carry (below); only these are read from it. */
const DESCRIBED = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties"
])

/**
 * The node with the constraints its description carries merged in: the messages-style SDK moves the
 * keywords its structured outputs do not take into the description as `{minimum: 1, maximum: 9}`
 * (a model reads them there); keywords the node has itself win.
 */
export const withDescribed = (s: Obj): Obj => {
  const m = typeof s.description === "string" ? /\{([^{}]*)\}$/.exec(s.description) : null
  if (m === null) return s
  let parsed: unknown
  try {
    parsed = JSON.parse(`{${m[1]!.replace(/(^|, )([A-Za-z$][\w$]*): /g, '$1"$2": ')}}`)
  } catch {
    return s
  }
  if (!isObj(parsed)) return s
  const extra = Object.fromEntries(Object.entries(parsed).filter(([k]) => DESCRIBED.has(k) && !(k in s)))
  return Object.keys(extra).length === 0 ? s : { ...s, ...extra }
}

/** Keywords whose value is one subschema. */
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"] as const
/** Keywords whose value is an array of subschemas. */
const MANY = ["anyOf", "oneOf", "allOf", "prefixItems", "items"] as const
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"] as const

/** The subschemas directly under `s`, each with its pointer. */
const children = (s: Obj, path: string): Array<[unknown, string]> => {
  const out: Array<[unknown, string]> = []
  for (const k of ONE) if (isObj(s[k]) || typeof s[k] === "boolean") out.push([s[k], at(path, k)])
  for (const k of MANY) {
    const v = s[k]
    if (Array.isArray(v)) v.forEach((x, i) => out.push([x, at(path, k, i)]))
  }
  for (const k of MAP) {
    const v = s[k]
    if (isObj(v)) for (const [name, x] of Object.entries(v)) out.push([x, at(path, k, name)])
  }
  return out
}

/** The checks one node takes: its own keywords, not its children's. */
const checkNode = (root: unknown, s: Obj, path: string): SchemaProblem | undefined => {
  const problem = (where: string, message: string): SchemaProblem => ({ path: where, message })
  if (s.$ref !== undefined) {
    if (typeof s.$ref !== "string" || resolveRef(root, s.$ref) === undefined)
      return problem(at(path, "$ref"), `$ref ${JSON.stringify(s.$ref)} does not resolve to a local definition`)
  }
  const raw: Array<unknown> = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]
  for (const t of raw)
    if (!TYPES.some((k) => k === textOf(t).toLowerCase()))
      return problem(at(path, "type"), `type ${JSON.stringify(t)} is not one of ${TYPES.join(", ")}`)
  if (s.enum !== undefined && (!Array.isArray(s.enum) || s.enum.length === 0))
    return problem(at(path, "enum"), "enum must be a non-empty array")
  for (const k of ["anyOf", "oneOf", "allOf"] as const)
    if (s[k] !== undefined && (!Array.isArray(s[k]) || s[k].length === 0))
      return problem(at(path, k), `${k} must be a non-empty array of schemas`)
  for (const k of ["minItems", "minProperties"] as const) {
    const n = countOf(s[k])
    if (n !== undefined && n > SCHEMA_BOUNDS.maxMinCount)
      return problem(at(path, k), `${k} ${n} is larger than the emulator's bound ${SCHEMA_BOUNDS.maxMinCount}`)
  }
  const minLength = countOf(s.minLength)
  if (minLength !== undefined && minLength > SCHEMA_BOUNDS.maxMinLength)
    return problem(
      at(path, "minLength"),
      `minLength ${minLength} is larger than the emulator's bound ${SCHEMA_BOUNDS.maxMinLength}`
    )
  if (typeof s.pattern === "string" && s.pattern.length > SCHEMA_BOUNDS.maxPattern)
    return problem(
      at(path, "pattern"),
      `pattern is longer than the emulator's bound of ${SCHEMA_BOUNDS.maxPattern} characters`
    )
  for (const [lo, hi] of [
    ["minimum", "maximum"],
    ["minItems", "maxItems"],
    ["minLength", "maxLength"],
    ["minProperties", "maxProperties"]
  ] as const) {
    const a = numberOf(s[lo])
    const b = numberOf(s[hi])
    if (a !== undefined && b !== undefined && a > b)
      return problem(at(path, lo), `${lo} ${a} is greater than ${hi} ${b}`)
  }
  return undefined
}

/**
 * Checks a whole schema against the bounds and the subset: every node an object or a boolean, known
 * types, resolvable local `$ref`s, consistent min/max, at most `maxNodes` subschemas nesting at most
 * `maxSchemaDepth` deep. `undefined` when it passes.
 */
export const checkSchema = (schema: unknown): SchemaProblem | undefined => {
  if (schema === false) return { path: "#", message: "the schema `false` accepts no value" }
  const stack: Array<[unknown, string, number]> = [[schema, "#", 0]]
  let nodes = 0
  while (stack.length > 0) {
    const [s, path, depth] = stack.pop()!
    if (typeof s === "boolean") continue
    if (!isObj(s)) return { path, message: "a schema must be an object or a boolean" }
    if (++nodes > SCHEMA_BOUNDS.maxNodes)
      return { path, message: `the schema has more than ${SCHEMA_BOUNDS.maxNodes} subschemas, the emulator's bound` }
    if (depth > SCHEMA_BOUNDS.maxSchemaDepth)
      return {
        path,
        message: `the schema nests deeper than ${SCHEMA_BOUNDS.maxSchemaDepth} levels, the emulator's bound`
      }
    const problem = checkNode(schema, withDescribed(s), path)
    if (problem !== undefined) return problem
    for (const [child, where] of children(s, path)) stack.push([child, where, depth + 1])
  }
  return undefined
}
