/**
 * A deterministic value matching a JSON Schema (the subset of SchemaWalk.ts): the emulator's
 * structured outputs and tool arguments. The same schema and seed always give the same value;
 * the value is bounded in size and depth, and a schema that cannot be met within the bounds is
 * refused with the part named. `mismatchValue` makes a value that does not match, on request.
 */
import { canonicalJson, hash32, seededRandom } from "../TextGen.js"
import { sampleNumber, sampleString } from "./SchemaFormats.js"
import {
  at,
  checkSchema,
  countOf,
  isObj,
  resolveRef,
  SCHEMA_BOUNDS,
  typesOf,
  withDescribed,
  type JsonType,
  type Obj,
  type SchemaProblem
} from "./SchemaWalk.js"

/** What to include: every declared property (structured output) or only the required ones (tool arguments). */
export interface SampleOptions {
  readonly includeOptional: boolean
}

/** A sampled value, or the problem that refused it. */
export type Sampled =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: SchemaProblem }

class Refused {
  constructor(readonly problem: SchemaProblem) {}
}

interface Run {
  readonly root: unknown
  readonly seed: string
  readonly options: SampleOptions
  nodes: number
  chars: number
}

const refuse = (path: string, message: string): never => {
  throw new Refused({ path, message })
}

/** Merges `b` into `a` as `allOf` asks: properties and required united, the tighter bound kept. */
const mergeSchemas = (a: Obj, b: Obj): Obj => {
  const out: Obj = { ...a, ...b }
  if (isObj(a.properties) && isObj(b.properties)) out.properties = { ...a.properties, ...b.properties }
  if (Array.isArray(a.required) && Array.isArray(b.required))
    out.required = [...new Set([...a.required, ...b.required])]
  for (const k of ["minimum", "minLength", "minItems", "minProperties", "exclusiveMinimum"])
    if (typeof a[k] === "number" && typeof b[k] === "number") out[k] = Math.max(a[k], b[k])
  for (const k of ["maximum", "maxLength", "maxItems", "maxProperties", "exclusiveMaximum"])
    if (typeof a[k] === "number" && typeof b[k] === "number") out[k] = Math.min(a[k], b[k])
  const ta = typesOf(a)
  const tb = typesOf(b)
  if (ta.length > 0 && tb.length > 0) out.type = ta.filter((t) => tb.includes(t))
  return out
}

/** Follows `$ref`s and folds `allOf` into one node (bounded: each step costs a node). */
const flatten = (run: Run, s0: unknown, path: string, level = 0): { s: Obj | boolean; path: string } => {
  if (level > SCHEMA_BOUNDS.maxSchemaDepth) refuse(path, "allOf and $ref nest without end")
  let s = s0
  let p = path
  for (let hops = 0; isObj(s) && typeof s.$ref === "string"; hops++) {
    if (hops > SCHEMA_BOUNDS.maxValueDepth) refuse(p, "$ref chain does not end")
    const { $ref, ...rest } = s
    const target = resolveRef(run.root, $ref)
    if (target === undefined) return refuse(at(p, "$ref"), `$ref ${$ref} does not resolve`)
    p = $ref
    s =
      Object.keys(rest).length === 0
        ? target.target
        : isObj(target.target)
          ? mergeSchemas(target.target, rest)
          : target.target
  }
  if (typeof s === "boolean") return { s, path: p }
  if (!isObj(s)) return refuse(p, "a schema must be an object or a boolean")
  if (Array.isArray(s.allOf)) {
    const { allOf, ...rest } = s
    let merged: Obj = rest
    allOf.forEach((branch: unknown, i) => {
      const f = flatten(run, branch, at(p, "allOf", i), level + 1)
      if (f.s === false) refuse(f.path, "allOf holds a schema that accepts no value")
      if (isObj(f.s)) merged = mergeSchemas(merged, f.s)
    })
    return { s: merged, path: p }
  }
  return { s, path: p }
}

/** Whether a branch ends without nesting further (no `$ref`, no object or array): preferred deep down. */
const terminal = (s: unknown): boolean =>
  typeof s === "boolean" ||
  (isObj(s) &&
    s.$ref === undefined &&
    s.properties === undefined &&
    s.items === undefined &&
    !typesOf(s).some((t) => t === "object" || t === "array"))

/** The type to make for a node: its declared types (null chosen one time in four, or when deep), else inferred. */
const chooseType = (s: Obj, rnd: () => number, deep: boolean): JsonType => {
  const declared = typesOf(s)
  const others = declared.filter((t) => t !== "null")
  if (declared.includes("null") && (others.length === 0 || deep || rnd() < 0.25)) return "null"
  if (others.length > 0) return others[Math.floor(rnd() * others.length)]!
  if (s.properties !== undefined || s.required !== undefined || s.additionalProperties !== undefined) return "object"
  if (s.items !== undefined || s.prefixItems !== undefined || s.minItems !== undefined) return "array"
  if (s.minimum !== undefined || s.maximum !== undefined || s.multipleOf !== undefined) return "number"
  return "string"
}

