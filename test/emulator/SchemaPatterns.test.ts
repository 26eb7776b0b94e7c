// Structured output and strict tool arguments honour JSON-schema `pattern` together with
// minLength/maxLength (zod's `.regex()` schemas): checked with RegExp and zod, and hostile patterns
// answer at once. The generator's unit cases are at the end.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as z from "zod"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { patternString } from "../../src/emulator/text/schema/PatternSample.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

/** Property name → [pattern, minLength, maxLength]. */
const FIELDS: Readonly<Record<string, readonly [string, number?, number?]>> = {
  sku: ["^[A-Z]{3}-\\d{4}$"],
  colour: ["^#[0-9a-f]{6}$"],
  slug: ["^[a-z]+$", 5, 9],
  phone: ["^\\+?[1-9]\\d{1,14}$"],
  version: ["^v\\d+\\.\\d+\\.\\d+(-(alpha|beta|rc)\\.\\d+)?$"],
  email: ["^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$", 10, 30],
  time: ["^(?:[01]\\d|2[0-3]):[0-5]\\d$"],
  code: ["^(?:[A-Z]{2}|\\d{3})(?:_[a-z0-9]{2,4}){2}$"],
  unanchored: ["[0-9]{4}", 12, 20],
  password: ["^(?=.*\\d)(?=.*[A-Z])[A-Za-z\\d]{8,16}$"]
}
const schema = {
  type: "object",
  properties: Object.fromEntries(
    Object.entries(FIELDS).map(([name, [pattern, min, max]]) => [
      name,
      {
        type: "string",
        pattern,
        ...(min === undefined ? {} : { minLength: min }),
        ...(max === undefined ? {} : { maxLength: max })
      }
    ])
  ),
  required: Object.keys(FIELDS),
  additionalProperties: false
}

const chat = async (body: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const res = await fetch(`${emu.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "a product" }], ...body })
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, unknown>
}

const expectFields = (value: Record<string, string>): void => {
  for (const [name, [pattern, min = 0, max = Infinity]] of Object.entries(FIELDS)) {
    const s = value[name]!
    expect(s, name).toMatch(new RegExp(pattern, "u"))
    expect([...s].length, name).toBeGreaterThanOrEqual(min)
    expect([...s].length, name).toBeLessThanOrEqual(max)
  }
}

type ChatAnswer = {
  choices: Array<{ message: { content: string; tool_calls: Array<{ function: { arguments: string } }> } }>
}

describe("string patterns in schemas", () => {
  it("answers structured output whose strings match their pattern and lengths", async () => {
    for (const prompt of ["a product", "another product", "a third one"]) {
      const answer = (await chat({
        messages: [{ role: "user", content: prompt }],
        response_format: { type: "json_schema", json_schema: { name: "product", strict: true, schema } }
      })) as ChatAnswer
      expectFields(JSON.parse(answer.choices[0]!.message.content) as Record<string, string>)
    }
  })

  it("answers strict tool arguments that match, and pass zod's regex schemas", async () => {
    const Product = z.object({
      sku: z.string().regex(/^[A-Z]{3}-\d{4}$/),
      colour: z.string().regex(/^#[0-9a-f]{6}$/),
      slug: z
        .string()
        .regex(/^[a-z]+$/)
        .min(5)
    })
    const answer = (await chat({
      tools: [{ type: "function", function: { name: "save", strict: true, parameters: schema } }],
      tool_choice: "required"
    })) as ChatAnswer
    expectFields(JSON.parse(answer.choices[0]!.message.tool_calls[0]!.function.arguments) as Record<string, string>)
    const zodAnswer = (await chat({
      response_format: {
        type: "json_schema",
        json_schema: { name: "p", strict: true, schema: z.toJSONSchema(Product, { target: "draft-7" }) }
      }
    })) as ChatAnswer
    expect(Product.safeParse(JSON.parse(zodAnswer.choices[0]!.message.content)).success).toBe(true)
  })

  it("answers at once for hostile patterns", async () => {
    const hostile = ["^(a+)+$", "((a{0}){10000}){10000}", "^(\\d{3})-\\1$", "(x+x+)+y", "^(?!.*)a$", "[", "^(a|a)*b$"]
    const started = Date.now()
    const answer = (await chat({
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "h",
          schema: {
            type: "object",
            properties: Object.fromEntries(
              hostile.map((p, i) => [`p${i}`, { type: "string", pattern: p, minLength: 40 }])
            ),
            required: hostile.map((_, i) => `p${i}`)
          }
        }
      }
    })) as ChatAnswer
    expect(Date.now() - started).toBeLessThan(2_000)
    const value = JSON.parse(answer.choices[0]!.message.content) as Record<string, string>
    expect(value.p0).toMatch(/^a{40,}$/)
  })
})

describe("patternString", () => {
  let seed = 7
  const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647

  it.each([
    ["^[A-Z]{3}-\\d{4}$", 0, Infinity],
    ["^(foo|bar)+baz?$", 7, 12],
    ["^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$", 0, Infinity],
    ["^\\p{L}{3,}$", 5, 8],
    ["^[\\u4e00-\\u9fa5]{2,4}$", 0, Infinity],
    ["^(ab)+$", 5, 9],
    ["^.{3,5}$", 0, Infinity],
    ["\\bword\\b", 0, Infinity],
    ["^(?=.*\\d)[a-z\\d]{8,}$", 0, Infinity],
    ["^[\\w.-]+$", 20, 20]
  ])("builds a string matching %s within [%d, %d]", (pattern, min, max) => {
    const s = patternString(pattern, { min, max }, 11, rnd)
    expect(s).toBeDefined()
    expect(s).toMatch(new RegExp(pattern, "u"))
    expect([...s!].length).toBeGreaterThanOrEqual(min)
    expect([...s!].length).toBeLessThanOrEqual(max)
  })

  it("gives up quickly on what it cannot build", () => {
    const started = Date.now()
    expect(patternString("((a{0}){10000}){10000}", { min: 0, max: Infinity }, 8, rnd)).toBeUndefined()
    expect(patternString("^(\\d)\\1$", { min: 0, max: Infinity }, 8, rnd)).toBeUndefined()
    expect(patternString("(", { min: 0, max: Infinity }, 8, rnd)).toBeUndefined()
    expect(Date.now() - started).toBeLessThan(1_000)
  })
})
