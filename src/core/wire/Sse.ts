/**
 * An incremental parser of `text/event-stream` (WHATWG server-sent events) and its inverse
 * `renderSseEvent`. It is fed bytes or strings in any chunking; every streaming endpoint of the
 * gateway reads through it.
 *
 * Two faces, one implementation: `createSseParser` hands each event to a callback as soon as it is
 * complete (the hot path: no array per chunk), and `makeSseParser` (the public shape)
 * wraps it, collecting each chunk's events into the array `push` returns.
 *
 * Overflow design: the pending text is bounded by `maxBufferSize`. Going past it is reported as the
 * one documented, typed error `SseBufferOverflow`: `feed` and `push` throw it (and only it), and
 * `pushEffect` returns it in the error channel. Throwing rather than recording the failure in the
 * parser and going on silently keeps a truncated stream from ending quietly when a caller forgets
 * to look. After an overflow the parser is failed: every later `feed` or `push` reports the same
 * error until `end()` resets it.
 *
 * Performance notes (see `bench/sse.bench.ts`):
 * - Lines are found with `indexOf` scans, never a per-character loop, and each scan starts where
 *   the previous one stopped, so a chunk with many LF lines and one late CR stays linear.
 * - An unterminated line is kept in pieces (a short rope, then an array) joined once, when its end
 *   arrives; only the pending line (not the whole new chunk) is joined, so a 1 MB event fed in
 *   1-byte chunks is linear rather than quadratic re-concatenation.
 * - A line longer than 64 Ki code units (a base64 image), fed bytes, goes on as bytes: its further
 *   chunks are copied into one buffer, searched for the line's end (`ByteText.lineEnd`) and decoded
 *   once when it ends. Joining decoded pieces into one large string costs several times the
 *   decoding (`bench/results/sse-stability.md`). The buffer is reused by the next long line, in
 *   any parser.
 * - Bytes are decoded by `Utf8Pieces` (see there), one decoder call per chunk (or per slice of a
 *   large one), on the platform decoder's fast path; every cut is a decoder boundary, which is why
 *   the events are the same whatever the chunking.
 * - Byte chunks under 64 bytes are gathered until one ends a line (or 4 KiB are held), then
 *   decoded and scanned together: a stream fed a few bytes at a time costs a copy per chunk, not a
 *   decoder call and a scan.
 * - The blank, `data:` and `event:` lines that make up nearly all of a stream are recognised in
 *   the scan loop itself, with `charCodeAt` tests rather than slicing the line; a one-line event
 *   followed by its blank line is dispatched without searching for that blank line. Those tests see
 *   decoded chunks only; a line made of pieces goes to `processWholeLine` (see `valueStart`).
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { type ByteText, lineEndByLoop, portableByteText } from "./ByteText.js"
import { makeUtf8Pieces, type Utf8Pieces } from "./Utf8Pieces.js"

/**
 * One dispatched event: `event` is `"message"` when the stream set no type, `id` the last event ID
 * in force when it was dispatched (`""` when none), `data` its data lines joined with `"\n"`.
 * @category models
 */
export interface SseEvent {
  readonly event: string
  readonly data: string
  readonly id: string
}

/**
 * What a callback parser (`createSseParser`) calls. Both are called synchronously, during `feed`,
 * in stream order.
 * @category models
 */
export interface SseHandlers {
  /** Called for every dispatched event. */
  readonly onEvent: (event: SseEvent) => void
  /** Called for every valid `retry` field (digits only); a retry line needs no event. */
  readonly onRetry?: ((ms: number) => void) | undefined
}

/** Options of `createSseParser`. @category models */
export interface SseLimits {
  /**
   * The most UTF-16 code units that one line (field name included), or one event's data, may hold
   * (default `defaultSseMaxBufferSize`, 128 Mi). Beyond it the parser fails with `SseBufferOverflow`.
   */
  readonly maxBufferSize?: number | undefined
  /**
   * How bytes become text and where their lines end (default `portableByteText`). The gateway's
   * streams on Node pass one whose search is `Buffer#indexOf`; any other must give the same answers.
   */
  readonly byteText?: ByteText | undefined
}

/**
 * An incremental SSE parser that hands each event to `SseHandlers.onEvent` as soon as it is
 * complete: no array per chunk. The core that `makeSseParser` wraps.
 * @category models
 */
