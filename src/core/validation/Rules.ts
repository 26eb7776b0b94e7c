/**
 * The small vocabulary every body builder validates with: read a field of untrusted input, check it
 * against a rule, and fail with an `InvalidRequest` whose message names the field, what was given and
 * what is allowed.
 */
import { Effect } from "effect"
import { InvalidRequest } from "../errors/InvalidRequest.js"

/** A plain JSON-like object (not an array, not null). @category guards */
export type Json = Readonly<Record<string, unknown>>

/** Keys that must never be copied from untrusted input into a body. */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

/** True for a plain object (not an array, not null, not a class instance such as Date). @category guards */
export const isRecord = (u: unknown): u is Json => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** A short, safe rendering of a value for an error message (never more than 80 characters). @category rendering */
export const describe = (value: unknown): string => {
  let text: string
  if (value === undefined) text = "undefined"
  else if (typeof value === "string") text = JSON.stringify(value)
  else if (typeof value === "number" || typeof value === "boolean" || value === null) text = String(value)
  else if (typeof value === "bigint") text = `${value}n`
  else if (Array.isArray(value)) text = `an array of ${value.length}`
  else if (typeof value === "object") text = "an object"
  else text = `a ${typeof value}`
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** Renders allowed values as `4, 6, 8`. @category rendering */
export const listAllowed = (allowed: ReadonlyArray<unknown>): string => allowed.map((a) => String(a)).join(", ")

/** Joins a path and a key: `metadata` + `content` → `metadata.content`; indexes render as `[1]`. @category paths */
export const at = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`

/** Fails with an `InvalidRequest`. @category constructors */
export const fail = (field: string, rule: string, message: string): Effect.Effect<never, InvalidRequest> =>
  Effect.fail(new InvalidRequest({ field, rule, message }))

/** The standard "not allowed" failure: `field: 5 is not allowed for M; allowed: 4, 6, 8`. @category constructors */
export const notAllowed = (
  field: string,
  value: unknown,
  allowed: ReadonlyArray<unknown> | string,
  context?: string
): Effect.Effect<never, InvalidRequest> =>
  fail(
    field,
    "one-of",
    `${field}: ${describe(value)} is not allowed${context ? ` for ${context}` : ""}; allowed: ${
      typeof allowed === "string" ? allowed : listAllowed(allowed)
    }`
  )

/** The input must be a plain object. @category validators */
export const record = (value: unknown, field: string): Effect.Effect<Json, InvalidRequest> =>
  isRecord(value)
    ? Effect.succeed(value)
    : fail(field === "" ? "(body)" : field, "type", `${field === "" ? "the request" : field}: expected an object, got ${describe(value)}`)

/** A required field is present (not undefined or null). @category validators */
export const required = (obj: Json, key: string, path = ""): Effect.Effect<unknown, InvalidRequest> => {
  const field = at(path, key)
  const v = Object.hasOwn(obj, key) ? obj[key] : undefined
  return v === undefined || v === null ? fail(field, "required", `${field} is required`) : Effect.succeed(v)
}

/** A required non-empty string. @category validators */
export const requiredString = (obj: Json, key: string, path = ""): Effect.Effect<string, InvalidRequest> =>
  Effect.flatMap(required(obj, key, path), (v) => string(v, at(path, key), { nonEmpty: true }))

/** Reads an optional field: `undefined` when absent or null. @category validators */
export const optional = (obj: Json, key: string): unknown => (Object.hasOwn(obj, key) && obj[key] !== null ? obj[key] : undefined)

/** A string value, optionally non-empty. @category validators */
export const string = (
  value: unknown,
  field: string,
  options: { readonly nonEmpty?: boolean } = {}
): Effect.Effect<string, InvalidRequest> => {
  if (typeof value !== "string") return fail(field, "type", `${field}: expected a string, got ${describe(value)}`)
  if (options.nonEmpty && value.trim() === "") return fail(field, "non-empty", `${field} must not be empty`)
  return Effect.succeed(value)
}

/** A boolean value. @category validators */
export const boolean = (value: unknown, field: string): Effect.Effect<boolean, InvalidRequest> =>
  typeof value === "boolean" ? Effect.succeed(value) : fail(field, "type", `${field}: expected true or false, got ${describe(value)}`)

/** A finite number within `[min, max]` (either bound optional, each inclusive unless told). @category validators */
export const number = (
  value: unknown,
  field: string,
  range: {
    readonly min?: number
    readonly max?: number
    readonly minExclusive?: boolean
    readonly integer?: boolean
    readonly context?: string
  } = {}
): Effect.Effect<number, InvalidRequest> => {
  const kind = range.integer ? "an integer" : "a number"
  if (typeof value !== "number" || !Number.isFinite(value) || (range.integer && !Number.isInteger(value)))
    return fail(field, "type", `${field}: expected ${kind}, got ${describe(value)}`)
  const { min, max } = range
  const belowMin = min !== undefined && (range.minExclusive ? value <= min : value < min)
  const aboveMax = max !== undefined && value > max
  if (belowMin || aboveMax) {
    const lower = min === undefined ? "" : range.minExclusive ? `greater than ${min}` : `at least ${min}`
    const upper = max === undefined ? "" : `at most ${max}`
    const allowed = min !== undefined && max !== undefined && !range.minExclusive ? `${min} to ${max}` : [lower, upper].filter(Boolean).join(" and ")
    return fail(
      field,
      "range",
      `${field}: ${describe(value)} is out of range${range.context ? ` for ${range.context}` : ""}; allowed: ${allowed}`
    )
  }
  return Effect.succeed(value)
}

/** An integer, also accepted when written as a string of digits (`"8"`). @category validators */
export const integerLike = (value: unknown, field: string): Effect.Effect<number, InvalidRequest> => {
  if (typeof value === "string" && /^-?\d{1,15}$/.test(value.trim())) return Effect.succeed(Number(value.trim()))
  return number(value, field, { integer: true })
}

/** One of a fixed set of values (compared with `===`). @category validators */
export const oneOf = <const A extends string | number | boolean>(
  value: unknown,
  field: string,
  allowed: ReadonlyArray<A>,
  context?: string
): Effect.Effect<A, InvalidRequest> =>
  (allowed as ReadonlyArray<unknown>).includes(value) ? Effect.succeed(value as A) : notAllowed(field, value, allowed, context)

/** A non-empty array (or any array with `allowEmpty`). @category validators */
export const array = (
  value: unknown,
  field: string,
  options: { readonly nonEmpty?: boolean; readonly maxItems?: number } = {}
): Effect.Effect<ReadonlyArray<unknown>, InvalidRequest> => {
  if (!Array.isArray(value)) return fail(field, "type", `${field}: expected an array, got ${describe(value)}`)
  if (options.nonEmpty && value.length === 0) return fail(field, "non-empty", `${field} must not be empty`)
  if (options.maxItems !== undefined && value.length > options.maxItems)
    return fail(field, "max-items", `${field}: ${value.length} items given; allowed: at most ${options.maxItems}`)
  return Effect.succeed(value)
}

/**
 * Copies the own enumerable fields of untrusted input, leaving out the given keys and any
 * `__proto__` / `constructor` / `prototype` key, so passthrough fields reach the body untouched
 * and nothing can reach a prototype.
 * @category constructors
 */
export const passthrough = (obj: Json, exclude: Iterable<string> = []): Record<string, unknown> => {
  const skip = new Set(exclude)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(obj)) {
    if (skip.has(key) || UNSAFE_KEYS.has(key)) continue
    const v = obj[key]
    if (v !== undefined) out[key] = v
  }
  return out
}

/**
 * The own fields of untrusted input, deep-copied without unsafe keys (`passthrough` then `sanitize`
 * of each value), leaving out the given keys.
 * @category constructors
 */
export const copyFields = (obj: Json, exclude: Iterable<string> = []): Record<string, unknown> => {
  const out = passthrough(obj, exclude)
  for (const key of Object.keys(out)) out[key] = sanitize(out[key])
  return out
}

/**
 * Deep-copies JSON-like data (plain objects and arrays), dropping unsafe keys at every depth.
 * Non-JSON values are kept by reference. Iterative, so no nesting can overflow the stack; an object
 * met twice is copied once (a cycle stays a cycle, shared parts stay shared), so the work is linear.
 * Reading a Proxy or a throwing getter throws here: code taking outside input checks it first
 * (`findUnsendable`) or catches (the decoders' `decodeWith`).
 * @category constructors
 */
export const sanitize = (value: unknown): unknown => {
  if (!Array.isArray(value) && !isRecord(value)) return value
  const copies = new Map<object, Array<unknown> | Record<string, unknown>>()
  const pending: Array<readonly [object, Array<unknown> | Record<string, unknown>]> = []
  const copyOf = (v: unknown): unknown => {
    const isArray = Array.isArray(v)
    if (!isArray && !isRecord(v)) return v
    const known = copies.get(v)
    if (known !== undefined) return known
    const copy: Array<unknown> | Record<string, unknown> = isArray ? [] : {}
    copies.set(v, copy)
    pending.push([v, copy])
    return copy
  }
  const root = copyOf(value)
  while (pending.length > 0) {
    const [source, copy] = pending.pop()!
    if (Array.isArray(source)) {
      const out = copy as Array<unknown>
      for (let i = 0; i < source.length; i++) out.push(copyOf(source[i]))
    } else {
      const out = copy as Record<string, unknown>
      const from = source as Json
      for (const key of Object.keys(from)) if (!UNSAFE_KEYS.has(key)) out[key] = copyOf(from[key])
    }
  }
  return root
}

/** Runs a check on an optional field only when it is present (not undefined or null). @category validators */
export const ifPresent = (
  obj: Json,
  key: string,
  check: (value: unknown) => Effect.Effect<unknown, InvalidRequest>
): Effect.Effect<void, InvalidRequest> => {
  const v = optional(obj, key)
  return v === undefined ? Effect.void : Effect.asVoid(check(v))
}
