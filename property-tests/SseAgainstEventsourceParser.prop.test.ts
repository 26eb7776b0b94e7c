/**
 * umg's SSE parser (`makeSseParser`) against an independent one, eventsource-parser's `createParser`:
 * random event streams (event, multi-line data, id and retry fields, comments, a BOM, CR / LF /
 * CRLF line ends, fields without a colon or without the space after it, empty data, unknown fields)
 * cut into random chunks, fed to both, must give the same events and the same retry values.
 *
 * Where the two differ by design, the comparison normalises eventsource-parser's answer to the
 * WHATWG reading umg documents (`SseEvent`); each normalisation says why:
 * - `event`: eventsource-parser leaves it `undefined` when the stream set no type (or an empty one);
 *   WHATWG (and umg) say `"message"`.
 * - `id`: eventsource-parser reports the `id` field of the event's own block (`undefined` when it had
 *   none); WHATWG (and umg) report the last event ID in force, which persists across events until
 *   an `id` field changes it (`""` before any). The running value is rebuilt from eventsource-parser's
 *   events. That works only if every block that sets an id also dispatches an event, since
 *   eventsource-parser forgets an id given in a block without data; so the generator only writes
 *   `id` lines into blocks that hold a `data` line.
 * - BOM: eventsource-parser takes text, and in use gets it from a `TextDecoder` stream, which strips
 *   the BOM; umg takes the bytes and strips the BOM itself. Here the text is decoded keeping the BOM
 *   and the one leading U+FEFF is removed by hand, since Node's streaming `TextDecoder` (24.21) strips
 *   a second BOM too when the first one is cut across chunks (`EF` | `BB BF EF BB BF …`).
 * - End of stream: eventsource-parser holds a lone CR at the end of a chunk (it could be a CRLF's
 *   first half) until a later chunk brings another CR or LF; when none comes, the line end is never
 *   seen, and an event a lone CR completed is lost (a stream ending in CR, or in CR and an unterminated
 *   line). It has no "end of stream" call that settles it (`reset({ consume: true })` parses the
 *   pending text, CR included, as one line). umg's `end()` knows the stream is over. So unless the
 *   stream ends in LF, eventsource-parser is given one more LF at the end: after a lone CR it makes
 *   the same single line end (CRLF), and it ends an unterminated last line, which WHATWG discards;
 *   that is harmless as long as that line is not a `retry` (the one field that acts before a
 *   dispatch), so the generator's unterminated tail is only ever a `data` line.
 * - String chunks: umg's `push(string)` takes text as decoded without the decoder's BOM step and
 *   strips a leading U+FEFF itself, as it does for bytes; so its strings are decoded keeping the BOM.
 */
import fc from "fast-check"
import { createParser } from "eventsource-parser"
import { describe, expect, it } from "vitest"
import { makeSseParser, type SseEvent } from "../src/core/wire/Sse.js"
import { chunkAt } from "../test/fixtures/sseStreams.js"

/** What one run of a parser gave: its events and its retry values, in order. */
interface Outcome {
  readonly events: ReadonlyArray<SseEvent>
  readonly retries: ReadonlyArray<number>
}

/** umg fed the bytes, chunk by chunk, then ended. */
const runUmg = (chunks: ReadonlyArray<Uint8Array | string>): Outcome => {
  const retries: Array<number> = []
  const parser = makeSseParser({ onRetry: (ms) => retries.push(ms) })
  const events: Array<SseEvent> = []
  for (const chunk of chunks) events.push(...parser.push(chunk))
  events.push(...parser.end())
  return { events, retries }
}

/** eventsource-parser fed the same chunks through a streaming `TextDecoder` (as its own `EventSourceParserStream` does), normalised to WHATWG. */
const runEventsourceParser = (chunks: ReadonlyArray<Uint8Array>): Outcome => {
  const events: Array<SseEvent> = []
  const retries: Array<number> = []
  // The last event ID in force, rebuilt from each event's own id (see the header).
  let lastId = ""
  const parser = createParser({
    onEvent: (event) => {
      if (event.id !== undefined) lastId = event.id
      events.push({ event: event.event ?? "message", data: event.data, id: lastId })
    },
    onRetry: (ms) => retries.push(ms)
  })
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  let started = false
  let last = ""
  const feed = (decoded: string) => {
    let text = decoded
    if (!started && text !== "") {
      started = true
      // The decoder's BOM step, done by hand (see the header).
      if (text.startsWith("\uFEFF")) text = text.slice(1)
    }
    if (text === "") return
    last = text
    parser.feed(text)
  }
  for (const chunk of chunks) feed(decoder.decode(chunk, { stream: true }))
  feed(decoder.decode())
  // Settles a pending lone CR at the end of the stream (see the header).
  if (!last.endsWith("\n")) parser.feed("\n")
  return { events, retries }
}

const lineEnd = fc.constantFrom("\n", "\r", "\r\n")

/** Field values: ASCII, a few multi-byte characters (cut anywhere by the chunking), colons and spaces, NUL. */
const value = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom("a", "b", "z", "0", "7", "9", "{", "}", '"', "-", ".") },
    { weight: 2, arbitrary: fc.constantFrom(":", " ", "  ") },
    { weight: 1, arbitrary: fc.constantFrom("é", "€", "日", "😀", "\0", "\uFEFF", "data:") }
  ),
  maxLength: 12
})

