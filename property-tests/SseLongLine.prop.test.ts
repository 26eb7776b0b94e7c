/**
 * Properties of the SSE parser's long-line path (`src/core/wire/Sse.ts`, `enterLong` / `feedLong` /
 * `leaveLong`): a line still unterminated past 64 Ki code units, fed bytes, is gathered as bytes and
 * decoded once when it ends. Whatever the chunking, the byte search (`portableByteText` or Node's
 * `platformByteText`) and the mix of byte and text chunks, the parser must give what it gives for
 * the stream in one chunk, and what the stream was built from.
 *
 * Streams are built from specs (a long value is a length, an offset into a base64-like filler and a
 * few inserted byte sequences), so that each run handles 100+ KB of input while fast-check only
 * generates and shrinks a handful of numbers. Every stream comes with the callbacks (events and
 * retries, in order) a correct parser makes: computed here from the spec, not by a parser.
 */
import { Effect, Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { platformByteText } from "../src/adapters/sse/NodeByteText.js"
import { type ByteText, portableByteText } from "../src/core/wire/ByteText.js"
import {
  createSseParser,
  makeSseParser,
  renderSseEvent,
  SseBufferOverflow,
  type SseEvent,
  type SseLimits
} from "../src/core/wire/Sse.js"
import { concatBytes, type LineEnd, prng } from "../test/fixtures/sseStreams.js"

/** The parser's threshold (`LONG_LINE` in Sse.ts): a pending line this long, fed bytes, goes long. */
const LONG_LINE = 64 * 1024
/** Byte chunks up to this size are gathered rather than decoded (`GATHER_BYTES` in Sse.ts). */
const GATHER_BYTES = 4096

const encoder = new TextEncoder()
const encode = (text: string): Uint8Array => encoder.encode(text)
/** The reference decoding: the whole input at once, every invalid sequence as U+FFFD, a BOM kept. */
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true })

if (platformByteText === undefined) throw new Error("NodeByteText.ts must give Node a platformByteText")
const nodeByteText: ByteText = platformByteText
const byteTexts: ReadonlyArray<readonly [string, ByteText]> = [
  ["portable", portableByteText],
  ["node", nodeByteText]
]

/** 400 Ki bytes of base64 alphabet (a base64 image's `data:` line), seeded: long values are slices of it. */
const FILLER_LENGTH = 400 * 1024
const FILLER: Uint8Array = (() => {
  const alphabet = encode("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
  const random = prng(20260101)
  const bytes = new Uint8Array(FILLER_LENGTH)
  for (let i = 0; i < bytes.length; i++) bytes[i] = alphabet[Math.floor(random() * alphabet.length)]!
  return bytes
})()
const MAX_LONG = 300 * 1024

// ---------------------------------------------------------------------------------------------
// Running the parser
// ---------------------------------------------------------------------------------------------

/** What a parser hands its callbacks, in order: events, and the retry values as numbers. */
type Log = Array<SseEvent | number>

interface Outcome {
  readonly log: Log
  readonly overflow: SseBufferOverflow | undefined
}

/** Feeds every chunk to a fresh callback parser (stopping at an overflow), then ends it. */
const feedAll = (chunks: ReadonlyArray<Uint8Array | string>, options: SseLimits = {}): Outcome => {
  const log: Log = []
  const parser = createSseParser({ onEvent: (e) => void log.push(e), onRetry: (ms) => void log.push(ms) }, options)
  let overflow: SseBufferOverflow | undefined
  try {
    for (const chunk of chunks) parser.feed(chunk)
  } catch (error) {
    if (!(error instanceof SseBufferOverflow)) throw error
    overflow = error
  }
  parser.end()
  return { log, overflow }
}

/** A string's length and a few characters around `at`, for a readable failure message. */
const around = (text: string, at: number): string =>
  `length ${text.length}, at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 8), at + 8))}`

/**
 * The first difference between two logs, described in a few words (`undefined`: equal). Values are
 * hundreds of kilobytes long: a plain `toEqual` diff of them would be unreadable.
 */
const firstDifference = (
  actual: ReadonlyArray<SseEvent | number>,
  expected: ReadonlyArray<SseEvent | number>
): string | undefined => {
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    const a = actual[i]
    const e = expected[i]
    if (a === undefined || e === undefined) {
      return `entry ${i}: ${a === undefined ? "missing" : "unexpected"} (${actual.length} entries, expected ${expected.length})`
    }
    if (typeof a === "number" || typeof e === "number") {
      if (a !== e)
        return `entry ${i}: ${typeof a === "number" ? a : "an event"}, expected ${typeof e === "number" ? e : "an event"}`
      continue
    }
    for (const key of ["event", "id", "data"] as const) {
      if (a[key] === e[key]) continue
      let at = 0
      while (at < a[key].length && a[key].charCodeAt(at) === e[key].charCodeAt(at)) at++
      return `entry ${i}, ${key}: ${around(a[key], at)}, expected ${around(e[key], at)}`
    }
  }
  return undefined
}

/**
 * A `ByteText` that counts how often the parser took the long path: a decode of more than
 * `GATHER_BYTES` bytes from a buffer that is not an input chunk's can only be of the long line's
 * buffer (the gathered chunks are at most `GATHER_BYTES`, the decoder's own copies a few bytes).
 */
const spyOn = (base: ByteText, inputs: ReadonlyArray<Uint8Array>) => {
  const known = new Set<ArrayBufferLike>(inputs.map((b) => b.buffer))
  const counts = { longDecodes: 0, lineEnds: 0 }
  const byteText: ByteText = {
    decode: (bytes) => {
      if (bytes.length > GATHER_BYTES && !known.has(bytes.buffer)) counts.longDecodes++
      return base.decode(bytes)
    },
    lineEnd: (bytes) => {
      counts.lineEnds++
      return base.lineEnd(bytes)
    }
  }
  return { byteText, counts }
}

