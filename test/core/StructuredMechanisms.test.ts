import { Effect, Exit, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { answerValue, partialReader, Unchanged } from "../../src/core/structured/Answer.js"
import { type AnySchema, prepareSchema } from "../../src/core/structured/AnySchema.js"
import {
  chatMechanism,
  defaultSchemaName,
  type Mechanism,
  messagesMechanism,
  nativeMechanism,
  responsesMechanism,
  type SchemaTarget,
  schemaTarget
} from "../../src/core/structured/Mechanisms.js"
import type { ChatBodyInput } from "../../src/core/text/chat/ChatBody.js"
import type { MessagesBodyInput } from "../../src/core/text/messages/Messages.js"
import type { ChatCompletion } from "../../src/core/text/chat/ChatResponse.js"
import type { MessagesEvent } from "../../src/core/text/messages/MessagesEvents.js"
import type { Message } from "../../src/core/text/messages/MessagesResponse.js"
import type { GenerateContentResponse } from "../../src/core/text/native/NativeResponse.js"
import type { ResponsesResponse } from "../../src/core/text/responses/ResponsesResponse.js"

const Movie = Schema.Struct({ title: Schema.String, year: Schema.Int, note: Schema.optional(Schema.String) })
const prepared = Result.getOrThrow(prepareSchema(Movie))
const target: SchemaTarget = Result.getOrThrow(schemaTarget(prepared, { name: "movie", description: "A film" }))

const chatAnswer = (
  message: Partial<ChatCompletion["choices"][number]["message"]>,
  finish = "stop"
): ChatCompletion => ({
  id: "c",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finish }]
})
const responsesAnswer = (content: ReadonlyArray<Record<string, unknown>>, status = "completed"): ResponsesResponse =>
  ({
    id: "r",
    object: "response",
    created_at: 1,
    model: "gpt-4o-mini",
    status,
    output: [{ type: "message", id: "m", role: "assistant", content }]
  }) as unknown as ResponsesResponse
const nativeAnswer = (
  parts: ReadonlyArray<Record<string, unknown>>,
  finishReason = "STOP"
): GenerateContentResponse => ({
  candidates: [{ content: { role: "model", parts }, finishReason }]
})
const messagesAnswer = (content: ReadonlyArray<Record<string, unknown>>, stop = "tool_use"): Message =>
  ({
    id: "msg",
    type: "message",
    role: "assistant",
    model: "epsilon",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 }
  }) as unknown as Message

const outcome = async <A, B, R, Ev>(
  mechanism: Mechanism<B, R, Ev>,
  response: R,
  schema: AnySchema<A> = Movie as never
) => {
  const p = Result.getOrThrow(prepareSchema(schema))
  const exit = await Effect.runPromiseExit(answerValue(mechanism, p, target, response))
  if (Exit.isSuccess(exit)) return exit.value
  const reason = exit.cause.reasons[0]
  if (reason?._tag !== "Fail") throw new Error("expected a typed failure")
  return reason.error
}

describe("schemaTarget", () => {
  it("checks the name and turns strict on only when the schema fits and it is not turned off", () => {
    expect(Result.getOrThrow(schemaTarget(prepared)).name).toBe(defaultSchemaName)
    expect(target).toMatchObject({ name: "movie", description: "A film", strict: true })
    expect(Result.getOrThrow(schemaTarget(prepared, { strict: false })).strict).toBe(false)
    expect(Result.getOrThrow(schemaTarget({ ...prepared, strict: false }, { strict: true })).strict).toBe(false)
    for (const name of ["", "has space", "a".repeat(65), "naïve"]) {
      const bad = schemaTarget(prepared, { name })
      expect(Result.isFailure(bad) && bad.failure).toMatchObject({
        _tag: "InvalidRequest",
        field: "name",
        rule: "pattern"
      })
      expect(Result.isFailure(bad) && bad.failure.message).toContain("^[a-zA-Z0-9_-]{1,64}$")
    }
    expect(Result.isSuccess(schemaTarget(prepared, { name: "a".repeat(64) }))).toBe(true)
  })
})

