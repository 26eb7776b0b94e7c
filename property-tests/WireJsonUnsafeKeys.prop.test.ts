// The shared decode path (`WireJson.decodeWith`) decodes a value holding `__proto__`, `constructor` or
// `prototype` keys exactly as it decodes the value's sanitised copy: the same answer, or the same
// error message. It takes shortcuts for that (a Schema that reads no unsafe key is given the value
// as it is; one that reads only some keys of the top object is given a view of those), so the
// Schemas here cover both sides of each shortcut: ones that cannot read an unsafe key, and ones that
// can (an index signature, a field named `constructor`, a check or a transformation handed an input
// object, a union with such a member). Inputs are values of each Schema's encoded side with unsafe
// keys put into some of their objects, as `JSON.parse` makes them (own data properties), decoded as
// parsed by `JSON.parse` and by `parseJsonTree`.
import fc from "fast-check"
import { Arbitrary, Effect, Result, Schema, SchemaParser, SchemaTransformation } from "effect"
import { describe, expect, it } from "vitest"
import { sanitize } from "../src/core/validation/Rules.js"
import { defaultMaxJsonDepth } from "../src/core/wire/JsonSafety.js"
import { decodeWith, formatDecodeIssues, JsonObject, JsonValue, parseJsonTree } from "../src/core/wire/WireJson.js"

type AnySchema = Schema.ConstraintDecoder<unknown>

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const hasUnsafeKey = (u: unknown): boolean =>
  typeof u === "object" &&
  u !== null &&
  Object.keys(u).some(
    (k) =>
      k === "__proto__" || k === "constructor" || k === "prototype" || hasUnsafeKey((u as Record<string, unknown>)[k])
  )

interface Tree {
  readonly name: string
  readonly children: ReadonlyArray<Tree>
}
const Tree: Schema.Codec<Tree> = Schema.Struct({
  name: Schema.String,
  children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree))
})

// Schemas that read only their declared keys, none of them unsafe.
const blind: Array<[string, AnySchema]> = [
  ["primitives", Schema.Struct({ type: Schema.Literal("a"), n: Schema.Number, s: Schema.optionalKey(Schema.String) })],
  [
    "pass-through fields",
    Schema.Struct({
      id: Schema.String,
      meta: JsonValue,
      raw: Schema.Unknown,
      list: Schema.Array(Schema.Struct({ a: Schema.Number, o: JsonObject }))
    })
  ],
  [
    "tagged union",
    Schema.Union([
      Schema.Struct({ type: Schema.Literal("x"), v: Schema.Number }),
      Schema.Struct({ type: Schema.Literal("y"), w: Schema.NullOr(Schema.String), u: Schema.Unknown })
    ])
  ],
  ["recursive", Tree],
  ["no declared key", Schema.Struct({})],
  ["checked numbers", Schema.Struct({ n: Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 10 })) })]
]

// Reads whether an input object has an unsafe key: what a check or a transformation handed one may do.
const noUnsafeKey = (u: unknown): boolean =>
  !(isObject(u) && ["__proto__", "constructor"].some((k) => Object.hasOwn(u, k)))

// Schemas that can read an unsafe key: decoding the value as given could answer otherwise.
const reading: Array<[string, AnySchema]> = [
  ["index signature", Schema.Record(Schema.String, Schema.Number)],
  ["field named prototype", Schema.Struct({ a: Schema.String, prototype: Schema.optionalKey(Schema.Number) })],
  ["check on a pass-through", Schema.Unknown.check(Schema.makeFilter(noUnsafeKey, { message: "has an unsafe key" }))],
  [
    "check on an object holding a pass-through",
    Schema.Struct({ a: Schema.Unknown }).check(
      Schema.makeFilter((o) => noUnsafeKey(o.a), { message: "a has an unsafe key" })
    )
  ],
  [
    "transformation of a pass-through",
    Schema.Unknown.pipe(
      Schema.decodeTo(
        Schema.Number.check(Schema.isLessThan(3)),
        SchemaTransformation.transform<number, unknown>({
          decode: (u) => (isObject(u) ? Object.keys(u).length : 0),
          encode: (n) => ({ n })
        })
      )
    )
  ],
  [
    "open struct",
    Schema.StructWithRest(Schema.Struct({ id: Schema.String }), [
      Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Number]))
    ])
  ],
  [
    "closed top, open inside",
    Schema.Struct({
      id: Schema.String,
      doc: Schema.Record(Schema.String, Schema.Number),
      n: Schema.optionalKey(Schema.Number)
    })
  ],
  [
    "union with an open member",
    Schema.Union([Schema.Struct({ type: Schema.Literal("a") }), Schema.Record(Schema.String, Schema.String)])
  ]
]