// ---------------------------------------------------------------------------------------------
// Streams built from specs
// ---------------------------------------------------------------------------------------------

/** Valid multi-byte characters (2-, 3- and 4-byte UTF-8; a BOM and U+FFFD themselves). */
const VALID = ["é", "ß", "€", "日本", "😀", "🎉👍", "\u0800", "\uFFFD", "\uFEFF", "ä😀€"].map(encode)
/** Invalid UTF-8: lone continuation bytes, bytes never valid, truncated sequences, overlong forms, surrogates. */
const INVALID = [
  [0x80],
  [0xbf],
  [0xff],
  [0xfe],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80, 0x80, 0x80, 0x80, 0x80]
].map((b) => new Uint8Array(b))

/** Where an insertion goes in a long value: near its start, near the 64 Ki point of its line, near its end, anywhere. */
type Anchor = "start" | "threshold" | "end" | "anywhere"

interface InsertSpec {
  readonly anchor: Anchor
  readonly delta: number
  readonly spot: number
  readonly bytes: Uint8Array
}

interface LongSpec {
  readonly kind: "long"
  /** Filler bytes (ASCII), the inserted bytes come on top. */
  readonly length: number
  readonly offset: number
  readonly inserts: ReadonlyArray<InsertSpec>
}

interface ShortSpec {
  readonly kind: "short"
  readonly text: string
}

type Field = "data" | "event" | "id" | "retry" | "comment" | "unknown"

interface LineSpec {
  readonly field: Field
  readonly value: LongSpec | ShortSpec
}

interface BlockSpec {
  readonly lines: ReadonlyArray<readonly [LineSpec, LineEnd]>
  /** The blank line that dispatches the event. */
  readonly blank: LineEnd
}

interface StreamSpec {
  readonly bom: boolean
  readonly blocks: ReadonlyArray<BlockSpec>
  /** Lines after the last blank line (no event from them); the last one perhaps unterminated. */
  readonly tail: ReadonlyArray<readonly [LineSpec, LineEnd | "none"]>
}

/** A stream, the callbacks it must give, and the byte offsets worth cutting near. */
interface Built {
  readonly bytes: Uint8Array
  readonly log: Log
  /** Near the start, the 64 Ki point, the inserted bytes and the end of every long line. */
  readonly marks: ReadonlyArray<number>
  /** Each long line's first byte and its line end's offset. */
  readonly longLines: ReadonlyArray<{ readonly start: number; readonly end: number }>
}

const FIELD_PREFIX: Record<Field, string> = {
  data: "data: ",
  event: "event: ",
  id: "id: ",
  retry: "retry: ",
  comment: ":",
  unknown: "x-pad: "
}

/** A long value's bytes and the offsets (in it) of its inserted sequences. */
const longValue = (spec: LongSpec, prefixLength: number) => {
  const threshold = LONG_LINE - prefixLength
  const clamp = (at: number): number => Math.max(0, Math.min(spec.length, at))
  const places = spec.inserts
    .map((insert) => {
      const at =
        insert.anchor === "start"
          ? Math.abs(insert.delta)
          : insert.anchor === "threshold"
            ? threshold + insert.delta
            : insert.anchor === "end"
              ? spec.length - Math.abs(insert.delta)
              : insert.spot % (spec.length + 1)
      return { at: clamp(at), bytes: insert.bytes }
    })
    .sort((a, b) => a.at - b.at)
  const parts: Array<Uint8Array> = []
  const offsets: Array<number> = []
  let from = 0
  let size = 0
  for (const place of places) {
    parts.push(FILLER.subarray(spec.offset + from, spec.offset + place.at))
    size += place.at - from
    offsets.push(size)
    parts.push(place.bytes)
    size += place.bytes.length
    from = place.at
  }
  parts.push(FILLER.subarray(spec.offset + from, spec.offset + spec.length))
  return { bytes: concatBytes(parts), offsets }
}

/** Roughly where (in bytes) a line's code units reach `LONG_LINE` (exact when it is ASCII there). */
const thresholdByte = (line: Uint8Array): number => {
  let units = 0
  for (let i = 0; i < line.length; i++) {
    const b = line[i]!
    units += b < 0x80 ? 1 : (b & 0xc0) === 0x80 ? 0 : b >= 0xf0 ? 2 : 1
    if (units >= LONG_LINE) return i + 1
  }
  return line.length
}