/** Makes the value of node `s0`; `vpath` (the value's own path) seeds it, `path` names the schema part on refusal. */
const gen = (run: Run, s0: unknown, path: string, vpath: string, depth: number, index: number): unknown => {
  if (depth > SCHEMA_BOUNDS.maxValueDepth)
    refuse(
      path,
      `the schema needs values nested deeper than ${SCHEMA_BOUNDS.maxValueDepth} levels (a $ref that cannot end)`
    )
  if (++run.nodes > SCHEMA_BOUNDS.maxValueNodes)
    refuse(path, `the value would have more than ${SCHEMA_BOUNDS.maxValueNodes} parts, the emulator's bound`)
  const flat = flatten(run, s0, path)
  if (flat.s === false) return refuse(flat.path, "the schema `false` accepts no value")
  const s = flat.s === true ? {} : withDescribed(flat.s)
  const p = flat.path
  const rnd = seededRandom(hash32(`${run.seed}|${vpath}`))
  const deep = depth >= SCHEMA_BOUNDS.softValueDepth
  if (s.const !== undefined) return structuredClone(s.const)
  if (Array.isArray(s.enum)) return structuredClone(s.enum[index % s.enum.length])
  const union = Array.isArray(s.anyOf) ? "anyOf" : Array.isArray(s.oneOf) ? "oneOf" : undefined
  if (union !== undefined) {
    const branches = s[union] as Array<unknown>
    const { [union]: _, ...rest } = s
    const pick = deep ? Math.max(0, branches.findIndex(terminal)) : Math.floor(rnd() * branches.length)
    const branch = flatten(run, branches[pick], at(p, union, pick))
    const merged = branch.s === true ? rest : branch.s === false ? false : mergeSchemas(rest, branch.s)
    return gen(run, merged, branch.path, vpath, depth, index)
  }
  const type = chooseType(s, rnd, deep)
  switch (type) {
    case "null":
      return null
    case "boolean":
      return rnd() < 0.5
    case "integer":
    case "number":
      return (
        sampleNumber(s, type === "integer", rnd) ?? refuse(p, "no number lies within minimum, maximum and multipleOf")
      )
    case "string": {
      const str = sampleString(s, `${run.seed}|${vpath}`, rnd)
      run.chars += str.length
      if (run.chars > SCHEMA_BOUNDS.maxValueChars)
        refuse(p, `the value would hold more than ${SCHEMA_BOUNDS.maxValueChars} characters, the emulator's bound`)
      return str
    }
    case "array":
      return genArray(run, s, p, vpath, depth, rnd)
    case "object":
      return genObject(run, s, p, vpath, depth)
  }
}

const genArray = (run: Run, s: Obj, p: string, vpath: string, depth: number, rnd: () => number): Array<unknown> => {
  const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []
  const rest: unknown = Array.isArray(s.items) ? (s.additionalItems ?? true) : (s.items ?? true)
  const restKey = Array.isArray(s.items) ? "additionalItems" : "items"
  const min = countOf(s.minItems) ?? 0
  const max = Math.min(countOf(s.maxItems) ?? Infinity, rest === false ? tuple.length : Infinity)
  const wanted = depth >= SCHEMA_BOUNDS.softValueDepth ? min : Math.max(min, Math.min(max, 1 + Math.floor(rnd() * 3)))
  const n = Math.max(Math.min(wanted, max), tuple.length > 0 ? Math.min(tuple.length, max) : 0)
  const out: Array<unknown> = []
  const seen = new Set<string>()
  for (let i = 0; i < n; i++) {
    const fromTuple = i < tuple.length
    if (!fromTuple && rest === false) refuse(at(p, restKey), "minItems asks for more items than the tuple allows")
    const item = fromTuple ? tuple[i] : rest
    const ip = fromTuple ? at(p, Array.isArray(s.prefixItems) ? "prefixItems" : "items", i) : at(p, restKey)
    let value = gen(run, item, ip, `${vpath}[${i}]`, depth + 1, i)
    // uniqueItems: a few more tries with another seed, then keep what came.
    for (let retry = 1; s.uniqueItems === true && seen.has(canonicalJson(value)) && retry <= 4; retry++)
      value = gen(run, item, ip, `${vpath}[${i}]#${retry}`, depth + 1, i + retry * n)
    seen.add(canonicalJson(value))
    out.push(value)
  }
  return out
}

