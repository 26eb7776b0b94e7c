import { Result } from "effect"
import { from, lastValueFrom, map, toArray } from "rxjs"
import { TestScheduler } from "rxjs/testing"
import { describe, expect, it } from "vitest"
import { decodeChatEventEither } from "../../src/core/text/chat/ChatResponse.js"
import { IncompleteStream } from "../../src/core/errors/GatewayError.js"
import { toolCalls } from "../../src/streams/toolCalls.js"
import type { TokenEvent } from "../../src/streams/TokenEvent.js"
import { record } from "../fixtures/TextStreams.js"
import { chatText, chatTool, messagesThinkingTool, native, responsesReasoningTool } from "./tokenStreams.js"

const calls = (events: ReadonlyArray<TokenEvent>) => lastValueFrom(from(events).pipe(toolCalls(), toArray()))

describe("toolCalls", () => {
  it("emits a messages tool_use with its streamed input parsed, at the block's stop", async () => {
    expect(await calls(messagesThinkingTool)).toEqual([
      {
        family: "messages",
        id: "toolu_01",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        input: { city: "Paris" }
      }
    ])
  })

  it("emits the call as soon as content_block_stop arrives, before the message ends", () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable }) => {
      const letters = "abcdefghijk"
      const values = Object.fromEntries(messagesThinkingTool.map((e, i) => [letters[i]!, e]))
      const source = cold(`${letters.slice(0, messagesThinkingTool.length)}|`, values)
      // Block 1 stops at the 9th event (index 8): the call comes out in that frame.
      expectObservable(
        source.pipe(
          toolCalls(),
          map((c) => c.name)
        )
      ).toBe("--------x--|", { x: "get_weather" })
    })
  })

  it("emits native function calls as their parts arrive", async () => {
    expect(await calls(native)).toEqual([
      { family: "native", id: undefined, name: "log", arguments: '{"city":"Paris"}', input: { city: "Paris" } }
    ])
  })

  it("emits chat tool calls joined by index at the choice's finish_reason", async () => {
    expect(await calls(chatTool)).toEqual([
      { family: "chat", id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}', input: { city: "Paris" } },
      { family: "chat", id: "call_b", name: "get_time", arguments: "{}", input: {} }
    ])
  })

  it("emits a responses function_call at its output_item.done", async () => {
    expect(await calls(responsesReasoningTool)).toEqual([
      {
        family: "responses",
        id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        input: { city: "Paris" }
      }
    ])
  })

  it("emits nothing for a text answer", async () => {
    expect(await calls(chatText)).toEqual([])
  })

  it("errors with IncompleteStream when streamed arguments are not a JSON object", async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      Result.getOrThrow(
        decodeChatEventEither(
          record({
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "m",
            choices: [{ index: 0, delta, finish_reason: finish }]
          })
        )
      )
    const broken = [
      chunk({
        tool_calls: [{ index: 0, id: "call_x", type: "function", function: { name: "f", arguments: '{"a":' } }]
      }),
      chunk({}, "tool_calls")
    ]
    const error = await calls(broken).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(IncompleteStream)
    expect((error as IncompleteStream).reason).toBe("out-of-order")
  })
})