/** Renders a stream spec and computes, by the WHATWG rules, the callbacks it must give. */
const build = (spec: StreamSpec): Built => {
  const parts: Array<Uint8Array> = []
  const log: Log = []
  const marks: Array<number> = []
  const longLines: Array<{ start: number; end: number }> = []
  let size = 0
  let previousEnd: LineEnd | "none" = "none"
  let lastId = ""
  const put = (bytes: Uint8Array): void => {
    parts.push(bytes)
    size += bytes.length
  }
  const putEnd = (end: LineEnd, blank: boolean): void => {
    // A LF right after a CR would join it as one CRLF: the blank line would vanish.
    const actual = blank && previousEnd === "\r" && end === "\n" ? "\r\n" : end
    put(encode(actual))
    previousEnd = actual
  }
  /** Writes one line (no line end); returns its value as the parser must read it. */
  const putLine = (line: LineSpec): string => {
    const prefix = encode(FIELD_PREFIX[line.field])
    const start = size
    put(prefix)
    if (line.value.kind === "short") {
      put(encode(line.value.text))
      return line.value.text
    }
    const value = longValue(line.value, prefix.length)
    put(value.bytes)
    const lineBytes = concatBytes([prefix, value.bytes])
    marks.push(start, start + thresholdByte(lineBytes), size)
    for (const offset of value.offsets) marks.push(start + prefix.length + offset)
    longLines.push({ start, end: size })
    return utf8.decode(value.bytes)
  }
  let type = ""
  let data: Array<string> | undefined
  const interpret = (field: Field, value: string): void => {
    if (field === "data") (data ??= []).push(value)
    else if (field === "event") type = value
    else if (field === "id") lastId = value
    else if (field === "retry" && /^[0-9]+$/.test(value)) log.push(Number.parseInt(value, 10))
  }
  if (spec.bom) put(encode("\uFEFF"))
  for (const block of spec.blocks) {
    for (const [line, end] of block.lines) {
      interpret(line.field, putLine(line))
      putEnd(end, false)
    }
    putEnd(block.blank, true)
    if (data !== undefined) log.push({ event: type === "" ? "message" : type, data: data.join("\n"), id: lastId })
    data = undefined
    type = ""
  }
  for (const [line, end] of spec.tail) {
    const value = putLine(line)
    if (end === "none") break
    interpret(line.field, value)
    putEnd(end, false)
  }
  return { bytes: concatBytes(parts), log, marks, longLines }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

const lineEnd = fc.constantFrom<LineEnd>("\n", "\r", "\r\n")

const insert: fc.Arbitrary<InsertSpec> = fc.record({
  anchor: fc.constantFrom<Anchor>("start", "threshold", "threshold", "end", "end", "end", "anywhere"),
  delta: fc.integer({ min: -6, max: 6 }),
  spot: fc.nat(),
  bytes: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...VALID) },
    { weight: 1, arbitrary: fc.constantFrom(...INVALID) }
  )
})

/** A long value: mostly ASCII, sometimes with multi-byte or invalid bytes before or after the 64 Ki point. */
const longSpec = (maxLength: number = MAX_LONG): fc.Arbitrary<LongSpec> =>
  fc.record({
    kind: fc.constant("long" as const),
    length: fc.oneof(
      fc.integer({ min: LONG_LINE - 10, max: LONG_LINE + 10 }),
      fc.integer({ min: LONG_LINE, max: Math.min(maxLength, 128 * 1024) }),
      fc.integer({ min: LONG_LINE, max: maxLength })
    ),
    offset: fc.nat(FILLER_LENGTH - MAX_LONG),
    inserts: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 2, arbitrary: fc.array(insert, { minLength: 1, maxLength: 4 }) }
    )
  })

const shortText = fc.string({
  unit: fc.constantFrom("a", "b", "Z", "0", "7", "{", "}", ":", " ", "é", "日", "😀", "\uFEFF"),
  maxLength: 16
})
const shortSpec: fc.Arbitrary<ShortSpec> = shortText.map((text) => ({ kind: "short" as const, text }))

/** A line of `field`, long with the given weight (out of 10) when `long` allows it. */
const lineOf = (field: Field, longWeight: number, long: fc.Arbitrary<LongSpec>): fc.Arbitrary<LineSpec> =>
  field === "retry"
    ? fc.nat(99_999).map((n) => ({ field, value: { kind: "short" as const, text: String(n) } }))
    : longWeight === 0
      ? shortSpec.map((value) => ({ field, value }))
      : fc
          .oneof(
            { weight: 10 - longWeight, arbitrary: shortSpec as fc.Arbitrary<LongSpec | ShortSpec> },
            { weight: longWeight, arbitrary: long }
          )
          .map((value) => ({ field, value }))

/**
 * Streams of a few events, one of which (at least) has a long line of one of `longFields`; the
 * other `data:` lines are long with weight `dataLong` (out of 10), the other fields long only when
 * `otherLong` is set (a long `event:`, `id:`, comment or unknown field).
 */
const streamSpec = (options: {
  readonly dataLong: number
  readonly otherLong: boolean
  readonly maxBlocks: number
  readonly maxLong?: number
  readonly longFields?: ReadonlyArray<Field>
}): fc.Arbitrary<StreamSpec> => {
  const long = longSpec(options.maxLong)
  const other = options.otherLong ? 2 : 0
  const line = fc.oneof(
    { weight: 6, arbitrary: lineOf("data", options.dataLong, long) },
    { weight: 1, arbitrary: lineOf("event", other, long) },
    { weight: 1, arbitrary: lineOf("id", other, long) },
    { weight: 1, arbitrary: lineOf("retry", 0, long) },
    { weight: 1, arbitrary: lineOf("comment", other, long) },
    { weight: 1, arbitrary: lineOf("unknown", other, long) }
  )
  const lines = (maxLength: number) => fc.array(fc.tuple(line, lineEnd), { maxLength })
  const block = fc.record({ lines: lines(4), blank: lineEnd })
  const longLine = fc.record({ field: fc.constantFrom(...(options.longFields ?? ["data" as const])), value: long })
  const longBlock = fc
    .record({ before: lines(2), long: fc.tuple(longLine, lineEnd), after: lines(2), blank: lineEnd })
    .map(({ before, long, after, blank }) => ({ lines: [...before, long, ...after], blank }))
  const half = Math.floor(options.maxBlocks / 2)
  return fc.record({
    bom: fc.boolean(),
    blocks: fc
      .tuple(fc.array(block, { maxLength: half }), longBlock, fc.array(block, { maxLength: half }))
      .map(([before, long, after]) => [...before, long, ...after]),
    tail: fc.array(fc.tuple(line, fc.oneof(lineEnd, fc.constant("none" as const))), { maxLength: 2 })
  })
}

/** How a stream is cut: chunks of `min`..`max` bytes, and 1..7 bytes within `window` of every mark. */
interface ChunkPlan {
  readonly seed: number
  readonly min: number
  readonly max: number
  readonly window: number
}

