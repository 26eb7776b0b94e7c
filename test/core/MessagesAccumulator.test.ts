import { Effect, Result, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { finishScan, scanStep, seed } from "../../src/core/text/Accumulator.js"
import { IncompleteStream } from "../../src/core/errors/GatewayError.js"
import {
  accumulateMessages,
  finishMessages,
  initialMessagesSnapshot,
  messagesAccumulator,
  type MessagesSnapshot,
  stepMessages
} from "../../src/core/text/messages/MessagesAccumulator.js"
import { decodeMessagesEventEither, type MessagesEvent } from "../../src/core/text/messages/MessagesEvents.js"
import { messagesTextStream, messagesThinkingToolStream, toRecords } from "../fixtures/TextStreams.js"

const events = (text: string): Array<MessagesEvent> =>
  toRecords(text).map((r) => Result.getOrThrow(decodeMessagesEventEither(r)))

const start: MessagesEvent = {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "epsilon-x",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 1 }
  }
}
const textStart = (index: number): MessagesEvent => ({
  type: "content_block_start",
  index,
  content_block: { type: "text", text: "" }
})
const textDelta = (index: number, text: string): MessagesEvent => ({
  type: "content_block_delta",
  index,
  delta: { type: "text_delta", text }
})
const stop = (index: number): MessagesEvent => ({ type: "content_block_stop", index })
const messageDelta: MessagesEvent = {
  type: "message_delta",
  delta: { stop_reason: "end_turn" },
  usage: { output_tokens: 9 }
}
const messageStop: MessagesEvent = { type: "message_stop" }

/** Folds events and returns the failure (the test fails if there is none). */
const failure = (list: ReadonlyArray<MessagesEvent>): IncompleteStream => {
  const result = accumulateMessages(list)
  if (Result.isSuccess(result)) throw new Error("expected an IncompleteStream")
  return result.failure
}

/** The snapshot after folding events that must all succeed. */
const snapshotAfter = (list: ReadonlyArray<MessagesEvent>): MessagesSnapshot =>
  list.reduce((s, e) => Result.getOrThrow(stepMessages(s, e)), initialMessagesSnapshot)