const genObject = (run: Run, s: Obj, p: string, vpath: string, depth: number): Obj => {
  const props = isObj(s.properties) ? s.properties : {}
  const required = Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === "string") : []
  const deep = depth >= SCHEMA_BOUNDS.softValueDepth
  const order = Array.isArray(s.propertyOrdering)
    ? [...s.propertyOrdering.filter((k): k is string => typeof k === "string" && k in props), ...Object.keys(props)]
    : Object.keys(props)
  const optional = Object.keys(props).filter((k) => !required.includes(k))
  const names = [...new Set(order)].filter((k) => required.includes(k) || (run.options.includeOptional && !deep))
  for (const k of required) if (!names.includes(k)) names.push(k)
  const extra = s.additionalProperties
  const extraSchema: unknown = isObj(extra) || typeof extra === "boolean" ? extra : true
  const minProps = countOf(s.minProperties) ?? 0
  for (const k of optional) if (names.length < minProps && !names.includes(k)) names.push(k)
  // A map (`additionalProperties` with a schema and no properties, as records have): one entry unless deep.
  const mapEntries =
    Object.keys(props).length === 0 && isObj(extra) && s.patternProperties === undefined
      ? Math.max(deep ? 0 : 1, minProps - names.length)
      : extra === false || s.patternProperties !== undefined
        ? 0
        : Math.max(0, minProps - names.length)
  const out: Obj = {}
  for (const k of names) {
    const where = k in props ? at(p, "properties", k) : at(p, "additionalProperties")
    out[k] = gen(run, k in props ? props[k] : extraSchema, where, `${vpath}.${k}`, depth + 1, 0)
  }
  for (let i = 1; i <= mapEntries; i++) {
    const key = `key_${i}`
    if (key in out) continue
    out[key] = gen(run, extraSchema, at(p, "additionalProperties"), `${vpath}.${key}`, depth + 1, 0)
  }
  return out
}

/**
 * A value matching `schema`, the same for the same schema and seed. Refused (with the part named)
 * when the schema is malformed or beyond the bounds, or when no value fits within them.
 */
export const sampleSchema = (schema: unknown, seed: string, options: SampleOptions): Sampled => {
  const problem = checkSchema(schema)
  if (problem !== undefined) return { ok: false, problem }
  // Hashed once: the seed may be a whole request, and every node seeds from it.
  const run: Run = { root: schema, seed: hash32(seed).toString(36), options, nodes: 0, chars: 0 }
  try {
    return { ok: true, value: gen(run, schema, "#", "$", 0, 0) }
  } catch (e) {
    if (e instanceof Refused) return { ok: false, problem: e.problem }
    throw e
  }
}

/** `s` with its `$ref`s followed (a few hops; an unresolvable one leaves the node as it is). */
const deref = (root: unknown, s: unknown): unknown => {
  let node = s
  for (let hops = 0; hops < 8 && isObj(node) && typeof node.$ref === "string"; hops++)
    node = resolveRef(root, node.$ref)?.target ?? node
  return node
}

/** The JSON types a node may take (unions looked into, a few levels); a node that says none gets its inferred one. */
const allowedTypes = (root: unknown, s0: unknown, level = 0): Array<JsonType> => {
  const s = deref(root, s0)
  if (!isObj(s)) return []
  const union = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined
  if (union !== undefined && level < 4) return union.flatMap((b: unknown) => allowedTypes(root, b, level + 1))
  const declared = typesOf(s)
  return declared.length > 0 ? declared : [chooseType(s, () => 0, false)]
}

/** A value whose JSON type is none of `types` (an integer-only node takes 0.5). */
const wrongType = (types: ReadonlyArray<JsonType>): unknown => {
  const candidates: Array<[JsonType, unknown]> = [
    ["string", "umg-mismatch"],
    ["number", 0.5],
    ["boolean", true],
    ["array", []],
    ["object", {}]
  ]
  return candidates.find(([t]) => !types.includes(t))?.[1] ?? null
}

/**
 * A value that does not match `schema` although it looks like it: an object keeps its shape with
 * its first required (else first) property of a wrong type (a string outside an enum for an enum),
 * or gains a `umg_mismatch` property when it declares none; any other value is replaced by one of
 * a wrong type.
 */
export const mismatchValue = (schema: unknown, valid: unknown): unknown => {
  const s = deref(schema, schema)
  if (isObj(valid) && isObj(s)) {
    const props = isObj(s.properties) ? s.properties : {}
    const required = Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === "string") : []
    const target = required.find((k) => k in props) ?? Object.keys(props)[0]
    if (target === undefined) return { ...valid, umg_mismatch: true }
    const ps = deref(schema, props[target])
    const wrong =
      isObj(ps) && (Array.isArray(ps.enum) || ps.const !== undefined)
        ? "umg-mismatch-not-allowed"
        : wrongType(allowedTypes(schema, ps))
    return { ...valid, [target]: wrong }
  }
  return wrongType(allowedTypes(schema, s))
}
