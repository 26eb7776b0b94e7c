/** Strict standard base64 (RFC 4648 §4) to and from bytes, without `Buffer` or `atob`, so the core runs in browsers too. */
import * as Result from "effect/Result"

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const LETTERS: Uint8Array = new TextEncoder().encode(ALPHABET)
const PAD = 0x3d // "="

// 255 marks a byte that is not in the alphabet; a lookup table keeps decoding of 64 MiB images linear and fast.
const CODES: Uint8Array = (() => {
  const table = new Uint8Array(256).fill(255)
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i
  return table
})()

/**
 * Decodes canonical base64: length a multiple of 4, only the 64 alphabet characters, at most two `=`
 * and only at the end, and zero unused bits before the padding. No whitespace, no URL alphabet, no
 * `data:` prefix: anything else is a `Left` with a short reason (never the input itself).
 * @category decoding
 */
export const decode = (text: string): Result.Result<Uint8Array, string> => {
  if (typeof text !== "string") return Result.fail("expected a base64 string")
  const length = text.length
  if (length % 4 !== 0) return Result.fail(`base64 length must be a multiple of 4, got ${length}`)
  // Native UTF-8 encoding is the fastest way to reach the characters as bytes; any non-ASCII
  // character becomes bytes >= 0x80, which the table rejects.
  const input = new TextEncoder().encode(text)
  if (input.length !== length) return Result.fail("base64 holds a non-ASCII character")
  const padding = length === 0 ? 0 : input[length - 1] !== PAD ? 0 : input[length - 2] !== PAD ? 1 : 2
  const out = new Uint8Array((length / 4) * 3 - padding)
  const full = padding === 0 ? length : length - 4
  let o = 0
  let i = 0
  for (; i < full; i += 4) {
    const a = CODES[input[i]!]!,
      b = CODES[input[i + 1]!]!,
      c = CODES[input[i + 2]!]!,
      d = CODES[input[i + 3]!]!
    if ((a | b | c | d) === 255) return Result.fail(`invalid base64 character near offset ${i}`)
    const n = (a << 18) | (b << 12) | (c << 6) | d
    out[o++] = n >> 16
    out[o++] = (n >> 8) & 0xff
    out[o++] = n & 0xff
  }
  if (padding > 0) {
    const a = CODES[input[i]!]!,
      b = CODES[input[i + 1]!]!,
      c = padding === 1 ? CODES[input[i + 2]!]! : 0
    if ((a | b | c) === 255) return Result.fail(`invalid base64 character near offset ${i}`)
    // Canonical form: the bits that padding leaves unused must be zero.
    if (padding === 2 ? (b & 0x0f) !== 0 : (c & 0x03) !== 0)
      return Result.fail("base64 has non-zero bits before its padding")
    out[o++] = (a << 2) | (b >> 4)
    if (padding === 1) out[o] = ((b & 0x0f) << 4) | (c >> 2)
  }
  return Result.succeed(out)
}

/** Encodes bytes as standard padded base64. @category encoding */
export const encode = (bytes: Uint8Array): string => {
  // Write ASCII codes into one buffer and turn it into a string once: per-character string
  // concatenation is far slower on large images.
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4)
  let o = 0
  let i = 0
  for (; i + 3 <= bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out[o++] = LETTERS[n >> 18]!
    out[o++] = LETTERS[(n >> 12) & 63]!
    out[o++] = LETTERS[(n >> 6) & 63]!
    out[o++] = LETTERS[n & 63]!
  }
  const rest = bytes.length - i
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0)
    out[o++] = LETTERS[n >> 18]!
    out[o++] = LETTERS[(n >> 12) & 63]!
    out[o++] = rest === 2 ? LETTERS[(n >> 6) & 63]! : PAD
    out[o] = PAD
  }
  return new TextDecoder().decode(out)
}