describe("request: each family's mechanism", () => {
  it("chat: response_format json_schema with name, description, schema and strict", () => {
    const input: ChatBodyInput = { model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] }
    const body = Result.getOrThrow(chatMechanism.request(input, target))
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "movie", description: "A film", schema: prepared.schema, strict: true }
    })
  })

  it("responses: text.format json_schema, keeping the other text members", () => {
    const body = Result.getOrThrow(
      responsesMechanism.request({ model: "gpt-4o-mini", input: "x", text: { verbosity: "low" } }, target)
    )
    expect(body.text).toEqual({
      verbosity: "low",
      format: { type: "json_schema", name: "movie", description: "A film", schema: prepared.schema, strict: true }
    })
  })

  it("native: responseMimeType application/json and responseJsonSchema, keeping generationConfig", () => {
    const body = Result.getOrThrow(
      nativeMechanism.request({ model: "zeta-2.5-flash", contents: [], generationConfig: { temperature: 0.5 } }, target)
    )
    expect(body.generationConfig).toEqual({
      temperature: 0.5,
      responseMimeType: "application/json",
      responseJsonSchema: prepared.schema
    })
    expect(
      Result.isSuccess(
        nativeMechanism.request(
          { model: "zeta-2.5-flash", contents: [], generationConfig: { responseMimeType: "application/json" } },
          target
        )
      )
    ).toBe(true)
  })

  it("messages-style: a forced tool whose input_schema is the schema, after the caller's tools", () => {
    const own = { name: "search", input_schema: { type: "object" as const } }
    const input: MessagesBodyInput = { model: "epsilon", max_tokens: 10, messages: [], tools: [own] }
    const body = Result.getOrThrow(messagesMechanism.request(input, target))
    expect(body.tools).toEqual([own, { name: "movie", description: "A film", input_schema: prepared.schema }])
    expect(body.tool_choice).toEqual({ type: "tool", name: "movie" })
  })

  it("refuses a body that sets the mechanism's fields itself, naming the field", () => {
    const cases: ReadonlyArray<
      readonly [Result.Result<unknown, { readonly field: string; readonly message: string }>, string]
    > = [
      [
        chatMechanism.request({ model: "m", messages: [], response_format: { type: "json_object" } }, target),
        "response_format"
      ],
      [chatMechanism.request({ model: "m", messages: [], extra: { response_format: {} } }, target), "response_format"],
      [
        responsesMechanism.request({ model: "m", input: "x", text: { format: { type: "text" } } }, target),
        "text.format"
      ],
      [
        nativeMechanism.request(
          { model: "m", contents: [], generationConfig: { responseSchema: { type: "OBJECT" } } },
          target
        ),
        "generationConfig.responseSchema"
      ],
      [
        nativeMechanism.request(
          { model: "m", contents: [], generationConfig: { responseMimeType: "text/plain" } },
          target
        ),
        "generationConfig.responseMimeType"
      ],
      [
        messagesMechanism.request({ model: "m", max_tokens: 1, messages: [], tool_choice: { type: "auto" } }, target),
        "tool_choice"
      ],
      [
        messagesMechanism.request(
          { model: "m", max_tokens: 4096, messages: [], thinking: { type: "enabled", budget_tokens: 2048 } },
          target
        ),
        "thinking"
      ]
    ]
    for (const [result, field] of cases) {
      expect(Result.isFailure(result), field).toBe(true)
      if (Result.isFailure(result)) {
        expect(result.failure).toMatchObject({ field, rule: "conflict" })
        expect(result.failure.message).toMatch(new RegExp(`^${field.replace(/\./g, "\\.")}: .*allowed: `))
      }
    }
  })
})

