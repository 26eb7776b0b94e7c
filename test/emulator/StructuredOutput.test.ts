import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as z from "zod"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { families, post, send, sendRefused, sendStream, type Any } from "./TextFamilies.js"

// The emulator answers each family's structured-output request (messages-style output_config.format,
// chat response_format, responses text.format, native responseMimeType + schema) with JSON that
// matches the schema, checked here by zod's own reading of the JSON Schema (an independent validator).
let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const person = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 3, maxLength: 12 },
    age: { type: "integer", minimum: 0, maximum: 120 }
  },
  required: ["name", "age"],
  additionalProperties: false
}

/** A schema with a bit of everything the emulator supports. */
const rich = {
  type: "object",
  properties: {
    id: { type: "string", format: "uuid" },
    email: { type: "string", format: "email" },
    at: { type: "string", format: "date-time" },
    day: { type: "string", format: "date" },
    count: { type: "integer", minimum: 3, maximum: 9 },
    step: { type: "integer", multipleOf: 5, minimum: 11 },
    ratio: { type: "number", exclusiveMinimum: 0, maximum: 1 },
    ok: { type: "boolean" },
    colour: { type: "string", enum: ["red", "green", "blue"] },
    kind: { const: "paint" },
    tags: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 4 },
    note: { type: ["string", "null"] },
    maybe: { anyOf: [{ type: "integer" }, { type: "null" }] },
    owner: { $ref: "#/$defs/person" },
    friends: { type: "array", items: { $ref: "#/$defs/person" }, maxItems: 2 },
    shape: {
      oneOf: [
        { type: "object", properties: { type: { const: "circle" }, r: { type: "number" } }, required: ["type", "r"] },
        {
          type: "object",
          properties: { type: { const: "square" }, side: { type: "number" } },
          required: ["type", "side"]
        }
      ]
    }
  },
  required: [
    "id",
    "email",
    "at",
    "day",
    "count",
    "step",
    "ratio",
    "ok",
    "colour",
    "kind",
    "tags",
    "note",
    "maybe",
    "owner",
    "friends",
    "shape"
  ],
  additionalProperties: false,
  $defs: { person }
}

const validator = (schema: unknown) => z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])

describe.each(families)("structured output, $name", (f) => {
  const prompt = f.prompt("Describe a paint order.")

  it("answers JSON that matches the schema: formats, bounds, enums, const, arrays, nullable, unions and $ref", async () => {
    const turn = await send(emu, f, prompt, { schema: rich })
    const value = JSON.parse(turn.text) as Record<string, unknown>
    const check = validator(rich).safeParse(value)
    expect(check.error).toBeUndefined()
    expect((value.tags as Array<string>).length).toBeGreaterThanOrEqual(2)
    expect(value.kind).toBe("paint")
  })

  it("gives the same JSON for the same request and another for another prompt", async () => {
    const a = await send(emu, f, prompt, { schema: rich })
    const b = await send(emu, f, prompt, { schema: rich })
    const c = await send(emu, f, f.prompt("Describe another order."), { schema: rich })
    expect(a.text).toBe(b.text)
    expect(c.text).not.toBe(a.text)
  })

  it("streams the JSON in several deltas that join to the unary answer", async () => {
    const unary = await send(emu, f, prompt, { schema: rich })
    const streamed = await sendStream(emu, f, prompt, { schema: rich })
    expect(streamed.text.length).toBeGreaterThan(5)
    expect(streamed.text.join("")).toBe(unary.text)
  })

  it("answers a forced tool's arguments that match its schema (the messages-style mechanism)", async () => {
    const turn = await send(emu, f, prompt, { tools: [{ name: "emit", schema: rich }], choice: { tool: "emit" } })
    expect(turn.calls.map((c) => c.name)).toEqual(["emit"])
    expect(validator(rich).safeParse(turn.calls[0]!.args).error).toBeUndefined()
  })

  it("answers a value that does not match when the prompt carries [umg:mismatch]", async () => {
    const turn = await send(emu, f, f.prompt("Describe a paint order. [umg:mismatch]"), { schema: rich })
    const value = JSON.parse(turn.text) as unknown
    expect(validator(rich).safeParse(value).success).toBe(false)
    // The first required property has the wrong type; the rest keeps its shape.
    expect(value).toMatchObject({ id: 0.5, kind: "paint" })
  })

  it("refuses a schema beyond the emulator's bounds with the family's 400 naming the part", async () => {
    const huge = { type: "object", properties: { list: { type: "array", minItems: 100_000 } }, required: ["list"] }
    expect(await sendRefused(emu, f, f.body(prompt, { schema: huge }))).toContain("#/properties/list/minItems")
    const endless = { type: "object", properties: { next: { $ref: "#" } }, required: ["next"] }
    expect(await sendRefused(emu, f, f.body(prompt, { schema: endless }))).toMatch(
      /#\/properties\/next: the schema needs values nested deeper than 24 levels/
    )
    const dangling = { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }
    expect(await sendRefused(emu, f, f.body(prompt, { schema: dangling }))).toContain("#/properties/a/$ref")
    const wide = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 2100 }, (_, i) => [`p${i}`, {}]))
    }
    expect(await sendRefused(emu, f, f.body(prompt, { schema: wide }))).toContain("more than 2000 subschemas")
  })
})

