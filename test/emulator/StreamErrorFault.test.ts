import Anthropic from "@anthropic-ai/sdk"
import { ApiError, GoogleGenAI } from "@google/genai"
import { Effect, Stream } from "effect"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { nativeSdkClient } from "../fixtures/nativeSdkClient.js"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startEmulator, type Emulator, type Fault } from "../../src/emulator/index.js"
import { parseSse, type RawEvent } from "./RawSse.js"

// The `sse-error` fault: HTTP 200, some events, then the family's own in-stream error (as upstream
// sends an overload mid-stream) and the end of the stream. umg must fail with the error's type and
// message, keeping what came before; the official clients must throw.
let emu: Emulator
let anthropic: Anthropic
let openai: OpenAI
let genai: GoogleGenAI
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  anthropic = new Anthropic({ apiKey: null, authToken: emu.apiKey, baseURL: emu.url, maxRetries: 0 })
  openai = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.url}/v1`, maxRetries: 0 })
  genai = nativeSdkClient(emu)
})
afterAll(() => emu.close())
beforeEach(() => {
  emu.clearFaults()
  emu.counters.reset()
})

const provide = <A, E>(effect: Effect.Effect<A, E, Gateway>): Effect.Effect<A, E> =>
  Effect.provide(
    effect,
    Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 10, retryMaxDelayMs: 40 })
  ) as Effect.Effect<A, E>
const run = <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<A> => Effect.runPromise(provide(effect))
const fail = <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<E> => Effect.runPromise(Effect.flip(provide(effect)))

/** What `f` threw (a test failure when it did not). */
const thrown = async (f: () => Promise<unknown>): Promise<unknown> => {
  try {
    await f()
  } catch (e) {
    return e
  }
  throw new Error("expected a throw")
}

/** Consumes an async iterable to its end. */
const drain = async (events: AsyncIterable<unknown>): Promise<void> => {
  for await (const _ of events) void _
}

/** An event's kind: its SSE name, else its `object`, else its first key (`candidates`, `error`). */
const kindOf = (e: RawEvent): string => {
  if (e.event !== undefined) return e.event
  const data = JSON.parse(e.data) as Record<string, unknown>
  return typeof data.object === "string" ? data.object : Object.keys(data)[0]!
}

type Json = Record<string, unknown>
const at = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>((v, k) => (typeof v === "object" && v !== null ? (v as Json)[k] : undefined), value)
const texts = (parts: unknown, field: "text"): string =>
  (Array.isArray(parts) ? (parts as Array<Json>) : [])
    .map((p) => p[field])
    .filter((t): t is string => typeof t === "string")
    .join("")

const prompt = "Hello there"
const messagesBody = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: prompt }]
}
const chatBody = { model: "gpt-4o", messages: [{ role: "user" as const, content: prompt }] }
const responsesBody = { model: "gpt-5", input: [{ role: "user" as const, content: prompt }] }
const nativeModel = "zeta-2.5-flash"
const nativeBody = { model: nativeModel, contents: [{ role: "user" as const, parts: [{ text: prompt }] }] }

interface FamilyCase {
  readonly name: string
  readonly route: string
  readonly afterEvents: number
  /** The kinds of the events on the wire: `afterEvents` ordinary ones, then the error. */
  readonly kinds: ReadonlyArray<string>
  /** The error event's exact data. */
  readonly errorData: (events: ReadonlyArray<RawEvent>) => unknown
  readonly raw: () => Promise<Response>
  readonly family: string
  readonly errorType: string
  readonly message: string
  readonly stream: Effect.Effect<void, unknown, Gateway>
  /** The whole answer's text (a unary call on the same body: the emulator answers deterministically). */
  readonly full: Effect.Effect<string, unknown, Gateway>
  readonly partialText: (partial: unknown) => string
  readonly sdk: () => Promise<void>
  readonly sdkError: (e: unknown) => void
}

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${emu.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const cases: ReadonlyArray<FamilyCase> = [
  {
    name: "messages-style",
    route: "messages",
    afterEvents: 4,
    kinds: ["message_start", "content_block_start", "ping", "content_block_delta", "error"],
    errorData: () => ({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    raw: () => post("/v1/messages", { ...messagesBody, stream: true }),
    family: "messages",
    errorType: "overloaded_error",
    message: "Overloaded",
    stream: Effect.flatMap(Gateway, (g) => Stream.runDrain(g.messages.stream(messagesBody))),
    full: Effect.map(
      Effect.flatMap(Gateway, (g) => g.messages.create(messagesBody)),
      (m) => texts(m.content, "text")
    ),
    partialText: (partial) => texts(at(partial, "message", "content"), "text"),
    sdk: async () => drain(await anthropic.messages.create({ ...messagesBody, stream: true })),
    sdkError: (e) => {
      expect(e).toBeInstanceOf(Anthropic.APIError)
      expect(e).toMatchObject({ type: "overloaded_error", apiMessage: "Overloaded" })
    }
  },
  {
    name: "chat completions",
    route: "chat",
    afterEvents: 3,
    kinds: ["chat.completion.chunk", "chat.completion.chunk", "chat.completion.chunk", "error"],
    errorData: () => ({
      error: {
        message: "The server is overloaded. Please try again later.",
        type: "server_error",
        param: null,
        code: null
      }
    }),
    raw: () => post("/v1/chat/completions", { ...chatBody, stream: true }),
    family: "openai",
    errorType: "server_error",
    message: "The server is overloaded. Please try again later.",
    stream: Effect.flatMap(Gateway, (g) => Stream.runDrain(g.chat.stream(chatBody))),
    full: Effect.map(
      Effect.flatMap(Gateway, (g) => g.chat.create(chatBody)),
      (c) => c.choices[0]?.message.content ?? ""
    ),
    partialText: (partial) => String(at(partial, "completion", "choices", 0, "message", "content") ?? ""),
    sdk: async () => drain(await openai.chat.completions.create({ ...chatBody, stream: true })),
    sdkError: (e) => {
      expect(e).toBeInstanceOf(OpenAI.APIError)
      expect(e).toMatchObject({ type: "server_error", message: "The server is overloaded. Please try again later." })
    }
  },
  {
    name: "responses",
    route: "responses",
    afterEvents: 6,
    kinds: [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "error"
    ],
    // The reference's flat fields and the live API's nested `error`, numbered after the events before it.
    errorData: () => {
      const error = {
        message: "The server is overloaded. Please try again later.",
        type: "server_error",
        param: null,
        code: "server_error"
      }
      return { type: "error", sequence_number: 6, code: "server_error", message: error.message, param: null, error }
    },
    raw: () => post("/v1/responses", { ...responsesBody, stream: true }),
    family: "openai",
    errorType: "server_error",
    message: "The server is overloaded. Please try again later.",
    stream: Effect.flatMap(Gateway, (g) => Stream.runDrain(g.responses.stream(responsesBody))),
    full: Effect.map(
      Effect.flatMap(Gateway, (g) => g.responses.create(responsesBody)),
      (r) => texts(at(r, "output", 0, "content"), "text")
    ),
    partialText: (partial) => texts(at(partial, "response", "output", 0, "content"), "text"),
    sdk: async () => drain(await openai.responses.create({ ...responsesBody, stream: true })),
    sdkError: (e) => {
      expect(e).toBeInstanceOf(OpenAI.APIError)
      expect(e).toMatchObject({ code: "server_error", type: "server_error" })
    }
  },
  {
    name: "native content",
    route: "native.stream",
    afterEvents: 2,
    kinds: ["candidates", "candidates", "error"],
    errorData: () => ({
      error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" }
    }),
    raw: () => post(`/v1beta/models/${nativeModel}:streamGenerateContent?alt=sse`, { contents: nativeBody.contents }),
    family: "native",
    errorType: "UNAVAILABLE",
    message: "The model is overloaded. Please try again later.",
    stream: Effect.flatMap(Gateway, (g) => Stream.runDrain(g.native.stream(nativeBody))),
    full: Effect.map(
      Effect.flatMap(Gateway, (g) => g.native.generate(nativeBody)),
      (r) => texts(at(r, "candidates", 0, "content", "parts"), "text")
    ),
    partialText: (partial) => texts(at(partial, "candidates", 0, "content", "parts"), "text"),
    sdk: async () => drain(await genai.models.generateContentStream(nativeBody)),
    sdkError: (e) => {
      expect(e).toBeInstanceOf(ApiError)
      expect(e).toMatchObject({ status: 503 })
      expect((e as Error).message).toContain("UNAVAILABLE")
    }
  }
]

const inject = (c: FamilyCase, fault: Partial<Extract<Fault, { kind: "sse-error" }>> = {}): void =>
  emu.inject(c.route, { kind: "sse-error", afterEvents: c.afterEvents, ...fault })

for (const c of cases) {
  describe(`the sse-error fault on the ${c.name} stream`, () => {
    it(`sends ${c.afterEvents} events, then the family's error event, then ends the stream cleanly`, async () => {
      inject(c)
      const res = await c.raw()
      expect(res.status).toBe(200)
      // `text()` rejects on a destroyed socket: the stream ends as upstream's does, not cut.
      const events = parseSse(await res.text())
      expect(events.map(kindOf)).toEqual(c.kinds)
      expect(JSON.parse(events.at(-1)!.data)).toEqual(c.errorData(events))
    })

    it("fails umg's stream with IncompleteStream naming the error's type and message, keeping the text before it", async () => {
      inject(c)
      const error = await fail(c.stream)
      expect(error).toMatchObject({
        _tag: "IncompleteStream",
        family: c.family,
        reason: "error-event",
        errorType: c.errorType,
        message: `stream error ${c.errorType}: ${c.message}`
      })
      expect(emu.counters.get(c.route)).toBe(1)
      const partial = c.partialText((error as { partial: unknown }).partial)
      const full = await run(c.full)
      expect(partial.length).toBeGreaterThan(0)
      expect(partial.length).toBeLessThan(full.length)
      expect(full.startsWith(partial)).toBe(true)
    })

    it("makes the official client throw its API error", async () => {
      inject(c)
      c.sdkError(await thrown(c.sdk))
    })
  })
}