export interface SseCallbackParser {
  /**
   * Feeds the next chunk (bytes in any chunking, or text), calling the handlers for what it
   * completes. Throws `SseBufferOverflow`, and nothing else (short of an exception from a
   * handler), when a line or an event's data grows past `maxBufferSize`; the events before the
   * overflow have been handed over. After a throw (an overflow or a handler's exception) the parser
   * is failed: every later `feed` throws the same error until `end()`.
   */
  feed(chunk: Uint8Array | string): void
  /**
   * Ends the stream: a final event without its blank line is discarded (WHATWG), so no handler is
   * called; the parser is then reset to a fresh stream (and un-failed). Never throws.
   */
  end(): void
}

/** Options of `makeSseParser`. @category models */
export interface SseParserOptions extends SseLimits {
  /** Called for every valid `retry` field (digits only), in stream order, during `push`. Must not throw. */
  readonly onRetry?: ((ms: number) => void) | undefined
}

/** An incremental SSE parser returning each chunk's events as an array. @category models */
export interface SseParser {
  /**
   * Feeds the next chunk and returns the events it completes. Throws `SseBufferOverflow`, and
   * nothing else (short of an exception from `onRetry`), when a line or an event's data grows
   * past `maxBufferSize`; the events that chunk completed before the overflow are then the error's
   * `completed`, so none is lost.
   */
  push(chunk: Uint8Array | string): SseEvent[]
  /**
   * Ends the stream: a final event without its blank line is discarded (WHATWG), so this returns
   * no events; the parser is then reset to a fresh stream (and un-failed). Never throws.
   */
  end(): SseEvent[]
  /** `push` as an Effect: the overflow is a typed failure, nothing is thrown. */
  pushEffect(chunk: Uint8Array | string): Effect.Effect<SseEvent[], SseBufferOverflow>
}

/**
 * A line or an event's data grew past `maxBufferSize` UTF-16 code units: the stream is malformed
 * or hostile, and parsing it further would hold unbounded memory.
 * @category errors
 */
export class SseBufferOverflow extends Data.TaggedError("SseBufferOverflow")<{
  readonly maxBufferSize: number
  readonly message: string
  /**
   * The events the failing chunk completed before the overflow, when `makeSseParser`'s `push` or
   * `pushEffect` could not return them (`createSseParser` has handed each over already).
   */
  readonly completed?: ReadonlyArray<SseEvent> | undefined
}> {}

/**
 * The default bound: 128 Mi code units of pending text, room for a 64 MiB base64 image event.
 * @category constructors
 */
export const defaultSseMaxBufferSize = 128 * 1024 * 1024

const LF = 10
const CR = 13
const SPACE = 32
const COLON = 58
const BOM = 0xfeff

/**
 * Byte chunks shorter than this are gathered (up to `GATHER_BYTES`) until one holds a line end,
 * then decoded and scanned together: a network can deliver a stream a few bytes at a time, and
 * a decoder call and a scan per few bytes cost far more than copying them.
 */
const SMALL_CHUNK = 64
const GATHER_BYTES = 4096

/** How many pieces of a pending line are joined as a rope before the rest go to an array. */
const ROPE_PIECES = 32

/**
 * A line still unterminated past this many code units (a base64 image's `data:` line), fed bytes,
 * gathers its further chunks as bytes, decoded once when the line ends (see `enterLong`).
 */
const LONG_LINE = 64 * 1024

/** A long line's byte buffer is kept for the next long line when no larger than this. */
const LONG_LINE_KEPT = 4 * 1024 * 1024

let encoder: TextEncoder | undefined

/**
 * A long line's buffer that no parser holds now: the next long line, in any parser, takes it, so a
 * run of streams with images reuses one buffer (at most `LONG_LINE_KEPT` bytes are kept).
 */
let spareLong: Uint8Array | undefined

/** Whether `text[pos, end)` is a `data:` line (`end - pos > 4`: the colon is inside it). */
const isDataLine = (text: string, pos: number, end: number): boolean =>
  end - pos > 4 &&
  text.charCodeAt(pos) === 100 &&
  text.charCodeAt(pos + 4) === COLON &&
  text.charCodeAt(pos + 1) === 97 &&
  text.charCodeAt(pos + 2) === 116 &&
  text.charCodeAt(pos + 3) === 97

