import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import { DecodeError, IncompleteStream } from "../../src/core/errors/GatewayError.js"
import {
  accumulateResponses,
  finishResponses,
  initialResponsesSnapshot,
  type ResponsesSnapshot,
  stepResponses
} from "../../src/core/text/responses/ResponsesAccumulator.js"
import {
  decodeResponsesEvent,
  decodeResponsesEventEither,
  decodeResponsesResponse,
  type ResponsesEvent,
  type ResponsesResponse,
  responsesOutputText
} from "../../src/core/text/responses/ResponsesResponse.js"
import { record, responsesTextStream, toRecords } from "../fixtures/TextStreams.js"

const events = (text: string): Array<ResponsesEvent> =>
  toRecords(text).map((r) => Result.getOrThrow(decodeResponsesEventEither(r)))

const response = (
  status: string,
  output: ResponsesResponse["output"] = [],
  extra: Partial<ResponsesResponse> = {}
): ResponsesResponse => ({
  id: "resp_1",
  object: "response",
  created_at: 1,
  status,
  model: "gpt-5-pro",
  output,
  ...extra
})
let seq = 0
const ev = (e: Record<string, unknown>): ResponsesEvent => ({ sequence_number: seq++, ...e }) as ResponsesEvent
const created = (): ResponsesEvent => ev({ type: "response.created", response: response("in_progress") })
const fnAdded = (): ResponsesEvent =>
  ev({
    type: "response.output_item.added",
    output_index: 0,
    item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: "" }
  })
const argsDelta = (delta: string): ResponsesEvent =>
  ev({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta })
const completed = (output: ResponsesResponse["output"] = []): ResponsesEvent =>
  ev({ type: "response.completed", response: response("completed", output) })

const failure = (list: ReadonlyArray<ResponsesEvent>): IncompleteStream => {
  const result = accumulateResponses(list)
  if (Result.isSuccess(result)) throw new Error("expected an IncompleteStream")
  return result.failure
}

describe("ResponsesResponse", () => {
  it("decodes a response with message, function_call, reasoning and hosted-tool items", () => {
    const decoded = Result.getOrThrow(
      decodeResponsesResponse({
        ...response("completed"),
        output: [
          { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "why" }] },
          { type: "web_search_call", id: "ws_1", status: "completed" },
          {
            type: "message",
            id: "msg_1",
            role: "assistant",
            content: [
              { type: "output_text", text: "a" },
              { type: "refusal", refusal: "no" }
            ]
          },
          { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" }
        ],
        usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
        tools: []
      })
    )
    expect(decoded.output.map((i) => i.type)).toEqual(["reasoning", "web_search_call", "message", "function_call"])
    expect(responsesOutputText(decoded)).toBe("a")
  })

  it("decodes an unknown event type to an unknown event keeping its sequence_number", () => {
    const event = Result.getOrThrow(
      decodeResponsesEventEither(record({ type: "response.web_search_call.searching", sequence_number: 7 }))
    )
    expect(event.type).toBe("unknown")
    expect(event.type === "unknown" && event.sequence_number).toBe(7)
  })

  it("decodes [DONE] as the done event", () => {
    expect(Result.getOrThrow(decodeResponsesEventEither({ event: "message", data: "[DONE]" }))).toEqual({
      type: "done"
    })
  })

  it("fails with a DecodeError naming the event when a known event is malformed", async () => {
    const error = await Effect.runPromise(
      Effect.flip(decodeResponsesEvent(record({ type: "response.output_text.delta", delta: 1 })))
    )
    expect(error).toBeInstanceOf(DecodeError)
    expect(error.what).toBe("response.output_text.delta event")
  })
})

