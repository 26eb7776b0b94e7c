import { it as effectIt } from "@effect/vitest"
import { Cause, Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  createSseParser,
  defaultSseMaxBufferSize,
  makeSseParser,
  renderSseEvent,
  SseBufferOverflow,
  type SseEvent,
  type SseParserOptions
} from "../../src/core/wire/Sse.js"
import {
  chatChunksStream,
  chunkAt,
  chunkEvery,
  chunkRandomly,
  hugeEventStream,
  messagesStream
} from "../fixtures/sseStreams.js"

const encode = (text: string): Uint8Array => new TextEncoder().encode(text)

/** Feeds every chunk, then ends the stream; returns all the events in order. */
const parseAll = (chunks: ReadonlyArray<Uint8Array | string>, options?: SseParserOptions): Array<SseEvent> => {
  const parser = makeSseParser(options)
  const events: Array<SseEvent> = []
  for (const chunk of chunks) events.push(...parser.push(chunk))
  events.push(...parser.end())
  return events
}

const message = (data: string, event = "message", id = ""): SseEvent => ({ event, data, id })

describe("makeSseParser: events", () => {
  it("parses a messages-style event with its type and data", () => {
    expect(parseAll(['event: message_stop\ndata: {"type":"message_stop"}\n\n'])).toEqual([
      message('{"type":"message_stop"}', "message_stop")
    ])
  })

  it('types an event "message" when no type, or an empty type, was set', () => {
    expect(parseAll(["data: a\n\nevent:\ndata: b\n\nevent\ndata: c\n\n"])).toEqual([
      message("a"),
      message("b"),
      message("c")
    ])
  })

  it("resets the event type after each dispatch", () => {
    expect(parseAll(["event: ping\ndata: 1\n\ndata: 2\n\n"])).toEqual([message("1", "ping"), message("2")])
  })

  it("joins data lines with a line feed", () => {
    expect(parseAll(["data: one\ndata: two\ndata:\ndata: four\n\n"])).toEqual([message("one\ntwo\n\nfour")])
  })

  it("dispatches an event whose only data line is empty, with empty data", () => {
    expect(parseAll(["data:\n\n", "data\n\n"])).toEqual([message(""), message("")])
  })

  it("does not dispatch an event without data, and its type does not leak into the next", () => {
    expect(parseAll(["event: lonely\n\n\n\ndata: x\n\n"])).toEqual([message("x")])
  })

  it("strips exactly one space after the colon, and none when there is none", () => {
    expect(parseAll(["data:no space\n\ndata:  two spaces\n\ndata:\ttab\n\n"])).toEqual([
      message("no space"),
      message(" two spaces"),
      message("\ttab")
    ])
  })

  it("reads a field without a colon as the field name with an empty value", () => {
    expect(parseAll(["data\ndata\n\n"])).toEqual([message("\n")])
  })

  it("keeps colons after the first one in the value", () => {
    expect(parseAll(["data: a: b:c\n\n"])).toEqual([message("a: b:c")])
  })

  it("ignores comment lines, empty comments included", () => {
    expect(parseAll([": keep-alive\n:\ndata: x\n: between\n\n"])).toEqual([message("x")])
  })

  it("ignores unknown fields and fields whose name only starts like a known one", () => {
    expect(parseAll(["foo: bar\ndatum: no\nData: no\ndata : no\ndata: yes\n\n"])).toEqual([message("yes")])
  })

  it("discards a final event that was not ended by a blank line", () => {
    const parser = makeSseParser()
    expect(parser.push("data: complete\n\ndata: cut short\n")).toEqual([message("complete")])
    expect(parser.end()).toEqual([])
  })

  it("starts afresh after end(), as a new stream", () => {
    const parser = makeSseParser()
    parser.push("id: 7\ndata: half")
    parser.end()
    expect(parser.push("\uFEFFdata: new\n\n")).toEqual([message("new")])
  })
})