/** Whether `text[pos, end)` is an `event:` line. */
const isEventLine = (text: string, pos: number, end: number): boolean =>
  end - pos > 5 &&
  text.charCodeAt(pos) === 101 &&
  text.charCodeAt(pos + 5) === COLON &&
  text.charCodeAt(pos + 1) === 118 &&
  text.charCodeAt(pos + 2) === 101 &&
  text.charCodeAt(pos + 3) === 110 &&
  text.charCodeAt(pos + 4) === 116

/**
 * Where the value of a field whose colon is at `colon` starts: after the colon and one space.
 * (Reads past the end are guarded rather than left to give NaN: an out-of-bounds `charCodeAt`
 * deoptimizes code compiled before it first happened, chunk shape dependent.)
 *
 * These tests (`isDataLine`, `isEventLine`, `valueStart`) are given decoded chunks only, never a
 * line made of pieces: V8 keeps one record of the string kinds a function has seen, shared by
 * every place it is inlined, and ropes and slices seen here would make its `charCodeAt` calls
 * generic in the scan too (about 1.7 times slower in 2 KiB chunks, and only in some processes,
 * depending on the chunk cuts seen first). `processWholeLine` has its own copy of the rule.
 */
const valueStart = (text: string, colon: number, end: number): number =>
  colon + 1 < end && text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1

/**
 * Creates a callback parser for one event stream: each event goes to `handlers.onEvent` during the
 * `feed` that completes it. It holds the stream's state (pending line, event being built, last
 * event ID), so use one parser per connection.
 *
 * ```ts
 * const parser = createSseParser({ onEvent: (event) => console.log(event.event, event.data) })
 * for await (const chunk of body) parser.feed(chunk)
 * parser.end()
 * ```
 *
 * Throws a `RangeError` when `maxBufferSize` is given and is not a number, 0 or more.
 * @category constructors
 */
export const createSseParser = (handlers: SseHandlers, options: SseLimits = {}): SseCallbackParser => {
  const maxBufferSize = options.maxBufferSize ?? defaultSseMaxBufferSize
  if (typeof maxBufferSize !== "number" || !(maxBufferSize >= 0)) {
    throw new RangeError(
      `maxBufferSize must be a number of UTF-16 code units, 0 or more (Infinity for no bound), got ${String(maxBufferSize)}`
    )
  }
  const reader = new EventReader(handlers, maxBufferSize, options.byteText ?? portableByteText)
  return {
    feed: (chunk) => reader.feed(chunk),
    end: () => reader.end()
  }
}

/** One stream's parsing state and its steps: bytes to text, text to lines, lines to events. */
class EventReader {
  private readonly onEvent: (event: SseEvent) => void
  private readonly onRetry: ((ms: number) => void) | undefined
  private readonly maxBufferSize: number
  private readonly utf8: Utf8Pieces
  /** What the decoder hands its text to. */
  private readonly sink = (text: string): void => this.feedText(text)
  private gathered: Uint8Array | undefined // small chunks not yet decoded (none holds a line end)
  private gatheredLength = 0
  private started = false // the first character (a possible BOM) has been seen
  private skipLF = false // the last line ended with CR: a LF at the start of the next text belongs to it
  // The unterminated line. Its first pieces are appended with `+`, which builds a V8 rope (cons
  // strings: no copy) flattened once when the line is complete, cheaper than `join` for the few
  // pieces of a line cut by the network. Past `ROPE_PIECES` pieces (a big event in tiny chunks)
  // they go to an array joined once, which keeps the garbage collector's work per piece constant.
  private pending = ""
  private pendingPieces = 0
  private pendingMore: Array<string> | undefined
  private pendingLength = 0
  private data = ""
  private hasData = false // data seen in this event ("" data with one `data:` line is still an event)
  private eventType = ""
  private lastId = ""
  private failed = false // after a throw: every `feed` throws `failure` again until `end()`
  private failure: unknown
  // A long line (see `LONG_LINE`): its bytes so far, undecoded, in `long[0, longLength)`. While
  // `inLong`, the pending line above is empty and byte chunks go to `feedLong`.
  private readonly bytes: ByteText
  private inLong = false
  private long: Uint8Array | undefined
  private longLength = 0
  private longRefused = false // the pending line is not taken as bytes (not ASCII, or it left once)

