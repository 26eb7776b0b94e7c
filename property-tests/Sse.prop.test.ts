import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  createSseParser,
  makeSseParser,
  renderSseEvent,
  SseBufferOverflow,
  type SseEvent
} from "../src/core/wire/Sse.js"
import { chunkAt } from "../test/fixtures/sseStreams.js"

/** What one run of a parser gave: its events and its retry calls, in order. */
interface Outcome {
  readonly events: ReadonlyArray<SseEvent>
  readonly retries: ReadonlyArray<number>
}

const run = (chunks: ReadonlyArray<Uint8Array | string>, maxBufferSize?: number): Outcome => {
  const retries: Array<number> = []
  const parser = makeSseParser({
    onRetry: (ms) => retries.push(ms),
    ...(maxBufferSize !== undefined ? { maxBufferSize } : {})
  })
  const events: Array<SseEvent> = []
  for (const chunk of chunks) events.push(...parser.push(chunk))
  events.push(...parser.end())
  return { events, retries }
}

/** The same run through the callback face, recording events and retries in one log, in order. */
const runCallbacks = (
  chunks: ReadonlyArray<Uint8Array | string>,
  maxBufferSize?: number
): { readonly outcome: Outcome; readonly log: ReadonlyArray<SseEvent | number>; readonly overflow: boolean } => {
  const events: Array<SseEvent> = []
  const retries: Array<number> = []
  const log: Array<SseEvent | number> = []
  const parser = createSseParser(
    {
      onEvent: (event) => {
        events.push(event)
        log.push(event)
      },
      onRetry: (ms) => {
        retries.push(ms)
        log.push(ms)
      }
    },
    maxBufferSize !== undefined ? { maxBufferSize } : {}
  )
  let overflow = false
  try {
    for (const chunk of chunks) parser.feed(chunk)
  } catch (error) {
    if (!(error instanceof SseBufferOverflow)) throw error
    overflow = true
  }
  parser.end()
  return { outcome: { events, retries }, log, overflow }
}

/**
 * A deliberately naive reading of the WHATWG event-stream rules, for comparison: decode everything
 * at once, split into lines with a regular expression, interpret each line.
 */
const reference = (bytes: Uint8Array): Outcome => {
  let text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)
  if (text.startsWith("\uFEFF")) text = text.slice(1)
  const lines = text.split(/\r\n|\r|\n/)
  lines.pop() // the unterminated rest (or "" after a final line end) is discarded
  const events: Array<SseEvent> = []
  const retries: Array<number> = []
  let data: Array<string> | undefined
  let type = ""
  let id = ""
  for (const line of lines) {
    if (line === "") {
      if (data !== undefined) events.push({ event: type === "" ? "message" : type, data: data.join("\n"), id })
      data = undefined
      type = ""
      continue
    }
    if (line.startsWith(":")) continue
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") (data ??= []).push(value)
    else if (field === "event") type = value
    else if (field === "id" && !value.includes("\0")) id = value
    else if (field === "retry" && /^[0-9]+$/.test(value)) retries.push(Number.parseInt(value, 10))
  }
  return { events, retries }
}

const lineEnd = fc.constantFrom("\n", "\r\n", "\r")
// Values mix ASCII with 2-, 3- and 4-byte characters, NUL and field-like text.
const value = fc
  .string({
    unit: fc.oneof(
      fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 1 }),
      fc.constantFrom("é", "€", "😀", "日", "\0", ":", " ", "\uFEFF", "data:")
    ),
    maxLength: 12
  })
  .map((s) => s.replace(/[\r\n]/g, ""))
const line = fc.oneof(
  value.map((v) => `data: ${v}`),
  value.map((v) => `data:${v}`),
  fc.constant("data"),
  value.map((v) => `event: ${v}`),
  value.map((v) => `id: ${v}`),
  fc.constantFrom("id", "id:", "retry: 1000", "retry:5", "retry: x1", "retry:", ": comment", ":", "\uFEFFdata: bom"),
  fc.nat(99_999).map((n) => `retry: ${n}`),
  value.map((v) => `${v}: ${v}`),
  fc.constant("")
)
/** A stream made of SSE-like lines with arbitrary line ends, a possible BOM and an unterminated tail. */
const stream = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(line, lineEnd), { maxLength: 30 }), value)
  .map(([bom, lines, tail]) =>
    new TextEncoder().encode((bom ? "\uFEFF" : "") + lines.map(([l, e]) => l + e).join("") + tail)
  )
/** Cut points into a stream of `length` bytes (any, including inside CRLF and inside characters). */
const cuts = fc.array(fc.nat(4096), { maxLength: 40 })

