// Refusing untrusted JSON costs no more for a big input than for a small one of the same shape
// (bench/hostile-json.bench.ts times it): the error is the same, its message bounded, and the shared
// decode path's shortcuts (a first pass on the value as given, a parsed tree typed in place) give
// exactly what decoding a sanitised copy gives. No timing is asserted here.
import { Effect, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DecodeError } from "../../src/core/errors/GatewayError.js"
import { decodeMessagesEvent } from "../../src/core/index.js"
import { sanitize } from "../../src/core/validation/Rules.js"
import {
  defaultMaxJsonDepth,
  NOT_PLAIN,
  parsedTreeHasUnsafeKey,
  plainCheck,
  plainProjection,
  plainView,
  TOO_DEEP,
  walkParsedTree
} from "../../src/core/wire/JsonSafety.js"
import { decodeWith, JsonValue, parseJsonText, parseJsonTree, typedPayload } from "../../src/core/wire/WireJson.js"
import { decoderCases, type DecoderCase, fill, HOLE, runDecoder } from "../support/coreDecoders.js"

const BIG = 100_000
const SMALL = 3
const smallObjects = (n: number): Array<unknown> =>
  Array.from({ length: n }, (_, i) => ({ a: i, b: "xyzw", c: [true, null] }))
const manyKeys = (n: number): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))

// The texts that do not depend on the decoder, made once.
const once = (make: (n: number) => string): ((c: DecoderCase, n: number) => string) => {
  const made = new Map<number, string>()
  return (_, n) => made.get(n) ?? made.set(n, make(n)).get(n)!
}

const shapes: ReadonlyArray<{ readonly name: string; readonly text: (c: DecoderCase, n: number) => string }> = [
  { name: "an array of objects where the answer belongs", text: once((n) => JSON.stringify(smallObjects(n))) },
  { name: "an object of unknown keys", text: once((n) => JSON.stringify(manyKeys(n))) },
  {
    name: "an object of unknown keys, one of them __proto__",
    text: once((n) => JSON.stringify(manyKeys(n)).replace("{", '{"__proto__":{"a":1},'))
  },
  {
    name: "its answer with a typed field holding an array of objects and a __proto__ key in a passed-through field",
    text: (c, n) =>
      JSON.stringify(fill(c.template, HOLE, smallObjects(n))).replace(
        JSON.stringify(HOLE),
        '{"__proto__":{"a":1},"constructor":2}'
      )
  },
  {
    name: "its answer with a typed field holding an array of objects",
    text: (c, n) => JSON.stringify(fill(c.template, "x", smallObjects(n))).replace(JSON.stringify(HOLE), '"x"')
  }
]

// What the decoder is given, as the transport gives it: a body parsed once (by `parseJsonTree`, as
// `HttpTransport` does, or by `JSON.parse`, as a caller may), an SSE record, a frame's text.
const inputsOf = (c: DecoderCase, text: string): ReadonlyArray<unknown> =>
  c.kind === "sse"
    ? [{ event: c.event ?? "message", data: text }]
    : c.kind === "frame"
      ? [text, JSON.parse(text)]
      : [JSON.parse(text), parseJsonTree(text, defaultMaxJsonDepth)]

const outcome = (c: DecoderCase, input: unknown) => {
  const out = runDecoder(c, input)
  if ("defect" in out) throw new Error(`${c.name} died`)
  if (out.ok) return { accepted: true as const }
  expect(out.error).toBeInstanceOf(DecodeError)
  const { family, message, what } = out.error as DecodeError
  return { accepted: false as const, family, what, message }
}

// `what: ` and at most three issues of at most 160 characters each, with a count of the rest.
const maxMessageChars = 700

describe.each(decoderCases)("the $name decoder refusing a big input", (c) => {
  it.each(shapes)("gives for $name of 100,000 the answer it gives for 3, with a bounded message", (shape) => {
    const big = shape.text(c, BIG)
    const small = shape.text(c, SMALL)
    const inputs = inputsOf(c, big)
    const smallInputs = inputsOf(c, small)
    for (let i = 0; i < inputs.length; i++) {
      const got = outcome(c, inputs[i])
      expect(got).toEqual(outcome(c, smallInputs[i]))
      if (!got.accepted) expect(got.message.length).toBeLessThanOrEqual(maxMessageChars)
    }
  })
})

