/**
 * What every validation path shares: field paths, how a value and the values allowed are shown, the
 * `InvalidRequest` failures built from them, and the copying of untrusted values without unsafe
 * keys. The rules themselves live in the body Schemas (FieldRules.ts, Conform.ts).
 */
import * as Result from "effect/Result"
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

/**
 * Fails with an `InvalidRequest`. A `Result`: the validators are synchronous, so a builder runs them
 * without a fiber step each (in `buildWith`; `Effect.fromResult` lifts one into an `Effect`). The
 * builders every call runs check each `Result` in plain code (`closedBody`'s `build`): `Result.gen`'s
 * generator was about a quarter of a small chat body's build.
 * @category constructors
 */
export const fail = (field: string, rule: string, message: string): Result.Result<never, InvalidRequest> =>
  Result.fail(new InvalidRequest({ field, rule, message }))

/** The standard "not allowed" failure: `field: 5 is not allowed for M; allowed: 4, 6, 8`. @category constructors */
export const notAllowed = (
  field: string,
  value: unknown,
  allowed: ReadonlyArray<unknown> | string,
  context?: string
): Result.Result<never, InvalidRequest> =>
  fail(
    field,
    "one-of",
    `${field}: ${describe(value)} is not allowed${context ? ` for ${context}` : ""}; allowed: ${
      typeof allowed === "string" ? allowed : listAllowed(allowed)
    }`
  )

/** Reads an optional field of untrusted input: `undefined` when absent or null (null means absent). @category accessors */
export const optional = (obj: Json, key: string): unknown =>
  Object.hasOwn(obj, key) && obj[key] !== null ? obj[key] : undefined

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
