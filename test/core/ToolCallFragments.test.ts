import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { IncompleteStream } from "../../src/core/errors/GatewayError.js"
import { decodeChatEventEither } from "../../src/core/text/chat/ChatResponse.js"
import { decodeMessagesEventEither } from "../../src/core/text/messages/MessagesEvents.js"
import { decodeNativeChunkEither } from "../../src/core/text/native/NativeResponse.js"
import { decodeResponsesEventEither } from "../../src/core/text/responses/ResponsesResponse.js"
import type { TokenEvent } from "../../src/core/text/TokenEvent.js"
import {
  makeToolCallDeltaReader,
  makeToolCallFragmentReader,
  type ToolCallDelta,
  type ToolCallFragment
} from "../../src/core/text/ToolCallFragments.js"
import { record } from "../fixtures/TextStreams.js"

// ---- hand-built events, decoded as the transports decode them ----

const messages = (payload: object): TokenEvent => Result.getOrThrow(decodeMessagesEventEither(record(payload)))
const blockStart = (index: number, block: object) =>
  messages({ type: "content_block_start", index, content_block: block })
const jsonDelta = (index: number, partial_json: string) =>
  messages({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })
const textDelta = (index: number, text: string) =>
  messages({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
const blockStop = (index: number) => messages({ type: "content_block_stop", index })

const chat = (choices: ReadonlyArray<object>): TokenEvent =>
  Result.getOrThrow(
    decodeChatEventEither(record({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices }))
  )
const chatCalls = (choice: number, calls: ReadonlyArray<object>, finish: string | null = null) => ({
  index: choice,
  delta: { tool_calls: calls },
  finish_reason: finish
})
const chatFinish = (choice: number, finish = "tool_calls") => ({ index: choice, delta: {}, finish_reason: finish })
const chatDone: TokenEvent = Result.getOrThrow(decodeChatEventEither({ event: "message", data: "[DONE]" }))

let seq = 0
const responses = (payload: object): TokenEvent =>
  Result.getOrThrow(decodeResponsesEventEither(record({ sequence_number: seq++, ...payload })))
const fnItem = (args: string, status: string) => ({
  type: "function_call",
  id: "fc_1",
  call_id: "call_1",
  name: "get_weather",
  arguments: args,
  status
})
const itemAdded = (output_index: number, item: object) =>
  responses({ type: "response.output_item.added", output_index, item })
const itemDone = (output_index: number, item: object) =>
  responses({ type: "response.output_item.done", output_index, item })
const argsDelta = (output_index: number, delta: string) =>
  responses({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index, delta })
const argsDone = (output_index: number, args: string, name?: string) =>
  responses({
    type: "response.function_call_arguments.done",
    item_id: "fc_1",
    output_index,
    arguments: args,
    ...(name === undefined ? {} : { name })
  })

const native = (parts: ReadonlyArray<object>): TokenEvent =>
  Result.getOrThrow(decodeNativeChunkEither(record({ candidates: [{ content: { role: "model", parts }, index: 0 }] })))

// ---- readers over a sequence ----

const fragmentsOf = (events: ReadonlyArray<TokenEvent>): Array<ReadonlyArray<ToolCallFragment>> => {
  const read = makeToolCallFragmentReader()
  return events.map(read)
}

const deltasOf = (events: ReadonlyArray<TokenEvent>): Array<ReadonlyArray<ToolCallDelta>> => {
  const read = makeToolCallDeltaReader()
  return events.map((e) => Result.getOrThrow(read(e)))
}

/** The failure of the first event that fails, with the deltas before it. */
const failureOf = (events: ReadonlyArray<TokenEvent>, limits?: { readonly maxLength?: number }) => {
  const read = makeToolCallDeltaReader(limits)
  const before: Array<ToolCallDelta> = []
  for (const e of events) {
    const r = read(e)
    if (Result.isFailure(r)) return { error: r.failure, before }
    before.push(...r.success)
  }
  return { error: undefined, before }
}

const messagesCall = [
  blockStart(0, { type: "text", text: "" }),
  textDelta(0, "Let me look."),
  blockStop(0),
  blockStart(1, { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} }),
  jsonDelta(1, ""),
  jsonDelta(1, '{"city": "Pa'),
  jsonDelta(1, 'ris", "days": [1, 2'),
  jsonDelta(1, "]}"),
  blockStop(1)
]

describe("makeToolCallFragmentReader", () => {
  it("reads a messages tool_use block: begins at its start, grows by input_json_delta, ends at its stop", () => {
    expect(fragmentsOf(messagesCall)).toStrictEqual([
      [],
      [],
      [],
      [
        {
          _tag: "Begin",
          call: 0,
          family: "messages",
          index: 1,
          choice: 0,
          id: "toolu_1",
          name: "get_weather",
          input: {}
        }
      ],
      [],
      [{ _tag: "Arguments", call: 0, text: '{"city": "Pa' }],
      [{ _tag: "Arguments", call: 0, text: 'ris", "days": [1, 2' }],
      [{ _tag: "Arguments", call: 0, text: "]}" }],
      [{ _tag: "End", call: 0, arguments: undefined, id: undefined, name: undefined }]
    ])
  })

  it("reads server-side tool blocks (server_tool_use) as tool calls too", () => {
    const [fragments] = fragmentsOf([
      blockStart(2, { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} })
    ])
    expect(fragments?.[0]).toMatchObject({ _tag: "Begin", index: 2, name: "web_search", id: "srvtoolu_1" })
  })

  it("joins chat fragments by choice and index, and ends a choice's calls at its finish_reason", () => {
    const got = fragmentsOf([
      chat([
        chatCalls(0, [{ index: 0, id: "call_a", type: "function", function: { name: "f", arguments: "" } }]),
        chatCalls(1, [{ index: 0, id: "call_z", type: "function", function: { name: "g", arguments: '{"x"' } }])
      ]),
      chat([chatCalls(0, [{ index: 1, id: "call_b", type: "function", function: { name: "h", arguments: "{}" } }])]),
      chat([chatCalls(0, [{ index: 0, function: { arguments: '{"a":1}' } }])]),
      chat([chatFinish(0)]),
      chat([chatCalls(1, [{ index: 0, function: { arguments: ":2}" } }])]),
      chatDone
    ])
    expect(got).toStrictEqual([
      [
        { _tag: "Begin", call: 0, family: "chat", index: 0, choice: 0, id: "call_a", name: "f", input: {} },
        { _tag: "Begin", call: 1, family: "chat", index: 0, choice: 1, id: "call_z", name: "g", input: {} },
        { _tag: "Arguments", call: 1, text: '{"x"' }
      ],
      [
        { _tag: "Begin", call: 2, family: "chat", index: 1, choice: 0, id: "call_b", name: "h", input: {} },
        { _tag: "Arguments", call: 2, text: "{}" }
      ],
      [{ _tag: "Arguments", call: 0, text: '{"a":1}' }],
      [
        { _tag: "End", call: 0, arguments: undefined, id: undefined, name: undefined },
        { _tag: "End", call: 2, arguments: undefined, id: undefined, name: undefined }
      ],
      [{ _tag: "Arguments", call: 1, text: ":2}" }],
      [{ _tag: "End", call: 1, arguments: undefined, id: undefined, name: undefined }]
    ])
  })

  it("reads a responses function_call: begins at output_item.added, ends at the arguments' .done, once", () => {
    const got = fragmentsOf([
      itemAdded(1, fnItem("", "in_progress")),
      argsDelta(1, '{"city":'),
      argsDelta(1, '"Paris"}'),
      argsDone(1, '{"city":"Paris"}', "get_weather"),
      itemDone(1, fnItem('{"city":"Paris"}', "completed"))
    ])
    expect(got).toStrictEqual([
      [
        {
          _tag: "Begin",
          call: 0,
          family: "responses",
          index: 1,
          choice: 0,
          id: "call_1",
          name: "get_weather",
          input: {}
        }
      ],
      [{ _tag: "Arguments", call: 0, text: '{"city":' }],
      [{ _tag: "Arguments", call: 0, text: '"Paris"}' }],
      [{ _tag: "End", call: 0, arguments: '{"city":"Paris"}', id: undefined, name: "get_weather" }],
      []
    ])
  })

  it("ends a responses call at output_item.done when no .done came, and begins one never announced", () => {
    expect(
      fragmentsOf([itemAdded(0, fnItem("", "in_progress")), argsDelta(0, "{}"), itemDone(0, fnItem("{}", "completed"))])
    ).toStrictEqual([
      [
        {
          _tag: "Begin",
          call: 0,
          family: "responses",
          index: 0,
          choice: 0,
          id: "call_1",
          name: "get_weather",
          input: {}
        }
      ],
      [{ _tag: "Arguments", call: 0, text: "{}" }],
      [{ _tag: "End", call: 0, arguments: "{}", id: "call_1", name: "get_weather" }]
    ])
    expect(fragmentsOf([itemDone(3, fnItem('{"a":1}', "completed"))])).toStrictEqual([
      [
        {
          _tag: "Begin",
          call: 0,
          family: "responses",
          index: 3,
          choice: 0,
          id: "call_1",
          name: "get_weather",
          input: {}
        },
        { _tag: "End", call: 0, arguments: '{"a":1}', id: "call_1", name: "get_weather" }
      ]
    ])
  })

  it("reads each native functionCall part as a whole call, numbered across the stream", () => {
    const got = fragmentsOf([
      native([
        { text: "Sure." },
        { functionCall: { name: "a", args: { x: 1 }, id: "fc-1" } },
        { functionCall: { name: "b" } }
      ]),
      native([{ functionCall: { name: "c", args: {} } }])
    ])
    expect(got).toStrictEqual([
      [
        { _tag: "Begin", call: 0, family: "native", index: 0, choice: 0, id: "fc-1", name: "a", input: { x: 1 } },
        { _tag: "End", call: 0, arguments: undefined, id: undefined, name: undefined },
        { _tag: "Begin", call: 1, family: "native", index: 1, choice: 0, id: undefined, name: "b", input: {} },
        { _tag: "End", call: 1, arguments: undefined, id: undefined, name: undefined }
      ],
      [
        { _tag: "Begin", call: 2, family: "native", index: 2, choice: 0, id: undefined, name: "c", input: {} },
        { _tag: "End", call: 2, arguments: undefined, id: undefined, name: undefined }
      ]
    ])
  })
})