describe("the sse-error fault's parameters", () => {
  const lastData = async (c: FamilyCase): Promise<unknown> => {
    const events = parseSse(await (await c.raw()).text())
    return JSON.parse(events.at(-1)!.data)
  }
  const [messages, chat, responses, native] = cases as [FamilyCase, FamilyCase, FamilyCase, FamilyCase]

  it("takes the error's type from status as the family's HTTP error would, and the message as given", async () => {
    const fault = { status: 429, message: "Slow down" }
    inject(messages, fault)
    expect(await lastData(messages)).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "Slow down" }
    })
    inject(chat, fault)
    expect(await lastData(chat)).toEqual({
      error: { message: "Slow down", type: "requests", param: null, code: "rate_limit_exceeded" }
    })
    inject(responses, fault)
    expect(await lastData(responses)).toMatchObject({
      code: "rate_limit_exceeded",
      message: "Slow down",
      error: { type: "requests", code: "rate_limit_exceeded", message: "Slow down" }
    })
    inject(native, fault)
    expect(await lastData(native)).toEqual({
      error: { code: 429, message: "Slow down", status: "RESOURCE_EXHAUSTED" }
    })
  })

  it("lets type override the status's type, and names the status when no message is given", async () => {
    inject(messages, { status: 500, type: "api_error" })
    expect(await lastData(messages)).toEqual({
      type: "error",
      error: { type: "api_error", message: "Injected stream error: HTTP 500" }
    })
    inject(native, { type: "INTERNAL" })
    expect(await lastData(native)).toEqual({
      error: { code: 503, message: "The model is overloaded. Please try again later.", status: "INTERNAL" }
    })
  })

  it("sends the error before the first event when afterEvents is 0, and leaves a shorter stream unchanged", async () => {
    inject(messages, { afterEvents: 0 })
    const first = parseSse(await (await messages.raw()).text())
    expect(first.map(kindOf)).toEqual(["error"])
    inject(messages, { afterEvents: 10_000 })
    const whole = parseSse(await (await messages.raw()).text())
    expect(whole.map(kindOf).at(-1)).toBe("message_stop")
  })
})
