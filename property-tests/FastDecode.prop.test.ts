// The fast decoding path agrees with the Schema it is compiled from, for every Schema the core
// exports: on generated JSON inputs — values of the Schema's encoded side, the same with one field
// changed, dropped or added, and arbitrary JSON — whenever the fast path answers, the Schema gives the
// same value (a match) or fails (`NoMatch`); when it cannot tell, the Schema decides. A run where the
// fast path never matches would prove nothing, so the matches are counted too. Effect's own fast-check
// (`FastCheck`, the one its `Arbitrary` builds on) runs it, with the suite's fixed seed.
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as Media from "../src/core/media/index.js"
import * as Platform from "../src/core/platform/index.js"
import * as Realtime from "../src/core/realtime/index.js"
import * as Text from "../src/core/text/index.js"
import * as Video from "../src/core/video/index.js"
import * as Gateway from "../src/core/gateway/index.js"
import * as FastDecode from "../src/core/wire/FastDecode.js"

const modules = { Media, Platform, Realtime, Text, Video, Gateway }

/** Every exported Schema of those modules, by name. */
const schemas: Array<[string, Schema.Schema.AnyNoContext]> = []
for (const [moduleName, mod] of Object.entries(modules))
  for (const [name, value] of Object.entries(mod as Record<string, unknown>))
    if (Schema.isSchema(value)) schemas.push([`${moduleName}.${name}`, value as Schema.Schema.AnyNoContext])

/** JSON data only: what the decoders are given (parsed text, or a sanitised copy). */
const asJson = (u: unknown): unknown => {
  try {
    const text = JSON.stringify(u)
    return text === undefined ? null : JSON.parse(text)
  } catch {
    return null
  }
}

/** A value of the Schema's encoded side when effect can generate one, else any JSON. */
const encodedValues = (schema: Schema.Schema.AnyNoContext): fc.Arbitrary<unknown> => {
  try {
    const arb = Arbitrary.make(Schema.encodedSchema(schema)) as fc.Arbitrary<unknown>
    // Generating can still throw for some declarations: probe once.
    fc.sample(arb, { numRuns: 1, seed: 1 })
    return arb
  } catch {
    return fc.jsonValue()
  }
}

/** One field of an object changed, dropped or added (at the top or one level down). */
const mutated = (base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.tuple(base, fc.nat(), fc.constantFrom("change", "drop", "add"), fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 6 })).map(([value, pick, how, junk, key]) => {
    const copy = asJson(value)
    const target = typeof copy === "object" && copy !== null ? (copy as Record<string, unknown>) : undefined
    if (target === undefined) return copy
    const keys = Object.keys(target)
    const nestedKey = keys.find((k) => typeof target[k] === "object" && target[k] !== null && !Array.isArray(target[k]))
    const where = nestedKey !== undefined && pick % 2 === 1 ? (target[nestedKey] as Record<string, unknown>) : target
    const whereKeys = Object.keys(where)
    const k = whereKeys.length > 0 ? whereKeys[pick % whereKeys.length]! : key
    if (how === "drop") delete where[k]
    else if (how === "change") where[k] = junk
    else where[key] = junk
    return copy
  })

/** Checks the fast path against the Schema on generated inputs; returns how often it answered. */
const checkAgreement = (name: string, schema: Schema.Schema.AnyNoContext, numRuns = 60, generate = true): { matches: number; total: number } => {
  let matches = 0
  let total = 0
  const fast = FastDecode.compile(schema.ast, { generate })
  const decode = Schema.decodeUnknownEither(schema)
  const values = encodedValues(schema)
  fc.assert(
    fc.property(fc.oneof(values, values, mutated(values), fc.jsonValue({ maxDepth: 3 })), (raw) => {
      const input = asJson(raw)
      const quick = fast(input)
      const full = decode(input)
      total++
      if (quick === FastDecode.Unknown) return
      if (quick === FastDecode.NoMatch) {
        expect(Either.isLeft(full), `${name}: the fast path refused what the Schema accepts: ${JSON.stringify(input)}`).toBe(true)
        return
      }
      matches++
      expect(Either.isRight(full), `${name}: the fast path accepted what the Schema refuses: ${JSON.stringify(input)}`).toBe(true)
      if (Either.isRight(full)) expect(quick, name).toEqual(full.right)
    }),
    { numRuns, seed: Number(process.env.FC_SEED ?? 20261121) }
  )
  return { matches, total }
}

