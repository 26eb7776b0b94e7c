/**
 * A streaming UTF-8 decoder that hands each chunk's text on as pieces; the SSE parser's byte input
 * goes through it. Internal: not exported from the package.
 *
 * It keeps the few bytes of a sequence cut at a chunk's end itself (see `completeEnd`) and decodes
 * the rest of every chunk in plain (non-streaming) `TextDecoder` calls, which do less per call than
 * streaming ones (no state to merge); every cut is a decoder boundary, so the text is
 * the same whatever the chunking, only cut into other pieces. Each piece is one decoder call's text,
 * at most `ASCII_SLICE` bytes of a large chunk (V8 makes larger strings in its slower large-object
 * space), except from a line longer than that on (a base64 image): slicing it would only make the
 * parser join the slices again (see `LONG_LINE`).
 */

import { type ByteText, portableByteText, type Utf8Decode } from "./ByteText.js"

/** Receives the text of a chunk, piece by piece, in order. */
export type TextSink = (text: string) => void

/** An incremental decoder of one byte stream. */
export interface Utf8Pieces {
  /**
   * Decodes `chunk` (after the bytes carried from the previous one), handing the text to `sink`;
   * an incomplete sequence at its end is carried to the next call.
   */
  push(chunk: Uint8Array, sink: TextSink): void
  /** Hands on the carried incomplete sequence, if any, as U+FFFD (the stream is cut there). */
  flush(sink: TextSink): void
  /** How many bytes of an incomplete sequence are carried to the next call (0 to 3). */
  carried(): number
  /** Hands over the carried bytes undecoded (none: `undefined`) and forgets them. */
  takeCarried(): Uint8Array | undefined
  /** Forgets the carried bytes. */
  reset(): void
}

/** True for a UTF-8 continuation byte (`10xxxxxx`). */
const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80

/**
 * The end of the longest prefix of `bytes[from, end)` that ends on a UTF-8 boundary. Only the last
 * three bytes are looked at: if one of them leads a sequence that needs more bytes than follow it,
 * the cut goes just before it. Invalid leads are cut off too, which is harmless: any cut before a
 * non-continuation byte is a decoder boundary.
 */
const completeEnd = (bytes: Uint8Array, from: number, end: number): number => {
  const stop = end - from >= 3 ? end - 3 : from
  for (let i = end - 1; i >= stop; i--) {
    const b = bytes[i]!
    if (b < 0x80) return end
    if (b >= 0xc0) {
      const needed = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1
      return end - 1 - i < needed ? i : end
    }
  }
  return end
}

/**
 * A decoder boundary at or just before `at`: the nearest of `at`, `at - 1`, `at - 2`, `at - 3` that
 * holds a non-continuation byte, or `at` itself when the three bytes before it are continuation
 * bytes (no sequence is longer than four bytes, so one must have ended there).
 */
const boundaryAtOrBefore = (bytes: Uint8Array, at: number): number => {
  for (let i = at; i > at - 4; i--) if (!isContinuation(bytes[i]!)) return i
  return at
}

/**
 * Large chunks are decoded in slices of at most this many bytes: V8 allocates strings over 128 KiB
 * in its large-object space, several times slower to fill than the young generation.
 */
const ASCII_SLICE = 64 * 1024

/**
 * A chunk whose ASCII text has a line longer than a slice is decoded from that line on in one call,
 * when at least this many bytes remain. Slicing gains nothing there: the slices of a long line are
 * joined into one large string all the same, after a copy per slice; one decoding of the rest is
 * what a `TextDecoder` fed whole chunks does.
 */
const LONG_LINE = 512 * 1024

/**
 * Text of at most this many bytes (after what a chunk completes of the last one) is decoded in one
 * call, as it is: a chunk of one or two stream events, as tokens arrive.
 */
const SMALL_TEXT = 1024

/**
 * How many bytes of a chunk larger than `LONG_LINE` are looked at, one slice in, before decoding it:
 * no line end there, and the chunk holds a long line, decoded whole (see `decodeAsciiHopeful`).
 * Event streams end a line every few hundred bytes, so a kilobyte tells them apart.
 */
const LONG_LINE_PROBE = 1024

/** Sizes that tests make small, to reach the slicing and the long-line switch with small inputs. */
export interface Utf8PiecesTuning {
  readonly asciiSlice?: number
  readonly longLine?: number
  /** Text up to this many bytes is decoded in one call (0: never, so that small inputs reach the slicing). */
  readonly smallText?: number
  /** How complete bytes become text, and where a line ends in bytes (default `portableByteText`). */
  readonly byteText?: ByteText | undefined
}

/** What the decoding functions below share: the sizes, the decoding of complete bytes and the line-end search. */
interface Slicer {
  readonly decode: Utf8Decode
  readonly lineEnd: ByteText["lineEnd"]
  readonly asciiSlice: number
  readonly longLine: number
}

/** `bytes[from, to)` decoded in one call (the buffer itself when it is all of it). */
const decodeRange = (slicer: Slicer, bytes: Uint8Array, from: number, to: number): string =>
  slicer.decode(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to))

/** Where the slice that starts at `at` (on a boundary) ends: at most `asciiSlice` bytes on, on a boundary. */
const sliceEnd = (slicer: Slicer, bytes: Uint8Array, at: number, to: number): number =>
  to - at > slicer.asciiSlice ? boundaryAtOrBefore(bytes, at + slicer.asciiSlice) : to

/**
 * Decodes `[from, to)` (on boundaries) slice by slice; returns whether it was all ASCII (as many
 * code units as bytes).
 */
