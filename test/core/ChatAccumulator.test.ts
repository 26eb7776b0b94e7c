import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import {
  accumulateChat,
  type ChatSnapshot,
  finishChat,
  initialChatSnapshot,
  stepChat
} from "../../src/core/text/chat/ChatAccumulator.js"
import {
  type ChatCompletionChunk,
  type ChatStreamEvent,
  decodeChatCompletion,
  decodeChatEvent,
  decodeChatEventEither
} from "../../src/core/text/chat/ChatResponse.js"
import { DecodeError, IncompleteStream } from "../../src/core/errors/GatewayError.js"
import { chatTextStream, chatToolStream, record, toRecords } from "../fixtures/TextStreams.js"

const events = (text: string): Array<ChatStreamEvent> =>
  toRecords(text).map((r) => Result.getOrThrow(decodeChatEventEither(r)))
const chunk = (choices: ChatCompletionChunk["choices"], extra: Partial<ChatCompletionChunk> = {}): ChatStreamEvent => ({
  type: "chunk",
  chunk: { id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices, ...extra }
})
const content = (text: string, index = 0): ChatStreamEvent =>
  chunk([{ index, delta: { content: text }, finish_reason: null }])
const stop = (index = 0): ChatStreamEvent => chunk([{ index, delta: {}, finish_reason: "stop" }])
const done: ChatStreamEvent = { type: "done" }

const failure = (list: ReadonlyArray<ChatStreamEvent>): IncompleteStream => {
  const result = accumulateChat(list)
  if (Result.isSuccess(result)) throw new Error("expected an IncompleteStream")
  return result.failure
}

describe("ChatResponse", () => {
  it("decodes a chat.completion with a tool call", () => {
    const completion = Result.getOrThrow(
      decodeChatCompletion({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "gpt-x",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              refusal: null,
              tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }]
            },
            finish_reason: "tool_calls",
            logprobs: null
          }
        ],
        usage: {
          prompt_tokens: 1,
          completion_tokens: 2,
          total_tokens: 3,
          completion_tokens_details: { reasoning_tokens: 0 }
        }
      })
    )
    expect(completion.choices[0]?.message.tool_calls?.[0]?.function.name).toBe("f")
  })

  it("decodes [DONE] as the done event", () => {
    expect(Result.getOrThrow(decodeChatEventEither({ event: "message", data: "[DONE]" }))).toEqual({ type: "done" })
  })

  it("decodes a payload with a top-level error as an error event", () => {
    const event = Result.getOrThrow(
      decodeChatEventEither(record({ error: { message: "boom", type: "server_error", code: null } }))
    )
    expect(event).toEqual({ type: "error", error: { message: "boom", type: "server_error", code: null } })
  })

  it("decodes an SSE event named error as an error event", () => {
    const event = Result.getOrThrow(decodeChatEventEither({ event: "error", data: '{"message":"bad"}' }))
    expect(event).toEqual({ type: "error", error: { message: "bad" } })
  })

  it("fails with a DecodeError of family openai on a malformed chunk", async () => {
    const error = await Effect.runPromise(
      Effect.flip(decodeChatEvent(record({ object: "chat.completion.chunk", choices: "no" })))
    )
    expect(error).toBeInstanceOf(DecodeError)
    expect(error.family).toBe("openai")
  })
})

