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
export const canonicalJson = (value: unknown): string =>
  // The native stringify with a key-sorting replacer: several times faster than building the text in JS.
  // A null-prototype copy keeps a `__proto__` key an own property.
  (JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v
    const o = v as Record<string, unknown>
    const sorted = Object.create(null) as Record<string, unknown>
    for (const k of Object.keys(o).sort()) sorted[k] = o[k]
    return sorted
  }) as string | undefined) ?? "null"

/**
 * A request value as text, for checks against a list and for error messages: strings as they are,
 * other primitives via `String`, objects and arrays as JSON (`String` throws on `{"toString": 1}`).
 */
export const textOf = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "object" && value !== null ? canonicalJson(value) : String(value)

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

/**
 * JSON text (tool arguments, structured output) in the pieces it streams as: cuts every 3 to 10
 * characters at places drawn from the text's hash (the same text always splits the same way), never
 * inside a surrogate pair; at least two pieces when the text has two characters or more.
 */
export const jsonPieces = (json: string): Array<string> => {
  const rnd = seededRandom(hash32(json))
  const out: Array<string> = []
  let i = 0
  while (i < json.length) {
    let j = Math.min(json.length, i + 3 + Math.floor(rnd() * 8))
    if (out.length === 0 && j === json.length && json.length >= 2) j = Math.ceil(json.length / 2)
    const code = json.charCodeAt(j)
    if (j < json.length && code >= 0xdc00 && code <= 0xdfff) j++
    out.push(json.slice(i, j))
    i = j
  }
  return out
}

/**
 * The text cut before the first of `stops` it holds (the sequence itself left out, as upstream
 * does) and that sequence; `undefined` when none occurs. Empty sequences never match.
 */
export const cutAtStop = (
  text: string,
  stops: ReadonlyArray<string>
): { readonly text: string; readonly stop: string } | undefined => {
  let first: { readonly text: string; readonly stop: string } | undefined
  let at = Infinity
  for (const stop of stops) {
    if (stop.length === 0) continue
    const found = text.indexOf(stop)
    if (found >= 0 && found < at) {
      at = found
      first = { text: text.slice(0, found), stop }
    }
  }
  return first
}

/**
 * Streamed pieces cut before the first stop sequence their joined text holds (the last kept piece
 * shortened, an emptied one dropped), or `undefined` when none occurs.
 */
export const cutPiecesAtStop = (
  pieces: ReadonlyArray<string>,
  stops: ReadonlyArray<string>
): Array<string> | undefined => {
  const hit = cutAtStop(pieces.join(""), stops)
  if (hit === undefined) return undefined
  const out: Array<string> = []
  let left = hit.text.length
  for (const piece of pieces) {
    if (left <= 0) break
    out.push(piece.slice(0, left))
    left -= piece.length
  }
  return out
}