const chunkPlan: fc.Arbitrary<ChunkPlan> = fc
  .record({
    seed: fc.integer(),
    size: fc.constantFrom([1, 16 * 1024], [1, 16 * 1024], [4096, 64 * 1024], [16 * 1024, 128 * 1024], [64, 2048]),
    window: fc.constantFrom(0, 16, 64, 300)
  })
  .map(({ seed, size: [min, max], window }) => ({ seed, min: min!, max: max!, window }))

/** Cuts `bytes` by `plan`: tiny chunks near the marks (the 64 Ki points, inserted bytes, line ends), others elsewhere. */
const chunkBy = (bytes: Uint8Array, marks: ReadonlyArray<number>, plan: ChunkPlan): Array<Uint8Array> => {
  const random = prng(plan.seed)
  const between = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1))
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < bytes.length;) {
    const near = plan.window > 0 && marks.some((m) => at >= m - plan.window && at < m + plan.window)
    let size = near ? between(1, 7) : between(plan.min, plan.max)
    // A big chunk stops, now and then, just before a mark's window: the tiny chunks then start there.
    const next = marks.find((m) => m - plan.window > at && m - plan.window < at + size)
    if (!near && next !== undefined && random() < 0.5) size = next - plan.window - at
    chunks.push(bytes.subarray(at, at + size))
    at += size
  }
  return chunks
}

/** Checks the callbacks of every chunking against the built log, with both byte searches. */
const checkBuilt = (built: Built, chunks: ReadonlyArray<Uint8Array>): { readonly longDecodes: number } => {
  let longDecodes = 0
  for (const [name, base] of byteTexts) {
    const { byteText, counts } = spyOn(base, [built.bytes])
    const outcome = feedAll(chunks, { byteText })
    expect(outcome.overflow, name).toBeUndefined()
    expect(firstDifference(outcome.log, built.log), name).toBeUndefined()
    longDecodes += counts.longDecodes
  }
  return { longDecodes }
}

/** `data: ` + `n` filler bytes, as text (ASCII). */
const dataLine = (n: number): string => "data: " + utf8.decode(FILLER.subarray(0, n))
const message = (data: string): SseEvent => ({ event: "message", data, id: "" })

/**
 * Takes the spare long-line buffer (shared by all parsers, kept up to 4 MiB) into a parser left in
 * its long line, so that the next long line allocates a fresh 256 KiB buffer and grows it; the
 * returned function gives it back (`end()`).
 */
const holdSpare = (): (() => void) => {
  const holder = createSseParser({ onEvent: () => undefined })
  holder.feed(encode(dataLine(LONG_LINE)))
  holder.feed(encode("A")) // the line goes long: it takes the spare buffer, or a new one
  return () => holder.end()
}

const runs = (n: number) => ({ numRuns: n })

/** A seed whose 40 runs of the interleaving property make two parsers' long lines overlap. */
const OVERLAP_SEED = 20261129

/** What `f` throws (`undefined`: nothing). */
const thrown = (f: () => void): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe("SSE parser: long lines fed as bytes", () => {
  it("gives the built events for short events among long data lines, however cut, with both byte searches", () => {
    let tookLongPath = 0
    fc.assert(
      fc.property(streamSpec({ dataLong: 4, otherLong: false, maxBlocks: 4 }), chunkPlan, (spec, plan) => {
        const built = build(spec)
        const chunks = chunkBy(built.bytes, built.marks, plan)
        if (checkBuilt(built, chunks).longDecodes > 0) tookLongPath++
        // The references: the stream in one chunk, and its text in one string.
        expect(firstDifference(feedAll([built.bytes]).log, built.log)).toBeUndefined()
        expect(firstDifference(feedAll([utf8.decode(built.bytes)]).log, built.log)).toBeUndefined()
      }),
      runs(60)
    )
    expect(tookLongPath).toBeGreaterThan(0)
  })

  it("gives the built events for long event, id, comment and unknown-field lines among data lines", () => {
    let tookLongPath = 0
    fc.assert(
      fc.property(
        streamSpec({
          dataLong: 2,
          otherLong: true,
          maxBlocks: 3,
          maxLong: 160 * 1024,
          longFields: ["data", "event", "id", "comment", "unknown"]
        }),
        chunkPlan,
        (spec, plan) => {
          const built = build(spec)
          const chunks = chunkBy(built.bytes, built.marks, plan)
          if (checkBuilt(built, chunks).longDecodes > 0) tookLongPath++
          expect(firstDifference(feedAll([built.bytes]).log, built.log)).toBeUndefined()
        }
      ),
      runs(40)
    )
    expect(tookLongPath).toBeGreaterThan(0)
  })

  it("gives renderSseEvent's events back, data with long lines among short ones, in any line ends and chunks", () => {
    const piece = fc.oneof(
      shortText,
      longSpec(128 * 1024).map((spec) => utf8.decode(longValue(spec, 6).bytes))
    )
    const event = fc.record({
      event: fc.option(fc.oneof(fc.constantFrom("image", "delta", "完成"), shortText), { nil: undefined }),
      id: fc.option(shortText, { nil: undefined }),
      data: fc.array(piece, { minLength: 1, maxLength: 3 }).map((lines) => lines.join("\n"))
    })
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 4 }), lineEnd, chunkPlan, (events, nl, plan) => {
        const text = events.map((e) => renderSseEvent(e).replaceAll("\n", nl)).join("")
        const bytes = encode(text)
        let lastId = ""
        const expected = events.map((e) => {
          lastId = e.id ?? lastId
          return { event: e.event === undefined || e.event === "" ? "message" : e.event, data: e.data, id: lastId }
        })
        // Marks every 64 Ki (a long line crosses its threshold near one of them) and at every line end.
        const marks: Array<number> = []
        for (let at = LONG_LINE; at < bytes.length; at += LONG_LINE) marks.push(at)
        for (let at = 0; at < bytes.length; at++) if (bytes[at] === 10 || bytes[at] === 13) marks.push(at)
        const chunks = chunkBy(bytes, marks, plan)
        for (const [name, byteText] of byteTexts) {
          expect(firstDifference(feedAll(chunks, { byteText }).log, expected), name).toBeUndefined()
        }
      }),
      runs(30)
    )
  })

  it("ends a long line whose CR ends one chunk and whose LF starts the next", () => {
    for (const [name, byteText] of byteTexts) {
      for (const size of [1, 5, 64, 1000]) {
        const value = utf8.decode(FILLER.subarray(0, 90 * 1024))
        const bytes = encode(`event: big\r\ndata: ${value}\r\n\r\ndata: after\r\n\r\n`)
        const cr = bytes.indexOf(13, 20)
        // Big chunks up to the CR, then `size`-byte chunks: the CR is the last byte of one of them.
        const chunks = [bytes.subarray(0, 70 * 1024), bytes.subarray(70 * 1024, cr + 1 - size)]
        for (let at = cr + 1 - size; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
        const outcome = feedAll(chunks, { byteText })
        expect(
          firstDifference(outcome.log, [
            { event: "big", data: value, id: "" },
            { event: "message", data: "after", id: "" }
          ]),
          `${name}, ${size}-byte chunks`
        ).toBeUndefined()
      }
    }
  })
})

