/**
 * A streaming UTF-8 decoder that hands each chunk's text on as pieces, fast on the mostly-ASCII
 * text of event streams; the SSE parser's byte input goes through it. Internal: not exported from
 * the package.
 *
 * Why pieces rather than one string per chunk: `TextDecoder` makes a one-byte (Latin-1) string
 * from ASCII bytes many times faster than a two-byte string from text with a few multi-byte
 * characters (measured in bench/sse.bench.ts; and the parser's scans then run on the smaller
 * string). So the runs of non-ASCII
 * bytes of a chunk, found by testing four bytes at a time for a high bit, are masked by ASCII
 * placeholders in a copy that one decoder call turns into a one-byte string, and each run — usually
 * one character — is decoded apart, by hand when it is valid UTF-8 (by `TextDecoder` otherwise, so
 * invalid bytes become U+FFFD exactly as the standard says); the sink gets the masked text and the
 * runs (see `TextSink`), and puts back only the runs of the lines it keeps. Text dense in
 * multi-byte characters (CJK, say) is decoded a whole chunk at a time instead, which is faster
 * there; and a stream that has been all ASCII is decoded straight away, slice by slice, each
 * slice's length telling whether it was ASCII (so a base64 image never pays the scan), except that
 * a large chunk is decoded whole from a line longer than a slice on (see `LONG_LINE`), or whole when
 * such a line runs through its second slice (`LONG_LINE_PROBE`). A small chunk
 * (one or two events, as tokens arrive; see `SMALL_TEXT`) is decoded in one call, as it is. The
 * decoder switches between these by itself.
 *
 * Every cut it makes is a decoder boundary (just before an ASCII byte, or after a complete
 * sequence), so the text is the same whatever the chunking, only cut into other pieces.
 */

/**
 * Where the non-ASCII characters of a masked piece are: run `i` is the placeholders
 * `[start[i], end[i])` of the piece (one per byte, in order, never CR or LF), which stand for
 * `text[i]`. Only `count` entries are meaningful, and only during the sink's call (the arrays are
 * reused for the next piece).
 */
export interface Utf8Runs {
  count: number
  readonly start: Array<number>
  readonly end: Array<number>
  readonly text: Array<string>
}

/**
 * Receives the text of a chunk, piece by piece, in order. Without `runs` a piece is its text; with
 * `runs` it is masked: one ASCII placeholder per byte of each run of non-ASCII characters, so that
 * it stays a one-byte string whose positions are the bytes' (fast to scan for line ends, which are
 * ASCII), and `runs` tells what the placeholders stand for (`unmask` puts it back).
 */
export type TextSink = (text: string, runs?: Utf8Runs) => void

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
  /** Forgets the carried bytes. */
  reset(): void
}

/**
 * The text of `masked[from, to)` with runs `first` onwards (the first of them starting at or after
 * `from`) put back, up to the first run that starts at or after `to`. Runs never straddle a line
 * end, so a caller cutting at line ends cuts between runs.
 */
