import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeUtf8Pieces, type Utf8PiecesTuning } from "../src/core/wire/Utf8Pieces.js"
import { chunkAt, concatBytes } from "../test/fixtures/sseStreams.js"

/** What the standard decoder makes of all the bytes at once. */
const reference = (bytes: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)

/** The pieces of every chunk, then the flush, joined. */
const decodeChunks = (chunks: ReadonlyArray<Uint8Array>, tuning?: Utf8PiecesTuning): string => {
  const decoder = makeUtf8Pieces(tuning)
  const pieces: Array<string> = []
  const sink = (text: string): void => void pieces.push(text)
  for (const chunk of chunks) decoder.push(chunk, sink)
  decoder.flush(sink)
  return pieces.join("")
}

// Text as model output looks (mostly ASCII, a few multi-byte characters) or as dense CJK, plus
// arbitrary bytes: invalid leads, stray continuation bytes, overlong forms, surrogates, truncations.
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 80 }).map((s) => new TextEncoder().encode(s)) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 12 }).map((s) => new TextEncoder().encode(s)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("é", "日本語の文章", "😀😀", "\uFEFF", "ñ").map((s) => new TextEncoder().encode(s))
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.uint8Array({ maxLength: 8 }),
      fc
        .constantFrom(
          [0xc0, 0x80],
          [0xe0, 0x80, 0x80],
          [0xed, 0xa0, 0x80],
          [0xf4, 0x90, 0x80, 0x80],
          [0xf0, 0x9f],
          [0xe2, 0x82],
          [0x80],
          [0xff]
        )
        .map((b) => new Uint8Array(b))
    )
  }
)
const stream = fc.array(piece, { maxLength: 40 }).map(concatBytes)
/** Stretches dense in multi-byte characters (many runs close together) between long ASCII stretches. */
const denseThenSparse = fc
  .array(
    fc.oneof(
      fc
        .array(fc.tuple(fc.constantFrom("", "a", ", "), fc.constantFrom("é", "日本", "😀", "\uFEFF")), {
          minLength: 8,
          maxLength: 60
        })
        .map((pairs) => pairs.map(([a, b]) => a + b).join("")),
      fc.nat(3000).map((n) => "x".repeat(n)),
      piece.map((b) => new TextDecoder().decode(b))
    ),
    { maxLength: 8 }
  )
  .map((parts) => new TextEncoder().encode(parts.join("")))
const cuts = fc.array(fc.nat(4096), { maxLength: 30 })
// `smallText` 0 sends even small chunks through the slicing; other bounds mix both ways in one stream.
const tuning = fc.record({
  asciiSlice: fc.integer({ min: 4, max: 64 }),
  smallText: fc.constantFrom(0, 8, 100, 1024)
})

describe("Utf8Pieces properties", () => {
  it("decodes any bytes, however chunked, to what TextDecoder makes of them all at once", () => {
    fc.assert(
      fc.property(stream, cuts, (bytes, offsets) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(decodeChunks(chunks)).toBe(reference(bytes))
      })
    )
  })

  it("decodes the same when ASCII and dense text are cut into small slices", () => {
    fc.assert(
      fc.property(stream, cuts, tuning, (bytes, offsets, sizes) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(decodeChunks(chunks, sizes)).toBe(reference(bytes))
      })
    )
  })

  it("decodes text dense in multi-byte characters, then sparse again, as TextDecoder does", () => {
    fc.assert(
      fc.property(
        denseThenSparse,
        fc.array(fc.nat(8192), { maxLength: 4 }),
        fc.option(tuning),
        (bytes, offsets, sizes) => {
          const chunks = chunkAt(
            bytes,
            offsets.map((o) => o % (bytes.length + 1))
          )
          expect(decodeChunks(chunks, sizes ?? undefined)).toBe(reference(bytes))
        }
      )
    )
  })

  it("decodes the same when a long line sends the rest of a chunk to the decoder whole", () => {
    // Lines long and short, with CR, LF or CRLF ends, and runs of multi-byte or invalid bytes
    // before and after them; small slices and a small long-line bound reach the switch.
    const line = fc
      .tuple(
        fc.oneof(
          fc.nat(200).map((n) => "y".repeat(n)),
          fc.string({ unit: "binary-ascii", maxLength: 20 })
        ),
        fc.constantFrom("\n", "\r", "\r\n", "")
      )
      .map(([text, end]) => new TextEncoder().encode(text.replace(/[\r\n]/g, "") + end))
    const lines = fc
      .array(fc.oneof({ weight: 3, arbitrary: line }, { weight: 1, arbitrary: piece }), { maxLength: 12 })
      .map(concatBytes)
    const small = fc.record({
      asciiSlice: fc.integer({ min: 4, max: 32 }),
      longLine: fc.integer({ min: 8, max: 128 }),
      smallText: fc.constantFrom(0, 16)
    })
    fc.assert(
      fc.property(lines, fc.array(fc.nat(2048), { maxLength: 4 }), small, (bytes, offsets, sizes) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(decodeChunks(chunks, sizes)).toBe(reference(bytes))
      }),
      { numRuns: 300 }
    )
  })

  it("decodes chunks that start at any byte offset of their buffer", () => {
    fc.assert(
      fc.property(stream, fc.nat(7), cuts, (bytes, shift, offsets) => {
        const buffer = new Uint8Array(bytes.length + shift)
        buffer.set(bytes, shift)
        const shifted = buffer.subarray(shift)
        const chunks = chunkAt(
          shifted,
          offsets.map((o) => o % (shifted.length + 1))
        )
        // Every chunk through the slicing, which cuts at boundaries it finds in the buffer.
        expect(decodeChunks(chunks, { smallText: 0, asciiSlice: 8 })).toBe(reference(bytes))
      })
    )
  })
})