describe("SSE parser: a character cut when the line goes long, and invalid bytes in it", () => {
  /** `data: ` + ASCII up to `ascii` code units of line + `special` + ASCII: the line, and its value as decoded. */
  const lineWith = (ascii: number, special: Uint8Array, after: number) => {
    const valueBytes = concatBytes([FILLER.subarray(0, ascii - 6), special, FILLER.subarray(0, after)])
    return { line: concatBytes([encode("data: "), valueBytes]), value: utf8.decode(valueBytes) }
  }

  it("decodes a sequence cut by the chunk that takes the line to 64 Ki as the whole stream's decoding does", () => {
    // The chunk that brings the pending line to `ascii` ≥ 64 Ki units ends inside `special`: its
    // first bytes are carried by the decoder, taken into the long line's bytes by the next feed.
    const before = encode("id: 1\ndata: short\n\n")
    fc.assert(
      fc.property(
        fc.integer({ min: LONG_LINE - 2, max: LONG_LINE + 40 }),
        fc.constantFrom(...VALID, ...INVALID),
        fc.nat(3),
        fc.constantFrom(1, 3, 7, 64, 4096),
        fc.constantFrom(1, 5, 100, 20_000),
        lineEnd,
        (ascii, special, cutAt, lastSize, restSize, nl) => {
          const { line, value } = lineWith(ascii, special, 30_000)
          const bytes = concatBytes([before, line, encode(`${nl}${nl}data: after${nl}${nl}`)])
          const cut = before.length + ascii + Math.min(cutAt, special.length - 1) + 1
          // Up to the cut: big chunks, then a last one of `lastSize` bytes (gathered when small).
          const chunks = [bytes.subarray(0, cut - lastSize), bytes.subarray(cut - lastSize, cut)]
          for (let at = cut; at < bytes.length; at += restSize) chunks.push(bytes.subarray(at, at + restSize))
          const expected = [
            { event: "message", data: "short", id: "1" },
            { event: "message", data: value, id: "1" },
            { event: "message", data: "after", id: "1" }
          ]
          for (const [name, byteText] of byteTexts) {
            expect(firstDifference(feedAll(chunks, { byteText }).log, expected), name).toBeUndefined()
          }
          expect(firstDifference(feedAll([bytes]).log, expected)).toBeUndefined()
        }
      ),
      runs(80)
    )
  })

  it("makes U+FFFD of invalid bytes in a long line exactly as TextDecoder does for the whole stream", () => {
    const invalid = fc.oneof(
      fc.constantFrom(...INVALID),
      fc.uint8Array({ minLength: 1, maxLength: 6 }).map((b) => b.map((x) => (x === 10 || x === 13 ? 0x80 : x)))
    )
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -3, max: 90_000 }), invalid), { minLength: 1, maxLength: 5 }),
        chunkPlan,
        lineEnd,
        (places, plan, nl) => {
          // Offsets count from the 64 Ki point: negative ones make the line refused, others go in while long.
          const sorted = [...places].sort((a, b) => a[0] - b[0])
          const parts: Array<Uint8Array> = [encode("data: ")]
          let from = 0
          const marks: Array<number> = []
          for (const [offset, bytes] of sorted) {
            const at = LONG_LINE - 6 + offset
            parts.push(FILLER.subarray(from, at), bytes)
            from = at
            marks.push(at + 6)
          }
          parts.push(FILLER.subarray(from, from + 1000), encode(`${nl}${nl}`))
          const bytes = concatBytes(parts)
          const expected = [
            { event: "message", data: utf8.decode(bytes.subarray(6, bytes.length - 2 * nl.length)), id: "" }
          ]
          const chunks = chunkBy(bytes, marks, plan)
          checkBuilt({ bytes, log: expected, marks, longLines: [] }, chunks)
          expect(firstDifference(feedAll([bytes]).log, expected)).toBeUndefined()
        }
      ),
      runs(40)
    )
  })
})

