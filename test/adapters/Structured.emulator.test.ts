import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Schema, Stream } from "effect"
import * as z from "zod"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import {
  chatParse,
  chatParseStream,
  messagesParse,
  messagesParseStream,
  nativeParse,
  nativeParseStream,
  type Parsed,
  type ParseOptions,
  responsesParse,
  responsesParseStream,
  type StructuredEvent
} from "../../src/adapters/structured/Parse.js"
import type { AnySchema } from "../../src/core/structured/AnySchema.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
})

const layer = () => Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 10, retryMaxDelayMs: 40 })
const run = <A, E>(f: (g: GatewayService) => Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromise(Effect.provide(Effect.flatMap(Gateway, f), layer()))
const fail = <A, E>(f: (g: GatewayService) => Effect.Effect<A, E>): Promise<E> =>
  Effect.runPromise(Effect.flip(Effect.provide(Effect.flatMap(Gateway, f), layer())))

const Movie = Schema.Struct({
  title: Schema.String,
  year: Schema.Int,
  genre: Schema.Literals(["drama", "comedy", "horror"]),
  tags: Schema.Array(Schema.String),
  director: Schema.Struct({ name: Schema.String, born: Schema.optional(Schema.Int) }),
  rating: Schema.NullOr(Schema.Finite)
})
const MovieZod = z.object({
  title: z.string(),
  year: z.number().int(),
  genre: z.enum(["drama", "comedy", "horror"]),
  tags: z.array(z.string()),
  director: z.object({ name: z.string(), born: z.number().int().optional() }),
  rating: z.number().nullable()
})

// One family's calls, written once: the body of a prompt, parse and parseStream.
interface Family {
  readonly name: string
  readonly parse: <A>(
    g: GatewayService,
    prompt: string,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Effect.Effect<Parsed<A, unknown>, { readonly _tag: string }>
  readonly stream: <A>(
    g: GatewayService,
    prompt: string,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Stream.Stream<StructuredEvent<A, unknown>, { readonly _tag: string }>
}

const families: ReadonlyArray<Family> = [
  {
    name: "chat",
    parse: (g, prompt, schema, options) =>
      chatParse(g.chat.create)(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt }] },
        schema,
        options
      ),
    stream: (g, prompt, schema, options) =>
      chatParseStream(g.chat.stream)(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt }] },
        schema,
        options
      )
  },
  {
    name: "responses",
    parse: (g, prompt, schema, options) =>
      responsesParse(g.responses.create)({ model: "gpt-4o-mini", input: prompt }, schema, options),
    stream: (g, prompt, schema, options) =>
      responsesParseStream(g.responses.stream)({ model: "gpt-4o-mini", input: prompt }, schema, options)
  },
  {
    name: "native",
    parse: (g, prompt, schema, options) =>
      nativeParse(g.native.generate)(
        { model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: prompt }] }] },
        schema,
        options
      ),
    stream: (g, prompt, schema, options) =>
      nativeParseStream(g.native.stream)(
        { model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: prompt }] }] },
        schema,
        options
      )
  },
  {
    name: "messages",
    parse: (g, prompt, schema, options) =>
      messagesParse(g.messages.create)(
        { model: "epsilon-sonnet-4-5-20250929", max_tokens: 1024, messages: [{ role: "user", content: prompt }] },
        schema,
        options
      ),
    stream: (g, prompt, schema, options) =>
      messagesParseStream(g.messages.stream)(
        { model: "epsilon-sonnet-4-5-20250929", max_tokens: 1024, messages: [{ role: "user", content: prompt }] },
        schema,
        options
      )
  }
]

