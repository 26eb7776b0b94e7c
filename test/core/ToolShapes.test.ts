import { Effect, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { SchemaNotExpressible } from "../../src/core/structured/StructuredErrors.js"
import { buildChatBody } from "../../src/core/text/chat/ChatBody.js"
import { decodeChatCompletion } from "../../src/core/text/chat/ChatResponse.js"
import { buildMessagesBody } from "../../src/core/text/messages/Messages.js"
import { decodeMessage } from "../../src/core/text/messages/MessagesResponse.js"
import { buildNativeBody } from "../../src/core/text/native/Native.js"
import { decodeGenerateContentResponse } from "../../src/core/text/native/NativeResponse.js"
import { buildResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"
import { decodeResponsesResponse } from "../../src/core/text/responses/ResponsesResponse.js"
import { chatTools } from "../../src/core/tools/ChatTools.js"
import { messagesTools } from "../../src/core/tools/MessagesTools.js"
import { nativeTools } from "../../src/core/tools/NativeTools.js"
import { responsesTools } from "../../src/core/tools/ResponsesTools.js"
import * as Tool from "../../src/core/tools/Tool.js"
import {
  answerObject,
  errorText,
  maxErrorTextChars,
  outputContent,
  parseArguments,
  type ToolAnswer
} from "../../src/core/tools/ToolShape.js"
import {
  handlerFailed,
  invalidArguments,
  malformedArguments,
  outputNotJson,
  unknownTool
} from "../../src/core/tools/ToolStep.js"

const weather = Tool.make({
  name: "get_weather",
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String, unit: Schema.optional(Schema.Literals(["c", "f"])) }),
  handler: ({ city }) => Effect.succeed(`12 °C in ${city}`)
})
const clock = Tool.make({
  name: "get_time",
  description: "The time in a city",
  parameters: z.object({ city: z.string() }),
  handler: ({ city }) => Effect.succeed({ city, time: "10:00" })
})

const declarations = Result.getOrThrow(Tool.prepareTools([weather, clock])).map((p) => p.declaration)

const ok = (id: string, name: string, output: unknown): ToolAnswer => ({
  id,
  name,
  isError: false,
  content: Result.getOrThrow(outputContent(output)),
  output
})
const bad = (id: string, name: string, content: string): ToolAnswer => ({
  id,
  name,
  isError: true,
  content,
  output: undefined
})

const prepareFailure = (tools: ReadonlyArray<Tool.AnyTool<unknown>>) => {
  const result = Tool.prepareTools(tools)
  if (Result.isSuccess(result)) throw new Error("expected a refusal")
  return result.failure
}