  constructor(handlers: SseHandlers, maxBufferSize: number, bytes: ByteText) {
    this.onEvent = handlers.onEvent
    this.onRetry = handlers.onRetry
    this.maxBufferSize = maxBufferSize
    this.bytes = bytes
    this.utf8 = makeUtf8Pieces({ byteText: bytes })
  }

  feed(chunk: Uint8Array | string): void {
    if (this.failed) throw this.failure
    try {
      if (typeof chunk === "string") {
        if (this.inLong) this.leaveLong()
        this.releaseGathered()
        // Bytes cut short by a string chunk decode as U+FFFD, exactly as the bytes alone would.
        this.utf8.flush(this.sink)
        this.feedText(chunk)
      } else {
        this.feedBytes(chunk)
      }
    } catch (error) {
      // An overflow has already reset the parser; any other throw (from a handler) leaves it mid-line.
      if (!(error instanceof SseBufferOverflow)) this.reset()
      this.failed = true
      this.failure = error
      throw error
    }
  }

  end(): void {
    this.failed = false
    this.failure = undefined
    this.reset()
  }

  private reset(): void {
    this.utf8.reset()
    this.gatheredLength = 0
    this.started = false
    this.skipLF = false
    this.pending = ""
    this.pendingPieces = 0
    this.pendingMore = undefined
    this.pendingLength = 0
    this.data = ""
    this.hasData = false
    this.eventType = ""
    this.lastId = ""
    this.inLong = false
    this.longLength = 0
    this.longRefused = false
    this.releaseLong()
  }

  /** Gives the long line's buffer up (spare for the next long line, when small enough). */
  private releaseLong(): void {
    const long = this.long
    if (long === undefined) return
    this.long = undefined
    if (long.length <= LONG_LINE_KEPT && (spareLong === undefined || spareLong.length < long.length)) spareLong = long
  }

  private overflow(): never {
    const error = new SseBufferOverflow({
      maxBufferSize: this.maxBufferSize,
      message: `An SSE line or event grew past ${this.maxBufferSize} characters (maxBufferSize)`
    })
    this.reset()
    throw error
  }

  private feedBytes(chunk: Uint8Array): void {
    if (this.pendingLength >= LONG_LINE && !this.longRefused) this.enterLong()
    if (this.inLong) return this.feedLong(chunk)
    const length = chunk.length
    if (length >= SMALL_CHUNK) {
      this.releaseGathered()
      this.utf8.push(chunk, this.sink)
      return
    }
    const gathered = (this.gathered ??= new Uint8Array(GATHER_BYTES))
    const at = this.gatheredLength
    let lineEnd = false
    for (let i = 0; i < length; i++) {
      const byte = chunk[i]!
      if (byte === LF || byte === CR) lineEnd = true
      gathered[at + i] = byte
    }
    this.gatheredLength = at + length
    // Released at once when a line ends, so that its event is handed over during this `feed`;
    // and before the undecoded bytes (gathered, and those the decoder carries) could make the
    // pending line overflow (a byte is at most one code unit), so that the overflow is reported
    // when it would be without gathering.
    if (
      lineEnd ||
      this.gatheredLength > GATHER_BYTES - SMALL_CHUNK ||
      this.gatheredLength + this.utf8.carried() + this.pendingLength > this.maxBufferSize
    ) {
      this.releaseGathered()
    }
  }

  /** Decodes and scans the gathered small chunks. */
  private releaseGathered(): void {
    const length = this.gatheredLength
    if (length === 0) return
    this.gatheredLength = 0
    this.utf8.push(this.gathered!.subarray(0, length), this.sink)
  }

  private feedText(input: string): void {
    let text = input
    if (!this.started) {
      if (text.length === 0) return
      this.started = true
      if (text.charCodeAt(0) === BOM) text = text.slice(1)
    }
    const len = text.length
    if (len === 0) return
    let pos = 0
    if (this.skipLF) {
      this.skipLF = false
      if (text.charCodeAt(0) === LF) pos = 1
    }
    let cr: number | undefined // the first CR at or after `pos` when searched already (saves scan() a search)
    if (this.pendingLength > 0) {
      cr = text.indexOf("\r", pos)
      pos = this.completePendingLine(text, pos, cr)
      if (pos === -1) return
    }
    if (pos < len) this.scan(text, pos, cr !== undefined && (cr === -1 || cr >= pos) ? cr : undefined)
  }