describe("the shared decode path on big values", () => {
  const Answer = Schema.Struct({
    id: Schema.String,
    items: Schema.Array(Schema.Struct({ a: Schema.Number, meta: JsonValue })),
    rest: Schema.Unknown
  })
  const decode = decodeWith(Answer, "openai", "answer")
  const copyDecode = Schema.decodeUnknownResult(Answer)
  const bigValue = () => ({
    id: "r1",
    items: Array.from({ length: 2_000 }, (_, i) => ({ a: i, meta: { n: i, deep: [{ x: "y" }] } })),
    rest: { list: smallObjects(500) }
  })

  it("decodes an accepted value to exactly what its sanitised copy decodes to, and shares nothing with the input", () => {
    const input = bigValue()
    const out = decode(input)
    expect(Result.isSuccess(out)).toBe(true)
    const value = Result.getOrThrow(out)
    expect(value).toEqual(Result.getOrThrow(copyDecode(sanitize(bigValue()))))
    // A copy: changing the input afterwards changes nothing decoded.
    ;(input.rest.list[0] as { a: number }).a = -1
    ;(input.items[0]!.meta as { n: number }).n = -1
    expect(value).toEqual(Result.getOrThrow(copyDecode(sanitize(bigValue()))))
  })

  it("still drops unsafe keys of a big value and decodes the rest", () => {
    const input = bigValue() as Record<string, unknown> & { items: Array<{ meta: Record<string, unknown> }> }
    Object.defineProperty(input.items[1_500]!.meta, "__proto__", { value: { polluted: true }, enumerable: true })
    const value = Result.getOrThrow(decode(input)) as { items: ReadonlyArray<{ meta: object }> }
    expect(Object.keys(value.items[1_500]!.meta)).toEqual(["n", "deep"])
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
  })

  it("refuses a big value with the error of its sanitised copy", () => {
    const input = bigValue() as { items: Array<{ a: unknown }> }
    input.items[1_999]!.a = "x"
    const out = decode(input)
    const viaCopy = copyDecode(sanitize(input))
    expect(Result.isFailure(out) && Result.isFailure(viaCopy)).toBe(true)
    expect(Result.isFailure(out) && out.failure.message).toBe("answer: items[1999].a: Expected number")
  })

  it("refuses a too-deep value however wide, and a cycle, as too deep", () => {
    const wide = smallObjects(BIG) as Array<unknown>
    let deep: unknown = 1
    for (let i = 0; i < defaultMaxJsonDepth + 1; i++) deep = [deep]
    wide.push(deep)
    const tooDeep = decode({ id: "r1", items: [], rest: wide })
    expect(Result.isFailure(tooDeep) && tooDeep.failure.message).toBe(
      `answer: nesting deeper than ${defaultMaxJsonDepth} levels (the JSON depth bound)`
    )
    const cyclic: Record<string, unknown> = { id: "r1", items: [] }
    cyclic["rest"] = cyclic
    const cycle = decode(cyclic)
    expect(Result.isFailure(cycle) && cycle.failure.message).toMatch(/nesting deeper than/)
  })
})