describe("prepareTools", () => {
  it("declares an Effect Schema and a zod schema as fitted object schemas, in order", () => {
    expect(declarations.map((d) => d.name)).toEqual(["get_weather", "get_time"])
    expect(declarations[0]!.parameters).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city", "unit"],
      additionalProperties: false
    })
    expect(declarations[1]!.parameters).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"]
    })
    expect(declarations.every((d) => d.strictCapable && d.strict === undefined)).toBe(true)
  })

  it("decodes arguments with the tool's schema, a null optional property read as absent", async () => {
    const [prepared] = Result.getOrThrow(Tool.prepareTools([weather]))
    expect(await Effect.runPromise(prepared!.decodeArguments({ city: "Oslo", unit: null }))).toEqual({ city: "Oslo" })
    const refused = await Effect.runPromise(Effect.flip(prepared!.decodeArguments({ city: 5 })))
    expect(refused.issue).toMatch(/city/)
  })

  it("sends a non-object root under value, and unwraps it when decoding", async () => {
    const echo = Tool.make({
      name: "echo",
      description: "echo",
      parameters: Schema.String,
      handler: (s) => Effect.succeed(s)
    })
    const [prepared] = Result.getOrThrow(Tool.prepareTools([echo]))
    expect(prepared!.declaration.parameters).toMatchObject({
      type: "object",
      properties: { value: { type: "string" } }
    })
    expect(await Effect.runPromise(prepared!.decodeArguments({ value: "hi" }))).toBe("hi")
  })

  it("refuses a bad name, a name declared twice, no tools, and too many, naming the field", () => {
    const named = (name: string) => ({ ...weather, name })
    expect(prepareFailure([named("get weather")])).toMatchObject({
      _tag: "InvalidRequest",
      field: "tools[0].name",
      rule: "pattern",
      message: 'tools[0].name: "get weather" is not allowed; allowed: 1 to 64 letters, digits, _ or -'
    })
    expect(prepareFailure([named("a".repeat(65))])).toMatchObject({ field: "tools[0].name", rule: "pattern" })
    expect(prepareFailure([weather, clock, named("get_time")])).toMatchObject({
      field: "tools[2].name",
      rule: "unique",
      message: 'tools[2].name: "get_time" is declared twice; tool names must be unique'
    })
    expect(prepareFailure([])).toMatchObject({ field: "tools", rule: "non-empty" })
    const many = Array.from({ length: Tool.maxTools + 1 }, (_, i) => named(`t${i}`))
    expect(prepareFailure(many)).toMatchObject({ field: "tools", rule: "range" })
  })

  it("refuses a parameters schema that cannot be expressed, before anything is sent", () => {
    const anything = Tool.make({
      name: "any",
      description: "",
      parameters: Schema.Struct({ x: Schema.Unknown }),
      handler: () => Effect.void
    })
    const failure = prepareFailure([anything])
    expect(failure).toBeInstanceOf(SchemaNotExpressible)
    expect((failure as SchemaNotExpressible).path).toBe("/properties/x")
  })

  it("refuses strict: true for a schema strict mode does not take, and keeps an explicit false", () => {
    const loose = Tool.make({
      name: "loose",
      description: "",
      parameters: Schema.Struct({ s: Schema.String.check(Schema.isMinLength(2)) }),
      handler: () => Effect.void,
      strict: true
    })
    expect(prepareFailure([loose])).toMatchObject({ field: "tools[0].strict", rule: "strict" })
    const [off] = Result.getOrThrow(Tool.prepareTools([{ ...weather, strict: false }]))
    expect(off!.declaration.strict).toBe(false)
  })
})

const EPSILON = "epsilon-sonnet-4-5-20250929"
const message = (content: ReadonlyArray<unknown>, stop = "tool_use") =>
  Result.getOrThrow(
    decodeMessage({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: EPSILON,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 }
    })
  )

describe("messages-style tool shapes", () => {
  const body = {
    model: EPSILON,
    max_tokens: 256,
    messages: [{ role: "user" as const, content: "Weather and time in Oslo?" }],
    tools: [{ type: "web_search_20250305", name: "web_search" }]
  }
  const answer = message([
    { type: "thinking", thinking: "hmm", signature: "sig" },
    { type: "text", text: "" },
    { type: "text", text: "Let me look." },
    { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } },
    { type: "tool_use", id: "toolu_2", name: "get_time", input: { city: "Oslo" } }
  ])

  it("declares tools after the body's own, as {name, description, input_schema}", () => {
    const declared = messagesTools.declare(body, declarations)
    expect(declared.tools).toEqual([
      { type: "web_search_20250305", name: "web_search" },
      { name: "get_weather", description: "The weather in a city", input_schema: declarations[0]!.parameters },
      { name: "get_time", description: "The time in a city", input_schema: declarations[1]!.parameters }
    ])
    expect(declared.messages).toBe(body.messages)
  })

  it("reads the tool_use blocks in order, with their ids and inputs", () => {
    expect(messagesTools.calls(answer, 1)).toEqual([
      { id: "toolu_1", name: "get_weather", input: { city: "Oslo" }, malformed: undefined },
      { id: "toolu_2", name: "get_time", input: { city: "Oslo" }, malformed: undefined }
    ])
    expect(messagesTools.calls(message([{ type: "text", text: "Done." }], "end_turn"), 2)).toEqual([])
    expect(messagesTools.text(answer)).toBe("Let me look.")
  })

  it("appends the assistant turn as it came (thinking kept, the empty text left out) and tool_result blocks with is_error", async () => {
    const next = await Effect.runPromise(
      messagesTools.append(body, answer, [
        ok("toolu_1", "get_weather", "12 °C"),
        bad("toolu_2", "get_time", "error: boom")
      ])
    )
    expect(next.messages).toEqual([
      { role: "user", content: "Weather and time in Oslo?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm", signature: "sig" },
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } },
          { type: "tool_use", id: "toolu_2", name: "get_time", input: { city: "Oslo" } }
        ]
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "12 °C" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "error: boom", is_error: true }
        ]
      }
    ])
    expect(next.tools).toBe(body.tools)
    await Effect.runPromise(buildMessagesBody(messagesTools.declare(next, declarations)))
  })

  it("refuses answers that do not answer every call (the round's own check)", async () => {
    const refused = await Effect.runPromise(
      Effect.flip(messagesTools.append(body, answer, [ok("toolu_1", "get_weather", "12 °C")]))
    )
    expect(refused).toMatchObject({ _tag: "InvalidRequest", field: "toolResults", rule: "complete" })
  })
})

