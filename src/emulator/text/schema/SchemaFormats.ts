/**
 * Deterministic strings and numbers for the emulator's schema values. String formats (date-time,
 * date, time, email, uuid, uri, hostname, ipv4, ipv6, duration, byte), lengths, patterns (see
 * PatternSample), and numbers inside minimum/maximum/multipleOf.
 */
import { replyWords } from "../TextGen.js"
import { matchesShort, patternString } from "./PatternSample.js"
import { countOf, numberOf, SCHEMA_BOUNDS, type Obj } from "./SchemaWalk.js"

const pad2 = (n: number): string => String(n).padStart(2, "0")

const hex = (rnd: () => number, n: number): string => {
  let s = ""
  for (let i = 0; i < n; i++) s += Math.floor(rnd() * 16).toString(16)
  return s
}

/** Two or three lower-case words of the emulator's vocabulary, without the final period. */
const words = (seed: string, n: number): string => replyWords(seed, n).join(" ").replace(/\.$/, "").toLowerCase()

/** A value for a known `format`, or `undefined` for an unknown one. */
const formatted = (format: string, seed: string, rnd: () => number): string | undefined => {
  const day = Date.UTC(2020, 0, 1) + Math.floor(rnd() * 5 * 365) * 86_400_000
  const t = new Date(day + Math.floor(rnd() * 86_400) * 1000)
  const w = words(seed, 2).split(" ")
  switch (format) {
    case "date-time":
      return t.toISOString().replace(/\.\d{3}Z$/, "Z")
    case "date":
      return t.toISOString().slice(0, 10)
    case "time":
      return `${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())}Z`
    case "email":
    case "idn-email":
      return `${w.join(".")}@example.com`
    case "uuid":
    case "guid":
      return `${hex(rnd, 8)}-${hex(rnd, 4)}-4${hex(rnd, 3)}-${"89ab"[Math.floor(rnd() * 4)]!}${hex(rnd, 3)}-${hex(rnd, 12)}`
    case "uri":
    case "url":
    case "iri":
    case "uri-reference":
    case "iri-reference":
      return `https://example.com/${w.join("-")}`
    case "hostname":
    case "idn-hostname":
      return `${w.join("-")}.example.com`
    case "ipv4":
      return `10.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}.${1 + Math.floor(rnd() * 254)}`
    case "ipv6":
      return `fd00::${hex(rnd, 4)}`
    case "duration":
      return `P${1 + Math.floor(rnd() * 9)}D`
    case "byte":
    case "base64":
      return Buffer.from(w.join(" ")).toString("base64")
    default:
      return undefined
  }
}

/** Last resorts for a pattern the generator cannot satisfy (each checked against it). */
const PATTERN_CANDIDATES = ["abc", "ABC", "a1", "12345", "A1B2", "abc-123", "x", "0", "2025-01-01", "a@b.co"]

/**
 * A string for a string node: its format's value, else words fitted to minLength/maxLength; with a
 * `pattern` and no format, a string built to match it within those lengths (see PatternSample),
 * else the first of a few short candidates that matches it, else the words.
 */
export const sampleString = (s: Obj, seed: string, rnd: () => number): string => {
  const format = typeof s.format === "string" ? formatted(s.format, seed, rnd) : undefined
  if (format !== undefined) return format
  let out = words(seed, 2 + Math.floor(rnd() * 2))
  const min = countOf(s.minLength) ?? 0
  const max = countOf(s.maxLength)
  let i = 0
  while (out.length < min) out += ` ${words(`${seed}#${i++}`, 3)}`
  if (max !== undefined && out.length > max) out = out.slice(0, Math.max(max, min)).trimEnd()
  while (out.length < min) out += "x"
  const pattern = s.pattern
  if (typeof pattern !== "string" || pattern.length > SCHEMA_BOUNDS.maxPattern || matchesShort(pattern, out)) return out
  const built = patternString(pattern, { min, max: max ?? Infinity }, out.length, rnd)
  return built ?? PATTERN_CANDIDATES.find((c) => matchesShort(pattern, c)) ?? out
}

/** Decimal places of a number as written (`0.05` → 2), for rounding multiples. */
const decimals = (n: number): number => {
  const m = /(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n))
  return Math.max(0, (m?.[1]?.length ?? 0) - Number(m?.[2] ?? 0))
}

/** The bounds of a number node: inclusive/exclusive minimum and maximum (draft 4/OpenAPI boolean exclusives too). */
const boundsOf = (s: Obj): { lo?: number; loEx: boolean; hi?: number; hiEx: boolean } => {
  const min = numberOf(s.minimum)
  const max = numberOf(s.maximum)
  const exMin = numberOf(s.exclusiveMinimum)
  const exMax = numberOf(s.exclusiveMaximum)
  const lo = exMin !== undefined && (min === undefined || exMin >= min) ? exMin : min
  const hi = exMax !== undefined && (max === undefined || exMax <= max) ? exMax : max
  return {
    ...(lo === undefined ? {} : { lo }),
    ...(hi === undefined ? {} : { hi }),
    loEx: lo !== undefined && (lo === exMin || s.exclusiveMinimum === true),
    hiEx: hi !== undefined && (hi === exMax || s.exclusiveMaximum === true)
  }
}

/**
 * A number for a number or integer node within its bounds and multipleOf, or `undefined` when the
 * bounds leave no such number.
 */
export const sampleNumber = (s: Obj, integer: boolean, rnd: () => number): number | undefined => {
  const b = boundsOf(s)
  const m0 = numberOf(s.multipleOf)
  const step = integer
    ? Math.max(1, m0 !== undefined && Number.isInteger(m0) ? m0 : 1)
    : m0 !== undefined && m0 > 0
      ? m0
      : undefined
  if (step !== undefined) {
    // Multiples k·step with k in [kLo, kHi].
    const kLo = b.lo === undefined ? undefined : b.loEx ? Math.floor(b.lo / step) + 1 : Math.ceil(b.lo / step)
    const kHi = b.hi === undefined ? undefined : b.hiEx ? Math.ceil(b.hi / step) - 1 : Math.floor(b.hi / step)
    const span = Math.floor(rnd() * 100)
    const k =
      kLo !== undefined && kHi !== undefined
        ? kLo > kHi
          ? undefined
          : kLo + Math.floor(rnd() * Math.min(kHi - kLo + 1, Number.MAX_SAFE_INTEGER))
        : kLo !== undefined
          ? kLo + span
          : kHi !== undefined
            ? kHi - span
            : 1 + span
    if (k === undefined) return undefined
    return Number((k * step).toFixed(Math.min(20, decimals(step))))
  }
  const { lo, hi } = b
  const round = (v: number): number => {
    const r = Math.round(v * 100) / 100
    const inside = (x: number): boolean =>
      (lo === undefined || (b.loEx ? x > lo : x >= lo)) && (hi === undefined || (b.hiEx ? x < hi : x <= hi))
    return inside(r) ? r : v
  }
  if (lo !== undefined && hi !== undefined) {
    if (lo === hi) return b.loEx || b.hiEx ? undefined : lo
    return round(lo + (0.1 + 0.8 * rnd()) * (hi - lo))
  }
  if (lo !== undefined) return round(lo + 1 + rnd() * 100)
  if (hi !== undefined) return round(hi - 1 - rnd() * 100)
  return round(rnd() * 100)
}