  /**
   * Completes the pending line with the head of `text` (from `pos`) and interprets it; returns where
   * the rest of `text` starts, or -1 when nothing is left to scan (no line end yet, or a CR last).
   * `cr` is the first CR at or after `pos`.
   */
  private completePendingLine(text: string, pos: number, cr: number): number {
    const len = text.length
    const lf = text.indexOf("\n", pos)
    const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf)
    if (end === -1) {
      this.appendPending(pos === 0 ? text : text.slice(pos))
      return -1
    }
    // Only the head of this text is joined to the pending line, never the whole text.
    const head = text.slice(pos, end)
    let line: string
    if (this.pendingMore === undefined) {
      line = this.pending + head
    } else {
      this.pendingMore.push(head)
      line = this.pendingMore.join("") // one copy, and a flat string
    }
    this.pending = ""
    this.pendingPieces = 0
    this.pendingMore = undefined
    this.pendingLength = 0
    this.longRefused = false
    this.processWholeLine(line)
    let next = end + 1
    if (end === cr) {
      if (next === len) {
        this.skipLF = true
        return -1
      }
      if (text.charCodeAt(next) === LF) next++
    }
    return next
  }

  /**
   * Processes the lines of `text` from `from`; keeps the unterminated rest as the pending line.
   * `crFrom` is the first CR at or after `from` (or -1) when the caller already searched for it.
   * Blank, `data:` and `event:` lines, nearly all of a stream, are handled here without a call; a
   * one-line event followed by its blank line is dispatched without searching for that line.
   */
  private scan(text: string, from: number, crFrom: number | undefined): void {
    const len = text.length
    const onEvent = this.onEvent
    let pos = from
    // `cr` and `lf` are the next CR and LF at or after `pos` (-1: none), each searched again only
    // once passed, so a chunk with many LF lines and one late CR stays linear. Without CR (the
    // common case) this is one `indexOf` per line.
    let cr = crFrom ?? text.indexOf("\r", pos)
    let lf = text.indexOf("\n", pos)
    for (;;) {
      let end: number
      if (lf !== -1 && (cr === -1 || lf < cr)) end = lf
      else if (cr !== -1) end = cr
      else break
      if (end === pos) {
        this.blankLine()
      } else if (!this.hasData && isDataLine(text, pos, end) && end - pos <= this.maxBufferSize) {
        const value = text.slice(valueStart(text, pos + 4, end), end)
        // A one-line event (most events): dispatched now, its blank line skipped.
        if (end === lf && end + 1 < len && text.charCodeAt(end + 1) === LF) {
          onEvent({ event: this.eventType === "" ? "message" : this.eventType, data: value, id: this.lastId })
          this.eventType = ""
          pos = end + 2
          lf = text.indexOf("\n", pos)
          continue
        }
        if (
          end === cr &&
          end + 3 < len &&
          text.charCodeAt(end + 1) === LF &&
          text.charCodeAt(end + 2) === CR &&
          text.charCodeAt(end + 3) === LF
        ) {
          onEvent({ event: this.eventType === "" ? "message" : this.eventType, data: value, id: this.lastId })
          this.eventType = ""
          pos = end + 4
          lf = text.indexOf("\n", pos)
          cr = text.indexOf("\r", pos)
          continue
        }
        this.data = value
        this.hasData = true
      } else if (isEventLine(text, pos, end) && end - pos <= this.maxBufferSize) {
        this.eventType = text.slice(valueStart(text, pos + 5, end), end)
      } else {
        this.processLine(text, pos, end)
      }
      pos = end + 1
      if (end === cr) {
        if (pos === len) {
          this.skipLF = true
          break
        }
        if (lf === pos) {
          pos++
          lf = text.indexOf("\n", pos)
        }
        cr = text.indexOf("\r", pos)
      } else {
        lf = text.indexOf("\n", pos)
      }
    }
    if (pos < len) this.appendPending(pos === 0 ? text : text.slice(pos))
  }

  /**
   * Takes the pending line as bytes (a long line): the decoder's carried bytes join it. Only an
   * ASCII line is taken, so that its bytes are exactly its code units (a line from text chunks
   * could hold a lone surrogate, which no bytes give back).
   */
  private enterLong(): void {
    // Nothing is gathered here: the feed that took the line past `LONG_LINE` released what it had
    // gathered, and a line is only taken at the start of the next byte feed.
    const text = this.pendingMore === undefined ? this.pending : this.pendingMore.join("")
    const carried = this.utf8.carried()
    if (this.long === undefined && spareLong !== undefined) {
      this.long = spareLong
      spareLong = undefined
    }
    let long = this.long
    if (long === undefined || long.length < 2 * (text.length + carried)) {
      long = this.long = new Uint8Array(Math.max(2 * (text.length + carried), 4 * LONG_LINE))
    }
    const { read, written } = (encoder ??= new TextEncoder()).encodeInto(text, long)
    if (read !== text.length || written !== text.length) {
      this.longRefused = true
      this.releaseLong()
      return
    }
    const taken = this.utf8.takeCarried()
    if (taken !== undefined) long.set(taken, written)
    this.longLength = written + carried
    this.pending = ""
    this.pendingPieces = 0
    this.pendingMore = undefined
    this.pendingLength = 0
    this.inLong = true
  }

  /**
   * Leaves the long line, its bytes decoded back into the pending line (through the decoder, which
   * carries an incomplete sequence at their end again): before a text chunk, and when the line
   * could grow past `maxBufferSize`, whose test is on code units. Not taken again for this line.
   */
  private leaveLong(): void {
    const held = this.long!.subarray(0, this.longLength)
    this.inLong = false
    this.longLength = 0
    this.longRefused = true
    this.utf8.push(held, this.sink) // no line end in it: all of it goes to the pending line
    this.releaseLong()
  }

  /** A byte chunk while a long line is pending: gathered until its line ends, then decoded once. */
  private feedLong(chunk: Uint8Array): void {
    const small = chunk.length < SMALL_CHUNK
    const end = small ? lineEndByLoop(chunk) : this.bytes.lineEnd(chunk)
    const head = end === -1 ? chunk.length : end
    const at = this.longLength
    const length = at + head
    if (length > this.maxBufferSize) {
      this.leaveLong()
      return this.feedBytes(chunk)
    }
    let long = this.long!
    if (length > long.length) {
      const wanted = Math.max(2 * long.length, length)
      const grown = new Uint8Array(wanted > this.maxBufferSize ? this.maxBufferSize : wanted)
      grown.set(long.subarray(0, at))
      long = this.long = grown
    }
    // A few bytes are copied one by one: `set` costs more than that for them.
    if (small) for (let i = 0; i < head; i++) long[at + i] = chunk[i]!
    else long.set(head === chunk.length ? chunk : chunk.subarray(0, head), at)
    this.longLength = length
    if (end === -1) return
    const line = this.bytes.decode(long.subarray(0, length))
    this.inLong = false
    this.longLength = 0
    this.releaseLong()
    this.processWholeLine(line)
    let next = end + 1
    if (chunk[end] === CR) {
      if (next === chunk.length) {
        this.skipLF = true
        return
      }
      if (chunk[next] === LF) next++
    }
    if (next < chunk.length) this.feedBytes(chunk.subarray(next))
  }

  private appendPending(piece: string): void {
    if (this.pendingMore !== undefined) this.pendingMore.push(piece)
    else if (++this.pendingPieces <= ROPE_PIECES) this.pending += piece
    else this.pendingMore = [this.pending, piece]
    this.pendingLength += piece.length
    if (this.pendingLength > this.maxBufferSize) this.overflow()
  }

  private appendData(value: string): void {
    if (this.hasData) {
      this.data = this.data + "\n" + value
      if (this.data.length > this.maxBufferSize) this.overflow()
    } else {
      this.data = value
      this.hasData = true
    }
  }

  /** A blank line: dispatches the event being built, if it has data, and starts the next one. */
  private blankLine(): void {
    if (this.hasData) {
      this.onEvent({ event: this.eventType === "" ? "message" : this.eventType, data: this.data, id: this.lastId })
      this.data = ""
      this.hasData = false
    }
    this.eventType = ""
  }

  /**
   * Interprets the line `text[start, end)` of a decoded chunk (no line break in it): `data:` and
   * `event:` in place, as the scan does, anything else as a whole line.
   */
  private processLine(text: string, start: number, end: number): void {
    if (start < end && end - start <= this.maxBufferSize) {
      if (isDataLine(text, start, end)) return this.appendData(text.slice(valueStart(text, start + 4, end), end))
      if (isEventLine(text, start, end)) {
        this.eventType = text.slice(valueStart(text, start + 5, end), end)
        return
      }
    }
    // Slicing first keeps the colon search inside the line (a search in `text` could run far past it).
    this.processWholeLine(text.slice(start, end))
  }

  /**
   * Interprets one line as a string of its own (no line break in it): a line completed across
   * chunks, a long line, or a line of a chunk that is not a common `data:` or `event:` one. Such
   * strings come in every representation V8 has (ropes, slices, flat); none of them reaches the
   * scan's inlined tests (see `valueStart`).
   */
  private processWholeLine(line: string): void {
    const length = line.length
    if (length === 0) return this.blankLine()
    if (length > this.maxBufferSize) this.overflow()
    const colon = line.indexOf(":")
    if (colon === 0) return // a comment
    if (colon === -1) return this.otherField(line, "")
    // `valueStart`'s rule, written again on purpose (see there).
    const from = colon + 1 < length && line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1
    this.otherField(line.slice(0, colon), line.slice(from))
  }

  /** A field other than the common forms of `data:` and `event:` (`data` and `event` without a colon or after another character come here too). */
  private otherField(field: string, value: string): void {
    switch (field) {
      case "data":
        return this.appendData(value)
      case "event":
        this.eventType = value
        return
      case "id":
        if (value.indexOf("\0") === -1) this.lastId = value
        return
      case "retry":
        if (this.onRetry !== undefined && /^[0-9]+$/.test(value)) this.onRetry(Number.parseInt(value, 10))
        return
      default:
        return // unknown fields are ignored
    }
  }
}