const completion = (message: unknown) =>
  Result.getOrThrow(
    decodeChatCompletion({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o",
      choices: [{ index: 0, message, finish_reason: "tool_calls" }]
    })
  )

describe("chat tool shapes", () => {
  const body = { model: "gpt-4o", messages: [{ role: "user" as const, content: "Weather in Oslo?" }] }
  const answer = completion({
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      { id: "call_b", type: "function", function: { name: "get_time", arguments: '{"city":' } },
      { id: "call_c", type: "function", function: { name: "get_time", arguments: "" } }
    ]
  })

  it("declares function tools, strict when the schema allows it unless the tool says otherwise", () => {
    const declared = chatTools.declare(body, [declarations[0]!, { ...declarations[1]!, strict: false }])
    expect(declared.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "The weather in a city",
          parameters: declarations[0]!.parameters,
          strict: true
        }
      },
      {
        type: "function",
        function: {
          name: "get_time",
          description: "The time in a city",
          parameters: declarations[1]!.parameters,
          strict: false
        }
      }
    ])
  })

  it("reads the calls, their JSON arguments parsed, broken JSON named, empty arguments as {}", () => {
    const calls = chatTools.calls(answer, 1)
    expect(calls[0]).toEqual({ id: "call_a", name: "get_weather", input: { city: "Oslo" }, malformed: undefined })
    expect(calls[1]).toMatchObject({ id: "call_b", input: undefined })
    expect(calls[1]!.malformed).toMatch(/^the arguments: data is not JSON/)
    expect(calls[2]).toEqual({ id: "call_c", name: "get_time", input: {}, malformed: undefined })
    expect(chatTools.text(answer)).toBe("")
  })

  it("appends the assistant message with its tool_calls, then one tool message per call in order", async () => {
    const next = await Effect.runPromise(
      chatTools.append(body, answer, [
        ok("call_a", "get_weather", { temp: 12 }),
        bad("call_b", "get_time", "error: not JSON"),
        ok("call_c", "get_time", "10:00")
      ])
    )
    expect(next.messages.slice(1)).toEqual([
      { role: "assistant", content: null, tool_calls: answer.choices[0]!.message.tool_calls },
      { role: "tool", tool_call_id: "call_a", content: '{"temp":12}' },
      { role: "tool", tool_call_id: "call_b", content: "error: not JSON" },
      { role: "tool", tool_call_id: "call_c", content: "10:00" }
    ])
    await Effect.runPromise(buildChatBody(chatTools.declare(next, declarations)))
  })
})

const response = (output: ReadonlyArray<unknown>) =>
  Result.getOrThrow(
    decodeResponsesResponse({
      id: "resp_1",
      object: "response",
      created_at: 1,
      status: "completed",
      model: "gpt-5",
      output
    })
  )

