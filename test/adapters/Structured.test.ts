import { describe, expect, it } from "vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as z from "zod"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import {
  chatParse,
  chatParseStream,
  messagesParse,
  messagesParseStream,
  type StructuredEvent
} from "../../src/adapters/structured/Parse.js"
import { makeFake, type Scripted } from "./fakeHttp.js"

const Movie = Schema.Struct({ title: Schema.String, year: Schema.Int })
const chatBody = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "A film" }] }
const messagesBody = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 256,
  messages: [{ role: "user" as const, content: "A film" }]
}

const withFake = <A, E>(script: ReadonlyArray<Scripted>, f: (g: GatewayService) => Effect.Effect<A, E>) => {
  const fake = makeFake(script)
  const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k", maxRetries: 0 }).pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
  )
  const exit = Effect.runPromiseExit(Effect.provide(Effect.flatMap(Gateway, f), layer))
  return { fake, exit }
}
const ok = async <A, E>(script: ReadonlyArray<Scripted>, f: (g: GatewayService) => Effect.Effect<A, E>) => {
  const { fake, exit } = withFake(script, f)
  const result = await exit
  if (result._tag === "Failure") throw new Error(`expected success: ${JSON.stringify(result.cause)}`)
  return { value: result.value, requests: fake.requests }
}
const failure = async <A, E>(script: ReadonlyArray<Scripted>, f: (g: GatewayService) => Effect.Effect<A, E>) => {
  const { fake, exit } = withFake(script, f)
  const result = await exit
  if (result._tag === "Success") throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`)
  const reason = result.cause.reasons[0]
  if (reason?._tag !== "Fail") throw new Error(`expected a typed failure: ${String(reason)}`)
  return { error: reason.error, requests: fake.requests }
}

const completion = (message: Record<string, unknown>, finish = "stop") => ({
  status: 200,
  body: {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-4o-mini",
    choices: [
      { index: 0, message: { role: "assistant", content: null, refusal: null, ...message }, finish_reason: finish }
    ]
  }
})
const sse = (payloads: ReadonlyArray<unknown>, done = true): Scripted => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  raw: payloads.map((p) => `data: ${JSON.stringify(p)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "")
})
const chatChunks = (pieces: ReadonlyArray<string>, done = true): Scripted =>
  sse(
    [
      ...pieces.map((content, i) => ({
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, delta: i === 0 ? { role: "assistant", content } : { content }, finish_reason: null }]
      })),
      {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }]
      }
    ],
    done
  )
const messagesSse = (
  blocks: ReadonlyArray<{ start: unknown; deltas: ReadonlyArray<unknown> }>,
  stop: string
): Scripted => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  raw: [
    {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "epsilon-sonnet-4-5-20250929",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 }
      }
    },
    ...blocks.flatMap((block, index) => [
      { type: "content_block_start", index, content_block: block.start },
      ...block.deltas.map((delta) => ({ type: "content_block_delta", index, delta })),
      { type: "content_block_stop", index }
    ]),
    { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: "message_stop" }
  ]
    .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
    .join("")
})

const answer = '{"title":"Alien","year":1979}'
const pieces = ['{"tit', 'le":"Al', 'ien","ye', 'ar":1979', "}"]

