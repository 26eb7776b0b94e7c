// Structured output read from a stream (src/core/structured/Answer.ts) against the one-answer
// reading: for generated schemas (objects with required, optional and nullable fields, arrays, strings,
// numbers, booleans, enums; as zod and as Effect Schema) and a value of each, written as the model
// would (optional fields sometimes `null`) and cut into any pieces, each partial value grows into the
// next and into the final one, and the final value — read from the completed answer — is what the
// one-answer reading gives, decoded by the schema itself.
import fc from "fast-check"
import { Effect, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { answerValue, partialReader, Unchanged } from "../src/core/structured/Answer.js"
import { type AnySchema, prepareSchema } from "../src/core/structured/AnySchema.js"
import { chatMechanism, schemaTarget } from "../src/core/structured/Mechanisms.js"
import type { ChatCompletion, ChatStreamEvent } from "../src/core/text/chat/ChatResponse.js"

// ---- shapes: a schema and the values it takes ----
// (Objects have at least one field: Effect's `Schema.Struct({})` accepts any non-null value and is refused.)

type Shape =
  | { readonly t: "string" | "number" | "boolean" }
  | { readonly t: "enum"; readonly values: readonly [string, ...Array<string>] }
  | { readonly t: "nullable"; readonly of: Shape }
  | { readonly t: "array"; readonly of: Shape }
  | {
      readonly t: "object"
      readonly fields: ReadonlyArray<{ readonly key: string; readonly optional: boolean; readonly of: Shape }>
    }

const KEYS = ["a", "b", "title", "note", "x y", "é"]

const shapeArb: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Shape>({ t: "string" }, { t: "number" }, { t: "boolean" }),
    fc
      .uniqueArray(fc.constantFrom("red", "green", "blue"), { minLength: 1, maxLength: 3 })
      .map((values): Shape => ({ t: "enum", values: values as [string, ...Array<string>] })),
    tie("shape").map((of): Shape => ({ t: "nullable", of })),
    tie("shape").map((of): Shape => ({ t: "array", of })),
    fc
      .uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), optional: fc.boolean(), of: tie("shape") }), {
        selector: (f) => f.key,
        minLength: 1,
        maxLength: 4
      })
      .map((fields): Shape => ({ t: "object", fields }))
  )
})).shape

const rootArb = fc
  .uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), optional: fc.boolean(), of: shapeArb }), {
    selector: (f) => f.key,
    minLength: 1,
    maxLength: 4
  })
  .map((fields): Shape => ({ t: "object", fields }))

const zodOf = (shape: Shape): z.ZodType => {
  switch (shape.t) {
    case "string":
      return z.string()
    case "number":
      return z.number()
    case "boolean":
      return z.boolean()
    case "enum":
      return z.enum(shape.values)
    case "nullable":
      return zodOf(shape.of).nullable()
    case "array":
      return z.array(zodOf(shape.of))
    case "object":
      return z.object(
        Object.fromEntries(shape.fields.map((f) => [f.key, f.optional ? zodOf(f.of).optional() : zodOf(f.of)]))
      )
  }
}

const effectOf = (shape: Shape): Schema.Codec<unknown, unknown> => {
  switch (shape.t) {
    case "string":
      return Schema.String as Schema.Codec<unknown, unknown>
    case "number":
      return Schema.Finite as Schema.Codec<unknown, unknown>
    case "boolean":
      return Schema.Boolean as Schema.Codec<unknown, unknown>
    case "enum":
      return Schema.Literals(shape.values) as Schema.Codec<unknown, unknown>
    case "nullable":
      return Schema.NullOr(effectOf(shape.of)) as Schema.Codec<unknown, unknown>
    case "array":
      return Schema.Array(effectOf(shape.of)) as Schema.Codec<unknown, unknown>
    case "object":
      return Schema.Struct(
        Object.fromEntries(
          shape.fields.map((f) => [f.key, f.optional ? Schema.optionalKey(effectOf(f.of)) : effectOf(f.of)])
        )
      ) as Schema.Codec<unknown, unknown>
  }
}