describe.each(families.filter((f) => f.name !== "messages-style"))("plain JSON mode, $name", (f) => {
  it("answers a JSON object when no schema is given", async () => {
    const turn = await send(emu, f, f.prompt("Anything."), { schema: null })
    expect(JSON.parse(turn.text)).toEqual({ answer: expect.any(String) })
  })
})

describe("structured output, native OpenAPI subset", () => {
  const native = families.find((f) => f.name === "native")!

  /** The OpenAPI subset as JSON Schema for the validator: lower-case types, int64 strings as numbers. */
  const lower = (s: unknown): unknown =>
    Array.isArray(s)
      ? s.map(lower)
      : typeof s === "object" && s !== null
        ? Object.fromEntries(
            Object.entries(s).map(([k, v]) => [
              k,
              k === "type" && typeof v === "string"
                ? v.toLowerCase()
                : (k === "minItems" || k === "maxItems") && typeof v === "string"
                  ? Number(v)
                  : k === "properties"
                    ? Object.fromEntries(Object.entries(v as object).map(([n, x]) => [n, lower(x)]))
                    : lower(v)
            ])
          )
        : s

  it("answers responseSchema with upper-case types, nullable and int64 strings", async () => {
    const responseSchema = {
      type: "OBJECT",
      properties: {
        title: { type: "STRING" },
        year: { type: "INTEGER", minimum: 1900, maximum: 1999 },
        genres: { type: "ARRAY", items: { type: "STRING", format: "enum", enum: ["drama", "comedy"] }, minItems: "2" },
        sequel: { type: "STRING", nullable: true },
        rating: { type: "NUMBER", minimum: 0, maximum: 10 }
      },
      required: ["title", "year", "genres", "sequel", "rating"],
      propertyOrdering: ["year", "title"]
    }
    const res = await post(emu, native.path, {
      contents: native.prompt("A film."),
      generationConfig: { responseMimeType: "application/json", responseSchema }
    })
    const turn = native.read((await res.json()) as Any)
    expect(Object.keys(JSON.parse(turn.text) as object).slice(0, 2)).toEqual(["year", "title"])
    const check = z
      .fromJSONSchema(lower(responseSchema) as Parameters<typeof z.fromJSONSchema>[0], { defaultTarget: "openapi-3.0" })
      .safeParse(JSON.parse(turn.text))
    expect(check.error).toBeUndefined()
  })

  it("answers text/x.enum with the first enum value as plain text", async () => {
    const res = await post(emu, native.path, {
      contents: native.prompt("Pick one."),
      generationConfig: { responseMimeType: "text/x.enum", responseSchema: { type: "STRING", enum: ["yes", "no"] } }
    })
    expect(native.read((await res.json()) as Any).text).toBe("yes")
  })
})