describe("answerValue: reading each family's answer", () => {
  const json = '{"title":"Alien","year":1979,"note":null}'
  const value = { title: "Alien", year: 1979 }

  it("decodes the JSON text of every family, dropping the null of an optional field", async () => {
    expect(await outcome(chatMechanism, chatAnswer({ content: json }))).toEqual({ value, text: json })
    expect(await outcome(responsesMechanism, responsesAnswer([{ type: "output_text", text: json }]))).toEqual({
      value,
      text: json
    })
    const split = [{ text: json.slice(0, 10) }, { text: "thinking", thought: true }, { text: json.slice(10) }]
    expect(await outcome(nativeMechanism, nativeAnswer(split))).toEqual({ value, text: json })
    const input = { title: "Alien", year: 1979, note: null }
    const message = messagesAnswer([
      { type: "text", text: "Here:" },
      { type: "tool_use", id: "t", name: "movie", input }
    ])
    expect(await outcome(messagesMechanism, message)).toEqual({ value, text: JSON.stringify(input) })
  })

  it("a value that does not match is an OutputMismatch with the raw text and the issue", async () => {
    const raw = '{"title":"Alien","year":"1979","note":null}'
    const error = await outcome(chatMechanism, chatAnswer({ content: raw }))
    expect(error).toMatchObject({ _tag: "OutputMismatch", family: "chat", raw })
    expect((error as { issue: string }).issue).toMatch(/^at \/year: /)
    const zodError = await outcome(
      responsesMechanism,
      responsesAnswer([{ type: "output_text", text: raw }]),
      z.object({ year: z.number() })
    )
    expect(zodError).toMatchObject({ _tag: "OutputMismatch", family: "responses", raw })
  })

  it("text that is not JSON (cut short, or prose) is an OutputMismatch too", async () => {
    for (const raw of ['{"title":"Ali', "Sure! Here is a movie."]) {
      const error = await outcome(nativeMechanism, nativeAnswer([{ text: raw }], "MAX_TOKENS"))
      expect(error).toMatchObject({ _tag: "OutputMismatch", family: "native", raw })
      expect((error as { message: string }).message).toMatch(/not JSON/)
    }
  })

  it("an answer the output limit ended says so, in every family; one that ended by itself does not", async () => {
    const cutText = '{"title":"Ali'
    const cases = [
      [await outcome(chatMechanism, chatAnswer({ content: cutText }, "length")), "finish_reason: length"],
      [
        await outcome(responsesMechanism, {
          ...responsesAnswer([{ type: "output_text", text: cutText }], "incomplete"),
          incomplete_details: { reason: "max_output_tokens" }
        } as ResponsesResponse),
        "status: incomplete (max_output_tokens)"
      ],
      [await outcome(nativeMechanism, nativeAnswer([{ text: cutText }], "MAX_TOKENS")), "finishReason: MAX_TOKENS"],
      [
        await outcome(
          messagesMechanism,
          messagesAnswer([{ type: "tool_use", id: "t", name: "movie", input: { title: "Ali" } }], "max_tokens")
        ),
        "stop_reason: max_tokens"
      ]
    ] as const
    for (const [error, cut] of cases) {
      expect(error).toMatchObject({ _tag: "OutputMismatch" })
      expect((error as { message: string }).message, cut).toContain(
        `(cut short by the output limit, ${cut}; allow more output tokens)`
      )
    }
    const whole = await outcome(chatMechanism, chatAnswer({ content: "Sure! Here is a movie." }))
    expect((whole as { message: string }).message).not.toContain("cut short")
  })

  it("a refusal is an OutputRefused carrying the model's words", async () => {
    expect(await outcome(chatMechanism, chatAnswer({ refusal: "I can't help with that." }))).toMatchObject({
      _tag: "OutputRefused",
      family: "chat",
      refusal: "I can't help with that."
    })
    expect(await outcome(chatMechanism, chatAnswer({}, "content_filter"))).toMatchObject({ _tag: "OutputRefused" })
    expect(await outcome(responsesMechanism, responsesAnswer([{ type: "refusal", refusal: "No." }]))).toMatchObject({
      _tag: "OutputRefused",
      refusal: "No."
    })
    expect(await outcome(nativeMechanism, nativeAnswer([], "SAFETY"))).toMatchObject({
      _tag: "OutputRefused",
      refusal: "finishReason: SAFETY"
    })
    expect(
      await outcome(nativeMechanism, { promptFeedback: { blockReason: "SAFETY" } } satisfies GenerateContentResponse)
    ).toMatchObject({ _tag: "OutputRefused" })
    expect(
      await outcome(messagesMechanism, messagesAnswer([{ type: "text", text: "I won't." }], "refusal"))
    ).toMatchObject({ _tag: "OutputRefused", family: "messages", refusal: "I won't." })
  })

  it("no structured answer at all is an OutputMismatch saying why", async () => {
    const chat = await outcome(chatMechanism, chatAnswer({ content: null }, "length"))
    expect(chat).toMatchObject({
      _tag: "OutputMismatch",
      raw: "",
      issue: "the answer has no content (finish_reason: length)"
    })
    const messages = await outcome(messagesMechanism, messagesAnswer([{ type: "text", text: "Hi" }], "end_turn"))
    expect(messages).toMatchObject({
      _tag: "OutputMismatch",
      raw: "Hi",
      issue: "the answer has no tool_use block named movie (stop_reason: end_turn)"
    })
  })
})

describe("partialReader", () => {
  it("grows the value from chat content pieces, a piece that shows nothing new giving nothing", () => {
    const read = partialReader(chatMechanism, prepared, target)
    const chunk = (content: string) =>
      ({
        type: "chunk",
        chunk: { id: "c", created: 1, model: "m", choices: [{ index: 0, delta: { content } }] }
      }) as const
    const seen: Array<unknown> = []
    for (const piece of ['{"ti', 'tle":"Al', "ien", '","year":19', "79", ',"note":null}']) seen.push(read(chunk(piece)))
    // A closing quote shows nothing new (before, it gave the same value again); a number shows once it
    // cannot grow. The partial value is not decoded: Effect's JSON codec reads the null of `note`
    // (optional) as absent.
    expect(seen).toEqual([
      {},
      { title: "Al" },
      { title: "Alien" },
      Unchanged,
      Unchanged,
      { title: "Alien", year: 1979, note: null }
    ])
  })

  it("reads only the forced tool's input_json_delta on messages-style", () => {
    const read = partialReader(messagesMechanism, prepared, target)
    const events: ReadonlyArray<MessagesEvent> = [
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "a", name: "other", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"title":"X"' } },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "b", name: "movie", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"title":"Y' } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '","year":2}' } }
    ] as unknown as ReadonlyArray<MessagesEvent>
    expect(events.map(read)).toEqual([Unchanged, Unchanged, Unchanged, { title: "Y" }, { title: "Y", year: 2 }])
  })

  it("unwraps a wrapped root once its value shows", () => {
    const list = Result.getOrThrow(prepareSchema(Schema.Array(Schema.Number)))
    const t = Result.getOrThrow(schemaTarget(list))
    const read = partialReader(responsesMechanism, list, t)
    const delta = (d: string) => ({ type: "response.output_text.delta", delta: d }) as never
    expect(['{"val', 'ue":[1,', "2]}"].map((d) => read(delta(d)))).toEqual([Unchanged, [1], [1, 2]])
  })
})