// A value as the model writes it: an optional field left out, or sent as `null` (strict mode's form).
const valueArb = (shape: Shape): fc.Arbitrary<unknown> => {
  switch (shape.t) {
    case "string":
      return fc.string({ maxLength: 12 })
    case "number":
      return fc.oneof(
        fc.integer({ min: -1e6, max: 1e6 }),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
      )
    case "boolean":
      return fc.boolean()
    case "enum":
      return fc.constantFrom(...shape.values)
    case "nullable":
      return fc.option(valueArb(shape.of), { nil: null })
    case "array":
      return fc.array(valueArb(shape.of), { maxLength: 3 })
    case "object":
      return fc
        .tuple(
          ...shape.fields.map((f) =>
            f.optional
              ? fc.oneof(
                  fc.constant({ absent: true } as const),
                  fc.constant({ value: null }),
                  valueArb(f.of).map((value) => ({ value }))
                )
              : valueArb(f.of).map((value) => ({ value }))
          )
        )
        .map((values) => {
          const out: Record<string, unknown> = {}
          shape.fields.forEach((f, i) => {
            const v = values[i]!
            if (!("absent" in v)) out[f.key] = v.value
          })
          return out
        })
  }
}

const caseArb = rootArb.chain((shape) =>
  fc.tuple(fc.constant(shape), valueArb(shape), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean())
)

// ---- the stream and the answer ----

const piecesOf = (text: string, offsets: ReadonlyArray<number>): ReadonlyArray<string> => {
  const cuts = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b)
  const out: Array<string> = []
  let from = 0
  for (const cut of [...cuts, text.length]) {
    if (cut > from) out.push(text.slice(from, cut))
    from = Math.max(from, cut)
  }
  return out
}

const chunk = (content: string): ChatStreamEvent =>
  ({
    type: "chunk",
    chunk: { id: "c", created: 1, model: "m", choices: [{ index: 0, delta: { content } }] }
  }) as ChatStreamEvent
const completion = (content: string): ChatCompletion => ({
  id: "c",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }]
})

const growsInto = (partial: unknown, full: unknown): boolean => {
  if (typeof partial === "string") return typeof full === "string" && full.startsWith(partial)
  if (Array.isArray(partial))
    return Array.isArray(full) && partial.length <= full.length && partial.every((p, i) => growsInto(p, full[i]))
  if (typeof partial === "object" && partial !== null)
    return (
      typeof full === "object" &&
      full !== null &&
      !Array.isArray(full) &&
      Object.entries(partial).every(
        ([k, v]) => Object.hasOwn(full, k) && growsInto(v, (full as Record<string, unknown>)[k])
      )
    )
  return Object.is(partial, full)
}

describe("structured output read from a stream", () => {
  it("grows its partial values into the final one, which is the one-answer reading's, decoded", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ([shape, value, offsets, useZod]) => {
        const schema: AnySchema<unknown> = useZod ? zodOf(shape) : effectOf(shape)
        const prepared = Result.getOrThrow(prepareSchema(schema))
        const target = Result.getOrThrow(schemaTarget(prepared))
        const text = JSON.stringify(value)
        const read = partialReader(chatMechanism, prepared, target)
        const partials: Array<unknown> = []
        for (const piece of piecesOf(text, offsets)) {
          const p = read(chunk(piece))
          if (p !== Unchanged) partials.push(p)
        }
        const once = await Effect.runPromise(answerValue(chatMechanism, prepared, target, completion(text)))
        // The decoded value is the schema's own decoding of the answer, the nulls of optional fields left out.
        const direct = await Effect.runPromise(Effect.result(prepared.decodeAnswer(JSON.parse(text))))
        expect(Result.isSuccess(direct)).toBe(true)
        if (Result.isSuccess(direct)) expect(once.value).toEqual(direct.success)
        expect(once.text).toBe(text)
        const final = prepared.relax(JSON.parse(text))
        expect(partials.at(-1)).toEqual(final)
        for (const [i, partial] of partials.entries()) {
          if (!growsInto(partial, final)) expect({ partial, final }).toBe("a partial growing into the final value")
          if (i > 0 && !growsInto(partials[i - 1], partial))
            expect({ before: partials[i - 1], partial }).toBe("partials that grow")
        }
      }),
      { seed: 3402, numRuns: 300 }
    )
  })

  it("fits every generated schema for strict mode: closed objects, every property required", () => {
    fc.assert(
      fc.property(rootArb, fc.boolean(), (shape, useZod) => {
        const prepared = Result.getOrThrow(prepareSchema(useZod ? zodOf(shape) : effectOf(shape)))
        expect(prepared.strict).toBe(true)
        const walk = (node: unknown): void => {
          if (typeof node !== "object" || node === null) return
          const n = node as Record<string, unknown>
          if (n["type"] === "object") {
            expect(n["additionalProperties"]).toBe(false)
            expect(n["required"]).toEqual(Object.keys(n["properties"] as object))
          }
          for (const child of Object.values(n)) if (typeof child === "object") walk(child)
        }
        walk(prepared.schema)
      }),
      { seed: 3403 }
    )
  })
})