describe("responses tool shapes", () => {
  const body = { model: "gpt-5", input: "Weather in Oslo?", instructions: "Be brief." }
  const answer = response([
    { type: "reasoning", id: "rs_1", summary: [] },
    { type: "function_call", id: "fc_1", call_id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' }
  ])

  it("declares function tools with strict always sent", () => {
    const declared = responsesTools.declare(body, [{ ...declarations[0]!, strictCapable: false }, declarations[1]!])
    expect(declared.tools).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "The weather in a city",
        parameters: declarations[0]!.parameters,
        strict: false
      },
      {
        type: "function",
        name: "get_time",
        description: "The time in a city",
        parameters: declarations[1]!.parameters,
        strict: true
      }
    ])
  })

  it("reads function_call items by call_id", () => {
    expect(responsesTools.calls(answer, 1)).toEqual([
      { id: "call_1", name: "get_weather", input: { city: "Oslo" }, malformed: undefined }
    ])
    expect(responsesTools.calls(response([]), 1)).toEqual([])
  })

  it("turns a string input into a user message, then appends the output items and function_call_output items", async () => {
    const next = await Effect.runPromise(responsesTools.append(body, answer, [ok("call_1", "get_weather", "12 °C")]))
    expect(next.input).toEqual([
      { role: "user", content: "Weather in Oslo?" },
      ...answer.output,
      { type: "function_call_output", call_id: "call_1", output: "12 °C" }
    ])
    expect(next.instructions).toBe("Be brief.")
    await Effect.runPromise(buildResponsesBody(responsesTools.declare(next, declarations)))
    // A body whose input a previous response stands in for starts from no items.
    const chained = await Effect.runPromise(
      responsesTools.append({ model: "gpt-5", previous_response_id: "resp_0" }, answer, [ok("call_1", "x", 1)])
    )
    expect(chained.input?.[0]).toEqual(answer.output[0])
  })

  it("sends only the new function_call_output items in a conversation, which keeps the rest itself", async () => {
    for (const conversation of ["conv_1", { id: "conv_1" }]) {
      const first = await Effect.runPromise(
        responsesTools.append({ ...body, conversation }, answer, [ok("call_1", "get_weather", "12 °C")])
      )
      expect(first.input).toEqual([{ type: "function_call_output", call_id: "call_1", output: "12 °C" }])
      expect(first.conversation).toEqual(conversation)
      // The next step again sends its own outputs only, not the last step's.
      const second = await Effect.runPromise(responsesTools.append(first, answer, [ok("call_2", "get_time", "noon")]))
      expect(second.input).toEqual([{ type: "function_call_output", call_id: "call_2", output: "noon" }])
    }
  })
})

const generated = (parts: ReadonlyArray<unknown>) =>
  Result.getOrThrow(
    decodeGenerateContentResponse({
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }]
    })
  )

describe("native tool shapes", () => {
  const request = { model: "zeta-2.5-flash", contents: [{ role: "user" as const, parts: [{ text: "Weather?" }] }] }
  const answer = generated([
    { functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "c2ln" },
    { functionCall: { name: "get_time", args: { city: "Oslo" }, id: "fc-7" } },
    { functionCall: { name: "get_time" } }
  ])

  it("declares one functionDeclarations element after the body's own tools, with parametersJsonSchema", () => {
    const declared = nativeTools.declare({ ...request, tools: [{ vendorSearch: {} }] }, declarations)
    expect(declared.tools).toEqual([
      { vendorSearch: {} },
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "The weather in a city",
            parametersJsonSchema: declarations[0]!.parameters
          },
          { name: "get_time", description: "The time in a city", parametersJsonSchema: declarations[1]!.parameters }
        ]
      }
    ])
    expect(declared.model).toBe("zeta-2.5-flash")
  })

  it("reads functionCall parts, making an id stable for the step and position when there is none", () => {
    expect(nativeTools.calls(answer, 3)).toEqual([
      { id: "call_3_0", name: "get_weather", input: { city: "Oslo" }, malformed: undefined },
      { id: "fc-7", name: "get_time", input: { city: "Oslo" }, malformed: undefined },
      { id: "call_3_2", name: "get_time", input: {}, malformed: undefined }
    ])
    expect(nativeTools.calls(answer, 3)).toEqual(nativeTools.calls(answer, 3))
  })

  it("appends the model turn as it came (signatures kept) and functionResponse parts: objects as is, others under result, failures under error", async () => {
    const next = await Effect.runPromise(
      nativeTools.append(request, answer, [
        ok("call_3_0", "get_weather", { temp: 12 }),
        ok("fc-7", "get_time", "10:00"),
        bad("call_3_2", "get_time", "error: boom")
      ])
    )
    expect(next.contents.slice(1)).toEqual([
      { role: "model", parts: answer.candidates![0]!.content!.parts },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { temp: 12 } } },
          { functionResponse: { name: "get_time", id: "fc-7", response: { result: "10:00" } } },
          { functionResponse: { name: "get_time", response: { error: "error: boom" } } }
        ]
      }
    ])
    expect(next.model).toBe("zeta-2.5-flash")
    const { model, ...rest } = nativeTools.declare(next, declarations)
    await Effect.runPromise(buildNativeBody(model, rest))
    expect(nativeTools.text(generated([{ text: "It is " }, { text: "12 °C." }]))).toBe("It is 12 °C.")
  })
})