describe("SSE parser: text chunks in the middle of a long line", () => {
  /**
   * The text that the chunks stand for: every run of byte chunks decoded on its own (a string chunk
   * cuts the byte stream: a sequence it interrupts is U+FFFD), the strings as they are.
   */
  const textOf = (chunks: ReadonlyArray<Uint8Array | string>): string => {
    let text = ""
    let run: Array<Uint8Array> = []
    for (const chunk of chunks) {
      if (typeof chunk === "string") {
        text += utf8.decode(concatBytes(run)) + chunk
        run = []
      } else {
        run.push(chunk)
      }
    }
    return text + utf8.decode(concatBytes(run))
  }

  it("gives, for byte and string chunks mixed, what the same text in one string gives", () => {
    const extra = fc.constantFrom("", "x", "é", "日本", "😀", "\uD800", "\uDC00", "AAAA")
    fc.assert(
      fc.property(
        streamSpec({ dataLong: 5, otherLong: false, maxBlocks: 3 }),
        chunkPlan,
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.nat(), extra), { maxLength: 3 }),
        (spec, plan, everyNth, extras) => {
          const built = build(spec)
          const random = prng(plan.seed ^ 0x5bd1e995)
          // Some byte chunks become their text (a sequence they cut is U+FFFD there), and a few
          // strings (lone surrogates among them) are put in between.
          const chunks: Array<Uint8Array | string> = chunkBy(built.bytes, built.marks, plan).map((chunk) =>
            random() * everyNth < 1 ? utf8.decode(chunk) : chunk
          )
          for (const [at, text] of extras) chunks.splice(at % (chunks.length + 1), 0, text)
          const text = textOf(chunks)
          const reference = feedAll([text]).log
          for (const [name, byteText] of byteTexts) {
            expect(firstDifference(feedAll(chunks, { byteText }).log, reference), name).toBeUndefined()
          }
          // With no string put in and every cut on a character boundary, that is the built stream.
          if (extras.length === 0 && text === utf8.decode(built.bytes)) {
            expect(firstDifference(reference, built.log)).toBeUndefined()
          }
        }
      ),
      runs(40)
    )
  })

  it("takes a line fed as text and then bytes as long only when its text is ASCII", () => {
    for (const [name, byteText] of byteTexts) {
      for (const head of ["data: ", "data: é", "data: \uD83D"]) {
        const ascii = utf8.decode(FILLER.subarray(0, 70 * 1024))
        const rest = FILLER.subarray(0, 50 * 1024)
        const chunks = [head, ascii, rest.subarray(0, 1000), "\uDE00", rest, encode("\n\n")]
        const expected = [{ event: "message", data: textOf(chunks).slice(6, -2), id: "" }]
        expect(firstDifference(feedAll(chunks, { byteText }).log, expected), `${name}, ${head}`).toBeUndefined()
      }
    }
  })
})

describe("SSE parser: maxBufferSize on a long line", () => {
  /** Short events, then `data: ` + `ascii` filler + `count` times `wide` (2 or 3 bytes, one code unit), then short events. */
  const stream = fc.record({
    before: fc.array(shortText, { maxLength: 3 }),
    after: fc.array(shortText, { minLength: 1, maxLength: 2 }),
    ascii: fc.integer({ min: LONG_LINE, max: 200 * 1024 }),
    count: fc.integer({ min: 1, max: 100 * 1024 }),
    wide: fc.constantFrom("é", "€", "ж"),
    pick: fc.nat(),
    nl: lineEnd,
    plan: chunkPlan
  })
  type StreamShape = typeof stream extends fc.Arbitrary<infer T> ? T : never
  const render = (s: StreamShape) => {
    const short = (data: string): string => `data: ${data}${s.nl}${s.nl}`
    const value = utf8.decode(FILLER.subarray(0, s.ascii)) + s.wide.repeat(s.count)
    const head = encode(s.before.map(short).join(""))
    const bytes = concatBytes([head, encode(`data: ${value}${s.nl}${s.nl}`), encode(s.after.map(short).join(""))])
    return {
      bytes,
      units: 6 + value.length, // the line's code units
      lineBytes: 6 + s.ascii + s.count * encode(s.wide).length,
      before: s.before.map(message),
      all: [...s.before.map(message), message(value), ...s.after.map(message)],
      marks: [head.length, head.length + LONG_LINE, head.length + 6 + s.ascii]
    }
  }

  it("holds a long line whose bytes exceed maxBufferSize but whose code units do not", () => {
    fc.assert(
      fc.property(stream, (s) => {
        const r = render(s)
        // Between the line's code units and its bytes: the bound is passed in bytes, not in units.
        const maxBufferSize = r.units + (s.pick % (r.lineBytes - r.units))
        const chunks = chunkBy(r.bytes, r.marks, s.plan)
        for (const [name, byteText] of byteTexts) {
          // A fresh buffer, grown as the line comes: never past the bound (the line leaves it first).
          const release = holdSpare()
          const outcome = feedAll(chunks, { byteText, maxBufferSize })
          release()
          expect(outcome.overflow, name).toBeUndefined()
          expect(firstDifference(outcome.log, r.all), name).toBeUndefined()
        }
        expect(firstDifference(feedAll([r.bytes], { maxBufferSize }).log, r.all)).toBeUndefined()
      }),
      runs(30)
    )
  })

  it("throws SseBufferOverflow for a long line past maxBufferSize in code units, after the events before it", () => {
    fc.assert(
      fc.property(stream, fc.boolean(), (s, asciiOnly) => {
        const r = render(asciiOnly ? { ...s, count: 0 } : s)
        // From 64 Ki (the line goes long first) to one unit short of the line.
        const maxBufferSize = LONG_LINE + (s.pick % (r.units - LONG_LINE))
        const chunks = chunkBy(r.bytes, r.marks, s.plan)
        for (const [name, byteText] of byteTexts) {
          const log: Log = []
          const parser = createSseParser({ onEvent: (e) => void log.push(e) }, { byteText, maxBufferSize })
          let overflow: unknown
          let at = 0
          for (; at < chunks.length && overflow === undefined; at++) {
            try {
              parser.feed(chunks[at]!)
            } catch (error) {
              overflow = error
            }
          }
          expect(overflow, name).toBeInstanceOf(SseBufferOverflow)
          expect((overflow as SseBufferOverflow).maxBufferSize).toBe(maxBufferSize)
          expect(firstDifference(log, r.before), name).toBeUndefined()
          // Failed until end(); then a fresh stream parses (the long line's state is gone).
          expect(thrown(() => parser.feed(encode("data: x\n\n")))).toBe(overflow)
          parser.end()
          parser.feed(encode("data: fresh\n\n"))
          expect(log.at(-1)).toEqual({ event: "message", data: "fresh", id: "" })
        }
        const whole = feedAll([r.bytes], { maxBufferSize })
        expect(whole.overflow).toBeInstanceOf(SseBufferOverflow)
        expect(firstDifference(whole.log, r.before)).toBeUndefined()
      }),
      runs(30)
    )
  })

  it("fails pushEffect with the typed SseBufferOverflow when a long line passes the bound, and not before", () => {
    fc.assert(
      fc.property(stream, fc.boolean(), (s, over) => {
        const r = render(s)
        const maxBufferSize = over ? LONG_LINE + (s.pick % (r.units - LONG_LINE)) : r.units
        const chunks = chunkBy(r.bytes, r.marks, s.plan)
        const parser = makeSseParser({ maxBufferSize })
        const events: Array<SseEvent> = []
        let failure: SseBufferOverflow | undefined
        let failedAt = chunks.length
        for (const [at, chunk] of chunks.entries()) {
          const result = Effect.runSync(Effect.result(parser.pushEffect(chunk)))
          if (Result.isFailure(result)) {
            failure = result.failure
            failedAt = at
            break
          }
          events.push(...result.success)
        }
        if (over) {
          expect(failure).toBeInstanceOf(SseBufferOverflow)
          expect(failure?._tag).toBe("SseBufferOverflow")
          expect(failure?.maxBufferSize).toBe(maxBufferSize)
          // What the chunks before the failing one completed (those the failing chunk completed
          // before the overflow are handed to a callback parser, but lost with push's array).
          const handedOver = feedAll(chunks.slice(0, failedAt), { maxBufferSize })
          expect(handedOver.overflow).toBeUndefined()
          expect(firstDifference(events, handedOver.log)).toBeUndefined()
          expect(firstDifference(events, r.before.slice(0, events.length))).toBeUndefined()
        } else {
          expect(failure).toBeUndefined()
          expect(firstDifference(events, r.all)).toBeUndefined()
        }
      }),
      runs(20)
    )
  })
})