describe("ChatAccumulator", () => {
  it("folds the example text stream with the include_usage chunk", () => {
    expect(Result.getOrThrow(accumulateChat(events(chatTextStream)))).toEqual({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1700000000,
      model: "gpt-x",
      system_fingerprint: "fp_1",
      // `refusal` and `logprobs` null, as the non-streaming answer has them.
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Hello there", refusal: null },
          logprobs: null,
          finish_reason: "stop"
        }
      ],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }
    })
  })

  it("joins tool call fragments by index, id and name from the first fragment", () => {
    const completion = Result.getOrThrow(accumulateChat(events(chatToolStream)))
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "call_b", type: "function", function: { name: "get_time", arguments: "{}" } }
    ])
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls")
    expect(completion.choices[0]?.message.content).toBe(null)
    expect(completion.usage).toBe(null)
  })

  it("keeps choices apart by index", () => {
    const completion = Result.getOrThrow(
      accumulateChat([content("a", 1), content("b", 0), content("c", 1), stop(0), stop(1), done])
    )
    expect(completion.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, "b"],
      [1, "ac"]
    ])
  })

  it("orders the final choices by index whatever order they arrived in, as the non-streaming answer has them", () => {
    const call = (id: string, args: string, index: number): ChatStreamEvent =>
      chunk([
        {
          index,
          delta: { tool_calls: [{ index: 0, id, type: "function", function: { name: "f", arguments: args } }] },
          finish_reason: null
        }
      ])
    const completion = Result.getOrThrow(
      accumulateChat([
        content("two", 2),
        call("call_0", "{}", 0),
        content("one", 1),
        content("!", 2),
        chunk([
          { index: 2, delta: {}, finish_reason: "stop" },
          { index: 0, delta: {}, finish_reason: "tool_calls" },
          { index: 1, delta: {}, finish_reason: "length" }
        ]),
        done
      ])
    )
    expect(
      completion.choices.map((c) => [c.index, c.message.content, c.message.tool_calls?.[0]?.id, c.finish_reason])
    ).toEqual([
      [0, null, "call_0", "tool_calls"],
      [1, "one", undefined, "length"],
      [2, "two!", undefined, "stop"]
    ])
    // In order already, the completion is the fold's own (nothing copied).
    const inOrder = Result.getOrThrow(stepChat(initialChatSnapshot, content("a", 0)))
    const last = Result.getOrThrow(stepChat(Result.getOrThrow(stepChat(inOrder, content("b", 1))), done))
    expect(Result.getOrThrow(finishChat(last))).toBe(last.completion)
  })

  it("reads a usage chunk without choices", () => {
    const usageChunk = Result.getOrThrow(
      decodeChatEventEither(
        record({ id: "c", created: 1, model: "m", usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })
      )
    )
    const completion = Result.getOrThrow(accumulateChat([content("a"), stop(), usageChunk, done]))
    expect(completion.usage).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })
  })

  it("ignores anything after [DONE]", () => {
    const completion = Result.getOrThrow(
      accumulateChat([content("a"), stop(), done, content("late"), { type: "error", error: { message: "x" } }])
    )
    expect(completion.choices[0]?.message.content).toBe("a")
  })

  it("never mutates the previous snapshot", () => {
    const before = Result.getOrThrow(stepChat(initialChatSnapshot, content("a")))
    const copy = structuredClone(before)
    Result.getOrThrow(stepChat(before, content("b")))
    expect(before).toEqual(copy)
  })

  it("turns an error payload into error-event with the partial snapshot", () => {
    const error = failure([content("par"), { type: "error", error: { message: "overloaded", type: "server_error" } }])
    expect(error.reason).toBe("error-event")
    expect(error.errorType).toBe("server_error")
    expect(error.family).toBe("openai")
    expect((error.partial as ChatSnapshot).completion?.choices[0]?.message.content).toBe("par")
  })

  it("fails ended-early when the stream ends without [DONE], even after every finish_reason", () => {
    const partial = [content("a"), stop()].reduce((s, e) => Result.getOrThrow(stepChat(s, e)), initialChatSnapshot)
    const result = finishChat(partial)
    expect(Result.isFailure(result) && result.failure.reason).toBe("ended-early")
    expect(Result.isFailure(result) && result.failure.partial).toBe(partial)
  })

  it("fails out-of-order on a tool call fragment before its first fragment", () => {
    const error = failure([
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "{" } }] }, finish_reason: null }])
    ])
    expect(error.reason).toBe("out-of-order")
  })

  it("fails out-of-order on content after a choice's finish_reason", () => {
    expect(failure([content("a"), stop(), content("b")]).reason).toBe("out-of-order")
  })

  it("fails out-of-order on [DONE] before any chunk", () => {
    const error = failure([done])
    expect(error).toBeInstanceOf(IncompleteStream)
    expect(error.reason).toBe("out-of-order")
  })
})

describe("chat logprobs in a stream", () => {
  const entry = (token: string) => ({
    token,
    logprob: -0.5,
    bytes: [...new TextEncoder().encode(token)],
    top_logprobs: []
  })
  const withLogprobs = (text: string, index = 0): ChatStreamEvent =>
    chunk([
      { index, delta: { content: text }, finish_reason: null, logprobs: { content: [entry(text)], refusal: null } }
    ])

  it("joins each chunk's token entries per choice, as the non-streaming answer has them", () => {
    const final = Result.getOrThrow(
      accumulateChat([
        withLogprobs("Hello"),
        withLogprobs("A", 1),
        withLogprobs(" there"),
        withLogprobs(" B", 1),
        withLogprobs("!"),
        stop(),
        stop(1),
        done
      ])
    )
    const tokens = (c: number) =>
      (final.choices[c]!.logprobs as { content: Array<{ token: string }> }).content.map((e) => e.token)
    expect(tokens(0)).toEqual(["Hello", " there", "!"])
    expect(tokens(1)).toEqual(["A", " B"])
    expect((final.choices[0]!.logprobs as { refusal: unknown }).refusal).toBeNull()
  })

  it("never changes a snapshot already taken", () => {
    let snapshot: ChatSnapshot = initialChatSnapshot
    const step = (event: ChatStreamEvent) => {
      const next = stepChat(snapshot, event)
      if (Result.isFailure(next)) throw new Error(next.failure.message)
      snapshot = next.success
    }
    step(withLogprobs("a"))
    step(withLogprobs("b"))
    const early = snapshot
    const earlyTokens = JSON.stringify(early.completion!.choices[0]!.logprobs)
    step(withLogprobs("c"))
    expect(JSON.stringify(early.completion!.choices[0]!.logprobs)).toBe(earlyTokens)
    expect((snapshot.completion!.choices[0]!.logprobs as { content: Array<unknown> }).content).toHaveLength(3)
  })
})
