/**
 * Deterministic reply text: a pure function of the normalised request (hashed) to words, plus the
 * token estimate and the token pacing every text route shares.
 */
import type { EmulatorContext } from "../server/Context.js"

/** FNV-1a 32-bit hash of a string. */
export const hash32 = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A seeded pseudo-random generator (mulberry32) returning numbers in [0, 1). */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** JSON with sorted object keys, so that two equal requests normalise to the same string. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const VOCABULARY = [
  "the",
  "gateway",
  "answers",
  "with",
  "a",
  "calm",
  "and",
  "steady",
  "voice",
  "while",
  "models",
  "route",
  "requests",
  "through",
  "quiet",
  "local",
  "servers",
  "every",
  "token",
  "arrives",
  "in",
  "order",
  "streams",
  "flow",
  "like",
  "rivers",
  "under",
  "bright",
  "morning",
  "light",
  "tests",
  "pass",
  "when",
  "replies",
  "stay",
  "the",
  "same",
  "for",
  "each",
  "prompt",
  "emulator",
  "speaks",
  "clearly",
  "about",
  "video",
  "frames",
  "words",
  "and",
  "numbers",
  "cache",
  "hits",
  "save",
  "time",
  "budget",
  "thinking",
  "tools",
  "help",
  "users",
  "build"
]

/** `count` words chosen deterministically from `seed` (the first word capitalised, a final period). */
export const replyWords = (seed: string, count: number): Array<string> => {
  const rnd = seededRandom(hash32(seed))
  const words: Array<string> = []
  for (let i = 0; i < count; i++) words.push(VOCABULARY[Math.floor(rnd() * VOCABULARY.length)]!)
  if (words.length > 0) {
    words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1)
    words[words.length - 1] = `${words[words.length - 1]!}.`
  }
  return words
}

/** Text pieces as streamed: the first word bare, every next one with its leading space. */
export const tokenPieces = (text: string): Array<string> => {
  const parts = text.split(/(?= )/)
  return parts.filter((p) => p.length > 0)
}

/** The emulator's token estimate: about four characters per token, at least one for non-empty text. */
export const estimateTokens = (text: string): number =>
  text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4))

/** Tokens of a generated reply: one per streamed piece. */
export const replyTokens = (text: string): number => tokenPieces(text).length

/** Waits `tokenDelayMs` of real time between streamed tokens (0 = no wait), whatever the emulator clock. */
export const pace = (ctx: EmulatorContext): Promise<void> => {
  const ms = ctx.options.text.tokenDelayMs
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms))
}

/** A short id with a prefix, unique enough for one emulator run (`msg_…`, `toolu_…`). */
export const newId = (prefix: string): string =>
  `${prefix}${Math.random().toString(36).slice(2, 12)}${Date.now().toString(36)}`

/** A deterministic value for a JSON-schema property: enums take their first value, types a fixed sample. */
export const sampleValue = (schema: unknown, name: string, seed: string): unknown => {
  const s = (schema ?? {}) as Record<string, unknown>
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0]
  const type = (
    typeof s.type === "string" ? s.type : Array.isArray(s.type) ? String(s.type[0]) : "string"
  ).toLowerCase()
  switch (type) {
    case "integer":
    case "number":
      return (hash32(seed + name) % 100) + 1
    case "boolean":
      return true
    case "array":
      return []
    case "object":
      return sampleArgs(s, seed)
    case "null":
      return null
    default:
      return replyWords(seed + name, 2)
        .join(" ")
        .replace(/\.$/, "")
  }
}

/**
 * A JSON reply for structured-output requests: every property of `schema` with a deterministic value
 * (an object schema), or `{"answer": …}` when no schema is given (plain JSON mode).
 */
export const jsonReply = (schema: unknown, seed: string): string => {
  const s = (schema ?? {}) as Record<string, unknown>
  if (typeof s.properties !== "object" || s.properties === null)
    return JSON.stringify({ answer: replyWords(seed, 8).join(" ") })
  const all = Object.keys(s.properties)
  return JSON.stringify(sampleArgs({ ...s, required: all }, seed))
}

/** Arguments for a tool call: every required property of the schema, with a deterministic value. */
export const sampleArgs = (schema: unknown, seed: string): Record<string, unknown> => {
  const s = (schema ?? {}) as Record<string, unknown>
  const properties = (s.properties ?? {}) as Record<string, unknown>
  const required = Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === "string") : []
  const out: Record<string, unknown> = {}
  for (const name of required) out[name] = sampleValue(properties[name], name, seed)
  return out
}