describe("plainView", () => {
  it("gives plain data itself, TOO_DEEP past the bound or on a cycle, NOT_PLAIN where the general checks decide", () => {
    expect(plainView(5)).toBe(5)
    const clean = { a: [1, { b: null }] }
    expect(plainView(clean)).toBe(clean)
    expect(plainView([[[]]], 2)).toBe(TOO_DEEP)
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    expect(plainView(cyclic)).toBe(TOO_DEEP)
    expect(plainView({ a: new Date(0) })).toBe(NOT_PLAIN)
    expect(plainView({ a: [1, 2, 3] }, 64, { left: 3 })).toBe(NOT_PLAIN)
    expect(plainView({ a: 1 }, 2_000)).toBe(NOT_PLAIN)
  })

  it("copies only what leads to an unsafe key, and reads what is under one for the depth bound", () => {
    const kept = { k: [1] }
    const input = JSON.parse(
      '{"a":1,"b":[{"x":1},{"__proto__":{"p":1},"y":2,"constructor":3}],"c":{"prototype":1,"z":[0]}}'
    )
    input.d = kept
    const view = plainView(input) as Record<string, unknown>
    expect(view).toEqual(sanitize(input))
    expect(JSON.stringify(view)).toBe(JSON.stringify(sanitize(input)))
    expect(view).not.toBe(input)
    expect(view["d"]).toBe(kept)
    expect((view["b"] as Array<unknown>)[0]).toBe(input.b[0])
    expect(findUnsafe(view)).toBe(false)
    expect(plainView(JSON.parse(`{"a":{"__proto__":${"[".repeat(70)}${"]".repeat(70)}}}`))).toBe(TOO_DEEP)
  })

  it("gives up on shared parts walked once per path (2^40 paths) within its budget", () => {
    let shared: unknown = { leaf: 1 }
    for (let i = 0; i < 40; i++) shared = { l: shared, r: shared }
    expect(plainView(shared, 100, { left: 10_000 })).toBe(NOT_PLAIN)
  })
})

describe("the walks that let a decoder skip the sanitising copy", () => {
  const nested = (levels: number): string => `${"[".repeat(levels)}${"]".repeat(levels)}`

  it("walkParsedTree measures a parsed tree past its unsafe keys and tells whether it met one", () => {
    expect(walkParsedTree(JSON.parse('{"a":[{"b":1}]}'))).toBe(3)
    expect(parsedTreeHasUnsafeKey()).toBe(false)
    expect(walkParsedTree(JSON.parse(`{"x":1,"__proto__":{"c":${nested(3)}}}`))).toBe(5)
    expect(parsedTreeHasUnsafeKey()).toBe(true)
    expect(walkParsedTree(JSON.parse(`{"constructor":${nested(70)}}`))).toBe(-1)
    expect(walkParsedTree(5)).toBe(0)
    expect(parsedTreeHasUnsafeKey()).toBe(false)
  })

  it("plainCheck checks what plainView checks, copying nothing", () => {
    expect(plainCheck(JSON.parse('{"__proto__":{"a":1},"b":[1]}'))).toBeUndefined()
    expect(plainCheck(JSON.parse(`{"__proto__":${nested(70)}}`))).toBe(TOO_DEEP)
    expect(plainCheck({ a: [new Date(0)] })).toBe(NOT_PLAIN)
    expect(plainCheck({ a: [1, 2, 3] }, 64, { left: 3 })).toBe(NOT_PLAIN)
    expect(plainCheck({ a: 1 }, 2_000)).toBe(NOT_PLAIN)
  })

  it("plainProjection views the named members only, after checking the others", () => {
    const input = JSON.parse('{"a":{"x":1,"prototype":2},"b":[3],"c":"left out","__proto__":{"p":1}}')
    const view = plainProjection(input, new Set(["a", "b", "d", "__proto__"])) as Record<string, unknown>
    expect(view).toEqual({ a: { x: 1 }, b: [3] })
    expect(Object.keys(view)).toEqual(["a", "b"])
    expect(view["b"]).toBe(input.b)
    expect(plainProjection(JSON.parse(`{"a":1,"z":${nested(70)}}`), new Set(["a"]))).toBe(TOO_DEEP)
    // The caller that knows the whole value is within the bound has the others left unread.
    expect(plainProjection(JSON.parse(`{"a":1,"z":${nested(70)}}`), new Set(["a"]), 64, { left: 100 }, true)).toEqual({
      a: 1
    })
    expect(plainProjection([1], new Set(["a"]))).toBe(NOT_PLAIN)
    expect(plainProjection({ a: new Date(0) }, new Set(["a"]))).toBe(NOT_PLAIN)
  })

  it("refuses a value too deep under a key the Schema never reads, however it was parsed", () => {
    const text = `{"id":"r1","items":[],"rest":1,"__proto__":${nested(70)},"other":{"list":${nested(70)}}}`
    // A Schema that reads no unsafe key, and one that reads some keys of the top object only.
    const blind = decodeWith(
      Schema.Struct({ id: Schema.String, items: Schema.Array(Schema.Number), rest: Schema.Unknown }),
      "openai",
      "answer"
    )
    const projected = decodeWith(
      Schema.Struct({ id: Schema.String, doc: Schema.optionalKey(Schema.Record(Schema.String, Schema.Number)) }),
      "openai",
      "answer"
    )
    const decoders: ReadonlyArray<(input: unknown) => Result.Result<unknown, DecodeError>> = [blind, projected]
    for (const decode of decoders)
      for (const input of [JSON.parse(text), parseJsonTree(text, 200)]) {
        const out = decode(input)
        expect(Result.isFailure(out) && out.failure.message).toBe(
          `answer: nesting deeper than ${defaultMaxJsonDepth} levels (the JSON depth bound)`
        )
      }
  })
})

