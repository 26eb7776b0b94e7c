/**
 * Reading the few JSON texts a stream sends thousands of times without building a parse tree: a
 * string literal or a small non-negative integer at a known place in the text. Each reader accepts
 * only what `JSON.parse` reads the same way and declines (`undefined`) everything else, so
 * its caller can fall back to `JSON.parse` for the exact answer or the exact error.
 */

/** Where a scan stopped: the value read, and the index just after it. @category models */
export interface Scanned<A> {
  readonly value: A
  readonly end: number
}

/**
 * The longest string literal read here (in UTF-16 units): a token or a tool-input fragment is far
 * shorter, and a longer one is read by `JSON.parse`, whose native scan is faster per character.
 */
const maxScannedString = 4096

/**
 * Whether `piece` stands in `text` at `at`. A slice compared whole: on a sliced string (what an SSE
 * record's data is) `startsWith` measured slower (bench/sse-decode.bench.ts).
 * @category decoding
 */
export const textAt = (text: string, piece: string, at: number): boolean => text.slice(at, at + piece.length) === piece

/** Below this length V8 copies a slice; from it on, a slice is a view that keeps its whole parent alive. */
const VIEW_MIN_LENGTH = 13

/**
 * `s` as a string of its own. A long slice of `text` is a view of it, and `text` (an SSE record's
 * data) a view of the whole read it came in: a value kept for a stream's life — a fold keeps every
 * text delta — would keep every read alive. A concatenation sliced back is flattened into a copy.
 */
const detached = (s: string): string => (s.length < VIEW_MIN_LENGTH ? s : ` ${s}`.slice(1))

/**
 * Reads the JSON string literal whose opening quote is at `at`: its value and the index after its
 * closing quote, or `undefined` when there is no string there, it is longer than `maxScannedString`,
 * or it holds a character JSON forbids unescaped (below U+0020). Without escapes the value is a copy
 * of that part of the text (as `JSON.parse` makes: it keeps nothing else alive); with escapes the
 * literal alone is given to `JSON.parse` (an invalid escape declines).
 * @category decoding
 */
export const scanString = (text: string, at: number): Scanned<string> | undefined => {
  if (text.charCodeAt(at) !== 0x22) return undefined
  const start = at + 1
  const limit = Math.min(text.length, start + maxScannedString)
  let escaped = false
  let i = start
  for (; i < limit; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) break
    if (c < 0x20) return undefined
    if (c === 0x5c) {
      escaped = true
      i++
    }
  }
  if (i >= limit) return undefined
  if (!escaped) return { value: detached(text.slice(start, i)), end: i + 1 }
  try {
    return { value: JSON.parse(text.slice(at, i + 1)) as string, end: i + 1 }
  } catch {
    return undefined
  }
}

/**
 * Reads a JSON number at `at` that is a non-negative integer of at most 15 digits written plainly
 * (`0`, `12`; no sign, fraction, exponent or leading zero): its value and the index after it, or
 * `undefined` for anything else (which `JSON.parse` may still read, or refuse).
 * @category decoding
 */
export const scanIndex = (text: string, at: number): Scanned<number> | undefined => {
  let value = 0
  let i = at
  for (; i < at + 15; i++) {
    const c = text.charCodeAt(i)
    // Past the end `c` is NaN, which is no digit either.
    if (!(c >= 0x30 && c <= 0x39)) break
    value = value * 10 + (c - 0x30)
  }
  // No digit, or a leading zero (`01`, which JSON refuses).
  if (i === at || (i > at + 1 && text.charCodeAt(at) === 0x30)) return undefined
  const next = text.charCodeAt(i)
  // A 16th digit, a fraction or an exponent: not a plain small integer.
  return (next >= 0x30 && next <= 0x39) || next === 0x2e || next === 0x65 || next === 0x45
    ? undefined
    : { value, end: i }
}
