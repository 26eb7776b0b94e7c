/**
 * `ByteText`, how the SSE parser finds a long line's end in bytes: the portable search (bytes
 * decoded as windows-1252, 64 KiB at a time, searched with `indexOf`) and Node's (`Buffer#indexOf`)
 * must both give the index of the first CR or LF byte in the view, exactly, whatever the other
 * bytes, the view's offset in its buffer and the array's size; and `decode` must be `TextDecoder`'s.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { platformByteText } from "../../src/adapters/sse/NodeByteText.js"
import { type ByteText, portableByteText } from "../../src/core/wire/ByteText.js"
import { prng } from "../fixtures/sseStreams.js"

const LF = 10
const CR = 13
const KiB = 1024
/** The portable search's window (`SEARCH_WINDOW` in ByteText.ts). */
const WINDOW = 64 * KiB

if (platformByteText === undefined) throw new Error("NodeByteText.ts must give Node a platformByteText")
const implementations: ReadonlyArray<readonly [string, ByteText]> = [
  ["portableByteText", portableByteText],
  ["Node's platformByteText", platformByteText]
]

/** The reference: the first CR or LF, byte by byte. */
const lineEndLoop = (bytes: Uint8Array): number => {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === LF || bytes[i] === CR) return i
  return -1
}

/** `length` bytes of `fill` (default "A"), with the given bytes set at the given indexes. */
const bytesWith = (length: number, set: ReadonlyArray<readonly [number, number]> = [], fill = 0x41): Uint8Array => {
  const bytes = new Uint8Array(length).fill(fill)
  for (const [at, byte] of set) bytes[at] = byte
  return bytes
}

/** Every byte but CR and LF, over and over (0x80–0xFF among them: windows-1252 maps them elsewhere). */
const noLineEnds = (length: number, seed = 1): Uint8Array => {
  const random = prng(seed)
  const bytes = new Uint8Array(length)
  for (let i = 0; i < length; i++) {
    let byte = Math.floor(random() * 256)
    if (byte === LF || byte === CR) byte = 0x85 // NEL in Latin-1: a line end to some, not to SSE
    bytes[i] = byte
  }
  return bytes
}