// Both forms of a struct's decoder: generated code, and the closure used where code cannot be made.
describe.each([
  ["generated structs", true],
  ["closures only", false]
] as const)("the fast decoding path (%s)", (_, generate) => {
  it("finds the core's Schemas (the check below is not empty)", () => {
    expect(schemas.length).toBeGreaterThan(40)
  })

  it("agrees with each Schema's own decoding, and answers for most valid values", () => {
    let matches = 0
    let total = 0
    for (const [name, schema] of schemas) {
      const counts = checkAgreement(name, schema, 60, generate)
      matches += counts.matches
      total += counts.total
    }
    // Most generated values are valid, and most valid values are plain data the fast path decodes.
    expect(matches / total).toBeGreaterThan(0.2)
  })

  it("agrees on structs whose keys are defaulted, renamed or made required, and on a union two members accept alike", () => {
    const shapes: Array<[string, Schema.Schema.AnyNoContext]> = [
      ["default", Schema.Struct({ a: Schema.String, list: Schema.optionalWith(Schema.Array(Schema.Number), { default: () => [] }) })],
      ["nested default", Schema.Struct({ inner: Schema.Struct({ n: Schema.optionalWith(Schema.Number, { default: () => 1 }) }) })],
      ["renamed", Schema.Struct({ b: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("b_raw")), c: Schema.optional(Schema.Boolean) })],
      ["made required", Schema.Struct({ d: Schema.optionalToRequired(Schema.String, Schema.String, { decode: (o) => (o._tag === "Some" ? o.value : "none"), encode: (s) => ({ _tag: "Some", value: s }) as never }) })],
      ["null or anything", Schema.Struct({ x: Schema.NullOr(Schema.Unknown), y: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))) })],
      // Members that accept the same input with different values: the Schema's order decides.
      ["tagged member after an untagged one", Schema.Union(Schema.Struct({ type: Schema.String }), Schema.Struct({ type: Schema.Literal("a"), v: Schema.Number }))],
      ["overlapping untagged members", Schema.Union(Schema.Struct({ a: Schema.String }), Schema.Struct({ a: Schema.String, b: Schema.Number }))],
      // One tag key: a bucket of two members, a numeric tag, and untagged members tried after the bucket.
      [
        "two members under one tag",
        Schema.Union(Schema.Struct({ type: Schema.Literal("a"), v: Schema.Number }), Schema.Struct({ type: Schema.Literal("a"), w: Schema.String }), Schema.Struct({ type: Schema.Literal("b") }))
      ],
      ["numeric tags", Schema.Union(Schema.Struct({ k: Schema.Literal(1), v: Schema.String }), Schema.Struct({ k: Schema.Literal(2) }), Schema.Struct({ v: Schema.Boolean }))]
    ]
    // Each shape is decoded by the fast path itself often enough, not only handed to the Schema.
    for (const [name, schema] of shapes) expect(checkAgreement(name, schema, 200, generate).matches, name).toBeGreaterThan(20)
  })

  it("takes the union member the Schema takes: a tagged member before an untagged one that also accepts", () => {
    const schema = Schema.Union(Schema.Struct({ type: Schema.String }), Schema.Struct({ type: Schema.Literal("a"), v: Schema.Number }))
    const fast = FastDecode.compile(schema.ast, { generate })
    const input = { type: "a", v: 1 }
    expect(Schema.decodeUnknownSync(schema)(input)).toEqual({ type: "a", v: 1 })
    expect(fast(input)).toEqual({ type: "a", v: 1 })
    // Another tag: only the untagged member accepts it, and drops `v`.
    expect(fast({ type: "b", v: 1 })).toEqual({ type: "b" })
  })

  it("decodes a messages text delta itself, and leaves a mismatch to the Schema", () => {
    const fast = FastDecode.compile(Text.MessagesContentBlockDelta.ast, { generate })
    const delta = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" }, extra: 1 }
    expect(fast(delta)).toEqual({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } })
    expect(fast({ ...delta, index: "0" })).toBe(FastDecode.NoMatch)
  })

  it("gives back the parsed tree itself when the Schema keeps all of it, and a copy when it drops a key", () => {
    const fast = FastDecode.compile(Text.MessagesContentBlockDelta.ast, { generate })
    const whole = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } }
    expect(fast(whole)).toBe(whole)
    const nestedExtra = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi", extra: 1 } }
    const decoded = fast(nestedExtra) as typeof whole
    expect(decoded).not.toBe(nestedExtra)
    expect(decoded).toEqual(whole)
    expect(nestedExtra.delta.extra).toBe(1)
  })
})
