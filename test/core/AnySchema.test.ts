import { Effect, Exit, Result, Schema } from "effect"
import * as v from "valibot"
import { describe, expect, expectTypeOf, it } from "vitest"
import * as z from "zod"
import {
  type AnySchema,
  decode,
  fitSchema,
  jsonSchemaOf,
  prepareSchema,
  type TypeOf
} from "../../src/core/structured/AnySchema.js"
import { fitJsonSchema } from "../../src/core/structured/JsonSchemaFit.js"
import { SchemaMismatch, SchemaNotExpressible } from "../../src/core/structured/StructuredErrors.js"

const fitted = (schema: AnySchema<unknown>) => Result.getOrThrow(fitSchema(schema))
const refusal = (schema: AnySchema<unknown>): SchemaNotExpressible => {
  const result = fitSchema(schema)
  if (Result.isSuccess(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.success.schema)}`)
  return result.failure
}
const failureOf = async <A>(effect: Effect.Effect<A, SchemaMismatch>): Promise<SchemaMismatch> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) throw new Error(`expected a mismatch, got ${JSON.stringify(exit.value)}`)
  const error = exit.cause.reasons[0]
  if (error?._tag !== "Fail") throw new Error("expected a typed failure")
  return error.error
}

interface Tree {
  readonly name: string
  readonly children: ReadonlyArray<Tree>
}
const TreeSchema: Schema.Codec<Tree> = Schema.Struct({
  name: Schema.String,
  children: Schema.Array(Schema.suspend(() => TreeSchema))
})

describe("AnySchema types", () => {
  it("TypeOf reads an Effect Schema's and a Standard Schema's output", () => {
    const e = Schema.Struct({ a: Schema.String, n: Schema.NumberFromString })
    const zs = z.object({ a: z.string(), n: z.number().optional() })
    expectTypeOf<TypeOf<typeof e>>().toEqualTypeOf<{ readonly a: string; readonly n: number }>()
    expectTypeOf<TypeOf<typeof zs>>().toEqualTypeOf<{ a: string; n?: number | undefined }>()
    const a: AnySchema<{ readonly a: string; readonly n: number }> = e
    const b: AnySchema<{ a: string; n?: number | undefined }> = zs
    expect([a, b]).toEqual([e, zs])
  })
})

describe("jsonSchemaOf: Effect Schema", () => {
  it("closes objects, requires every property and makes optional ones nullable (strict mode)", () => {
    const fit = fitted(
      Schema.Struct({
        a: Schema.String,
        b: Schema.optional(Schema.Number),
        c: Schema.NullOr(Schema.Boolean),
        d: Schema.Literals(["x", "y"]),
        e: Schema.Array(Schema.Struct({ f: Schema.String }))
      })
    )
    expect(fit.strict).toBe(true)
    expect(fit.wrapped).toBe(false)
    expect(fit.schema).toEqual({
      type: "object",
      properties: {
        a: { type: "string" },
        b: { anyOf: [{ type: "number" }, { type: "null" }] },
        c: { anyOf: [{ type: "boolean" }, { type: "null" }] },
        d: { type: "string", enum: ["x", "y"] },
        e: {
          type: "array",
          items: { type: "object", properties: { f: { type: "string" } }, required: ["f"], additionalProperties: false }
        }
      },
      required: ["a", "b", "c", "d", "e"],
      additionalProperties: false
    })
  })

  it("inlines non-recursive definitions and keeps recursive ones under $defs", () => {
    const Point = Schema.Struct({ x: Schema.Finite }).annotate({ identifier: "Point" })
    const fit = fitted(Schema.Struct({ p: Point, q: Point }))
    expect(fit.schema).not.toHaveProperty("$defs")
    expect(fit.schema["properties"]).toEqual({
      p: { type: "object", properties: { x: { type: "number" } }, required: ["x"], additionalProperties: false },
      q: { type: "object", properties: { x: { type: "number" } }, required: ["x"], additionalProperties: false }
    })
    const tree = fitted(TreeSchema).schema
    expect(tree["type"]).toBe("object")
    const defs = tree["$defs"] as Record<string, { readonly properties: unknown }>
    const [name] = Object.keys(defs)
    expect(tree["properties"]).toEqual({
      name: { type: "string" },
      children: { type: "array", items: { $ref: `#/$defs/${name}` } }
    })
    expect(defs[name ?? ""]?.properties).toEqual(tree["properties"])
  })

  it("wraps a root that is not an object under `value`, recursive roots included", () => {
    const fit = fitted(Schema.Array(Schema.String))
    expect(fit.wrapped).toBe(true)
    expect(fit.schema).toEqual({
      type: "object",
      properties: { value: { type: "array", items: { type: "string" } } },
      required: ["value"],
      additionalProperties: false
    })
    expect(fit.relax({ value: ["a"] })).toEqual(["a"])
    const union = fitted(Schema.Union([Schema.String, Schema.Number]))
    expect(union.schema["properties"]).toEqual({ value: { anyOf: [{ type: "string" }, { type: "number" }] } })
  })

  it("drops Effect's non-finite number encodings and annotations providers refuse", () => {
    const fit = fitted(
      Schema.Struct({
        n: Schema.Number,
        f: Schema.Finite.annotate({ description: "a count", default: 1, examples: [2] }),
        bytes: Schema.Uint8Array
      })
    )
    expect(fit.schema["properties"]).toEqual({
      n: { type: "number" },
      f: { type: "number", description: "a count" },
      bytes: { type: "string" }
    })
  })

  it("keeps keywords strict mode does not take and turns strict off", () => {
    expect(fitted(Schema.Struct({ a: Schema.NonEmptyString })).strict).toBe(false)
    expect(fitted(Schema.Tuple([Schema.String, Schema.Number])).strict).toBe(false)
    const record = fitted(Schema.Record(Schema.String, Schema.Number))
    expect(record.strict).toBe(false)
    expect(record.schema).toEqual({ type: "object", additionalProperties: { type: "number" } })
  })

  it("sends an empty Struct (a tool without parameters) as a closed object with no properties, and decodes {}", async () => {
    const prepared = prepareSchema(Schema.Struct({}))
    expect(Result.isSuccess(prepared)).toBe(true)
    if (Result.isFailure(prepared)) return
    expect(prepared.success.schema).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false
    })
    expect(await Effect.runPromise(prepared.success.decodeAnswer({}))).toEqual({})
  })

  it("refuses, naming the part, what cannot be expressed", () => {
    const cases: ReadonlyArray<readonly [AnySchema<unknown>, string, RegExp]> = [
      [Schema.Struct({ a: Schema.Struct({ b: Schema.Unknown }) }), "/properties/a/properties/b", /accepts any value/],
      [
        Schema.Struct({ m: Schema.declare((u): u is Map<string, string> => u instanceof Map) }),
        "/properties/m",
        /accepts any value/
      ],
      [Schema.Struct({ s: Schema.Symbol }), "/properties/s", /symbol/],
      [Schema.Struct({ n: Schema.Never }), "/properties/n", /accepts no value/],
      [Schema.Struct({ nested: Schema.Struct({}) }), "/properties/nested", /negates/],
      [Schema.Struct({ o: Schema.Array(Schema.Any) }), "/properties/o", /array of any values/]
    ]
    for (const [schema, path, message] of cases) {
      const error = refusal(schema)
      expect(error).toBeInstanceOf(SchemaNotExpressible)
      expect(error.path, error.message).toBe(path)
      expect(error.message).toMatch(message)
      expect(error.message).toContain(path === "" ? "the root" : path)
    }
  })

  it("sends a bigint as the decimal string Effect's JSON codec reads", async () => {
    const schema = Schema.Struct({ id: Schema.BigInt })
    expect(fitted(schema).schema["properties"]).toEqual({ id: { type: "string", pattern: "^-?\\d+$" } })
    const prepared = Result.getOrThrow(prepareSchema(schema))
    expect(await Effect.runPromise(prepared.decodeAnswer({ id: "12345678901234567890" }))).toEqual({
      id: 12345678901234567890n
    })
  })
})

