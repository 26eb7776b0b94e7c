import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { buildChatBody } from "../../src/core/text/chat/ChatBody.js"
import { buildResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"

const failure = <A>(effect: Effect.Effect<A, InvalidRequest>): InvalidRequest => {
  const result = Effect.runSync(Effect.result(effect))
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}
const success = <A>(effect: Effect.Effect<A, InvalidRequest>): A => {
  const result = Effect.runSync(Effect.result(effect))
  if (Result.isFailure(result)) throw new Error(`expected a success, got ${result.failure.message}`)
  return result.success
}

describe("buildChatBody", () => {
  const chat = { model: "gpt-4o", messages: [{ role: "user", content: "Hello" }] }

  it("builds the minimal body unchanged", () => {
    expect(success(buildChatBody(chat))).toEqual(chat)
  })

  it("passes every other field through untouched", () => {
    const input = {
      ...chat,
      temperature: 0.3,
      tools: [{ type: "function", function: { name: "f" } }],
      stream_options: { include_usage: true }
    }
    expect(success(buildChatBody(input))).toEqual(input)
  })

  it("refuses the GPT-5 Pro family, saying to use responses", () => {
    const e = failure(buildChatBody({ ...chat, model: "gpt-5-pro" }))
    expect(e.field).toBe("model")
    expect(e.message).toContain("use responses")
  })

  it("accepts GPT-5 and the o-series on chat as well", () => {
    expect(success(buildChatBody({ ...chat, model: "gpt-5" })).model).toBe("gpt-5")
    expect(success(buildChatBody({ ...chat, model: "o3" })).model).toBe("o3")
  })

  it("refuses epsilon and zeta models, naming their capability", () => {
    expect(failure(buildChatBody({ ...chat, model: "epsilon-opus-4-5-20251101" })).message).toContain("use messages")
    expect(failure(buildChatBody({ ...chat, model: "zeta-2.5-pro" })).message).toContain("use native")
  })

  it("requires a model and non-empty messages", () => {
    expect(failure(buildChatBody({ messages: chat.messages })).field).toBe("model")
    expect(failure(buildChatBody({ model: "gpt-4o" })).field).toBe("messages")
    expect(failure(buildChatBody({ model: "gpt-4o", messages: [] })).rule).toBe("non-empty")
  })

  it("requires a known role and content on every message", () => {
    const role = failure(buildChatBody({ model: "gpt-4o", messages: [{ role: "bot", content: "x" }] }))
    expect(role.field).toBe("messages[0].role")
    expect(role.message).toBe(
      'messages[0].role: "bot" is not allowed; allowed: system, developer, user, assistant, tool, function'
    )
    expect(failure(buildChatBody({ model: "gpt-4o", messages: [{ role: "user" }] })).field).toBe("messages[0].content")
    expect(failure(buildChatBody({ model: "gpt-4o", messages: [{ role: "user", content: 3 }] })).field).toBe(
      "messages[0].content"
    )
  })

  it("accepts content parts and an assistant turn that only calls tools", () => {
    const messages = [
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
      },
      { role: "tool", tool_call_id: "c1", content: "42" }
    ]
    expect(success(buildChatBody({ model: "gpt-4o", messages })).messages).toEqual(messages)
    const noContent = success(buildChatBody({ model: "gpt-4o", messages: [{ role: "assistant", tool_calls: [] }] }))
    expect(noContent.messages[0]).toEqual({ role: "assistant", tool_calls: [], content: null })
  })

  it("accepts a boolean stream and refuses anything else", () => {
    expect(success(buildChatBody({ ...chat, stream: true })).stream).toBe(true)
    expect(failure(buildChatBody({ ...chat, stream: 1 })).field).toBe("stream")
  })

  it("refuses a function tool's name outside 1 to 64 letters, digits, _ or -, naming where it is", () => {
    const tools = (...names: ReadonlyArray<unknown>) =>
      names.map((name) => ({ type: "function", function: name === undefined ? {} : { name } }))
    const spaced = failure(buildChatBody({ ...chat, tools: tools("get_weather", "get weather") }))
    expect(spaced).toMatchObject({ field: "tools[1].function.name", rule: "one-of" })
    expect(spaced.message).toBe(
      'tools[1].function.name: "get weather" is not allowed; allowed: 1 to 64 letters, digits, _ or -'
    )
    expect(failure(buildChatBody({ ...chat, tools: tools("x".repeat(65)) })).field).toBe("tools[0].function.name")
    expect(failure(buildChatBody({ ...chat, tools: tools(undefined) })).message).toBe(
      "tools[0].function.name is required: a function tool's name, 1 to 64 letters, digits, _ or -"
    )
    // 64 characters, and tools of other types, pass.
    const fine = {
      ...chat,
      tools: [...tools("a-b_C9".padEnd(64, "x")), { type: "custom", custom: { name: "free form" } }]
    }
    expect(success(buildChatBody(fine))).toEqual(fine)
  })
})