/**
 * Creates a parser for one event stream that returns each chunk's events as an array: a thin
 * wrapper of `createSseParser`, for callers that want plain arrays. It holds the stream's state, so
 * use one parser per connection.
 * @category constructors
 */
export const makeSseParser = (options: SseParserOptions = {}): SseParser => {
  let out: Array<SseEvent> = []
  const parser = createSseParser(
    { onEvent: (event) => void out.push(event), onRetry: options.onRetry },
    { maxBufferSize: options.maxBufferSize, byteText: options.byteText }
  )
  const push = (chunk: Uint8Array | string): SseEvent[] => {
    const events: Array<SseEvent> = (out = [])
    try {
      parser.feed(chunk)
    } catch (error) {
      // The chunk's events before the overflow go with the error, as `createSseParser` gives them.
      if (error instanceof SseBufferOverflow && events.length > 0)
        throw new SseBufferOverflow({ maxBufferSize: error.maxBufferSize, message: error.message, completed: events })
      throw error
    }
    return events
  }
  return {
    push,
    end: () => {
      parser.end()
      return []
    },
    pushEffect: (chunk) =>
      Effect.suspend(() => {
        try {
          return Effect.succeed(push(chunk))
        } catch (error) {
          // Only the overflow is a typed failure; anything else (a throwing onRetry) is a defect.
          return error instanceof SseBufferOverflow ? Effect.fail(error) : Effect.die(error)
        }
      })
  }
}

/** Removes the characters that would end a field line (and so could inject other fields). */
const oneLine = (value: string): string => value.replace(/[\r\n]/g, "")

/**
 * Renders one event as `text/event-stream` text, such that parsing it gives the event back:
 * `data` is split on its line breaks into `data:` lines (CR and CRLF come back as LF), `event` is
 * written unless absent or empty, `id` whenever present (it stays in force for later events),
 * `retry` when it is a non-negative integer. `event` and `id` cannot hold line breaks on the wire,
 * so CR and LF are removed from them (an `id` holding NUL is ignored by parsers).
 * @category rendering
 */
export const renderSseEvent = (event: {
  readonly event?: string | undefined
  readonly data: string
  readonly id?: string | undefined
  readonly retry?: number | undefined
}): string => {
  let text = ""
  if (event.event !== undefined && event.event !== "") text += `event: ${oneLine(event.event)}\n`
  if (event.id !== undefined) text += `id: ${oneLine(event.id)}\n`
  if (event.retry !== undefined && Number.isSafeInteger(event.retry) && event.retry >= 0) {
    text += `retry: ${event.retry}\n`
  }
  text += "data: " + event.data.split(/\r\n|\r|\n/).join("\ndata: ") + "\n\n"
  return text
}
