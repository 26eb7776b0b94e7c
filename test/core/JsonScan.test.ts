import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { accumulateMessages } from "../../src/core/text/messages/MessagesAccumulator.js"
import { decodeMessagesEventEither, type MessagesEvent } from "../../src/core/text/messages/MessagesEvents.js"
import { scanString } from "../../src/core/wire/JsonScan.js"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

describe("JsonScan", () => {
  it("reads a string literal with and without escapes, and declines what is no literal", () => {
    expect(scanString('x"abc"y', 1)).toEqual({ value: "abc", end: 6 })
    expect(scanString('x"a\\"b\\u00e9"y', 1)).toEqual({ value: 'a"bé', end: 13 })
    expect(scanString('x"abc', 1)).toBeUndefined()
    expect(scanString("xabc", 1)).toBeUndefined()
    expect(scanString('x"a\u0001"', 1)).toBeUndefined()
  })

  it("keeps none of the wire text alive in what a stream's fold keeps (long text deltas are copies, not views)", () => {
    // Each record's data is a view of a 256 KiB read, as the SSE parser's records are of the read they came in.
    const deltas = 64
    const text = (i: number) => `a text delta long enough to be a view, number ${i}`
    const events = (): Array<MessagesEvent> => {
      const records = [
        {
          type: "message_start",
          message: {
            id: "m",
            type: "message",
            role: "assistant",
            model: "x",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 1, output_tokens: 1 }
          }
        },
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        ...Array.from({ length: deltas }, (_, i) => ({
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: text(i) }
        })),
        { type: "content_block_stop", index: 0 },
        { type: "message_stop" }
      ]
      return records.map((record) => {
        const json = JSON.stringify(record)
        const read = `${"x".repeat(256 * 1024)}${json}`
        return Result.getOrThrow(
          decodeMessagesEventEither({ event: record.type, data: read.slice(read.length - json.length) })
        )
      })
    }
    gc()
    const before = process.memoryUsage().heapUsed
    const message = Result.getOrThrow(accumulateMessages(events()))
    gc()
    const kept = process.memoryUsage().heapUsed - before
    expect(message.content[0]).toMatchObject({
      type: "text",
      text: Array.from({ length: deltas }, (_, i) => text(i)).join("")
    })
    // 64 reads of 256 KiB would be 16 MiB; the text itself is about 3 KiB.
    expect(kept).toBeLessThan(2 * 1024 * 1024)
  })
})
