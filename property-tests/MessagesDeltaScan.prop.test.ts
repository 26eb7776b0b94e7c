import { Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { scanBlockDelta } from "../src/core/text/messages/MessagesDeltaScan.js"
import { MessagesEvent } from "../src/core/text/messages/MessagesEvents.js"
import { scanIndex, scanString } from "../src/core/wire/JsonScan.js"
import { expectReadAgrees, readableStrings, jsonStrings as fragment, oneCharAway, schemaOracle } from "./scanCheck.js"

// The oracle is independent of the scanner: `JSON.parse` and the messages events' own Schema. The
// scanner may decline anything, but what it reads must be exactly what they give, keys in order.
const oracle = schemaOracle(Schema.decodeUnknownResult(MessagesEvent))

const kinds = [
  ["text_delta", "text"],
  ["thinking_delta", "thinking"],
  ["input_json_delta", "partial_json"]
] as const

const index = fc.oneof(
  fc.nat(),
  fc.integer({ min: 0, max: 20 }),
  fc.constantFrom(0, 9, 10, 1e15 - 1, 1e15, 2 ** 53, -1, 0.5, 1e21)
)

// The exact text upstream sends, as `JSON.stringify` writes it.
const upstream = fc
  .tuple(fc.constantFrom(...kinds), index, fragment)
  .map(([[type, key], index, text]) =>
    JSON.stringify({ type: "content_block_delta", index, delta: { type, [key]: text } })
  )

// Texts near it: one character put in, taken out or replaced somewhere, another key order, spacing.
const nearby = fc.oneof(
  // Weighted as the four kinds of change it makes.
  {
    weight: 4,
    arbitrary: oneCharAway(
      upstream,
      [" ", "\\", '"', "0", "-", ".", "e", "}", "{", ",", "\n", "\u0000", "x", "u", "1"],
      ["x", "0", "\\", '"', "9", "}"]
    )
  },
  fc
    .tuple(fc.constantFrom(...kinds), fragment)
    .map(([[type, key], text]) =>
      JSON.stringify({ index: 0, type: "content_block_delta", delta: { [key]: text, type } })
    ),
  upstream.map((text) => text.replace(/":/g, '": ')),
  // Any digits as the index: leading zeros, and more than a double holds exactly.
  fc
    .tuple(upstream, fc.oneof(fc.stringMatching(/^[0-9]{1,4}$/), fc.stringMatching(/^[1-9][0-9]{13,19}$/)))
    .map(([text, digits]) => text.replace(/"index":[^,]*,/, `"index":${digits},`)),
  upstream.map((text) => `${text} `),
  fc.constantFrom(
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","extra":1}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\u00e9\\ud83d\\ude00"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\x41"}}',
    '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":1E2,"delta":{"type":"text_delta","text":"a"}}'
  )
)

describe("reading fragment deltas without a parse tree", () => {
  it("gives exactly what JSON.parse and the events' Schema give for upstream's own text, or declines", () => {
    fc.assert(
      fc.property(fc.oneof(upstream, nearby), fc.integer({ min: 1, max: 4 }), (data, maxDepth) => {
        expectReadAgrees(scanBlockDelta(data, maxDepth), oracle(data, maxDepth))
      }),
      { numRuns: 3_000 }
    )
  })

  it("reads upstream's own text of every kind with a small plain index, escapes and all", () => {
    const text = readableStrings
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.integer({ min: 0, max: 1_000 }), text, ([type, key], index, text) => {
        const data = JSON.stringify({ type: "content_block_delta", index, delta: { type, [key]: text } })
        expect(scanBlockDelta(data, 64)).toStrictEqual({
          type: "content_block_delta",
          index,
          delta: { type, [key]: text }
        })
      }),
      { numRuns: 1_000 }
    )
  })

  it("reads a number as JSON.parse does, or declines", () => {
    const number = fc.oneof(
      fc.stringMatching(/^-?[0-9]{1,24}(\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?$/),
      fc.stringMatching(/^[1-9][0-9]{13,18}$/),
      fc.nat().map(String)
    )
    fc.assert(
      fc.property(number, fc.constantFrom(",", "}", "", "x", " "), (digits, after) => {
        const read = scanIndex(`:${digits}${after}`, 1)
        if (read === undefined) return
        expect(read).toStrictEqual({ value: JSON.parse(digits), end: 1 + digits.length })
      }),
      { numRuns: 3_000 }
    )
  })

  it("reads a string literal as JSON.parse does, or declines", () => {
    const literal = fc.oneof(
      fc.string({ unit: "binary" }).map((s) => JSON.stringify(s)),
      fc
        .string({
          unit: fc.constantFrom("\\\\", '"', "n", "u", "0", "a", "\\n", "\\u00", "\\", "\n", "\u0001"),
          maxLength: 12
        })
        .map((s) => `"${s}"`)
    )
    fc.assert(
      fc.property(literal, fc.constantFrom("", "}", '"', "x"), (text, after) => {
        const whole = `:${text}${after}`
        const read = scanString(whole, 1)
        if (read === undefined) return
        expect(read.value).toBe(JSON.parse(whole.slice(1, read.end)))
      }),
      { numRuns: 3_000 }
    )
  })
})