describe("parse and parseStream on hand-built answers", () => {
  it("sends the mechanism and the per-call options, and decodes the answer", async () => {
    const { value, requests } = await ok([completion({ content: answer })], (g) =>
      chatParse(g.chat.create)(chatBody, Movie, { name: "movie", headers: { "x-trace": "t1" } })
    )
    expect(value.value).toEqual({ title: "Alien", year: 1979 })
    expect(value.text).toBe(answer)
    expect(value.raw.choices[0]?.message.content).toBe(answer)
    const sent = requests[0]!
    expect(sent.headers["x-trace"]).toBe("t1")
    expect((sent.body as { response_format: unknown }).response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "movie", strict: true }
    })
  })

  it("the Final of parseStream is parse's value for the same answer", async () => {
    const parsed = await ok([completion({ content: answer })], (g) => chatParse(g.chat.create)(chatBody, Movie))
    const streamed = await ok([chatChunks(pieces)], (g) =>
      Stream.runCollect(chatParseStream(g.chat.stream)(chatBody, Movie))
    )
    const events: ReadonlyArray<StructuredEvent<typeof Movie.Type, unknown>> = streamed.value
    expect(events.map((e) => e.value)).toEqual([
      {},
      { title: "Al" },
      { title: "Alien" },
      { title: "Alien", year: 1979 },
      { title: "Alien", year: 1979 }
    ])
    expect(events.at(-1)).toMatchObject({ _tag: "Final", value: parsed.value.value, text: parsed.value.text })
    expect((streamed.requests[0]?.body as { stream: unknown }).stream).toBe(true)
  })

  it("a refusal is OutputRefused, streamed or not", async () => {
    const { error } = await failure([completion({ refusal: "I can't help with that." })], (g) =>
      chatParse(g.chat.create)(chatBody, Movie)
    )
    expect(error).toMatchObject({ _tag: "OutputRefused", family: "chat", refusal: "I can't help with that." })
    const refusalChunks = sse([
      {
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, delta: { role: "assistant", content: null, refusal: "No." }, finish_reason: "stop" }]
      }
    ])
    const streamed = await failure([refusalChunks], (g) =>
      Stream.runCollect(chatParseStream(g.chat.stream)(chatBody, Movie))
    )
    expect(streamed.error).toMatchObject({ _tag: "OutputRefused", refusal: "No." })
  })

  it("an answer that is not JSON, or does not match, is OutputMismatch with the raw text", async () => {
    const prose = "Sure! Alien (1979)."
    const notJson = await failure([completion({ content: prose })], (g) => chatParse(g.chat.create)(chatBody, Movie))
    expect(notJson.error).toMatchObject({ _tag: "OutputMismatch", family: "chat", raw: prose })
    expect((notJson.error as { issue: string }).issue).toMatch(/not JSON/)
    const wrong = '{"title":"Alien","year":"1979"}'
    const streamed = await failure([chatChunks([wrong.slice(0, 12), wrong.slice(12)])], (g) =>
      Stream.runCollect(chatParseStream(g.chat.stream)(chatBody, z.object({ title: z.string(), year: z.number() })))
    )
    expect(streamed.error).toMatchObject({ _tag: "OutputMismatch", raw: wrong })
    expect((streamed.error as { issue: string }).issue).toMatch(/^at \/year: /)
  })

  it("a cut stream fails as the group's stream does, not with a value", async () => {
    const { error } = await failure([chatChunks(pieces.slice(0, 2), false)], (g) =>
      Stream.runCollect(chatParseStream(g.chat.stream)(chatBody, Movie))
    )
    expect(error).toMatchObject({ _tag: "IncompleteStream" })
  })

  it("messages-style: reads the forced tool's input, and says so when the model answered in text", async () => {
    const tool = { type: "tool_use", id: "toolu_1", name: "structured_output", input: {} }
    const events = await ok(
      [
        messagesSse(
          [
            {
              start: tool,
              deltas: pieces.map((partial_json) => ({ type: "input_json_delta", partial_json }))
            }
          ],
          "tool_use"
        )
      ],
      (g) => Stream.runCollect(messagesParseStream(g.messages.stream)(messagesBody, Movie))
    )
    expect(events.value.at(-1)).toMatchObject({ _tag: "Final", value: { title: "Alien", year: 1979 } })
    const sent = events.requests[0]?.body as { tool_choice: unknown; tools: ReadonlyArray<{ name: string }> }
    expect(sent.tool_choice).toEqual({ type: "tool", name: "structured_output" })
    expect(sent.tools.map((t) => t.name)).toEqual(["structured_output"])
    const text = {
      status: 200,
      body: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "epsilon-sonnet-4-5-20250929",
        content: [{ type: "text", text: "Alien, 1979." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 }
      }
    }
    const { error } = await failure([text], (g) => messagesParse(g.messages.create)(messagesBody, Movie))
    expect(error).toMatchObject({ _tag: "OutputMismatch", family: "messages", raw: "Alien, 1979." })
  })

  it("refuses before sending: a body setting the mechanism itself, a bad name, an unexpressible schema", async () => {
    const cases = [
      (g: GatewayService) => chatParse(g.chat.create)({ ...chatBody, response_format: { type: "json_object" } }, Movie),
      (g: GatewayService) => chatParse(g.chat.create)(chatBody, Movie, { name: "a.b" }),
      (g: GatewayService) => chatParse(g.chat.create)(chatBody, Schema.Struct({ s: Schema.Symbol })),
      (g: GatewayService) =>
        Stream.runDrain(
          messagesParseStream(g.messages.stream)({ ...messagesBody, tool_choice: { type: "auto" } }, Movie)
        )
    ]
    const tags: Array<string> = []
    for (const f of cases) {
      const { error, requests } = await failure([completion({ content: answer })], f)
      tags.push((error as { _tag: string })._tag)
      expect(requests).toHaveLength(0)
    }
    expect(tags).toEqual(["InvalidRequest", "InvalidRequest", "SchemaNotExpressible", "InvalidRequest"])
  })
})