describe("results and failures as the model reads them", () => {
  it("sends a string output as is, anything else as JSON, and names what JSON cannot hold", () => {
    expect(outputContent("12 °C")).toEqual(Result.succeed("12 °C"))
    expect(outputContent({ a: [1, true] })).toEqual(Result.succeed('{"a":[1,true]}'))
    expect(outputContent(undefined)).toEqual(Result.succeed("null"))
    expect(outputContent(10n)).toEqual(Result.fail("the output is not JSON (TypeError)"))
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(Result.isFailure(outputContent(cycle))).toBe(true)
    expect(outputContent(() => 1)).toEqual(Result.fail("the output is not JSON"))
  })

  it("puts a non-object output under result for the families that answer with an object", () => {
    expect(answerObject(ok("1", "t", [1, 2]))).toEqual({ result: [1, 2] })
    expect(answerObject(ok("1", "t", null))).toEqual({ result: null })
    expect(answerObject(ok("1", "t", "{}"))).toEqual({ result: "{}" })
  })

  it("parses JSON arguments without throwing, refusing nesting past the bound", () => {
    expect(parseArguments(' {"a":1} ')).toEqual({ input: { a: 1 }, malformed: undefined })
    expect(parseArguments("[".repeat(100) + "]".repeat(100)).malformed).toMatch(/nesting deeper than 64/)
  })

  it("states which tool failed and why, without a URL's password, cut to a bound", () => {
    expect(unknownTool("get_wether", "get_weather, get_time").message).toBe(
      'error: there is no tool "get_wether"; the tools are: get_weather, get_time'
    )
    expect(malformedArguments("t", "the arguments: data is not JSON (at position 3)")).toMatchObject({
      reason: "malformed-arguments",
      message: "error: the tool t was not run: the arguments: data is not JSON (at position 3)"
    })
    expect(invalidArguments("t", "at /city: Expected string, got 5").message).toBe(
      "error: the tool t was not run: its arguments do not match its parameters: at /city: Expected string, got 5"
    )
    class NotFound extends Error {
      override readonly name = "NotFound"
    }
    expect(handlerFailed("t", new NotFound("no such city"), false).message).toBe(
      "error: the tool t failed: NotFound: no such city"
    )
    expect(handlerFailed("t", { _tag: "DbDown", message: "postgres://app:hunter2@db/x refused" }, false).message).toBe(
      "error: the tool t failed: DbDown: postgres://app:***@db/x refused"
    )
    // A plain object or array is shown as its JSON (bounded); one that JSON cannot hold, as what it is.
    expect(handlerFailed("t", { reason: "no data", code: 7 }, false).message).toBe(
      'error: the tool t failed: {"reason":"no data","code":7}'
    )
    expect(handlerFailed("t", { long: "x".repeat(500) }, false).message).toMatch(
      /^error: the tool t failed: \{"long":"x{291}…$/
    )
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(handlerFailed("t", cyclic, false).message).toBe("error: the tool t failed: an object")
    expect(handlerFailed("t", "oops", true)).toMatchObject({
      reason: "handler-died",
      message: 'error: the tool t failed unexpectedly: "oops"'
    })
    expect(outputNotJson("t", "the output is not JSON").reason).toBe("output-not-json")
    expect(errorText("x".repeat(2000))).toHaveLength(maxErrorTextChars + 1)
  })
})