/** How a field is written: `name`, `name:value` or `name: value`. */
const field = (name: fc.Arbitrary<string>, val: fc.Arbitrary<string> = value) =>
  fc.tuple(name, fc.constantFrom("", ":", ": "), val).map(([n, sep, v]) => (sep === "" ? n : `${n}${sep}${v}`))

/** A `retry` value: digits (leading zeros, long ones) or not quite digits. */
const retryValue = fc.oneof(
  fc.nat(99_999).map(String),
  fc.stringMatching(/^[0-9]{1,25}$/),
  fc.constantFrom("", "-1", "1.5", "1e3", " 5", "5 ", "+5", "0x10", "١٢", "x")
)

/** A line that is neither `data` nor `id`: an event type, a retry, a comment, an unknown or miscased field. */
const otherLine = fc.oneof(
  field(fc.constant("event"), fc.oneof(value, fc.constantFrom("", "update", "message", "ping"))),
  field(fc.constant("retry"), retryValue),
  value.map((v) => `:${v}`),
  field(fc.constantFrom("Data", "ID", "events", "foo", "data ", " data", "\uFEFFdata"))
)

const dataLine = field(fc.constant("data"))
const idLine = field(fc.constant("id"), fc.oneof(value, fc.constantFrom("", "1", "42")))

/**
 * One block: its lines in random order, each with its own line end, then (usually) a blank line.
 * A block holding an `id` line always holds a `data` line too (see the header).
 */
const block = fc
  .tuple(
    fc.array(dataLine, { maxLength: 3 }),
    fc.array(otherLine, { maxLength: 3 }),
    fc.option(idLine, { nil: undefined }),
    fc.boolean(),
    fc.array(lineEnd, { minLength: 8, maxLength: 8 })
  )
  .chain(([data, others, id, blank, ends]) => {
    const lines = [...data, ...others, ...(id !== undefined ? [id, ...(data.length === 0 ? ["data"] : [])] : [])]
    return fc.shuffledSubarray(lines, { minLength: lines.length, maxLength: lines.length }).map((shuffled) => {
      const all = blank ? [...shuffled, ""] : shuffled
      return all.map((line, i) => line + ends[i % ends.length]!).join("")
    })
  })

const encoder = new TextEncoder()

/** A whole stream as bytes: an optional BOM, blocks, and maybe an unterminated tail. */
const stream = fc
  .tuple(fc.boolean(), fc.array(block, { maxLength: 8 }), fc.option(dataLine, { nil: undefined }))
  .map(([bom, blocks, tail]) => {
    const body = encoder.encode(blocks.join("") + (tail ?? ""))
    return bom ? Uint8Array.of(0xef, 0xbb, 0xbf, ...body) : body
  })

/** A chunking: the whole stream, 1-byte chunks, or cuts at random offsets. */
const chunking = (bytes: Uint8Array): fc.Arbitrary<Array<Uint8Array>> =>
  fc.oneof(
    fc.constant<Array<Uint8Array>>([bytes]),
    fc.constant(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))),
    fc.array(fc.nat(Math.max(bytes.length, 1)), { maxLength: 24 }).map((cuts) => chunkAt(bytes, cuts))
  )

const streamAndChunks = stream.chain((bytes) => chunking(bytes).map((chunks) => ({ bytes, chunks })))

describe("makeSseParser against eventsource-parser", () => {
  it("dispatches the same events (type, data, last event ID) and retry values, however the stream is chunked", () => {
    fc.assert(
      fc.property(streamAndChunks, ({ chunks }) => {
        expect(runUmg(chunks)).toEqual(runEventsourceParser(chunks))
      })
    )
  })

  it("gives the same from string chunks (each byte chunk decoded as it comes) as eventsource-parser", () => {
    fc.assert(
      fc.property(streamAndChunks, ({ chunks }) => {
        const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
        const texts = [...chunks.map((chunk) => decoder.decode(chunk, { stream: true })), decoder.decode()]
        expect(runUmg(texts)).toEqual(runEventsourceParser(chunks))
      })
    )
  })

  it("agrees on hand-picked streams where the line-end and field rules are easiest to get wrong", () => {
    const cases = [
      "data: a\r\ndata: b\r\n\r\n",
      "data:a\rdata:b\r\r",
      "data: x\r",
      "data: x\r\r",
      "data\n\n",
      "data:\n\n",
      "event\ndata: x\n\n",
      "event:\ndata: x\n\n",
      "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
      "id: a\0b\ndata: x\n\n",
      "retry: 1000\nretry:5\nretry\nretry: 1.5\nretry: 007\n\n",
      ": comment\n:\ndata: y\n\n",
      "\uFEFFdata: bom\n\n",
      "data: z"
    ]
    for (const text of cases) {
      const bytes = encoder.encode(text)
      for (const chunks of [[bytes], Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))]) {
        expect(runUmg(chunks), JSON.stringify(text)).toEqual(runEventsourceParser(chunks))
      }
    }
  })
})
