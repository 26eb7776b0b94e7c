import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { mismatchValue, sampleSchema } from "../src/emulator/text/schema/SchemaSample.js"

// Random JSON Schemas in the emulator's subset (objects, arrays, tuples, enums, const, string
// formats and lengths, number bounds and multiples, nullable types, anyOf/oneOf, allOf, $ref to
// $defs): the value the emulator makes always validates, read by zod's own JSON Schema reader, and
// the same seed gives the same value; the mismatching value of an object schema never validates.

type Schema = Record<string, unknown>

const formats = ["email", "uuid", "date-time", "date", "time", "uri", "ipv4", "ipv6", "hostname"]

const stringSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc.constant({ type: "string" }),
  fc.constantFrom(...formats).map((format) => ({ type: "string", format })),
  fc
    .tuple(fc.nat(20), fc.nat(20))
    .map(([a, b]) => ({ type: "string", minLength: Math.min(a, b), maxLength: Math.max(a, b) + 1 }))
)

const numberSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc.constantFrom("integer", "number").map((type) => ({ type })),
  fc
    .tuple(fc.constantFrom("integer", "number"), fc.integer({ min: -1000, max: 1000 }), fc.nat(500))
    .map(([type, lo, span]) => ({ type, minimum: lo, maximum: lo + span })),
  fc
    .tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: 2, max: 50 }))
    .map(([lo, span]) => ({ type: "number", exclusiveMinimum: lo, exclusiveMaximum: lo + span })),
  fc
    .tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: -50, max: 50 }))
    .map(([multipleOf, minimum]) => ({ type: "integer", multipleOf, minimum }))
)

const leaf: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
  fc
    .uniqueArray(fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { minLength: 1, maxLength: 4 })
    .map((e) => ({ enum: e })),
  // Primitive consts only: zod's JSON Schema reader compares an object const by reference.
  fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null)).map((v) => ({ const: v }))
)

const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/)

const { schema } = fc.letrec<{ schema: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc
      .tuple(
        fc.uniqueArray(key, { maxLength: 4 }),
        fc.array(tie("schema"), { minLength: 4, maxLength: 4 }),
        fc.nat(15),
        fc.boolean()
      )
      .map(([keys, subs, mask, closed]) => ({
        type: "object",
        properties: Object.fromEntries(keys.map((k, i) => [k, subs[i]!])),
        required: keys.filter((_, i) => (mask >> i) & 1),
        ...(closed ? { additionalProperties: false } : {})
      })),
    fc
      .tuple(tie("schema"), fc.nat(3), fc.nat(3))
      .map(([items, a, b]) => ({ type: "array", items, minItems: Math.min(a, b), maxItems: Math.max(a, b) })),
    fc
      .array(tie("schema"), { minLength: 1, maxLength: 3 })
      .map((prefixItems) => ({ type: "array", prefixItems, items: false })),
    fc.array(tie("schema"), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    stringSchema.map((s) => ({ ...s, type: [s.type, "null"] })),
    tie("schema").map((s) => ({ anyOf: [s, { type: "null" }] })),
    fc.tuple(fc.uniqueArray(key, { minLength: 2, maxLength: 4 }), tie("schema")).map(([keys, sub]) => ({
      allOf: [
        { type: "object", properties: { [keys[0]!]: sub }, required: [keys[0]!] },
        { type: "object", properties: { [keys[1]!]: { type: "integer", minimum: 1 } }, required: [keys[1]!] }
      ]
    })),
    tie("schema").map((s) => ({ $ref: "#/$defs/shared", $defs: { shared: s } }))
  )
}))

/** Moves every nested `$defs` to the root (zod resolves `$ref`s against the root only), renaming to stay unique. */
const hoistDefs = (root: Schema): Schema => {
  const defs: Record<string, unknown> = {}
  let n = 0
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (typeof v !== "object" || v === null) return v
    const o = v as Schema
    if (o.$ref === "#/$defs/shared" && typeof o.$defs === "object") {
      const name = `d${n++}`
      defs[name] = walk((o.$defs as Schema).shared)
      return { $ref: `#/$defs/${name}` }
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, k === "const" || k === "enum" ? x : walk(x)]))
  }
  const body = walk(root) as Schema
  return Object.keys(defs).length === 0 ? body : { ...body, $defs: defs }
}

const validates = (s: Schema, value: unknown): boolean =>
  z.fromJSONSchema(s as Parameters<typeof z.fromJSONSchema>[0]).safeParse(value).success

describe("the emulator's JSON Schema values", () => {
  it("validate against the schema, for every schema of the subset and both property modes", () => {
    fc.assert(
      fc.property(schema.map(hoistDefs), fc.string(), fc.boolean(), (s, seed, includeOptional) => {
        const sampled = sampleSchema(s, seed, { includeOptional })
        expect(sampled.ok).toBe(true)
        if (!sampled.ok) return
        expect(validates(s, sampled.value)).toBe(true)
      }),
      { seed: 3401, numRuns: 400 }
    )
  })

  it("are the same for the same schema and seed", () => {
    fc.assert(
      fc.property(schema.map(hoistDefs), fc.string(), (s, seed) => {
        expect(sampleSchema(s, seed, { includeOptional: true })).toEqual(
          sampleSchema(s, seed, { includeOptional: true })
        )
      }),
      { seed: 3402, numRuns: 200 }
    )
  })

  it("mismatch an object schema with a typed first property when asked", () => {
    const typed = fc
      .tuple(
        key,
        fc.oneof(stringSchema, numberSchema, fc.constant({ type: "boolean" })),
        fc.array(schema, { maxLength: 2 })
      )
      .map(([k, first, rest]) => ({
        type: "object",
        properties: { [k]: first, ...Object.fromEntries(rest.map((r, i) => [`other_${i}`, r])) },
        required: [k]
      }))
    fc.assert(
      fc.property(typed.map(hoistDefs), fc.string(), (s, seed) => {
        const sampled = sampleSchema(s, seed, { includeOptional: true })
        if (!sampled.ok) return expect.unreachable()
        expect(validates(s, mismatchValue(s, sampled.value))).toBe(false)
      }),
      { seed: 3403, numRuns: 200 }
    )
  })
})