describe("makeSseParser: line ends", () => {
  it("accepts LF, CRLF and CR line ends, mixed in one stream", () => {
    expect(parseAll(["data: lf\n\ndata: crlf\r\n\r\ndata: cr\r\rdata: a\r\ndata: b\rdata: c\n\n"])).toEqual([
      message("lf"),
      message("crlf"),
      message("cr"),
      message("a\nb\nc")
    ])
  })

  it("reads a CR at the end of one chunk and a LF at the start of the next as one line end", () => {
    // Read as two line ends, the LF would be a blank line and dispatch "a" on its own.
    expect(parseAll(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual([message("a\nb")])
  })

  it("reads a CR at the end of a chunk as a line end when the next chunk does not start with LF", () => {
    expect(parseAll(["data: a\r", "data: b\r", "\r"])).toEqual([message("a\nb")])
  })

  it("dispatches as soon as a blank line ends with CR, without waiting for a possible LF", () => {
    const parser = makeSseParser()
    expect(parser.push("data: x\r\r")).toEqual([message("x")])
    expect(parser.push("\ndata: y\n\n")).toEqual([message("y")])
  })

  it("remembers a pending CR across empty chunks", () => {
    expect(parseAll([encode("data: a\r"), new Uint8Array(0), "", encode("\ndata: b\n\n")])).toEqual([message("a\nb")])
  })

  it("splits CRLF across byte chunks the same way", () => {
    expect(parseAll([encode("data: a\r"), encode("\n\r"), encode("\n")])).toEqual([message("a")])
  })

  it("finds a lone CR after many LF lines in the same chunk", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `data: ${i}\n`).join("")
    expect(parseAll([`${lines}data: last\r\r`])).toEqual([
      message(
        Array.from({ length: 200 }, (_, i) => `${i}`)
          .concat("last")
          .join("\n")
      )
    ])
  })

  it("completes a line whose field name was cut between chunks", () => {
    expect(parseAll(["da", "ta", ": x", "\n", "\n"])).toEqual([message("x")])
  })
})

describe("makeSseParser: BOM", () => {
  it("strips one byte order mark at the start of the stream", () => {
    expect(parseAll(["\uFEFFdata: x\n\n"])).toEqual([message("x")])
    expect(parseAll([encode("\uFEFFdata: x\n\n")])).toEqual([message("x")])
  })

  it("strips a BOM whose bytes arrive in separate chunks", () => {
    const chunks = [[0xef], [0xbb], [], [0xbf]].map((bytes) => new Uint8Array(bytes))
    expect(parseAll([...chunks, encode("data: x\n\n")])).toEqual([message("x")])
  })

  it("strips only the first BOM: a second one is part of the first field name", () => {
    expect(parseAll(["\uFEFF\uFEFFdata: x\n\ndata: y\n\n"])).toEqual([message("y")])
  })

  it("keeps a U+FEFF that is not at the start of the stream", () => {
    expect(parseAll(["data: x\n\n", "\uFEFFdata: y\n\ndata: \uFEFFz\n\n"])).toEqual([message("x"), message("\uFEFFz")])
  })

  it("looks for the BOM in the first non-empty chunk", () => {
    expect(parseAll(["", new Uint8Array(0), "\uFEFFdata: x\n\n"])).toEqual([message("x")])
  })
})

describe("makeSseParser: id", () => {
  it('gives "" as the id before any id field', () => {
    expect(parseAll(["data: x\n\n"])).toEqual([message("x", "message", "")])
  })

  it("keeps the last event ID in force for later events until it is changed or emptied", () => {
    const stream = "id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\nid: 3\ndata: e\n\nid:\ndata: f\n\n"
    expect(parseAll([stream])).toEqual([
      message("a", "message", "1"),
      message("b", "message", "1"),
      message("c", "message", "2"),
      message("d", "message", ""),
      message("e", "message", "3"),
      message("f", "message", "")
    ])
  })

  it("applies an id field given after the data lines to the event being dispatched", () => {
    expect(parseAll(["data: x\nid: late\n\n"])).toEqual([message("x", "message", "late")])
  })

  it("sets the id even from an event that is not dispatched", () => {
    expect(parseAll(["id: 9\n\ndata: x\n\n"])).toEqual([message("x", "message", "9")])
  })

  it("ignores an id that contains NUL", () => {
    expect(parseAll(["id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n"])).toEqual([
      message("a", "message", "1"),
      message("b", "message", "1")
    ])
  })
})