describe("jsonSchemaOf: Standard Schema", () => {
  it("uses zod's Standard JSON Schema, fitted the same way", () => {
    const fit = fitted(z.object({ a: z.string(), b: z.number().int().optional(), c: z.enum(["x", "y"]).nullable() }))
    expect(fit.schema).toEqual({
      type: "object",
      properties: {
        a: { type: "string" },
        b: {
          anyOf: [{ type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 }, { type: "null" }]
        },
        c: { anyOf: [{ type: "string", enum: ["x", "y"] }, { type: "null" }] }
      },
      required: ["a", "b", "c"],
      additionalProperties: false
    })
    expect(fit.strict).toBe(true)
  })

  it("takes a zod tuple (`prefixItems` with `items: false`) as a closed tuple, not strict, and decodes it", async () => {
    const schema = z.object({ t: z.tuple([z.string(), z.number()]) })
    const fit = fitted(schema)
    expect(fit.strict).toBe(false)
    expect(fit.schema["properties"]).toMatchObject({
      t: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false }
    })
    const answer = fit.relax({ t: ["a", 1] })
    expect(await Effect.runPromise(decode(schema)(answer))).toEqual({ t: ["a", 1] })
    // `items: false` alone is an array that must be empty, which JSON Schema allows.
    expect(
      Result.isSuccess(fitJsonSchema({ type: "object", properties: { e: { type: "array", items: false } } }))
    ).toBe(true)
  })

  it('keeps zod\'s root recursion (`$ref: "#"`), moved into $defs when the root is wrapped', () => {
    const Cat: z.ZodType<{ name: string; kids: Array<unknown> }> = z.object({
      name: z.string(),
      get kids() {
        return z.array(Cat)
      }
    })
    const direct = fitted(Cat).schema
    expect(direct["properties"]).toEqual({ name: { type: "string" }, kids: { type: "array", items: { $ref: "#" } } })
    const wrapped = fitted(z.array(Cat)).schema
    const defs = wrapped["$defs"] as Record<string, Record<string, unknown>>
    const [name] = Object.keys(defs)
    expect(wrapped["properties"]).toEqual({ value: { type: "array", items: { $ref: `#/$defs/${name}` } } })
    expect(defs[name ?? ""]?.["properties"]).toEqual({
      name: { type: "string" },
      kids: { type: "array", items: { $ref: `#/$defs/${name}` } }
    })
  })

  it("refuses a zod part zod cannot express, and a Standard Schema without JSON Schema", () => {
    expect(refusal(z.object({ a: z.bigint() })).message).toMatch(/BigInt/)
    expect(refusal(z.object({ a: z.any() })).path).toBe("/properties/a")
    const valibot = refusal(v.object({ a: v.string() }))
    expect(valibot.path).toBe("")
    expect(valibot.message).toMatch(/valibot schema offers no JSON Schema.*pass an explicit jsonSchema/)
  })

  it("takes an explicit jsonSchema override for a schema without one (valibot)", async () => {
    const schema = v.object({ a: v.string(), n: v.optional(v.number()) })
    const override = { type: "object", properties: { a: { type: "string" }, n: { type: "number" } }, required: ["a"] }
    const fit = Result.getOrThrow(jsonSchemaOf(schema, override))
    expect(fit).toEqual({
      type: "object",
      properties: { a: { type: "string" }, n: { anyOf: [{ type: "number" }, { type: "null" }] } },
      required: ["a", "n"],
      additionalProperties: false
    })
    const prepared = Result.getOrThrow(prepareSchema(schema, override))
    expect(await Effect.runPromise(prepared.decodeAnswer({ a: "x", n: null }))).toEqual({ a: "x" })
  })
})