describe("makeSseParser properties", () => {
  it("gives the events and retries of the naive reference reading, however the bytes are chunked", () => {
    fc.assert(
      fc.property(stream, cuts, (bytes, offsets) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(run(chunks)).toEqual(reference(bytes))
      })
    )
  })

  it("hands the callbacks, during each feed, the events that push returns for the same chunk", () => {
    fc.assert(
      fc.property(stream, cuts, (bytes, offsets) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        const pushRetries: Array<number> = []
        const pushed = makeSseParser({ onRetry: (ms) => void pushRetries.push(ms) })
        let fed: Array<SseEvent> = []
        const feedRetries: Array<number> = []
        const callbacks = createSseParser({
          onEvent: (event) => void fed.push(event),
          onRetry: (ms) => void feedRetries.push(ms)
        })
        for (const chunk of chunks) {
          fed = []
          callbacks.feed(chunk)
          expect(fed).toEqual(pushed.push(chunk))
          expect(feedRetries).toEqual(pushRetries)
        }
      })
    )
  })

  it("gives the same callbacks, in the same order, for any chunking of a stream as for one chunk", () => {
    fc.assert(
      fc.property(stream, cuts, (bytes, offsets) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(runCallbacks(chunks).log).toEqual(runCallbacks([bytes]).log)
      })
    )
  })

  it("gives the callbacks the same events and overflow, whatever the chunking, with a small buffer", () => {
    fc.assert(
      fc.property(stream, cuts, fc.integer({ min: 0, max: 40 }), (bytes, offsets, max) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        const whole = runCallbacks([bytes], max)
        const cut = runCallbacks(chunks, max)
        expect(cut.overflow).toBe(whole.overflow)
        expect(cut.log).toEqual(whole.log)
      })
    )
  })

  it("gives the same outcome in 1-byte chunks as in one chunk", () => {
    fc.assert(
      fc.property(stream, (bytes) => {
        const oneByte = Array.from(bytes, (b) => new Uint8Array([b]))
        expect(run(oneByte)).toEqual(run([bytes]))
      })
    )
  })

  it("gives the same outcome from string chunks cut anywhere (even between surrogates) as from the bytes", () => {
    fc.assert(
      fc.property(stream, cuts, (bytes, offsets) => {
        const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes)
        const pieces: Array<string> = []
        let from = 0
        for (const cut of [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b)) {
          pieces.push(text.slice(from, cut))
          from = cut
        }
        pieces.push(text.slice(from))
        expect(run(pieces)).toEqual(run([bytes]))
      })
    )
  })

  it("reads arbitrary bytes the same way however they are chunked, and never throws", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), cuts, (bytes, offsets) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(run(chunks)).toEqual(reference(bytes))
      })
    )
  })

  it("throws nothing but SseBufferOverflow on arbitrary input with a small buffer", () => {
    fc.assert(
      fc.property(
        fc.oneof(stream, fc.uint8Array({ maxLength: 300 })),
        cuts,
        fc.integer({ min: 0, max: 40 }),
        (bytes, offsets, max) => {
          const chunks = chunkAt(
            bytes,
            offsets.map((o) => o % (bytes.length + 1))
          )
          try {
            run(chunks, max)
          } catch (error) {
            expect(error).toBeInstanceOf(SseBufferOverflow)
          }
        }
      )
    )
  })

  it("overflows, or not, whatever the chunking", () => {
    const threw = (chunks: ReadonlyArray<Uint8Array>, max: number): boolean => {
      try {
        run(chunks, max)
        return false
      } catch (error) {
        if (error instanceof SseBufferOverflow) return true
        throw error
      }
    }
    fc.assert(
      fc.property(stream, cuts, fc.integer({ min: 0, max: 40 }), (bytes, offsets, max) => {
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(threw(chunks, max)).toBe(threw([bytes], max))
      })
    )
  })

  it("gives the callbacks the same events and overflow in 1-byte chunks as in one, with a bound near the text's size", () => {
    // One byte at a time, every multi-byte character is split: when the gathered bytes are decoded
    // mid-character, its first bytes wait in the decoder while later ones are gathered, and the
    // bound must count both. A bound just under or at the size of the text finds that edge.
    const nearBound = fc
      .oneof(
        stream,
        value.map((v) => new TextEncoder().encode(v))
      )
      .chain((bytes) => {
        const units = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes).length
        return fc.tuple(fc.constant(bytes), fc.integer({ min: Math.max(0, units - 4), max: units }))
      })
    fc.assert(
      fc.property(nearBound, ([bytes, max]) => {
        const cut = runCallbacks(
          Array.from(bytes, (b) => new Uint8Array([b])),
          max
        )
        const whole = runCallbacks([bytes], max)
        expect(cut.overflow).toBe(whole.overflow)
        expect(cut.log).toEqual(whole.log)
      }),
      { numRuns: 2000 } // the edge needs a split character at the bound: rare, and each run is cheap
    )
  })

  it("parses rendered events back to the same events (render → parse is the identity)", () => {
    const oneLine = fc.string({ unit: "binary", maxLength: 16 }).map((s) => s.replace(/[\r\n]/g, ""))
    const event = fc.record({
      event: oneLine.filter((s) => s !== ""),
      // Data may hold line feeds; CR is not representable (every parser reads it as LF).
      data: fc.string({ unit: "binary", maxLength: 40 }).map((s) => s.replace(/\r/g, "\n")),
      id: oneLine.map((s) => s.replace(/\0/g, ""))
    })
    fc.assert(
      fc.property(fc.array(event, { maxLength: 8 }), cuts, (events, offsets) => {
        const bytes = new TextEncoder().encode(events.map(renderSseEvent).join(""))
        const chunks = chunkAt(
          bytes,
          offsets.map((o) => o % (bytes.length + 1))
        )
        expect(run(chunks).events).toEqual(events)
      })
    )
  })
})