describe("makeSseParser: retry", () => {
  it("calls onRetry for every valid retry field in stream order, with or without an event", () => {
    const retries: Array<number> = []
    const events = parseAll(["retry: 1000\n", "\nretry: 2500\ndata: x\n\nretry: 0\n", "retry: 007\n\n"], {
      onRetry: (ms) => retries.push(ms)
    })
    expect(retries).toEqual([1000, 2500, 0, 7])
    expect(events).toEqual([message("x")])
  })

  it("calls onRetry during the push that completes the retry line", () => {
    const retries: Array<number> = []
    const parser = makeSseParser({ onRetry: (ms) => retries.push(ms) })
    parser.push("retry: 12")
    expect(retries).toEqual([])
    parser.push("34\n")
    expect(retries).toEqual([1234])
  })

  it("ignores retry values that are not only ASCII digits", () => {
    const retries: Array<number> = []
    parseAll(["retry: 1.5\nretry: -1\nretry:\nretry\nretry:  10\nretry: 10ms\nretry: \u0661\nretry: 5\n"], {
      onRetry: (ms) => retries.push(ms)
    })
    expect(retries).toEqual([5])
  })
})

describe("makeSseParser: UTF-8", () => {
  it("decodes a multi-byte character split across chunks at every byte", () => {
    const text = "data: é€😀日本\n\n"
    const bytes = encode(text)
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parseAll(chunkAt(bytes, [cut]))).toEqual([message("é€😀日本")])
    }
    expect(parseAll(chunkEvery(bytes, 1))).toEqual([message("é€😀日本")])
  })

  it("decodes invalid UTF-8 to U+FFFD as one decoding of the whole stream would, however it is cut", () => {
    const bytes = new Uint8Array([
      ...encode("data: "),
      0xe2,
      0x82,
      0x41,
      0xf0,
      0x9f,
      0xff,
      0x80,
      0xc3,
      ...encode("\n\n")
    ])
    const expected = new TextDecoder().decode(bytes.subarray(6, bytes.length - 2))
    expect(expected).toContain("\uFFFD")
    for (let cut = 1; cut < bytes.length; cut++) expect(parseAll(chunkAt(bytes, [cut]))).toEqual([message(expected)])
    expect(parseAll(chunkEvery(bytes, 1))).toEqual([message(expected)])
  })

  it("decodes bytes cut short by a string chunk as U+FFFD", () => {
    expect(parseAll([encode("data: a"), new Uint8Array([0xe2, 0x82]), "b\n\n"])).toEqual([message("a\uFFFDb")])
  })

  it("accepts strings and bytes in the same stream", () => {
    expect(parseAll(["data: a", encode("é\n"), "\n"])).toEqual([message("aé")])
  })
})