describe("SSE parser: several parsers with long lines at once", () => {
  /**
   * Two parsers, each with its own stream, fed in an interleaving (and, when `nested`, the second
   * one fed from the first one's event callback): both are in their long lines at once, and the
   * spare long-line buffer, shared by every parser, must never serve two of them.
   */
  it("gives each of two interleaved parsers its own stream's events", () => {
    const spec = streamSpec({ dataLong: 6, otherLong: false, maxBlocks: 3, maxLong: 200 * 1024 })
    // Runs the property; returns how many times A decoded a long line while B was in one of its own.
    const interleave = (
      parameters: fc.Parameters<[unknown, unknown, unknown, unknown, number, boolean, boolean]>
    ): number => {
      let overlaps = 0
      fc.assert(
        fc.property(
          spec,
          spec,
          chunkPlan,
          chunkPlan,
          fc.integer(),
          fc.boolean(),
          fc.boolean(),
          (specA, specB, planA, planB, seed, nested, swap) => {
            const a = build(specA)
            const b = build(specB)
            const chunksA = chunkBy(a.bytes, a.marks, planA)
            const chunksB = chunkBy(b.bytes, b.marks, planB)
            const logA: Log = []
            const logB: Log = []
            let nextA = 0
            let nextB = 0
            let fedA = 0
            let fedB = 0
            // Whether B is past the 64 Ki point of one of its long lines, and not at its end yet.
            const bInLongLine = (): boolean => b.longLines.some((l) => fedB > l.start + LONG_LINE + 64 && fedB < l.end)
            const spyA = spyOn(swap ? nodeByteText : portableByteText, [a.bytes])
            const spyB = spyOn(swap ? portableByteText : nodeByteText, [b.bytes])
            const parserB = createSseParser(
              { onEvent: (e) => void logB.push(e), onRetry: (ms) => void logB.push(ms) },
              { byteText: spyB.byteText }
            )
            const feedB = (): void => {
              const chunk = chunksB[nextB++]!
              fedB += chunk.length
              parserB.feed(chunk)
            }
            const parserA = createSseParser(
              {
                onEvent: (e) => {
                  logA.push(e)
                  if (nested && nextB < chunksB.length) feedB()
                },
                onRetry: (ms) => void logA.push(ms)
              },
              { byteText: spyA.byteText }
            )
            const random = prng(seed)
            while (nextA < chunksA.length || nextB < chunksB.length) {
              // Mostly the parser that is behind (in its stream's bytes) goes next: their long lines overlap.
              const aBehind = fedA / a.bytes.length < fedB / b.bytes.length
              if (nextB >= chunksB.length || (nextA < chunksA.length && aBehind === random() < 0.85)) {
                const chunk = chunksA[nextA++]!
                fedA += chunk.length
                const before = spyA.counts.longDecodes
                parserA.feed(chunk)
                if (spyA.counts.longDecodes > before && bInLongLine()) overlaps++
              } else {
                feedB()
              }
            }
            parserA.end()
            parserB.end()
            expect(firstDifference(logA, a.log), "first parser").toBeUndefined()
            expect(firstDifference(logB, b.log), "second parser").toBeUndefined()
          }
        ),
        parameters
      )
      return overlaps
    }
    interleave(runs(40))
    // The case this test is for is reached: a seeded run (the runs above may miss it under a random seed).
    expect(interleave({ ...runs(40), seed: OVERLAP_SEED })).toBeGreaterThan(0)
  })

  it("forgets a long line on end() and then parses a fresh stream, while another parser is in its long line", () => {
    const spec = streamSpec({ dataLong: 7, otherLong: false, maxBlocks: 2, maxLong: 200 * 1024 })
    fc.assert(
      fc.property(spec, spec, spec, chunkPlan, fc.nat(), fc.integer(), (specA, specB, specC, plan, where, seed) => {
        const a = build(specA)
        const b = build(specB)
        const c = build(specC)
        // A is cut well inside one of its long lines (past its 64 Ki point when there is one).
        const line = a.longLines[where % Math.max(1, a.longLines.length)]
        const cut =
          line === undefined
            ? where % (a.bytes.length + 1)
            : Math.min(line.end, line.start + LONG_LINE + 100 + (where % (line.end - line.start)))
        const prefix = a.bytes.subarray(0, cut)
        const expectedA = [...feedAll([prefix]).log, ...c.log]
        const chunksA = [
          ...chunkBy(prefix, a.marks, plan),
          "end" as const,
          ...chunkBy(c.bytes, c.marks, { ...plan, seed: plan.seed + 1 })
        ]
        const chunksB = chunkBy(b.bytes, b.marks, { ...plan, seed: plan.seed + 2 })
        const logA: Log = []
        const logB: Log = []
        const parserA = createSseParser({ onEvent: (e) => void logA.push(e), onRetry: (ms) => void logA.push(ms) })
        const parserB = createSseParser(
          { onEvent: (e) => void logB.push(e), onRetry: (ms) => void logB.push(ms) },
          { byteText: nodeByteText }
        )
        const random = prng(seed)
        let nextA = 0
        let nextB = 0
        while (nextA < chunksA.length || nextB < chunksB.length) {
          if (nextB >= chunksB.length || (nextA < chunksA.length && random() < 0.5)) {
            const chunk = chunksA[nextA++]!
            if (chunk === "end") parserA.end()
            else parserA.feed(chunk)
          } else {
            parserB.feed(chunksB[nextB++]!)
          }
        }
        parserA.end()
        parserB.end()
        expect(firstDifference(logA, expectedA), "ended and reused parser").toBeUndefined()
        expect(firstDifference(logB, b.log), "other parser").toBeUndefined()
      }),
      runs(25)
    )
  })
})