for (const [name, { lineEnd }] of implementations) {
  describe(`${name}.lineEnd`, () => {
    it("finds no line end where there is none", () => {
      for (const length of [0, 1, 63, 64, 65, 1000, WINDOW - 1, WINDOW, WINDOW + 1, 300 * KiB]) {
        expect(lineEnd(bytesWith(length)), `${length} bytes`).toBe(-1)
        expect(lineEnd(noLineEnds(length)), `${length} arbitrary bytes`).toBe(-1)
      }
    })

    it("gives the first line end, LF or CR, and a CRLF's CR", () => {
      const ascii = (text: string): Uint8Array => new TextEncoder().encode(text)
      expect(lineEnd(ascii("ab\ncd\re"))).toBe(2)
      expect(lineEnd(ascii("ab\rcd\ne"))).toBe(2)
      expect(lineEnd(ascii("ab\r\ncd"))).toBe(2)
      expect(lineEnd(ascii("ab\n\rcd"))).toBe(2)
      expect(lineEnd(ascii("\n"))).toBe(0)
      expect(lineEnd(ascii("\r"))).toBe(0)
      expect(lineEnd(ascii("\r\n"))).toBe(0)
      // The same past the byte loop's 64 bytes: LF before CR, CR before LF, CR right before LF.
      const long = (text: string): Uint8Array => ascii("x".repeat(100) + text + "y".repeat(100))
      expect(lineEnd(long("ab\ncd\r"))).toBe(102)
      expect(lineEnd(long("ab\rcd\n"))).toBe(102)
      expect(lineEnd(long("ab\r\n"))).toBe(102)
      expect(lineEnd(long("\n\r"))).toBe(100)
    })

    it("finds a line end at the first and at the last byte, in 1-, 64- and 65-byte chunks and larger", () => {
      for (const length of [1, 2, 63, 64, 65, 66, 4096, WINDOW - 1, WINDOW, WINDOW + 1, WINDOW + 2, 300 * KiB]) {
        for (const byte of [LF, CR]) {
          expect(lineEnd(bytesWith(length, [[0, byte]])), `${length} bytes, first`).toBe(0)
          expect(lineEnd(bytesWith(length, [[length - 1, byte]])), `${length} bytes, last`).toBe(length - 1)
          // The first one wins, whatever comes after it.
          const both = bytesWith(length, [
            [length - 1, byte],
            [Math.floor(length / 2), byte === LF ? CR : LF]
          ])
          expect(lineEnd(both), `${length} bytes, middle`).toBe(length === 1 ? 0 : Math.floor(length / 2))
        }
      }
    })

    it("finds a line end at every place around the 64 KiB windows, and far into a 300 KiB array", () => {
      const length = 300 * KiB
      const places = [
        WINDOW - 2,
        WINDOW - 1,
        WINDOW,
        WINDOW + 1,
        WINDOW + 2,
        2 * WINDOW - 1,
        2 * WINDOW,
        2 * WINDOW + 1,
        4 * WINDOW,
        250_000,
        length - 2
      ]
      for (const at of places) {
        for (const byte of [LF, CR]) {
          const other = byte === LF ? CR : LF
          expect(lineEnd(bytesWith(length, [[at, byte]])), `${byte} at ${at}`).toBe(at)
          // The other line end one byte later, in the next window, or just before in the same one.
          expect(
            lineEnd(
              bytesWith(length, [
                [at, byte],
                [at + 1, other]
              ])
            ),
            `${byte} at ${at}, then`
          ).toBe(at)
          expect(
            lineEnd(
              bytesWith(length, [
                [at, byte],
                [at + WINDOW - 1, other]
              ])
            ),
            `${byte} at ${at}, far`
          ).toBe(at)
          expect(
            lineEnd(
              bytesWith(length, [
                [at - 1, other],
                [at, byte]
              ])
            ),
            `${byte} after`
          ).toBe(at - 1)
        }
      }
    })

    it("gives the index within a view that starts past its buffer's start", () => {
      for (const offset of [1, 3, 64, 65, 1001, WINDOW - 1, WINDOW, 70_001]) {
        for (const viewLength of [1, 40, 64, 65, 5000, WINDOW + 10, 200 * KiB]) {
          for (const byte of [LF, CR]) {
            // Line ends before the view and right after its end: neither is in it.
            const buffer = bytesWith(offset + viewLength + 10, [
              [0, LF],
              [offset - 1, CR],
              [offset + viewLength, byte]
            ])
            const view = buffer.subarray(offset, offset + viewLength)
            expect(view.byteOffset).toBe(offset)
            expect(lineEnd(view), `offset ${offset}, ${viewLength} bytes, none`).toBe(-1)
            const at = Math.floor(viewLength * 0.7)
            buffer[offset + at] = byte
            expect(lineEnd(view), `offset ${offset}, ${viewLength} bytes, ${byte} at ${at}`).toBe(at)
          }
        }
      }
    })

    it("is exact among bytes 0x80–0x9F and 0xFF (other characters in windows-1252) and a BOM's bytes", () => {
      const high = Array.from({ length: 0x20 }, (_, i) => 0x80 + i).concat([0xff, 0xfe, 0xef, 0xbb, 0xbf, 0x85])
      for (const length of [40, 64, 65, 3000, WINDOW + 3000]) {
        for (const at of [0, 1, 7, 39, length - 1]) {
          const bytes = new Uint8Array(length)
          for (let i = 0; i < length; i++) bytes[i] = high[i % high.length]!
          expect(lineEnd(bytes), `${length} bytes, none`).toBe(-1)
          bytes[at] = at % 2 === 0 ? LF : CR
          expect(lineEnd(bytes), `${length} bytes, at ${at}`).toBe(at)
        }
      }
      for (const start of [
        [0xef, 0xbb, 0xbf],
        [0xff, 0xfe],
        [0xfe, 0xff]
      ]) {
        const bytes = bytesWith(WINDOW + 100, [...start.map((b, i) => [i, b] as const), [start.length, LF]])
        expect(lineEnd(bytes), `after ${start.join(" ")}`).toBe(start.length)
        expect(lineEnd(bytes.subarray(0, 20)), `after ${start.join(" ")}, short`).toBe(start.length)
      }
    })

    it("agrees with a byte loop on arbitrary arrays and views of them", () => {
      fc.assert(
        fc.property(
          fc.constantFrom(1, 63, 64, 65, 200, 5000, WINDOW - 1, WINDOW + 1, 2 * WINDOW + 7, 300 * KiB),
          fc.integer(),
          fc.array(fc.tuple(fc.nat(), fc.constantFrom(LF, CR)), { maxLength: 4 }),
          fc.nat(),
          fc.nat(),
          (length, seed, ends, from, size) => {
            const bytes = noLineEnds(length, seed)
            for (const [at, byte] of ends) bytes[at % length] = byte
            expect(lineEnd(bytes)).toBe(lineEndLoop(bytes))
            const start = from % (length + 1)
            const view = bytes.subarray(start, start + (size % (length - start + 1)))
            expect(lineEnd(view)).toBe(lineEndLoop(view))
          }
        ),
        { numRuns: 100 }
      )
    })
  })
}

describe("ByteText.decode", () => {
  const reference = new TextDecoder("utf-8", { ignoreBOM: true })

  it("decodes valid UTF-8 as TextDecoder does, a BOM kept", () => {
    const texts = ["", "plain", "é€😀日本", "\uFEFFbom", "a\uFEFF", "x".repeat(100 * KiB) + "😀"]
    for (const [name, { decode }] of implementations) {
      for (const text of texts) {
        const bytes = new TextEncoder().encode(text)
        expect(decode(bytes) === text, `${name}: ${text.slice(0, 10)}`).toBe(true)
        expect(decode(bytes)).toBe(reference.decode(bytes))
      }
    }
  })

  it("makes U+FFFD of invalid UTF-8 as TextDecoder does, in views too", () => {
    const invalid = [[0x80], [0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc0, 0x80], [0xed, 0xa0, 0x80]]
    for (const [name, { decode }] of implementations) {
      for (const bytes of invalid) {
        const array = new Uint8Array([0x41, ...bytes, 0x42])
        expect(decode(array), `${name}: ${bytes.join(" ")}`).toBe(reference.decode(array))
        expect(decode(array.subarray(1, 1 + bytes.length))).toBe(reference.decode(new Uint8Array(bytes)))
      }
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), (bytes, from) => {
          expect(decode(bytes)).toBe(reference.decode(bytes))
          const view = bytes.subarray(from % (bytes.length + 1))
          expect(decode(view)).toBe(reference.decode(view.slice()))
        }),
        { numRuns: 100 }
      )
    }
  })
})