const decodeSliced = (slicer: Slicer, bytes: Uint8Array, from: number, to: number, sink: TextSink): boolean => {
  let units = 0
  let at = from
  while (at < to) {
    const cut = sliceEnd(slicer, bytes, at, to)
    const text = decodeRange(slicer, bytes, at, cut)
    units += text.length
    sink(text)
    at = cut
  }
  return units === to - from
}

/**
 * Whether `bytes[from, to)` hold a CR or a LF (`ByteText.lineEnd`); the cuts need not be
 * boundaries, as line ends are never part of a multi-byte sequence.
 */
const lineEndIn = (slicer: Slicer, bytes: Uint8Array, from: number, to: number): boolean =>
  from >= to || slicer.lineEnd(bytes.subarray(from, to)) !== -1

/**
 * Decodes `[from, to)` (on boundaries) of a stream that has been all ASCII: slice by slice, except
 * from a line longer than `longLine` on, decoded in one call (its slices would be joined into one
 * large string all the same). Returns whether it was all ASCII; from the first slice that is not,
 * the rest is decoded by `decodeSliced`.
 */
const decodeAsciiHopeful = (slicer: Slicer, bytes: Uint8Array, from: number, to: number, sink: TextSink): boolean => {
  const { asciiSlice, longLine } = slicer
  if (
    to - from > longLine &&
    !lineEndIn(slicer, bytes, from + asciiSlice, Math.min(to, from + asciiSlice + LONG_LINE_PROBE))
  ) {
    // A line runs through the start of the chunk's second slice: a long line (a base64 image,
    // say). The chunk is decoded whole, in one call, as a `TextDecoder` fed whole chunks does:
    // slicing it would decode its first slices twice (see below) for nothing.
    const text = decodeRange(slicer, bytes, from, to)
    sink(text)
    return text.length === to - from
  }
  let at = from
  let ahead: string | undefined // the slice at `at`, when it has been decoded already
  while (at < to) {
    const cut = sliceEnd(slicer, bytes, at, to)
    const text = ahead ?? decodeRange(slicer, bytes, at, cut)
    ahead = undefined
    if (text.length !== cut - at) {
      sink(text)
      if (cut < to) decodeSliced(slicer, bytes, cut, to, sink)
      return false
    }
    if (to - at > longLine) {
      const next = sliceEnd(slicer, bytes, cut, to)
      ahead = slicer.decode(bytes.subarray(cut, next))
      if (ahead.length === next - cut && ahead.indexOf("\n") === -1 && ahead.indexOf("\r") === -1) {
        // The last line of this slice runs on past the next one: a long line, whose slices would be
        // joined into one large string. The rest of the chunk is decoded in one call instead.
        const start = at + Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r")) + 1
        if (to - start >= longLine) {
          // `start` follows a line end (ASCII) or is `at`: a boundary.
          if (start > at) sink(text.slice(0, start - at))
          const rest = slicer.decode(bytes.subarray(start, to))
          sink(rest)
          return rest.length === to - start
        }
      }
    }
    sink(text)
    at = cut
  }
  return true
}

/** Creates a decoder for one byte stream. @internal */
export const makeUtf8Pieces = (tuning: Utf8PiecesTuning = {}): Utf8Pieces => {
  const byteText = tuning.byteText ?? portableByteText
  const slicer: Slicer = {
    decode: byteText.decode,
    lineEnd: byteText.lineEnd,
    asciiSlice: tuning.asciiSlice ?? ASCII_SLICE,
    longLine: tuning.longLine ?? LONG_LINE
  }
  const smallText = tuning.smallText ?? SMALL_TEXT
  let carry: Uint8Array | undefined // an incomplete sequence from the end of the last chunk
  // The last chunk was all ASCII: this one is decoded looking for a long line (a stream starts hoping so).
  let allAscii = true

  /** Completes the carried sequence with the chunk's leading continuation bytes (at most 3); returns how many it took. */
  const completeCarry = (chunk: Uint8Array, sink: TextSink): number => {
    const carried = carry!
    let from = 0
    while (from < 3 && from < chunk.length && isContinuation(chunk[from]!)) from++
    const head = new Uint8Array(carried.length + from)
    head.set(carried)
    head.set(chunk.subarray(0, from), carried.length)
    carry = undefined
    const cut = from === chunk.length ? completeEnd(head, 0, head.length) : head.length
    if (cut < head.length) carry = head.slice(cut)
    if (cut > 0) sink(decodeRange(slicer, head, 0, cut))
    // Just after the bytes taken is a boundary: the rest of the chunk is decoded without a copy.
    return from
  }

  return {
    push: (chunk, sink) => {
      const len = chunk.length
      const from = carry === undefined ? 0 : completeCarry(chunk, sink)
      const cut = completeEnd(chunk, from, len)
      if (cut < len) carry = chunk.slice(cut)
      if (cut === from) return
      if (cut - from <= smallText) sink(decodeRange(slicer, chunk, from, cut))
      else if (allAscii) allAscii = decodeAsciiHopeful(slicer, chunk, from, cut, sink)
      else allAscii = decodeSliced(slicer, chunk, from, cut, sink)
    },
    flush: (sink) => {
      if (carry === undefined) return
      const rest = carry
      carry = undefined
      sink(slicer.decode(rest))
    },
    carried: () => (carry === undefined ? 0 : carry.length),
    takeCarried: () => {
      const taken = carry
      carry = undefined
      return taken
    },
    reset: () => {
      carry = undefined
      allAscii = true
    }
  }
}