describe("MessagesAccumulator", () => {
  it("folds a stream of thinking and a tool call into thinking with signature and a parsed tool input", () => {
    const message = Result.getOrThrow(accumulateMessages(events(messagesThinkingToolStream)))
    expect(message).toEqual({
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "epsilon-x",
      content: [
        { type: "thinking", thinking: "Need weather.", signature: "c2ln" },
        { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 42, output_tokens: 37 }
    })
  })

  it("concatenates text deltas and replaces usage with the cumulative counts of message_delta", () => {
    const message = Result.getOrThrow(accumulateMessages(events(messagesTextStream)))
    expect(message.content).toEqual([{ type: "text", text: "Hello, world" }])
    expect(message.stop_reason).toBe("end_turn")
    expect(message.usage).toEqual({
      input_tokens: 10,
      output_tokens: 7,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: 2048
    })
  })

  it("appends citations to the text block", () => {
    const message = Result.getOrThrow(
      accumulateMessages([
        start,
        textStart(0),
        textDelta(0, "cited"),
        {
          type: "content_block_delta",
          index: 0,
          delta: { type: "citations_delta", citation: { type: "char_location", cited_text: "c" } }
        },
        stop(0),
        messageDelta,
        messageStop
      ])
    )
    expect(message.content[0]).toEqual({
      type: "text",
      text: "cited",
      citations: [{ type: "char_location", cited_text: "c" }]
    })
  })

  it("never mutates the previous snapshot", () => {
    const before = snapshotAfter([start, textStart(0), textDelta(0, "a")])
    const copy = structuredClone(before)
    const after = Result.getOrThrow(stepMessages(before, textDelta(0, "b")))
    expect(before).toEqual(copy)
    expect(after.message?.content[0]).toEqual({ type: "text", text: "ab" })
  })

  it("ignores ping and unknown events", () => {
    const before = snapshotAfter([start])
    expect(Result.getOrThrow(stepMessages(before, { type: "ping" }))).toBe(before)
    expect(Result.getOrThrow(stepMessages(before, { type: "unknown", event: "x", data: {} }))).toBe(before)
  })

  it("ignores a delta kind it does not know", () => {
    const before = snapshotAfter([start, textStart(0)])
    const after = Result.getOrThrow(
      stepMessages(before, { type: "content_block_delta", index: 0, delta: { type: "compaction_delta", content: "x" } })
    )
    expect(after.message).toBe(before.message)
  })

  it("fails out-of-order on a delta for a block never started, with the partial snapshot", () => {
    const error = failure([start, textDelta(0, "x")])
    expect(error).toBeInstanceOf(IncompleteStream)
    expect(error.reason).toBe("out-of-order")
    expect(error.partial).toEqual(snapshotAfter([start]))
  })

  it("fails out-of-order when a block is stopped twice", () => {
    const error = failure([start, textStart(0), stop(0), stop(0)])
    expect(error.reason).toBe("out-of-order")
    expect((error.partial as MessagesSnapshot).message?.content).toEqual([{ type: "text", text: "" }])
  })

  it("fails out-of-order on events after message_stop", () => {
    expect(failure([start, messageDelta, messageStop, textStart(0)]).reason).toBe("out-of-order")
  })

  it("fails out-of-order on a second message_start", () => {
    expect(failure([start, start]).reason).toBe("out-of-order")
  })

  it("fails out-of-order when message_start is missing", () => {
    const error = failure([textStart(0)])
    expect(error.reason).toBe("out-of-order")
    expect(error.partial).toBe(initialMessagesSnapshot)
  })

  it("fails out-of-order when a delta kind does not fit the block", () => {
    const error = failure([
      start,
      textStart(0),
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{" } }
    ])
    expect(error.reason).toBe("out-of-order")
  })

  it("fails out-of-order when a block starts at the wrong index", () => {
    expect(failure([start, textStart(1)]).reason).toBe("out-of-order")
  })

  it("fails out-of-order on message_stop while a block is open", () => {
    expect(failure([start, textStart(0), messageStop]).reason).toBe("out-of-order")
  })

  it("fails when the tool input JSON is invalid, keeping the text so far", () => {
    const error = failure([
      start,
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "f", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } },
      stop(0)
    ])
    expect(error.reason).toBe("out-of-order")
    expect((error.partial as MessagesSnapshot).blocks[0]).toEqual({ open: true, json: '{"a":' })
  })

  it("keeps the empty input of a tool call that streamed no JSON", () => {
    const message = Result.getOrThrow(
      accumulateMessages([
        start,
        { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "f", input: {} } },
        { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "" } },
        stop(0),
        messageDelta,
        messageStop
      ])
    )
    expect(message.content[0]).toEqual({ type: "tool_use", id: "t", name: "f", input: {} })
  })

  it("turns an error event into error-event with the error type and the partial snapshot", () => {
    const error = failure([
      start,
      textStart(0),
      textDelta(0, "par"),
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
    ])
    expect(error.reason).toBe("error-event")
    expect(error.errorType).toBe("overloaded_error")
    expect(error.family).toBe("messages")
    expect((error.partial as MessagesSnapshot).message?.content).toEqual([{ type: "text", text: "par" }])
  })

  it("fails ended-early when the stream ends before message_stop", () => {
    const partial = snapshotAfter([start, textStart(0), textDelta(0, "cut"), stop(0)])
    const result = finishMessages(partial)
    expect(Result.isFailure(result) && result.failure.reason).toBe("ended-early")
    expect(Result.isFailure(result) && result.failure.partial).toBe(partial)
  })

  it("fails ended-early on an empty stream", () => {
    expect(failure([]).reason).toBe("ended-early")
  })

  it("runs under Effect Stream.scan with scanStep", async () => {
    const snapshots = await Effect.runPromise(
      Stream.fromIterable(events(messagesTextStream)).pipe(
        Stream.scan(() => seed(messagesAccumulator), scanStep(messagesAccumulator)),
        Stream.mapEffect(Effect.fromResult),
        Stream.runCollect
      )
    )
    expect(snapshots.at(-1)?.phase).toBe("stopped")
    expect(snapshots.length).toBe(events(messagesTextStream).length + 1)
  })
  it("finishes a stream folded with Stream.runFold, and reports a cut stream as ended-early", async () => {
    const run = (list: ReadonlyArray<MessagesEvent>) =>
      Effect.runPromise(
        Stream.fromIterable(list).pipe(
          Stream.runFold(() => seed(messagesAccumulator), scanStep(messagesAccumulator)),
          Effect.flatMap((state) => Effect.fromResult(finishScan(messagesAccumulator)(state))),
          Effect.result
        )
      )
    const whole = await run(events(messagesTextStream))
    expect(Result.isSuccess(whole) && whole.success.content).toEqual([{ type: "text", text: "Hello, world" }])
    const cut = await run(events(messagesTextStream).slice(0, 4))
    expect(Result.isFailure(cut) && cut.failure.reason).toBe("ended-early")
  })
})