describe("makeToolCallDeltaReader", () => {
  it("gives a messages call's arguments as they grow, then its input, one delta per event", () => {
    const base = { family: "messages", index: 1, id: "toolu_1", name: "get_weather" }
    expect(deltasOf(messagesCall)).toStrictEqual([
      [],
      [],
      [],
      [{ ...base, argumentsText: "", partial: undefined, done: false }],
      [],
      [{ ...base, argumentsText: '{"city": "Pa', partial: { city: "Pa" }, done: false }],
      [
        {
          ...base,
          argumentsText: '{"city": "Paris", "days": [1, 2',
          partial: { city: "Paris", days: [1] },
          done: false
        }
      ],
      [
        {
          ...base,
          argumentsText: '{"city": "Paris", "days": [1, 2]}',
          partial: { city: "Paris", days: [1, 2] },
          done: false
        }
      ],
      [
        {
          ...base,
          argumentsText: '{"city": "Paris", "days": [1, 2]}',
          partial: { city: "Paris", days: [1, 2] },
          done: true
        }
      ]
    ])
  })

  it("gives a call with no argument text the input it began with", () => {
    const deltas = deltasOf([blockStart(0, { type: "tool_use", id: "toolu_2", name: "now", input: {} }), blockStop(0)])
    expect(deltas[1]).toStrictEqual([
      { family: "messages", index: 0, id: "toolu_2", name: "now", argumentsText: "{}", partial: {}, done: true }
    ])
  })

  it("follows chat's first choice only, one delta per call per chunk", () => {
    const deltas = deltasOf([
      chat([
        chatCalls(0, [{ index: 0, id: "call_a", type: "function", function: { name: "f", arguments: '{"q": "a' } }]),
        chatCalls(1, [{ index: 0, id: "call_z", type: "function", function: { name: "g", arguments: "{}" } }])
      ]),
      chat([
        chatCalls(0, [
          { index: 0, function: { arguments: "b" } },
          { index: 0, function: { arguments: 'c"}' } }
        ])
      ]),
      chat([chatFinish(0), chatFinish(1)])
    ])
    const base = { family: "chat", index: 0, id: "call_a", name: "f" }
    expect(deltas).toStrictEqual([
      [{ ...base, argumentsText: '{"q": "a', partial: { q: "a" }, done: false }],
      [{ ...base, argumentsText: '{"q": "abc"}', partial: { q: "abc" }, done: false }],
      [{ ...base, argumentsText: '{"q": "abc"}', partial: { q: "abc" }, done: true }]
    ])
  })

  it("gives responses deltas by output item, and takes the text of .done when it differs from the deltas", () => {
    const base = { family: "responses", index: 0, id: "call_1", name: "get_weather" }
    const deltas = deltasOf([
      itemAdded(0, fnItem("", "in_progress")),
      argsDelta(0, '{"city":"Pa'),
      argsDone(0, '{"city":"Paris","unit":"C"}'),
      itemDone(0, fnItem('{"city":"Paris","unit":"C"}', "completed"))
    ])
    expect(deltas).toStrictEqual([
      [{ ...base, argumentsText: "", partial: undefined, done: false }],
      [{ ...base, argumentsText: '{"city":"Pa', partial: { city: "Pa" }, done: false }],
      [{ ...base, argumentsText: '{"city":"Paris","unit":"C"}', partial: { city: "Paris", unit: "C" }, done: true }],
      []
    ])
  })

  it("gives a native call as one delta, done, with its args", () => {
    expect(deltasOf([native([{ functionCall: { name: "log", args: { city: "Paris" } } }])])).toStrictEqual([
      [
        {
          family: "native",
          index: 0,
          name: "log",
          argumentsText: '{"city":"Paris"}',
          partial: { city: "Paris" },
          done: true
        }
      ]
    ])
  })

  it("keeps the partial input of text that cannot be JSON until the call ends, then fails", () => {
    const { error, before } = failureOf([
      blockStart(0, { type: "tool_use", id: "toolu_3", name: "f", input: {} }),
      jsonDelta(0, '{"a": "x", "b": 01'),
      jsonDelta(0, "}"),
      blockStop(0)
    ])
    expect(before.map((d) => d.partial)).toStrictEqual([undefined, { a: "x" }, { a: "x" }])
    expect(error).toBeInstanceOf(IncompleteStream)
    expect(error).toMatchObject({
      family: "messages",
      reason: "out-of-order",
      message:
        'the arguments of tool call f (messages) are not a JSON object: unexpected "1" at offset 17: expected ".", "e" or the end of the number after a leading 0'
    })
  })

  it("fails when a finished call's arguments are JSON but not an object", () => {
    const { error } = failureOf([
      chat([
        chatCalls(0, [{ index: 0, id: "call_a", type: "function", function: { name: "f", arguments: "[1, 2]" } }])
      ]),
      chatDone
    ])
    expect(error).toMatchObject({
      family: "openai",
      reason: "out-of-order",
      message: "the arguments of tool call f (chat) are an array, not a JSON object"
    })
  })

  it("fails as soon as a call's argument text passes the size bound", () => {
    const { error, before } = failureOf(
      [
        itemAdded(0, fnItem("", "in_progress")),
        argsDelta(0, '{"a": "12345'),
        argsDelta(0, "67890"),
        argsDelta(0, '"}')
      ],
      { maxLength: 16 }
    )
    expect(before).toHaveLength(2)
    expect(error).toMatchObject({
      family: "openai",
      reason: "out-of-order",
      message: "the arguments of tool call get_weather (responses) are longer than 16 characters (the size bound)"
    })
  })
})