const findUnsafe = (v: unknown): boolean =>
  v !== null &&
  typeof v === "object" &&
  Object.keys(v).some(
    (k) =>
      k === "__proto__" || k === "constructor" || k === "prototype" || findUnsafe((v as Record<string, unknown>)[k])
  )

describe("a parsed tree typed in place (typedPayload)", () => {
  it("is decoded with its type by its decoder, then is as parsed again", () => {
    const parsed = Result.getOrThrow(parseJsonText('{"x":1}', "messages", "event"))
    const typed = typedPayload(parsed, "ping")
    expect(typed).toEqual({ type: "ping", payload: { x: 1, type: "ping" } })
    const Ping = Schema.Struct({ type: Schema.Literal("ping"), x: Schema.Number })
    expect(Result.getOrThrow(decodeWith(Ping, "messages", "ping")(typed.payload))).toEqual({ type: "ping", x: 1 })
    expect(parsed).toEqual({ x: 1 })
  })

  it("is given back as parsed to any other decoder that runs first", () => {
    const parsed = Result.getOrThrow(parseJsonText('{"x":1}', "messages", "event"))
    typedPayload(parsed, "mystery")
    const Wrapper = Schema.Struct({ type: Schema.Literal("unknown"), data: JsonValue })
    expect(Result.getOrThrow(decodeWith(Wrapper, "messages", "event")({ type: "unknown", data: parsed }))).toEqual({
      type: "unknown",
      data: { x: 1 }
    })
    expect(parsed).toEqual({ x: 1 })
  })

  it("types a parsed tree with unsafe keys in place too, decoding it as its sanitised copy", () => {
    const parsed = Result.getOrThrow(parseJsonText('{"__proto__":{"p":1},"x":1}', "messages", "event"))
    const typed = typedPayload(parsed, "ping")
    const Ping = Schema.Struct({ type: Schema.Literal("ping"), x: Schema.Number })
    expect(Result.getOrThrow(decodeWith(Ping, "messages", "ping")(typed.payload))).toEqual({ type: "ping", x: 1 })
    expect(Object.keys(parsed as object)).toEqual(["__proto__", "x"])
    const again = Result.getOrThrow(parseJsonText('{"__proto__":{"p":1},"x":1}', "messages", "event"))
    const out = Result.getOrThrow(decodeWith(JsonValue, "messages", "event")(typedPayload(again, "mystery").payload))
    expect(out).toEqual({ x: 1, type: "mystery" })
    expect(Object.keys(again as object)).toEqual(["__proto__", "x"])
  })

  it("keeps a Schema that passes the tree through from keeping the tree itself", () => {
    const parsed = Result.getOrThrow(parseJsonText('{"x":1}', "messages", "event"))
    const typed = typedPayload(parsed, "ping")
    const out = Result.getOrThrow(decodeWith(Schema.Unknown, "messages", "event")(typed.payload))
    expect(out).toEqual({ x: 1, type: "ping" })
    expect(out).not.toBe(parsed)
  })

  it("leaves an unknown messages event's payload as it came, and types a known one from the SSE event name", () => {
    expect(Effect.runSync(decodeMessagesEvent({ event: "agent_status", data: '{"x":1}' }))).toEqual({
      type: "unknown",
      event: "agent_status",
      data: { x: 1 }
    })
    expect(Effect.runSync(decodeMessagesEvent({ event: "ping", data: "{}" }))).toEqual({ type: "ping" })
  })
})