// Valid values of the Schemas Effect cannot generate values for.
const validValues = new Map<AnySchema, ReadonlyArray<unknown>>([
  [
    blind[1]![1],
    [
      { id: "r", meta: { a: [1, { b: 2 }] }, raw: { x: { y: 1 } }, list: [{ a: 1, o: { k: "v" } }] },
      { id: "s", meta: null, raw: [{ z: [] }], list: [] }
    ]
  ],
  [reading[5]![1], [{ id: "x", n: 1, m: 2 }, { id: "y" }]]
])

/** Values of the Schema's encoded side (when Effect can generate them), JSON only, and arbitrary JSON objects. */
const valuesOf = (schema: AnySchema): fc.Arbitrary<unknown> => {
  const objects = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }))
  const given = validValues.get(schema)
  if (given !== undefined) return fc.oneof(fc.constantFrom(...given), objects)
  try {
    const samples = Effect.runSync(
      Arbitrary.sampleEffect(Arbitrary.schema(Schema.toEncoded(schema)), { count: 30, seed: 7 })
    ).map((v) => JSON.parse(JSON.stringify(v)) as unknown)
    return samples.length > 0 ? fc.oneof(fc.constantFrom(...samples), objects) : objects
  } catch {
    return objects
  }
}

/** The value with an unsafe key (and a value for it) put into some of its objects, as JSON text. */
const withUnsafeKeys = (schema: AnySchema): fc.Arbitrary<string> =>
  fc
    .tuple(
      valuesOf(schema),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.constantFrom("__proto__", "constructor", "prototype"),
          fc.oneof(fc.constant(7), fc.constant("x"), fc.jsonValue({ maxDepth: 2 }))
        ),
        { minLength: 1, maxLength: 3 }
      )
    )
    .map(([value, keys]) => {
      const objects: Array<Record<string, unknown>> = []
      const collect = (v: unknown): void => {
        if (Array.isArray(v)) v.forEach(collect)
        else if (isObject(v)) {
          objects.push(v)
          Object.values(v).forEach(collect)
        }
      }
      collect(value)
      for (const [pick, key, junk] of keys)
        if (objects.length > 0)
          Object.defineProperty(objects[pick % objects.length], key, {
            value: junk,
            enumerable: true,
            writable: true,
            configurable: true
          })
      return JSON.stringify(value)
    })

/** Checks the Schema on generated inputs; returns how often decoding the value as given would have answered otherwise. */
const check = (name: string, schema: AnySchema): { readonly differs: number; readonly accepted: number } => {
  let differs = 0
  let accepted = 0
  const decode = decodeWith(schema, "openai", name)
  const own = SchemaParser.decodeUnknownResult(schema, { reportInput: true })
  fc.assert(
    fc.property(withUnsafeKeys(schema), (text) => {
      const viaCopy = own(sanitize(JSON.parse(text)))
      const asGiven = own(JSON.parse(text))
      if (Result.isSuccess(viaCopy) !== Result.isSuccess(asGiven)) differs++
      for (const input of [JSON.parse(text) as unknown, parseJsonTree(text, defaultMaxJsonDepth)]) {
        const ours = decode(input)
        // The decoder never changes what it is given.
        expect(JSON.stringify(input), name).toBe(text)
        if (Result.isFailure(viaCopy)) {
          expect(Result.isFailure(ours) && ours.failure.message, `${name}: ${text}`).toBe(
            `${name}: ${formatDecodeIssues(viaCopy.failure)}`
          )
        } else {
          expect(Result.isSuccess(ours), `${name} refused ${text}`).toBe(true)
          if (Result.isSuccess(ours)) {
            accepted++
            expect(ours.success, `${name}: ${text}`).toEqual(viaCopy.success)
            expect(hasUnsafeKey(ours.success), `${name} kept an unsafe key: ${text}`).toBe(false)
          }
        }
      }
    }),
    { numRuns: 150, seed: Number(process.env.FC_SEED ?? 20261128) }
  )
  return { differs, accepted }
}

describe("decodeWith on values with unsafe keys", () => {
  it.each(blind)(
    "decodes them as their sanitised copies with a Schema that reads no unsafe key (%s)",
    (name, schema) => {
      expect(check(name, schema).accepted, name).toBeGreaterThan(10)
    }
  )

  it.each(reading)("decodes them as their sanitised copies with a Schema that can read one (%s)", (name, schema) => {
    const { differs, accepted } = check(name, schema)
    // The inputs reach what these Schemas read: decoding them as given would have answered otherwise.
    expect(differs, name).toBeGreaterThan(0)
    expect(accepted, name).toBeGreaterThan(0)
  })
})