describe("fitJsonSchema: bounds and references", () => {
  it("refuses an undefined $ref, nested $defs and too deep a schema", () => {
    const bad = fitJsonSchema({ type: "object", properties: { a: { $ref: "#/$defs/Missing" } } })
    expect(Result.isFailure(bad) && bad.failure.path).toBe("/properties/a")
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 80; i++) deep = { type: "array", items: deep }
    const tooDeep = fitJsonSchema(deep)
    expect(Result.isFailure(tooDeep) && tooDeep.failure.message).toMatch(/deeper than 64/)
    const nodes = fitJsonSchema(
      {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, { type: "string" }]))
      },
      {},
      { maxDepth: 64, maxNodes: 10 }
    )
    expect(Result.isFailure(nodes) && nodes.failure.message).toMatch(/larger than 10 parts/)
  })

  it("keeps what relax needs through inlined, annotated and nested nullable definitions", () => {
    const fit = Result.getOrThrow(
      fitJsonSchema(
        {
          type: "object",
          properties: {
            a: { $ref: "#/$defs/Inner", description: "the inner one" },
            b: { anyOf: [{ anyOf: [{ $ref: "#/$defs/Inner" }, { type: "null" }] }, { type: "null" }] }
          },
          required: ["a"]
        },
        { Inner: { type: "object", properties: { x: { type: "number" }, y: { type: "string" } }, required: ["x"] } }
      )
    )
    expect((fit.schema["properties"] as Record<string, unknown>)["b"]).toEqual({
      anyOf: [
        {
          type: "object",
          properties: { x: { type: "number" }, y: { anyOf: [{ type: "string" }, { type: "null" }] } },
          required: ["x", "y"],
          additionalProperties: false
        },
        { type: "null" }
      ]
    })
    expect(fit.relax({ a: { x: 1, y: null }, b: { x: 2, y: null } })).toEqual({ a: { x: 1 }, b: { x: 2 } })
    // `b` accepted null itself: its null is kept.
    expect(fit.relax({ a: { x: 1, y: "s" }, b: null })).toEqual({ a: { x: 1, y: "s" }, b: null })
  })

  it("keeps a property named __proto__ as an own property", () => {
    const fit = Result.getOrThrow(
      fitJsonSchema(
        JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}')
      )
    )
    expect(Object.keys(fit.schema["properties"] as object)).toEqual(["__proto__"])
    expect(fit.schema["required"]).toEqual(["__proto__"])
  })
})