describe("makeSseParser: bounded buffer", () => {
  const overflowOf = (run: () => unknown): unknown => {
    try {
      run()
    } catch (error) {
      return error
    }
    return undefined
  }

  it("refuses a maxBufferSize that is not a number, 0 or more, naming the option", () => {
    for (const maxBufferSize of [-1, Number.NaN, "10" as unknown as number]) {
      expect(() => createSseParser({ onEvent: () => {} }, { maxBufferSize })).toThrow(
        /maxBufferSize must be a number of UTF-16 code units, 0 or more/
      )
      expect(() => makeSseParser({ maxBufferSize })).toThrow(RangeError)
    }
    const events: Array<string> = []
    const unbounded = createSseParser({ onEvent: (event) => events.push(event.data) }, { maxBufferSize: Infinity })
    unbounded.feed("data: x\n\n")
    expect(events).toEqual(["x"])
  })

  it("fails with SseBufferOverflow when an unterminated line grows past maxBufferSize", () => {
    const parser = makeSseParser({ maxBufferSize: 10 })
    expect(parser.push("data: 1234")).toEqual([])
    const error = overflowOf(() => parser.push("5"))
    expect(error).toBeInstanceOf(SseBufferOverflow)
    expect(error).toMatchObject({ _tag: "SseBufferOverflow", maxBufferSize: 10 })
  })

  it("gives the events a chunk completed before its overflow as the error's completed, so none is lost", () => {
    const parser = makeSseParser({ maxBufferSize: 10 })
    const error = overflowOf(() => parser.push("data: a\n\ndata: b\n\ndata: 12345678901")) as SseBufferOverflow
    expect(error).toMatchObject({ _tag: "SseBufferOverflow", maxBufferSize: 10 })
    expect(error.completed?.map((e) => e.data)).toEqual(["a", "b"])
    // pushEffect fails with the same.
    const effect = makeSseParser({ maxBufferSize: 10 }).pushEffect("data: a\n\ndata: 12345678901")
    const failure = Effect.runSync(Effect.flip(effect))
    expect(failure.completed?.map((e) => e.data)).toEqual(["a"])
    // An overflow with nothing completed before it carries none.
    const alone = overflowOf(() => makeSseParser({ maxBufferSize: 10 }).push("data: 12345678901")) as SseBufferOverflow
    expect(alone.completed).toBe(undefined)
  })

  it("fails when a complete line in one chunk is longer than maxBufferSize", () => {
    const parser = makeSseParser({ maxBufferSize: 10 })
    expect(overflowOf(() => parser.push("data: 12345\n\n"))).toBeInstanceOf(SseBufferOverflow)
  })

  it("fails when an event's data lines together grow past maxBufferSize", () => {
    const parser = makeSseParser({ maxBufferSize: 10 })
    expect(parser.push("data: 1234\ndata: 1234\n")).toEqual([])
    expect(overflowOf(() => parser.push("data: 12\n"))).toBeInstanceOf(SseBufferOverflow)
  })

  it("accepts a line and data of exactly maxBufferSize", () => {
    expect(parseAll(["data: 1234\n\ndata:12345\ndata:1234\n\n"], { maxBufferSize: 10 })).toEqual([
      message("1234"),
      message("12345\n1234")
    ])
  })

  it("overflows in small byte chunks when a character split between them is completed past the bound", () => {
    // " \0😀\0": 5 UTF-16 units. Cut inside the emoji, its first bytes wait in the decoder while
    // the rest is gathered; the bound must count them too.
    const bytes = [32, 0, 240, 159, 152, 128, 0]
    const whole = makeSseParser({ maxBufferSize: 4 })
    expect(overflowOf(() => whole.push(new Uint8Array(bytes)))).toBeInstanceOf(SseBufferOverflow)
    const cut = makeSseParser({ maxBufferSize: 4 })
    expect(cut.push(new Uint8Array(bytes.slice(0, 5)))).toEqual([])
    expect(overflowOf(() => cut.push(new Uint8Array(bytes.slice(5))))).toBeInstanceOf(SseBufferOverflow)
  })

  it("keeps failing after an overflow until end() resets it", () => {
    const parser = makeSseParser({ maxBufferSize: 8 })
    const first = overflowOf(() => parser.push("data: 12345"))
    expect(overflowOf(() => parser.push("\n\n"))).toBe(first)
    expect(parser.end()).toEqual([])
    expect(parser.push("data:1\n\n")).toEqual([message("1")])
  })

  effectIt.effect("reports the overflow in the error channel of pushEffect", () =>
    Effect.gen(function* () {
      const parser = makeSseParser({ maxBufferSize: 8 })
      expect(yield* parser.pushEffect("data:1\n\n")).toEqual([message("1")])
      const error = yield* Effect.flip(parser.pushEffect("data: 12345"))
      expect(error._tag).toBe("SseBufferOverflow")
    })
  )

  effectIt.effect("turns an exception thrown by onRetry into a defect, not a typed failure", () =>
    Effect.gen(function* () {
      const parser = makeSseParser({
        onRetry: () => {
          throw new Error("boom")
        }
      })
      const exit = yield* Effect.exit(parser.pushEffect("retry: 1\n"))
      expect(exit._tag === "Failure" && Cause.hasDies(exit.cause) && !Cause.hasFails(exit.cause)).toBe(true)
    })
  )

  it("allows by default a pending line the size of a 64 MiB image's base64 text", () => {
    expect(defaultSseMaxBufferSize).toBeGreaterThanOrEqual(Math.ceil((64 * 1024 * 1024) / 3) * 4 + 1024)
  })

  it("holds a 1 MB event fed in 1-byte chunks", () => {
    const data = "x".repeat(1024 * 1024)
    const events = parseAll(chunkEvery(encode(`data: ${data}\n\n`), 1))
    expect(events).toHaveLength(1)
    expect(events[0]!.data === data).toBe(true)
  })
})

