/**
 * What the SSE parser needs of a platform to read bytes: their text, and where their first line
 * ends. `portableByteText` does both with what every platform has; a platform may bring faster
 * ways that give the same answers (on Node, the adapters' `NodeByteText`, through `#umg/bytes`).
 */

/**
 * Complete UTF-8 bytes (no sequence cut at either end) to their text, a byte order mark kept and
 * every invalid sequence made U+FFFD, as `new TextDecoder("utf-8", { ignoreBOM: true }).decode` does.
 */
export type Utf8Decode = (bytes: Uint8Array) => string

/** How bytes become text, and where their lines end. @category models */
export interface ByteText {
  /** Complete UTF-8 bytes to their text (see `Utf8Decode`). */
  readonly decode: Utf8Decode
  /**
   * The index of the first CR (13) or LF (10) byte in `bytes`, or -1. Line ends are never part of
   * a multi-byte sequence, so this needs no decoding.
   */
  readonly lineEnd: (bytes: Uint8Array) => number
}

/** For byte chunks at most this long, a line end is searched for byte by byte. */
const SHORT_SEARCH = 64

/** Larger chunks are searched this many bytes at a time (V8 makes larger strings in its slower large-object space). */
const SEARCH_WINDOW = 64 * 1024

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true }) // never in streaming mode: it keeps no state
let windows1252: TextDecoder | null | undefined // undefined: not made yet; null: the platform has none

/**
 * The first CR or LF in `bytes`, byte by byte: for a few bytes, cheaper than any call (the SSE
 * parser searches small chunks with it), and where the platform has no windows-1252 decoder.
 * @internal
 */
export const lineEndByLoop = (bytes: Uint8Array): number => {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    if (byte === 10 || byte === 13) return i
  }
  return -1
}

/**
 * `ByteText` with what every platform has: a `TextDecoder`, and a search that decodes the bytes as
 * windows-1252 (one code unit per byte whatever the bytes, so an index in the text is one in the
 * bytes) and searches the text with `indexOf`, several times faster than a loop over the bytes or
 * `Uint8Array.prototype.indexOf`.
 * @category constructors
 */
export const portableByteText: ByteText = {
  decode: (bytes) => utf8.decode(bytes),
  lineEnd: (bytes) => {
    const length = bytes.length
    if (length <= SHORT_SEARCH) return lineEndByLoop(bytes)
    if (windows1252 === undefined) {
      try {
        windows1252 = new TextDecoder("windows-1252")
      } catch {
        windows1252 = null
      }
    }
    if (windows1252 === null) return lineEndByLoop(bytes)
    for (let at = 0; at < length; at += SEARCH_WINDOW) {
      const text = windows1252.decode(bytes.subarray(at, at + SEARCH_WINDOW))
      const lf = text.indexOf("\n")
      const cr = text.indexOf("\r")
      if (lf !== -1 || cr !== -1) return at + (cr === -1 || (lf !== -1 && lf < cr) ? lf : cr)
    }
    return -1
  }
}