export const unmask = (masked: string, from: number, to: number, runs: Utf8Runs, first: number): string => {
  let text = ""
  let at = from
  for (let i = first; i < runs.count && runs.start[i]! < to; i++) {
    text += masked.slice(at, runs.start[i]) + runs.text[i]!
    at = runs.end[i]!
  }
  return text + masked.slice(at, to)
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
 * `bytes[from, to)`, all of them 0x80 or above, as text when they are valid UTF-8 sequences;
 * `undefined` otherwise (the caller then uses `TextDecoder`, which knows the replacement rules).
 * The byte ranges are the standard's: no overlong forms, no surrogates, nothing past U+10FFFF.
 */
const decodeValid = (bytes: Uint8Array, from: number, to: number): string | undefined => {
  let text = ""
  let i = from
  while (i < to) {
    const b0 = bytes[i]!
    if (b0 < 0xc2) return undefined
    if (b0 < 0xe0) {
      if (i + 1 >= to) return undefined
      const b1 = bytes[i + 1]!
      if ((b1 & 0xc0) !== 0x80) return undefined
      text += String.fromCharCode(((b0 & 0x1f) << 6) | (b1 & 0x3f))
      i += 2
    } else if (b0 < 0xf0) {
      if (i + 2 >= to) return undefined
      const b1 = bytes[i + 1]!
      const b2 = bytes[i + 2]!
      if (b1 < (b0 === 0xe0 ? 0xa0 : 0x80) || b1 > (b0 === 0xed ? 0x9f : 0xbf) || (b2 & 0xc0) !== 0x80) return undefined
      text += String.fromCharCode(((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f))
      i += 3
    } else if (b0 < 0xf5) {
      if (i + 3 >= to) return undefined
      const b1 = bytes[i + 1]!
      const b2 = bytes[i + 2]!
      const b3 = bytes[i + 3]!
      if (
        b1 < (b0 === 0xf0 ? 0x90 : 0x80) ||
        b1 > (b0 === 0xf4 ? 0x8f : 0xbf) ||
        (b2 & 0xc0) !== 0x80 ||
        (b3 & 0xc0) !== 0x80
      )
        return undefined
      const cp = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f)
      text += String.fromCharCode(0xd7c0 + (cp >> 10), 0xdc00 | (cp & 0x3ff))
      i += 4
    } else {
      return undefined
    }
  }
  return text
}

/** What `slice` puts in place of non-ASCII bytes before decoding a slice (any ASCII byte would do). */
const PLACEHOLDER = 0x3f

/** Runs of non-ASCII bytes longer than this go to `TextDecoder` (decoding by hand is for a few characters). */
const MAX_HAND_RUN = 48

/**
 * ASCII runs are decoded in slices of at most this many bytes: V8 allocates strings over 128 KiB
 * in its large-object space, several times slower to fill than the young generation.
 */
const ASCII_SLICE = 64 * 1024

/** Slices for the whole-chunk decoding of dense text (each one a separate string). */
const DENSE_SLICE = 1024 * 1024

/**
 * Past one run of non-ASCII bytes per this many bytes, decoding the rest of the chunk in one call
 * is faster than run by run (each run costs about as much as decoding that many bytes; measured in
 * bench/sse.bench.ts).
 */
const DENSE_BYTES_PER_RUN = 256

/**
 * A chunk whose ASCII text has a line longer than a slice is decoded from that line on in one call,
 * when at least this many bytes remain. Slicing gains nothing there: the slices of a long line are
 * joined into one large string all the same, after a copy per slice; one decoding of the rest is
 * what a `TextDecoder` fed whole chunks does.
 */
const LONG_LINE = 512 * 1024

/**
 * Text of at most this many bytes (after what a chunk completes of the last one) is decoded in one
 * call, as it is: a chunk of one or two stream events, as tokens arrive. Masking pays off on larger
 * text; on a 150-byte event with one accented character, finding, masking and decoding its run
 * apart and putting it back in the line measured slower than one decoding to a two-byte string
 * (bench/sse.bench.ts).
 */
const SMALL_TEXT = 1024

/**
 * How many bytes of a chunk larger than `LONG_LINE` are looked at, one slice in, before decoding it:
 * no line end there, and the chunk holds a long line, decoded whole (see `optimistic`). Event
 * streams end a line every few hundred bytes, so a kilobyte tells them apart.
 */
const LONG_LINE_PROBE = 1024

/** Sizes that tests make small, to reach the slicing and the switch to dense text with small inputs. */
export interface Utf8PiecesTuning {
  readonly asciiSlice?: number
  readonly denseSlice?: number
  readonly longLine?: number
  /** Text up to this many bytes is decoded in one call (0: never, so that small inputs reach the masking). */
  readonly smallText?: number
}

/** Creates a decoder for one byte stream. @internal */
export const makeUtf8Pieces = (tuning: Utf8PiecesTuning = {}): Utf8Pieces => {
  const asciiSlice = tuning.asciiSlice ?? ASCII_SLICE
  const denseSlice = tuning.denseSlice ?? DENSE_SLICE
  const longLine = tuning.longLine ?? LONG_LINE
  const smallText = tuning.smallText ?? SMALL_TEXT
  // `fast` is given mostly-ASCII bytes (slices, short runs, the rest of a chunk from a long line
  // on: Node decodes ASCII there into a one-byte string); `icu` is put off Node's ASCII fast path for good
  // by one (empty) streaming call: on text dense in multi-byte characters its ICU path is the
  // faster one (in browsers both are the same decoder). Neither is ever left mid-stream.
  const fast = new TextDecoder("utf-8", { ignoreBOM: true })
  const icu = new TextDecoder("utf-8", { ignoreBOM: true })
  icu.decode(new Uint8Array(0), { stream: true })

  let carry: Uint8Array | undefined // an incomplete sequence from the end of the last chunk
  let dense = false // the last chunk was dense in multi-byte characters: decode this one whole
  // The last chunk was all ASCII: decode this one straight away too, and look at the text's
  // length rather than at the bytes (a base64 image or an ASCII-only stream never pays the scan).
  let allAscii = true // (a stream starts hoping for ASCII: a wrong guess costs one slice's slower decoding)
  // For `slice`: the masked copy of a slice, and where its runs of non-ASCII bytes are and their text.
  let scratch = new Uint8Array(0)
  const found: Utf8Runs = { count: 0, start: [], end: [], text: [] }

  /** Decodes ASCII bytes `[from, to)`. */
  const ascii = (bytes: Uint8Array, from: number, to: number, sink: TextSink): void => {
    const n = to - from
    if (n <= 3) {
      // A call to the decoder costs more than building one, two or three characters.
      sink(
        n === 1
          ? String.fromCharCode(bytes[from]!)
          : n === 2
            ? String.fromCharCode(bytes[from]!, bytes[from + 1]!)
            : String.fromCharCode(bytes[from]!, bytes[from + 1]!, bytes[from + 2]!)
      )
      return
    }
    let at = from
    while (to - at > asciiSlice) {
      sink(fast.decode(bytes.subarray(at, at + asciiSlice)))
      at += asciiSlice
    }
    sink(fast.decode(at === 0 && to === bytes.length ? bytes : bytes.subarray(at, to)))
  }

  /** Decodes `[from, to)` (on boundaries) in one call per slice of `denseSlice`; returns how many UTF-16 units it made. */
  const whole = (bytes: Uint8Array, from: number, to: number, sink: TextSink): number => {
    let units = 0
    let at = from
    while (to - at > denseSlice) {
      const cut = boundaryAtOrBefore(bytes, at + denseSlice)
      const text = icu.decode(bytes.subarray(at, cut))
      units += text.length
      sink(text)
      at = cut
    }
    const text = icu.decode(at === 0 && to === bytes.length ? bytes : bytes.subarray(at, to))
    sink(text)
    return units + text.length
  }

  /**
   * Decodes `[from, to)` (on boundaries) slice by slice, as long as the slices come out ASCII
   * (as many code units as bytes); from the first that does not, run by run. That slice's text is
   * right all the same, only slower to make.
   */
  const optimistic = (bytes: Uint8Array, from: number, to: number, sink: TextSink): void => {
    if (
      to - from > longLine &&
      !lineEndIn(bytes, from + asciiSlice, Math.min(to, from + asciiSlice + LONG_LINE_PROBE))
    ) {
      // A line runs through the start of the chunk's second slice: a long line (a base64 image,
      // say). The chunk is decoded whole, in one call, as a `TextDecoder` fed whole chunks does:
      // slicing it would decode its first slices twice (see below) for nothing.
      const text = fast.decode(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to))
      allAscii = text.length === to - from
      sink(text)
      return
    }
    let at = from
    let ahead: string | undefined // the slice at `at`, when it has been decoded already
    while (at < to) {
      const cut = sliceEnd(bytes, at, to)
      const text = ahead ?? fast.decode(at === 0 && cut === bytes.length ? bytes : bytes.subarray(at, cut))
      ahead = undefined
      if (text.length !== cut - at) {
        sink(text)
        allAscii = false
        if (cut < to) runs(bytes, cut, to, sink)
        return
      }
      if (to - at > longLine) {
        const next = sliceEnd(bytes, cut, to)
        ahead = fast.decode(bytes.subarray(cut, next))
        if (ahead.length === next - cut && ahead.indexOf("\n") === -1 && ahead.indexOf("\r") === -1) {
          // The last line of this slice runs on past the next one: a long line (a base64 image,
          // say), whose slices would be joined into one large string. The rest of the chunk is
          // decoded in one call instead, by the fast decoder: one one-byte string for ASCII text
          // (an ICU decoding makes a UTF-16 string of twice the size, measured slower on 1 MB events
          // in bench/sse.bench.ts).
          const start = at + Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r")) + 1
          if (to - start >= longLine) {
            // `start` follows a line end (ASCII) or is `at`: a boundary.
            if (start > at) sink(text.slice(0, start - at))
            sink(fast.decode(bytes.subarray(start, to)))
            return
          }
        }
      }
      sink(text)
      at = cut
    }
  }

  /**
   * Whether `bytes[from, to)` hold a CR or a LF. Decoded to be searched (faster than a loop over the
   * bytes); the cuts need not be boundaries, as line ends are never part of a multi-byte sequence.
   */
  const lineEndIn = (bytes: Uint8Array, from: number, to: number): boolean => {
    if (from >= to) return true
    const text = fast.decode(bytes.subarray(from, to))
    return text.indexOf("\n") !== -1 || text.indexOf("\r") !== -1
  }

  /** Where the slice that starts at `at` (on a boundary) ends: at most `asciiSlice` bytes on, on a boundary. */
  const sliceEnd = (bytes: Uint8Array, at: number, to: number): number =>
    to - at > asciiSlice ? boundaryAtOrBefore(bytes, at + asciiSlice) : to

  /** Decodes `[from, to)`, which starts and ends on boundaries, run by run, a slice of `asciiSlice` bytes at a time. */
  const runs = (bytes: Uint8Array, from: number, to: number, sink: TextSink): void => {
    // A view of the chunk's aligned words: four bytes tested for a high bit at a time.
    const base = bytes.byteOffset
    const wordsAt = ((base + 3) & ~3) - base // the first index of `bytes` on a word boundary
    const words =
      bytes.length - wordsAt >= 32
        ? new Uint32Array(bytes.buffer, base + wordsAt, (bytes.length - wordsAt) >>> 2)
        : undefined
    let at = from
    let count = 0
    while (at < to) {
      const cut = to - at > asciiSlice ? boundaryAtOrBefore(bytes, at + asciiSlice) : to
      count += slice(bytes, words, wordsAt, at, cut, sink)
      at = cut
      if (count >= 8 && count * DENSE_BYTES_PER_RUN > at - from && at < to) {
        dense = true
        whole(bytes, at, to, sink)
        return
      }
    }
    allAscii = count === 0
  }

  /**
   * Decodes `[from, to)` (on boundaries, at most `asciiSlice` bytes) as one piece; returns how many
   * runs of non-ASCII bytes it held. When there are some, the bytes are copied with each run masked
   * by ASCII placeholders, so that one decoder call makes a one-byte string of the bytes' positions,
   * and the runs, decoded apart, go with it (see `TextSink`): one decoder call per slice, whatever
   * the number of accented characters in it, and a one-byte string to scan.
   */
  const slice = (
    bytes: Uint8Array,
    words: Uint32Array | undefined,
    wordsAt: number,
    from: number,
    to: number,
    sink: TextSink
  ): number => {
    let count = 0
    let pos = from
    let masked: Uint8Array | undefined
    for (;;) {
      // The first byte at or after `pos` with its high bit set, or `to`.
      let high = pos
      if (words !== undefined && to - pos >= 32) {
        while (high < to && (high < wordsAt || ((high - wordsAt) & 3) !== 0) && bytes[high]! < 0x80) high++
        if (high < to && bytes[high]! < 0x80) {
          let w = (high - wordsAt) >>> 2
          const end = (to - wordsAt) >>> 2
          for (; w + 4 <= end; w += 4) {
            if (((words[w]! | words[w + 1]! | words[w + 2]! | words[w + 3]!) & 0x80808080) !== 0) break
          }
          for (; w < end; w++) if ((words[w]! & 0x80808080) !== 0) break
          high = wordsAt + w * 4
        }
      }
      while (high < to && bytes[high]! < 0x80) high++
      if (high === to) break
      let stop = high + 1
      while (stop < to && bytes[stop]! >= 0x80) stop++
      if (masked === undefined) {
        if (scratch.length < to - from) scratch = new Uint8Array(Math.max(to - from, asciiSlice + 4))
        masked = scratch.subarray(0, to - from)
        masked.set(bytes.subarray(from, to))
      }
      for (let k = high - from; k < stop - from; k++) masked[k] = PLACEHOLDER
      // `high` follows an ASCII byte or a boundary, and `stop` is an ASCII byte or the end: both
      // are boundaries, so the run decodes alone.
      const text = stop - high <= MAX_HAND_RUN ? decodeValid(bytes, high, stop) : undefined
      found.start[count] = high - from
      found.end[count] = stop - from
      found.text[count] = text ?? fast.decode(bytes.subarray(high, stop))
      count++
      pos = stop
    }
    if (masked === undefined) {
      ascii(bytes, from, to, sink)
      return 0
    }
    found.count = count
    sink(fast.decode(masked), found)
    return count
  }

  return {
    push: (chunk, sink) => {
      const len = chunk.length
      let from = 0
      if (carry !== undefined) {
        // Complete the carried sequence with this chunk's leading continuation bytes (at most 3):
        // just after them is a boundary, so the rest of the chunk is decoded without copying it.
        while (from < 3 && from < len && isContinuation(chunk[from]!)) from++
        const head = new Uint8Array(carry.length + from)
        head.set(carry)
        head.set(chunk.subarray(0, from), carry.length)
        carry = undefined
        const cut = from === len ? completeEnd(head, 0, head.length) : head.length
        if (cut < head.length) carry = head.slice(cut)
        if (cut > 0) sink(fast.decode(cut === head.length ? head : head.subarray(0, cut)))
      }
      const cut = completeEnd(chunk, from, len)
      if (cut < len) carry = chunk.slice(cut)
      if (cut === from) return
      if (cut - from <= smallText) {
        sink(fast.decode(from === 0 && cut === len ? chunk : chunk.subarray(from, cut)))
      } else if (dense) {
        const units = whole(chunk, from, cut, sink)
        // Each multi-byte character makes fewer units than bytes: few of them, back to run by run.
        dense = (cut - from - units) * DENSE_BYTES_PER_RUN >= cut - from
      } else if (allAscii) {
        optimistic(chunk, from, cut, sink)
      } else {
        runs(chunk, from, cut, sink)
      }
    },
    flush: (sink) => {
      if (carry === undefined) return
      const rest = carry
      carry = undefined
      sink(fast.decode(rest))
    },
    carried: () => (carry === undefined ? 0 : carry.length),
    reset: () => {
      carry = undefined
      dense = false
      allAscii = true
    }
  }
}