describe("makeSseParser: realistic streams", () => {
  const fixtures = [
    messagesStream({ seed: 11, targetBytes: 64 * 1024 }),
    messagesStream({ seed: 12, targetBytes: 64 * 1024, lineEnd: "\r\n" }),
    messagesStream({ seed: 13, targetBytes: 64 * 1024, lineEnd: "\r" }),
    chatChunksStream({ seed: 14, targetBytes: 64 * 1024 }),
    chatChunksStream({ seed: 15, targetBytes: 64 * 1024, lineEnd: "\r\n" }),
    hugeEventStream({ seed: 16, imageBytes: 3 * 1024 * 1024 })
  ]
  for (const fixture of fixtures) {
    it(`parses the ${fixture.name} stream whole, in network-sized chunks, in tiny chunks and as text`, () => {
      expect(fixture.events.length).toBeGreaterThan(2)
      expect(parseAll([fixture.bytes])).toEqual(fixture.events)
      expect(parseAll(chunkRandomly(fixture.bytes, 1, 16 * 1024, 1))).toEqual(fixture.events)
      expect(parseAll(chunkRandomly(fixture.bytes, 1, 7, 2))).toEqual(fixture.events)
      expect(parseAll([fixture.text])).toEqual(fixture.events)
    })
  }

  it("parses a long line with multi-byte characters in byte chunks", () => {
    let image = ""
    while (image.length < 700 * 1024) image += "QUJD+/é日😀" + String(image.length)
    const text = `event: image\ndata: ${image}\n\ndata: after\n\n`
    const expected = [
      { event: "image", data: image, id: "" },
      { event: "message", data: "after", id: "" }
    ]
    expect(parseAll(chunkRandomly(encode(text), 1, 16 * 1024, 3))).toEqual(expected)
    expect(parseAll(chunkRandomly(encode(text), 1, 3000, 4))).toEqual(expected)
    expect(parseAll([encode(text)])).toEqual(expected)
  })

  it("keeps a lone surrogate in a long line fed as text, among byte chunks", () => {
    const half = "y".repeat(300 * 1024)
    const pieces = Array.from({ length: 40 }, (_, i) => half.slice(i * 7680, (i + 1) * 7680))
    const chunks = ["data: ", ...pieces, "\uD800", ...pieces.map(encode), "\n\n"]
    expect(parseAll(chunks)).toEqual([{ event: "message", data: `${half}\uD800${half}`, id: "" }])
  })

  it("parses a messages-style stream fed one byte at a time", () => {
    const fixture = messagesStream({ seed: 17, targetBytes: 16 * 1024 })
    expect(parseAll(chunkEvery(fixture.bytes, 1))).toEqual(fixture.events)
  })
})