describe("SSE parser: the long line's buffer", () => {
  it("grows it for a chunk more than twice its size", () => {
    const release = holdSpare()
    try {
      for (const [name, byteText] of byteTexts) {
        const head = dataLine(70 * 1024)
        const rest = utf8.decode(FILLER.subarray(0, 390 * 1024)).repeat(3) // 1.1 MiB in one chunk
        const chunks = [encode(head), encode("xyz"), encode(rest), encode("\n\ndata: after\n\n")]
        const expected = [message(head.slice(6) + "xyz" + rest), message("after")]
        expect(firstDifference(feedAll(chunks, { byteText }).log, expected), name).toBeUndefined()
      }
    } finally {
      release()
    }
  })

  it("takes a pending line as long as the spare buffer, or longer, with a character's first bytes carried", () => {
    const emoji = encode("😀")
    for (const [name, byteText] of byteTexts) {
      for (const pending of [128 * 1024 - 3, 128 * 1024, 256 * 1024 - 3, 256 * 1024 - 1, 256 * 1024, 300 * 1024]) {
        for (const carried of [1, 2, 3]) {
          // A spare buffer of exactly 256 Ki bytes (what a first long line allocates) for this parser.
          const release = holdSpare()
          const primer = createSseParser({ onEvent: () => undefined })
          primer.feed(encode(dataLine(LONG_LINE)))
          primer.feed(encode("A\n"))
          const head = dataLine(pending - 6)
          const chunks = [
            concatBytes([encode(head), emoji.subarray(0, carried)]),
            concatBytes([emoji.subarray(carried), encode("tail\n\n")])
          ]
          const outcome = feedAll(chunks, { byteText })
          release()
          expect(
            firstDifference(outcome.log, [message(head.slice(6) + "😀tail")]),
            `${name}, ${pending}`
          ).toBeUndefined()
        }
      }
    }
  })

  it("takes a pending line from one large chunk and the next chunk's bytes into it, whatever their sizes", () => {
    for (const [name, byteText] of byteTexts) {
      for (const first of [LONG_LINE - 6, LONG_LINE - 5, LONG_LINE, 200 * 1024]) {
        for (const next of [0, 1, 63, 64, 65, 4096, 70 * 1024]) {
          const head = dataLine(first)
          const more = utf8.decode(FILLER.subarray(1000, 1000 + next))
          const chunks = [encode(head), encode(more), encode("\r"), encode("\n\r\n")]
          const expected = [message(head.slice(6) + more)]
          expect(
            firstDifference(feedAll(chunks, { byteText }).log, expected),
            `${name}, ${first}+${next}`
          ).toBeUndefined()
        }
      }
    }
  })

  // `makeSseParser` once passed only `maxBufferSize` on to `createSseParser`, dropping `byteText`.
  it("makeSseParser searches long lines with the byteText it is given", () => {
    let calls = 0
    const byteText: ByteText = {
      decode: portableByteText.decode,
      lineEnd: (bytes) => {
        calls++
        return portableByteText.lineEnd(bytes)
      }
    }
    const parser = makeSseParser({ byteText })
    expect(parser.push(encode(dataLine(70 * 1024)))).toEqual([])
    expect(parser.push(encode("B".repeat(1000)))).toEqual([])
    expect(parser.push(encode("C".repeat(100) + "\n\n"))).toHaveLength(1)
    expect(calls).toBeGreaterThan(0)
  })
})
