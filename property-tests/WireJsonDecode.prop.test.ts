// The shared decode path (`WireJson.decodeWith`) agrees with the Schema it is given, for every Schema
// the core exports: on generated JSON inputs — values of the Schema's encoded side, the same with one
// field changed, dropped or added, and arbitrary JSON — it accepts what the Schema accepts (once unsafe
// keys are dropped), with the same value, and refuses (with a `DecodeError`) what the Schema refuses. A run where nothing decodes
// would prove nothing, so the successes are counted too. (Ported from the property test of the
// FastDecode path, deleted with it in the move to Effect 4: decoding is the Schema's own now.)
import fc from "fast-check"
import { Arbitrary, Effect, Result, Schema, SchemaParser } from "effect"
import { describe, expect, it } from "vitest"
import { DecodeError } from "../src/core/errors/GatewayError.js"
import * as Gateway from "../src/core/gateway/index.js"
import * as Media from "../src/core/media/index.js"
import * as Platform from "../src/core/platform/index.js"
import * as Realtime from "../src/core/realtime/index.js"
import * as Text from "../src/core/text/index.js"
import * as Video from "../src/core/video/index.js"
import { sanitize } from "../src/core/validation/Rules.js"
import { decodeWith } from "../src/core/wire/WireJson.js"

const modules = { Media, Platform, Realtime, Text, Video, Gateway }

type AnySchema = Schema.ConstraintDecoder<unknown>

// Every exported Schema of those modules that decodes without services, by name.
const schemas: Array<[string, AnySchema]> = []
for (const [moduleName, mod] of Object.entries(modules))
  for (const [name, value] of Object.entries(mod as Record<string, unknown>))
    // The core's Schemas all decode without services (its sources import `effect` only); the guard
    // says only that the value is a Schema, so its decoding services are asserted here.
    if (Schema.isSchema(value)) schemas.push([`${moduleName}.${name}`, value as unknown as AnySchema])

/** JSON data only: what the decoders are given (parsed text, or a sanitised copy). */
const asJson = (u: unknown): unknown => {
  try {
    // `undefined`, a function or a symbol stringify to `undefined`, which the lib's type leaves out.
    const text = JSON.stringify(u) as string | undefined
    return text === undefined ? null : JSON.parse(text)
  } catch {
    return null
  }
}

/** Values of the Schema's encoded side when Effect can generate them, else any JSON. */
const encodedValues = (schema: AnySchema): fc.Arbitrary<unknown> => {
  try {
    const samples = Effect.runSync(
      Arbitrary.sampleEffect(Arbitrary.schema(Schema.toEncoded(schema)), { count: 40, seed: 1 })
    )
    return samples.length > 0 ? fc.constantFrom(...samples.map(asJson)) : fc.jsonValue()
  } catch {
    return fc.jsonValue()
  }
}

/** One field of an object changed, dropped or added (at the top or one level down). */
const mutated = (base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      base,
      fc.nat(),
      fc.constantFrom("change", "drop", "add"),
      fc.jsonValue({ maxDepth: 2 }),
      fc.string({ maxLength: 6 })
    )
    .map(([value, pick, how, junk, key]) => {
      const copy = asJson(value)
      const target = typeof copy === "object" && copy !== null ? (copy as Record<string, unknown>) : undefined
      if (target === undefined) return copy
      const keys = Object.keys(target)
      const nestedKey = keys.find(
        (k) => typeof target[k] === "object" && target[k] !== null && !Array.isArray(target[k])
      )
      const where = nestedKey !== undefined && pick % 2 === 1 ? (target[nestedKey] as Record<string, unknown>) : target
      const whereKeys = Object.keys(where)
      const k = whereKeys.length > 0 ? whereKeys[pick % whereKeys.length]! : key
      if (how === "drop") delete where[k]
      else if (how === "change") where[k] = junk
      else where[key] = junk
      return copy
    })