describe("createSseParser (callbacks)", () => {
  it("hands each event to onEvent during the feed that completes it", () => {
    const seen: Array<string> = []
    const parser = createSseParser({ onEvent: (event) => void seen.push(`${event.event}:${event.data}`) })
    parser.feed("event: a\ndata: 1\n")
    expect(seen).toEqual([])
    parser.feed("\ndata: 2\n\ndata: 3")
    expect(seen).toEqual(["a:1", "message:2"])
    parser.end()
    expect(seen).toEqual(["a:1", "message:2"])
  })

  it("hands over an event during the 1-byte feed that ends it, and no sooner", () => {
    const seen: Array<string> = []
    const parser = createSseParser({
      onEvent: (event) => void seen.push(event.data),
      onRetry: (ms) => void seen.push(`retry ${ms}`)
    })
    const bytes = encode("data: é\n\nretry: 7\ndata: 😀\r\n\r\n")
    const after: Array<number> = []
    for (let i = 0; i < bytes.length; i++) {
      parser.feed(bytes.subarray(i, i + 1))
      after.push(seen.length)
    }
    expect(seen).toEqual(["é", "retry 7", "😀"])
    // "data: é\n\n" is 10 bytes: the event comes with the 10th; the retry with its line feed; the
    // last event with the CR of its blank line (byte 34 of 35).
    expect(after.indexOf(1)).toBe(9)
    expect(after.indexOf(2)).toBe(18)
    expect(after.indexOf(3)).toBe(bytes.length - 2)
  })

  it("calls onRetry in stream order between the events", () => {
    const seen: Array<string> = []
    const parser = createSseParser({
      onEvent: (event) => void seen.push(event.data),
      onRetry: (ms) => void seen.push(`retry ${ms}`)
    })
    parser.feed(encode("data: x\n\nretry: 250\nretry: 2x\ndata: y\n\n"))
    expect(seen).toEqual(["x", "retry 250", "y"])
  })

  it("has handed over the events before an overflow, then throws the same overflow until end()", () => {
    const seen: Array<string> = []
    const parser = createSseParser({ onEvent: (event) => void seen.push(event.data) }, { maxBufferSize: 8 })
    expect(() => parser.feed("data: 1\n\ndata: 123456789\n\n")).toThrow(SseBufferOverflow)
    expect(seen).toEqual(["1"])
    let again: unknown
    try {
      parser.feed("data: 2\n\n")
    } catch (error) {
      again = error
    }
    expect(again).toBeInstanceOf(SseBufferOverflow)
    expect(seen).toEqual(["1"])
    parser.end()
    parser.feed("data: 3\n\n")
    expect(seen).toEqual(["1", "3"])
  })

  it("lets a handler's exception through, and stays failed with it until end()", () => {
    const boom = new Error("boom")
    const seen: Array<string> = []
    const parser = createSseParser({
      onEvent: (event) => {
        if (event.data === "bad") throw boom
        seen.push(event.data)
      }
    })
    expect(() => parser.feed("data: bad\n\ndata: lost\n\n")).toThrow(boom)
    expect(() => parser.feed("data: also lost\n\n")).toThrow(boom)
    parser.end()
    parser.feed("data: ok\n\n")
    expect(seen).toEqual(["ok"])
  })

  it("forgets the stream on end(): the pending line, the event being built and the last event ID", () => {
    const seen: Array<SseEvent> = []
    const parser = createSseParser({ onEvent: (event) => void seen.push(event) })
    parser.feed("id: 7\ndata: a\n\nevent: t\ndata: half")
    parser.end()
    parser.feed("data: b\n\n")
    expect(seen).toEqual([message("a", "message", "7"), message("b")])
  })
})

describe("renderSseEvent", () => {
  it("renders the fields a parser reads back", () => {
    expect(renderSseEvent({ event: "ping", data: "{}" })).toBe("event: ping\ndata: {}\n\n")
    expect(renderSseEvent({ data: "a\nb", id: "7", retry: 3000 })).toBe("id: 7\nretry: 3000\ndata: a\ndata: b\n\n")
  })

  it("round-trips events through the parser, data line breaks and leading spaces included", () => {
    const events = [
      message("plain"),
      message(" leading space", "delta", "1"),
      message("two\nlines", "x", "1"),
      message(""),
      message("\n\nblank lines\n", "message", "")
    ]
    expect(parseAll([events.map(renderSseEvent).join("")])).toEqual(events)
  })

  it("turns CR and CRLF in data into LF, as every parser would", () => {
    expect(parseAll([renderSseEvent({ data: "a\r\nb\rc" })])).toEqual([message("a\nb\nc")])
  })

  it("removes line breaks from event and id so they cannot inject fields", () => {
    const text = renderSseEvent({ event: "a\ndata: injected", id: "1\r\nevent: x", data: "d" })
    expect(parseAll([text])).toEqual([message("d", "adata: injected", "1event: x")])
  })

  it("omits a retry that is not a non-negative integer", () => {
    expect(renderSseEvent({ data: "x", retry: -1 })).toBe("data: x\n\n")
    expect(renderSseEvent({ data: "x", retry: 1.5 })).toBe("data: x\n\n")
  })
})