// Whether `partial` could grow into `full`: strings are prefixes, arrays shorter with each member
// growing into its counterpart, objects with a subset of the keys.
const growsInto = (partial: unknown, full: unknown): boolean => {
  if (typeof partial === "string") return typeof full === "string" && full.startsWith(partial)
  if (Array.isArray(partial))
    return Array.isArray(full) && partial.length <= full.length && partial.every((p, i) => growsInto(p, full[i]))
  if (typeof partial === "object" && partial !== null)
    return (
      typeof full === "object" &&
      full !== null &&
      Object.entries(partial).every(
        ([k, v]) => Object.hasOwn(full, k) && growsInto(v, (full as Record<string, unknown>)[k])
      )
    )
  return partial === full
}

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe("structured output against the emulator", () => {
  for (const family of families) {
    describe(family.name, () => {
      it("parse decodes the answer with an Effect Schema", async () => {
        const parsed = await run((g) => family.parse(g, "Suggest a film.", Movie, { name: "movie" }))
        const value: typeof Movie.Type = parsed.value
        expect(["drama", "comedy", "horror"]).toContain(value.genre)
        expect(Number.isInteger(value.year)).toBe(true)
        expect(typeof value.director.name).toBe("string")
        expect(parsed.text).not.toBe("")
        expect(parsed.raw).toBeDefined()
        // The decoded value is the answer's JSON (the null of an optional field read as absent).
        const json = JSON.parse(parsed.text) as { director: { born?: unknown } }
        if (json.director.born === null) delete json.director.born
        expect(plain(value)).toEqual(json)
      })

      it("parse decodes the answer with a zod schema", async () => {
        const parsed = await run((g) => family.parse(g, "Suggest another film.", MovieZod))
        const value: z.infer<typeof MovieZod> = parsed.value
        expect(MovieZod.safeParse(value).success).toBe(true)
      })

      it("parseStream's partials grow into the final value, which is parse's", async () => {
        const prompt = "Suggest a film to stream."
        const events = await run((g) => Stream.runCollect(family.stream(g, prompt, MovieZod)))
        const parsed = await run((g) => family.parse(g, prompt, MovieZod))
        const final = events.at(-1)
        expect(final?._tag).toBe("Final")
        if (final?._tag !== "Final") return
        expect(final.value).toEqual(parsed.value)
        expect(final.text).toBe(parsed.text)
        const partials = events.slice(0, -1)
        expect(partials.length).toBeGreaterThan(2)
        expect(partials.every((e) => e._tag === "Partial")).toBe(true)
        const full = JSON.parse(final.text) as unknown
        for (const [i, event] of partials.entries()) {
          expect(growsInto(event.value, full), JSON.stringify(event.value)).toBe(true)
          if (i > 0) expect(growsInto(partials[i - 1]!.value, event.value)).toBe(true)
        }
      })

      it("a mismatching answer is an OutputMismatch with the raw text and the issue", async () => {
        const error = await fail((g) => family.parse(g, "Suggest a film. [umg:mismatch]", Movie))
        expect(error).toMatchObject({ _tag: "OutputMismatch", family: family.name })
        const mismatch = error as unknown as { raw: string; issue: string; message: string }
        expect(mismatch.issue).toMatch(/^at \//)
        expect(() => JSON.parse(mismatch.raw) as unknown).not.toThrow()
        const streamed = await fail((g) =>
          Stream.runDrain(family.stream(g, "Suggest a film. [umg:mismatch]", MovieZod))
        )
        expect(streamed).toMatchObject({ _tag: "OutputMismatch", family: family.name })
      })

      it("a schema that cannot be expressed is refused before anything is sent", async () => {
        emu.counters.reset()
        const error = await fail((g) =>
          family.parse(g, "x", Schema.Struct({ title: Schema.String, extra: Schema.Unknown }))
        )
        expect(error).toMatchObject({ _tag: "SchemaNotExpressible", path: "/properties/extra" })
        const streamed = await fail((g) => Stream.runDrain(family.stream(g, "x", z.object({ a: z.bigint() }))))
        expect(streamed).toMatchObject({ _tag: "SchemaNotExpressible" })
        const badName = await fail((g) => family.parse(g, "x", Movie, { name: "not a name" }))
        expect(badName).toMatchObject({ _tag: "InvalidRequest", field: "name" })
        expect(emu.counters.snapshot()).toEqual({})
      })
    })
  }

  it("a root that is not an object is sent wrapped and given back unwrapped", async () => {
    const parsed = await run((g) => families[0]!.parse(g, "List some tags.", Schema.Array(Schema.String)))
    expect(Array.isArray(parsed.value)).toBe(true)
    expect(JSON.parse(parsed.text)).toEqual({ value: parsed.value })
  })

  it("an answer the output limit cut short says so in its OutputMismatch (chat, native)", async () => {
    const messages = [{ role: "user" as const, content: "Suggest a film." }]
    const chat = await fail((g) => g.chat.parse({ model: "gpt-4o", messages, max_tokens: 5 }, Movie))
    expect(chat).toMatchObject({ _tag: "OutputMismatch", family: "chat" })
    expect((chat as { message: string }).message).toContain(
      "(cut short by the output limit, finish_reason: length; allow more output tokens)"
    )
    const native = await fail((g) =>
      g.native.parse(
        {
          model: "zeta-2.5-flash",
          contents: [{ role: "user", parts: [{ text: "Suggest a film." }] }],
          generationConfig: { maxOutputTokens: 5 }
        },
        Movie
      )
    )
    expect((native as { message: string }).message).toContain("finishReason: MAX_TOKENS")
  })

  it("a recursive schema is sent with $defs and decoded", async () => {
    interface Tree {
      readonly name: string
      readonly children: ReadonlyArray<Tree>
    }
    const TreeSchema: Schema.Codec<Tree> = Schema.Struct({
      name: Schema.String,
      children: Schema.Array(Schema.suspend(() => TreeSchema))
    })
    for (const family of families) {
      const parsed = await run((g) => family.parse(g, "A small tree.", TreeSchema))
      expect(typeof parsed.value.name, family.name).toBe("string")
      expect(Array.isArray(parsed.value.children)).toBe(true)
    }
  })
})
