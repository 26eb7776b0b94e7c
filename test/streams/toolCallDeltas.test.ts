import { Effect, Exit, Result, Stream } from "effect"
import { from, lastValueFrom, Subject, toArray } from "rxjs"
import { describe, expect, it } from "vitest"
import { toolCallDeltas as toolCallDeltasStream } from "../../src/adapters/text/ToolCallDeltas.js"
import { IncompleteStream } from "../../src/core/errors/GatewayError.js"
import { decodeChatEventEither } from "../../src/core/text/chat/ChatResponse.js"
import { type ToolCallDelta, toolCallDeltas } from "../../src/streams/toolCallDeltas.js"
import { toolCalls } from "../../src/streams/toolCalls.js"
import type { TokenEvent } from "../../src/streams/TokenEvent.js"
import { record } from "../fixtures/TextStreams.js"
import { chatText, chatTool, messagesThinkingTool, native, responsesReasoningTool } from "./tokenStreams.js"

const rx = (events: ReadonlyArray<TokenEvent>) => lastValueFrom(from(events).pipe(toolCallDeltas(), toArray()))
const effect = (events: ReadonlyArray<TokenEvent>) =>
  Effect.runPromise(Stream.runCollect(toolCallDeltasStream(Stream.fromIterable(events))))

const streams: ReadonlyArray<readonly [string, ReadonlyArray<TokenEvent>]> = [
  ["messages", messagesThinkingTool],
  ["chat", chatTool],
  ["responses", responsesReasoningTool],
  ["native", native]
]

describe("toolCallDeltas()", () => {
  it("gives a messages call's input as it streams, then done", async () => {
    const base = { family: "messages", index: 1, id: "toolu_01", name: "get_weather" }
    expect(await rx(messagesThinkingTool)).toStrictEqual([
      { ...base, argumentsText: "", partial: undefined, done: false },
      { ...base, argumentsText: '{"city":', partial: {}, done: false },
      { ...base, argumentsText: '{"city":"Paris"}', partial: { city: "Paris" }, done: false },
      { ...base, argumentsText: '{"city":"Paris"}', partial: { city: "Paris" }, done: true }
    ])
  })

  it("gives chat calls by index, each done at the choice's finish_reason", async () => {
    const a = { family: "chat", index: 0, id: "call_a", name: "get_weather" }
    const b = { family: "chat", index: 1, id: "call_b", name: "get_time" }
    expect(await rx(chatTool)).toStrictEqual([
      { ...a, argumentsText: "", partial: undefined, done: false },
      { ...a, argumentsText: '{"city":', partial: {}, done: false },
      { ...b, argumentsText: "{}", partial: {}, done: false },
      { ...a, argumentsText: '{"city":"Paris"}', partial: { city: "Paris" }, done: false },
      { ...a, argumentsText: '{"city":"Paris"}', partial: { city: "Paris" }, done: true },
      { ...b, argumentsText: "{}", partial: {}, done: true }
    ])
  })

  it("gives a responses function call's arguments by output item", async () => {
    const base = { family: "responses", index: 1, id: "call_1", name: "get_weather" }
    expect(await rx(responsesReasoningTool)).toStrictEqual([
      { ...base, argumentsText: "", partial: undefined, done: false },
      { ...base, argumentsText: '{"city":', partial: {}, done: false },
      { ...base, argumentsText: '{"city":"Paris"}', partial: { city: "Paris" }, done: false },
      { ...base, argumentsText: '{"city":"Paris"}', partial: { city: "Paris" }, done: true }
    ])
  })

  it("gives a native call whole: one delta, done", async () => {
    expect(await rx(native)).toStrictEqual([
      {
        family: "native",
        index: 0,
        name: "log",
        argumentsText: '{"city":"Paris"}',
        partial: { city: "Paris" },
        done: true
      }
    ])
  })

  it("gives nothing for a text answer", async () => {
    expect(await rx(chatText)).toStrictEqual([])
  })

  it.each(streams)("ends each %s call with what toolCalls() gives", async (_, events) => {
    const done = (await rx(events)).filter((d) => d.done)
    const calls = await lastValueFrom(from(events).pipe(toolCalls(), toArray()))
    expect(done.map((d) => ({ id: d.id, name: d.name, arguments: d.argumentsText, input: d.partial }))).toStrictEqual(
      calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, input: c.input }))
    )
  })

  it.each(streams)("gives the same %s deltas on the Effect face", async (_, events) => {
    expect(await effect(events)).toStrictEqual(await rx(events))
  })

  it("errors with IncompleteStream when a finished call's arguments are not a JSON object, on both faces", async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      Result.getOrThrow(
        decodeChatEventEither(
          record({ id: "c", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })
        )
      )
    const broken = [
      chunk({
        tool_calls: [{ index: 0, id: "call_x", type: "function", function: { name: "f", arguments: '{"a":' } }]
      }),
      chunk({}, "tool_calls")
    ]
    const seen: Array<ToolCallDelta> = []
    const error = await lastValueFrom(from(broken).pipe(toolCallDeltas(), toArray())).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IncompleteStream)
    expect(error).toMatchObject({ reason: "out-of-order", family: "openai" })
    const exit = await Effect.runPromiseExit(
      Stream.runForEach(toolCallDeltasStream(Stream.fromIterable(broken)), (d) => Effect.sync(() => seen.push(d)))
    )
    expect(seen.map((d) => d.argumentsText)).toStrictEqual(['{"a":'])
    expect(Exit.isFailure(exit) && exit.cause.toString()).toContain("the arguments of tool call f (chat)")
  })

  it("keeps a reader per subscription and unsubscribes the source when unsubscribed", () => {
    const source = new Subject<TokenEvent>()
    const operator = source.pipe(toolCallDeltas())
    const first: Array<ToolCallDelta> = []
    const second: Array<ToolCallDelta> = []
    const s1 = operator.subscribe((d) => first.push(d))
    source.next(messagesThinkingTool[0]!)
    const s2 = operator.subscribe((d) => second.push(d))
    for (const e of messagesThinkingTool.slice(1)) source.next(e)
    expect(first.map((d) => d.argumentsText)).toStrictEqual(["", '{"city":', '{"city":"Paris"}', '{"city":"Paris"}'])
    expect(second).toStrictEqual(first)
    s1.unsubscribe()
    s2.unsubscribe()
    expect(source.observed).toBe(false)
  })
})