describe("decode", () => {
  it("decodes with an Effect Schema through its JSON codec, failing with the path named", async () => {
    const schema = Schema.Struct({ a: Schema.String, b: Schema.optional(Schema.Number) })
    expect(await Effect.runPromise(decode(schema)({ a: "x", b: null }))).toEqual({ a: "x", b: undefined })
    const error = await failureOf(decode(schema)({ a: 1 }))
    expect(error).toBeInstanceOf(SchemaMismatch)
    expect(error.message).toContain("at /a")
    expect(error.issue).toMatch(/^at \/a: Expected string/)
  })

  it("decodes with a Standard Schema, synchronous or asynchronous", async () => {
    const zs = z.object({ a: z.string(), items: z.array(z.number()) })
    expect(await Effect.runPromise(decode(zs)({ a: "x", items: [1] }))).toEqual({ a: "x", items: [1] })
    const error = await failureOf(decode(zs)({ a: "x", items: [1, "2"] }))
    expect(error.issue).toMatch(/^at \/items\/1: /)
    const asyncSchema = z.object({ a: z.string().refine(async (s) => Promise.resolve(s.length > 2), "too short") })
    expect(await Effect.runPromise(decode(asyncSchema)({ a: "long" }))).toEqual({ a: "long" })
    expect((await failureOf(decode(asyncSchema)({ a: "x" }))).issue).toBe("at /a: too short")
    const vs = v.object({ a: v.string() })
    expect((await failureOf(decode(vs)({ a: 1 }))).issue).toMatch(/^at \/a: /)
  })

  it("turns a validator that throws into a SchemaMismatch, never a defect", async () => {
    const throwing: AnySchema<string> = {
      "~standard": {
        version: 1,
        vendor: "test",
        validate: () => {
          throw new Error("boom")
        }
      }
    }
    expect((await failureOf(decode(throwing)("x"))).message).toMatch(/validate failed: boom/)
  })

  it("bounds the issue text", async () => {
    const schema = z.array(z.string())
    const error = await failureOf(decode(schema)(Array.from({ length: 100 }, (_, i) => i)))
    expect(error.issue.split("\n")).toHaveLength(21)
    expect(error.message).toMatch(/and 99 more issues/)
  })
})

describe("prepareSchema.decodeAnswer", () => {
  it("drops the null of an optional property, in the union member the value belongs to", async () => {
    const schema = z.object({
      a: z.string(),
      b: z.number().optional(),
      u: z.union([
        z.object({ k: z.literal("a"), o: z.number().optional() }),
        z.object({ k: z.literal("b"), o: z.string().optional() })
      ])
    })
    const prepared = Result.getOrThrow(prepareSchema(schema))
    expect(await Effect.runPromise(prepared.decodeAnswer({ a: "x", b: null, u: { k: "b", o: null } }))).toEqual({
      a: "x",
      u: { k: "b" }
    })
    expect(await Effect.runPromise(prepared.decodeAnswer({ a: "x", b: 2, u: { k: "a", o: 3 } }))).toEqual({
      a: "x",
      b: 2,
      u: { k: "a", o: 3 }
    })
  })

  it("keeps a null the schema itself allows", async () => {
    const prepared = Result.getOrThrow(prepareSchema(z.object({ a: z.string().nullable().optional() })))
    expect(await Effect.runPromise(prepared.decodeAnswer({ a: null }))).toEqual({ a: null })
  })

  it("unwraps a wrapped root and decodes it", async () => {
    const prepared = Result.getOrThrow(prepareSchema(Schema.Array(Schema.Number)))
    expect(await Effect.runPromise(prepared.decodeAnswer({ value: [1, 2] }))).toEqual([1, 2])
    expect((await failureOf(prepared.decodeAnswer({ value: ["1"] }))).issue).toMatch(/^at \/0: /)
  })

  it("walks recursive definitions", async () => {
    const Node = z.object({
      name: z.string(),
      note: z.string().optional(),
      get kids(): z.ZodArray<typeof Node> {
        return z.array(Node)
      }
    })
    const prepared = Result.getOrThrow(prepareSchema(Node))
    const answer = { name: "a", note: null, kids: [{ name: "b", note: null, kids: [] }] }
    expect(await Effect.runPromise(prepared.decodeAnswer(answer))).toEqual({
      name: "a",
      kids: [{ name: "b", kids: [] }]
    })
  })
})