describe("buildResponsesBody", () => {
  const responses = { model: "gpt-5-pro", input: [{ role: "user", content: "Prove it." }], max_output_tokens: 1024 }

  it("builds the minimal body unchanged, for the GPT-5 Pro family", () => {
    expect(success(buildResponsesBody(responses))).toEqual(responses)
  })

  it("accepts input as a string", () => {
    expect(success(buildResponsesBody({ model: "gpt-5", input: "Hi" })).input).toBe("Hi")
    expect(failure(buildResponsesBody({ model: "gpt-5", input: "" })).field).toBe("input")
  })

  it("requires max_output_tokens to be a positive integer when given", () => {
    const e = failure(buildResponsesBody({ ...responses, max_output_tokens: 0 }))
    expect(e.field).toBe("max_output_tokens")
    expect(e.message).toBe("max_output_tokens: 0 is out of range for gpt-5-pro; allowed: greater than 0")
    const f = failure(buildResponsesBody({ ...responses, max_output_tokens: 12.5 }))
    expect(f.rule).toBe("type")
    expect(f.message).toContain("expected an integer")
    expect(failure(buildResponsesBody({ ...responses, max_output_tokens: "100" })).field).toBe("max_output_tokens")
  })

  it("requires input unless a prompt, previous response or conversation stands in for it", () => {
    expect(failure(buildResponsesBody({ model: "gpt-5" })).field).toBe("input")
    expect(success(buildResponsesBody({ model: "gpt-5", previous_response_id: "resp_1" })).previous_response_id).toBe(
      "resp_1"
    )
  })

  it("checks input messages and passes other typed items through", () => {
    const input = [
      { role: "user", content: [{ type: "input_text", text: "Hi" }] },
      { type: "function_call", call_id: "c1", name: "answer", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "42" },
      { type: "message", role: "assistant", content: "Done" }
    ]
    expect(success(buildResponsesBody({ model: "o3", input })).input).toEqual(input)
    const role = failure(buildResponsesBody({ model: "o3", input: [{ role: "bot", content: "x" }] }))
    expect(role.field).toBe("input[0].role")
    expect(role.message).toContain("allowed: user, assistant, system, developer")
    expect(failure(buildResponsesBody({ model: "o3", input: [{ role: "user" }] })).field).toBe("input[0].content")
    expect(failure(buildResponsesBody({ model: "o3", input: [] })).rule).toBe("non-empty")
    expect(failure(buildResponsesBody({ model: "o3", input: 5 })).field).toBe("input")
  })

  it("refuses epsilon and zeta models", () => {
    expect(failure(buildResponsesBody({ ...responses, model: "epsilon-opus-4-5-20251101" })).message).toContain(
      "use messages"
    )
    expect(failure(buildResponsesBody({ ...responses, model: "zeta-3-pro-preview" })).message).toContain("use native")
  })

  it("passes every other field through untouched", () => {
    const input = { ...responses, reasoning: { effort: "high" }, tools: [{ type: "web_search" }], store: false }
    expect(success(buildResponsesBody(input))).toEqual(input)
  })

  it("refuses a function tool's name outside 1 to 64 letters, digits, _ or -", () => {
    const e = failure(
      buildResponsesBody({ ...responses, tools: [{ type: "function", name: "get weather", parameters: {} }] })
    )
    expect(e).toMatchObject({ field: "tools[0].name", rule: "one-of" })
    expect(e.message).toBe('tools[0].name: "get weather" is not allowed; allowed: 1 to 64 letters, digits, _ or -')
    const fine = { ...responses, tools: [{ type: "function", name: "get_weather", parameters: {} }] }
    expect(success(buildResponsesBody(fine))).toEqual(fine)
  })
})