/** Checks `decodeWith` against the Schema on generated inputs; returns how often both accepted. */
const checkAgreement = (name: string, schema: AnySchema, numRuns = 60): { accepted: number; total: number } => {
  let accepted = 0
  let total = 0
  const decode = decodeWith(schema, "openai", name)
  const own = SchemaParser.decodeUnknownResult(schema)
  const values = encodedValues(schema)
  fc.assert(
    fc.property(fc.oneof(values, values, mutated(values), fc.jsonValue({ maxDepth: 3 })), (raw) => {
      const input = asJson(raw)
      const before = JSON.stringify(input)
      const ours = decode(input)
      // What decodeWith decodes: the value copied without `__proto__`/`constructor`/`prototype` keys.
      const full = own(sanitize(asJson(input)))
      total++
      // The decoder never changes what it is given.
      expect(JSON.stringify(input), name).toBe(before)
      if (Result.isFailure(full)) {
        expect(Result.isFailure(ours), `${name}: decodeWith accepted what the Schema refuses: ${before}`).toBe(true)
        if (Result.isFailure(ours)) expect(ours.failure).toBeInstanceOf(DecodeError)
        return
      }
      accepted++
      expect(Result.isSuccess(ours), `${name}: decodeWith refused what the Schema accepts: ${before}`).toBe(true)
      if (Result.isSuccess(ours)) expect(ours.success, name).toEqual(full.success)
    }),
    { numRuns, seed: Number(process.env.FC_SEED ?? 20261121) }
  )
  return { accepted, total }
}

describe("the shared decode path", () => {
  it("finds the core's Schemas (the check below is not empty)", () => {
    expect(schemas.length).toBeGreaterThan(40)
  })

  it("agrees with each Schema's own decoding, and accepts the valid values", () => {
    let accepted = 0
    let total = 0
    for (const [name, schema] of schemas) {
      const counts = checkAgreement(name, schema)
      accepted += counts.accepted
      total += counts.total
    }
    // Most generated values are valid: a run that refuses everything would prove nothing.
    expect(accepted / total).toBeGreaterThan(0.2)
  })

  it("agrees on structs with optional and defaulted keys, and on unions two members accept alike", () => {
    const shapes: Array<[string, AnySchema]> = [
      [
        "default",
        Schema.Struct({
          a: Schema.String,
          list: Schema.Array(Schema.Number).pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed([])))
        })
      ],
      [
        "null or anything",
        Schema.Struct({
          x: Schema.NullOr(Schema.Unknown),
          y: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Number])))
        })
      ],
      // Members that accept the same input with different values: the Schema's order decides.
      [
        "tagged member after an untagged one",
        Schema.Union([
          Schema.Struct({ type: Schema.String }),
          Schema.Struct({ type: Schema.Literal("a"), v: Schema.Number })
        ])
      ],
      [
        "overlapping untagged members",
        Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ a: Schema.String, b: Schema.Number })])
      ],
      [
        "two members under one tag",
        Schema.Union([
          Schema.Struct({ type: Schema.Literal("a"), v: Schema.Number }),
          Schema.Struct({ type: Schema.Literal("a"), w: Schema.String }),
          Schema.Struct({ type: Schema.Literal("b") })
        ])
      ],
      [
        "numeric tags",
        Schema.Union([
          Schema.Struct({ k: Schema.Literal(1), v: Schema.String }),
          Schema.Struct({ k: Schema.Literal(2) }),
          Schema.Struct({ v: Schema.Boolean })
        ])
      ]
    ]
    for (const [name, schema] of shapes) expect(checkAgreement(name, schema, 200).accepted, name).toBeGreaterThan(20)
  })

  it("decodes a messages text delta, and refuses a mismatch with a DecodeError", () => {
    const decode = decodeWith(Text.MessagesContentBlockDelta, "messages", "content_block_delta event")
    const delta = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" }, extra: 1 }
    expect(Result.getOrThrow(decode(delta))).toEqual({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: "hi" }
    })
    const bad = decode({ ...delta, index: "0" })
    expect(Result.isFailure(bad) && bad.failure).toBeInstanceOf(DecodeError)
  })

  it("drops a key the Schema does not keep from its answer, never from the value it was given", () => {
    const decode = decodeWith(Text.MessagesContentBlockDelta, "messages", "content_block_delta event")
    const whole = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } }
    const nestedExtra = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi", extra: 1 } }
    const decoded = Result.getOrThrow(decode(nestedExtra))
    expect(decoded).not.toBe(nestedExtra)
    expect(decoded).toEqual(whole)
    expect(nestedExtra.delta.extra).toBe(1)
  })
})