describe("ResponsesAccumulator", () => {
  it("folds the canonical text sequence into the completed response", () => {
    const final = Result.getOrThrow(accumulateResponses(events(responsesTextStream)))
    expect(final.status).toBe("completed")
    expect(responsesOutputText(final)).toBe("Hello world")
    expect(final.usage?.total_tokens).toBe(12)
  })

  it("builds the text from deltas before the final event", () => {
    const list = events(responsesTextStream)
    const snapshot = list.slice(0, 6).reduce((s, e) => Result.getOrThrow(stepResponses(s, e)), initialResponsesSnapshot)
    expect(snapshot.response && responsesOutputText(snapshot.response)).toBe("Hello world")
  })

  it("tolerates [DONE] after the final event", () => {
    const final = accumulateResponses([...events(responsesTextStream), { type: "done" }])
    expect(Result.isSuccess(final)).toBe(true)
  })

  it("concatenates function call arguments and keeps the streamed output when the final response has none", () => {
    const final = Result.getOrThrow(
      accumulateResponses([created(), fnAdded(), argsDelta('{"a"'), argsDelta(":1}"), completed()])
    )
    expect(final.output).toEqual([
      { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: '{"a":1}' }
    ])
  })

  it("accumulates reasoning summary text", () => {
    const final = Result.getOrThrow(
      accumulateResponses([
        created(),
        ev({
          type: "response.output_item.added",
          output_index: 0,
          item: { type: "reasoning", id: "rs_1", summary: [] }
        }),
        ev({
          type: "response.reasoning_summary_text.delta",
          item_id: "rs_1",
          output_index: 0,
          summary_index: 0,
          delta: "Think"
        }),
        ev({
          type: "response.reasoning_summary_text.delta",
          item_id: "rs_1",
          output_index: 0,
          summary_index: 0,
          delta: "ing"
        }),
        completed()
      ])
    )
    expect(final.output).toEqual([
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Thinking" }] }
    ])
  })

  it("ends flagged incomplete on response.incomplete", () => {
    const list = [
      created(),
      ev({
        type: "response.incomplete",
        response: response("incomplete", [], { incomplete_details: { reason: "max_output_tokens" } })
      })
    ]
    const snapshot = list.reduce((s, e) => Result.getOrThrow(stepResponses(s, e)), initialResponsesSnapshot)
    expect(snapshot.phase).toBe("incomplete")
    const final = Result.getOrThrow(finishResponses(snapshot))
    expect(final.status).toBe("incomplete")
    expect(final.incomplete_details?.reason).toBe("max_output_tokens")
  })

  it("fails out-of-order when sequence_number does not increase", () => {
    const start: ResponsesEvent = { type: "response.created", sequence_number: 5, response: response("in_progress") }
    const error = failure([start, { ...fnAdded(), sequence_number: 5 } as ResponsesEvent])
    expect(error.reason).toBe("out-of-order")
    expect((error.partial as ResponsesSnapshot).sequenceNumber).toBe(5)
    expect(failure([start, { type: "unknown", event: "x", data: {}, sequence_number: 4 }]).reason).toBe("out-of-order")
  })

  it("fails out-of-order on a delta for an item that was never added", () => {
    const error = failure([created(), argsDelta("{")])
    expect(error.reason).toBe("out-of-order")
  })

  it("fails out-of-order on an event before response.created", () => {
    expect(failure([fnAdded()]).reason).toBe("out-of-order")
  })

  it("fails out-of-order on events after response.completed", () => {
    expect(failure([created(), completed(), fnAdded()]).reason).toBe("out-of-order")
  })

  it("fails out-of-order on a text delta whose item_id does not match the item", () => {
    const error = failure([
      created(),
      fnAdded(),
      ev({ type: "response.function_call_arguments.delta", item_id: "other", output_index: 0, delta: "x" })
    ])
    expect(error.reason).toBe("out-of-order")
  })

  it("turns response.failed into error-event with the error code and the partial snapshot", () => {
    const error = failure([
      created(),
      fnAdded(),
      ev({
        type: "response.failed",
        response: response("failed", [], { error: { code: "server_error", message: "boom" } })
      })
    ])
    expect(error.reason).toBe("error-event")
    expect(error.errorType).toBe("server_error")
    expect((error.partial as ResponsesSnapshot).response?.output).toHaveLength(1)
  })

  it("turns an error event into error-event", () => {
    const error = failure([
      created(),
      ev({ type: "error", code: "rate_limit_exceeded", message: "slow down", param: null })
    ])
    expect(error).toBeInstanceOf(IncompleteStream)
    expect(error.reason).toBe("error-event")
    expect(error.errorType).toBe("rate_limit_exceeded")
    expect(error.family).toBe("openai")
  })

  it("decodes an error event whose fields are nested under error (as the live API sends it), as the flat one", () => {
    const nested = {
      type: "error",
      sequence_number: 2,
      error: { type: "too_many_requests", code: "too_many_requests", message: "Too Many Requests", param: null }
    }
    const decoded = Result.getOrThrow(decodeResponsesEventEither(record(nested)))
    expect(decoded).toMatchObject({
      type: "error",
      code: "too_many_requests",
      message: "Too Many Requests",
      param: null
    })
    const { sequence_number: _, ...unnumbered } = decoded as ResponsesEvent & { sequence_number?: number }
    const error = failure([created(), ev(unnumbered)])
    expect(error.reason).toBe("error-event")
    expect(error.message).toContain("stream error too_many_requests: Too Many Requests")
    // Only a type: it names the error. Top-level fields win over nested ones.
    const typed = { type: "error", error: { type: "server_error", message: "boom" } }
    expect(Result.getOrThrow(decodeResponsesEventEither(record(typed)))).toMatchObject({ code: "server_error" })
    const both = { type: "error", code: "a", message: "top", error: { code: "b", message: "nested" } }
    expect(Result.getOrThrow(decodeResponsesEventEither(record(both)))).toMatchObject({ code: "a", message: "top" })
    // Neither shape: still a DecodeError naming the missing message.
    expect(Result.isFailure(decodeResponsesEventEither(record({ type: "error", error: { code: "x" } })))).toBe(true)
  })

  it("fails ended-early on [DONE] or the end of the stream before the final event", () => {
    expect(failure([created(), { type: "done" }]).reason).toBe("ended-early")
    const partial = Result.getOrThrow(stepResponses(initialResponsesSnapshot, created()))
    const result = finishResponses(partial)
    expect(Result.isFailure(result) && result.failure.reason).toBe("ended-early")
    expect(Result.isFailure(result) && result.failure.partial).toBe(partial)
  })

  it("never mutates the previous snapshot", () => {
    const before = [created(), fnAdded(), argsDelta("a")].reduce(
      (s, e) => Result.getOrThrow(stepResponses(s, e)),
      initialResponsesSnapshot
    )
    const copy = structuredClone(before)
    Result.getOrThrow(stepResponses(before, argsDelta("b")))
    expect(before).toEqual(copy)
  })
})
