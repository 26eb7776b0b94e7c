import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { appendToolRound, buildCountTokensBody, buildMessagesBody } from "../../src/core/text/messages/Messages.js"
import { extendRouteCatalog } from "../../src/core/gateway/Catalog.js"

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

const MODEL = "epsilon-opus-4-5-20251101"
const base = { model: MODEL, max_tokens: 4096, messages: [{ role: "user", content: "Hello" }] }
const withField = (extra: Record<string, unknown>) => ({ ...base, ...extra })
const build = (input: unknown) => buildMessagesBody(input)
const userBlocks = (...blocks: Array<unknown>) => withField({ messages: [{ role: "user", content: blocks }] })

describe("buildMessagesBody: required fields", () => {
  it("builds the minimal body unchanged", () => {
    expect(success(build(base))).toEqual(base)
  })

  it("refuses a non-object request", () => {
    const e = failure(build([1]))
    expect(e.rule).toBe("type")
    expect(e.message).toContain("expected an object")
  })

  it("requires model, messages and max_tokens", () => {
    expect(failure(build({ messages: base.messages, max_tokens: 1 })).field).toBe("model")
    expect(failure(build({ model: MODEL, max_tokens: 1 })).field).toBe("messages")
    const e = failure(build({ model: MODEL, messages: base.messages }))
    expect(e.field).toBe("max_tokens")
    expect(e.message).toBe("max_tokens is required")
  })

  it("refuses a model that is not a messages model, naming the capability to use", () => {
    const e = failure(build(withField({ model: "zeta-2.5-pro" })))
    expect(e.field).toBe("model")
    expect(e.message).toContain("use native")
    expect(failure(build(withField({ model: "gpt-4o" }))).message).toContain("use chat")
  })

  it("accepts a model a user catalog routes to messages", () => {
    const catalog = extendRouteCatalog([{ match: { prefix: "acme-" }, capabilities: ["messages"] }])
    expect(success(buildMessagesBody(withField({ model: "acme-1" }), { catalog })).model).toBe("acme-1")
  })

  it("refuses empty messages", () => {
    const e = failure(build(withField({ messages: [] })))
    expect(e.field).toBe("messages")
    expect(e.rule).toBe("non-empty")
  })

  it("accepts user and assistant roles and refuses others, naming the allowed roles", () => {
    expect(
      success(
        build(
          withField({
            messages: [
              { role: "user", content: "a" },
              { role: "assistant", content: "b" }
            ]
          })
        )
      ).messages
    ).toHaveLength(2)
    const e = failure(
      build(
        withField({
          messages: [
            { role: "user", content: "a" },
            { role: "system", content: "b" }
          ]
        })
      )
    )
    expect(e.field).toBe("messages[1].role")
    expect(e.message).toBe('messages[1].role: "system" is not allowed; allowed: user, assistant')
  })

  it("requires content as a string or an array of blocks", () => {
    expect(failure(build(withField({ messages: [{ role: "user" }] }))).field).toBe("messages[0].content")
    const e = failure(build(withField({ messages: [{ role: "user", content: 5 }] })))
    expect(e.field).toBe("messages[0].content")
    expect(e.message).toContain("expected a string or an array of content blocks")
  })

  it("requires max_tokens to be an integer greater than 0", () => {
    expect(success(build(withField({ max_tokens: 1 }))).max_tokens).toBe(1)
    const e = failure(build(withField({ max_tokens: 0 })))
    expect(e.field).toBe("max_tokens")
    expect(e.message).toBe(`max_tokens: 0 is out of range for ${MODEL}; allowed: greater than 0`)
    expect(failure(build(withField({ max_tokens: 1.5 }))).rule).toBe("type")
    expect(failure(build(withField({ max_tokens: "10" }))).field).toBe("max_tokens")
  })
})

describe("buildMessagesBody: sampling and output controls", () => {
  it("accepts temperature and top_p from 0 to 1", () => {
    const body = success(build(withField({ temperature: 0, top_p: 1 })))
    expect(body.temperature).toBe(0)
    expect(body.top_p).toBe(1)
  })

  it("refuses temperature above 1, naming the model and the range", () => {
    const e = failure(build(withField({ temperature: 1.5 })))
    expect(e.field).toBe("temperature")
    expect(e.rule).toBe("range")
    expect(e.message).toBe(`temperature: 1.5 is out of range for ${MODEL}; allowed: 0 to 1`)
  })

  it("refuses top_p below 0", () => {
    expect(failure(build(withField({ top_p: -0.1 }))).message).toBe(
      `top_p: -0.1 is out of range for ${MODEL}; allowed: 0 to 1`
    )
  })

  it("accepts an integer top_k and refuses a fractional one", () => {
    expect(success(build(withField({ top_k: 40 }))).top_k).toBe(40)
    expect(failure(build(withField({ top_k: 2.5 }))).field).toBe("top_k")
  })

  it("accepts stop_sequences of strings and refuses other items", () => {
    expect(success(build(withField({ stop_sequences: ["END"] }))).stop_sequences).toEqual(["END"])
    expect(failure(build(withField({ stop_sequences: ["END", 3] }))).field).toBe("stop_sequences[1]")
    expect(failure(build(withField({ stop_sequences: "END" }))).field).toBe("stop_sequences")
  })

  it("accepts a boolean stream and refuses anything else", () => {
    expect(success(build(withField({ stream: true }))).stream).toBe(true)
    const e = failure(build(withField({ stream: "yes" })))
    expect(e.field).toBe("stream")
    expect(e.message).toContain("expected true or false")
  })

  it("passes metadata, mcp_servers and context_management through when they have the right type", () => {
    const extra = {
      metadata: { user_id: "u1" },
      mcp_servers: [{ type: "url", url: "https://x" }],
      context_management: { edits: [] }
    }
    expect(success(build(withField(extra)))).toMatchObject(extra)
    expect(failure(build(withField({ metadata: "u1" }))).field).toBe("metadata")
    expect(failure(build(withField({ mcp_servers: {} }))).field).toBe("mcp_servers")
  })

  it("refuses an unknown top-level field, naming the nearest known one", () => {
    const e = failure(
      build({ model: MODEL, max_tokens: 5, messages: [{ role: "user", content: "hi" }], temprature: 0.2 })
    )
    expect(e).toMatchObject({ field: "temprature", rule: "unknown-field" })
    expect(e.message).toContain("unknown field `temprature`; did you mean `temperature`?")
    expect(
      failure(
        build(
          JSON.parse(
            `{"model":"${MODEL}","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"__proto__":{"polluted":true}}`
          )
        )
      ).rule
    ).toBe("unknown-field")
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it("names a misspelt field inside a block before another block's error (the walk goes on past a union of kinds)", () => {
    // `content` is a string or an array of blocks: an array can only be the blocks, valid or not, so
    // the walk goes on into them and finds the misspelling that the first block's error would hide.
    const misspelt = { type: "text", text: "hi", cache_control: { type: "ephemeral", ttll: "5m" } }
    const e = failure(build(userBlocks({ type: "text", text: "" }, misspelt)))
    expect(e).toMatchObject({ field: "messages[0].content[1].cache_control.ttll", rule: "unknown-field" })
    expect(e.message).toBe("unknown field `ttll` in messages[0].content[1].cache_control; did you mean `ttl`?")
    // With the misspelling mended, the first block's error is the one named.
    const mended = { ...misspelt, cache_control: { type: "ephemeral", ttl: "5m" } }
    expect(failure(build(userBlocks({ type: "text", text: "" }, mended))).field).toBe("messages[0].content[0].text")
  })

  it("sends fields umg does not know yet through extra, refusing a known field there", () => {
    const input = JSON.parse(
      `{"model":"${MODEL}","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"service_tier":"auto","extra":{"output_config":{"effort":"low"},"__proto__":{"polluted":true}}}`
    )
    const body = success(build(input)) as Record<string, unknown>
    expect(body.service_tier).toBe("auto")
    expect(body.output_config).toEqual({ effort: "low" })
    expect(Object.hasOwn(body, "extra")).toBe(false)
    expect(Object.hasOwn(body, "__proto__")).toBe(false)
    const e = failure(
      build({ model: MODEL, max_tokens: 5, messages: [{ role: "user", content: "hi" }], extra: { temperature: 3 } })
    )
    expect(e).toMatchObject({ field: "extra.temperature", rule: "extra-known" })
  })

  it("leaves out known optional fields given as null", () => {
    const body = success(build(withField({ temperature: null })))
    expect("temperature" in body).toBe(false)
  })
})

describe("buildMessagesBody: system and content blocks", () => {
  it("accepts system as a string or as text blocks with cache_control", () => {
    expect(success(build(withField({ system: "Be brief." }))).system).toBe("Be brief.")
    const system = [{ type: "text", text: "Long context", cache_control: { type: "ephemeral" } }]
    expect(success(build(withField({ system }))).system).toEqual(system)
  })

  it("refuses a system block that is not text", () => {
    const e = failure(build(withField({ system: [{ type: "image", text: "x" }] })))
    expect(e.field).toBe("system[0].type")
    expect(e.message).toBe('system[0].type: "image" is not allowed; allowed: text')
    expect(failure(build(withField({ system: 4 }))).field).toBe("system")
  })

  it("accepts text blocks and refuses an empty text", () => {
    expect(success(build(userBlocks({ type: "text", text: "hi" }))).messages[0]!.content).toEqual([
      { type: "text", text: "hi" }
    ])
    expect(failure(build(userBlocks({ type: "text", text: "" }))).field).toBe("messages[0].content[0].text")
  })

  it("requires a type on every block", () => {
    expect(failure(build(userBlocks({ text: "hi" }))).field).toBe("messages[0].content[0].type")
    expect(failure(build(userBlocks("hi"))).field).toBe("messages[0].content[0]")
  })

  it("accepts image blocks with base64, url and file sources", () => {
    const blocks = [
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0K" } },
      { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
      { type: "image", source: { type: "file", file_id: "file_1" } }
    ]
    expect(success(build(userBlocks(...blocks))).messages[0]!.content).toEqual(blocks)
  })

  it("refuses an image media type outside the four, naming them", () => {
    const e = failure(
      build(
        userBlocks(
          { type: "text", text: "see" },
          { type: "image", source: { type: "base64", media_type: "image/bmp", data: "x" } }
        )
      )
    )
    expect(e.field).toBe("messages[0].content[1].source.media_type")
    expect(e.message).toBe(
      'messages[0].content[1].source.media_type: "image/bmp" is not allowed; allowed: image/jpeg, image/png, image/gif, image/webp'
    )
  })

  it("refuses an image source without data, url or a known type", () => {
    expect(
      failure(build(userBlocks({ type: "image", source: { type: "base64", media_type: "image/png" } }))).field
    ).toBe("messages[0].content[0].source.data")
    expect(failure(build(userBlocks({ type: "image", source: { type: "url" } }))).field).toBe(
      "messages[0].content[0].source.url"
    )
    const e = failure(build(userBlocks({ type: "image", source: { type: "path", path: "/tmp/a" } })))
    expect(e.field).toBe("messages[0].content[0].source.type")
    expect(e.message).toContain("allowed: base64, url, file")
    expect(failure(build(userBlocks({ type: "image" }))).field).toBe("messages[0].content[0].source")
  })

  it("accepts document blocks and checks their source", () => {
    const doc = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0" } }
    expect(success(build(userBlocks(doc))).messages[0]!.content).toEqual([doc])
    expect(failure(build(userBlocks({ type: "document", source: { type: "url" } }))).field).toBe(
      "messages[0].content[0].source.url"
    )
  })

  it("passes block kinds it does not know through unchanged", () => {
    const block = { type: "search_result", source: "https://x", title: "t", content: [{ type: "text", text: "c" }] }
    expect(success(build(userBlocks(block))).messages[0]!.content).toEqual([block])
  })

  it("accepts tool_use, thinking and redacted_thinking in assistant turns only", () => {
    const assistant = [
      { type: "thinking", thinking: "Let me think", signature: "sig" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }
    ]
    const body = success(
      build(
        withField({
          messages: [
            { role: "user", content: "Weather?" },
            { role: "assistant", content: assistant },
            { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Sunny" }] }
          ]
        })
      )
    )
    expect(body.messages[1]!.content).toEqual(assistant)
    const e = failure(build(userBlocks({ type: "tool_use", id: "t", name: "n", input: {} })))
    expect(e.field).toBe("messages[0].content[0].type")
    expect(e.message).toBe(
      'messages[0].content[0].type: "tool_use" is not allowed in a user turn; allowed in: assistant turns'
    )
  })

  it("refuses a tool_result in an assistant turn", () => {
    const e = failure(
      build(withField({ messages: [{ role: "assistant", content: [{ type: "tool_result", tool_use_id: "t" }] }] }))
    )
    expect(e.message).toContain("allowed in: user turns")
  })

  it("checks the fields of tool_use, tool_result and thinking blocks", () => {
    const asAssistant = (block: unknown) => withField({ messages: [{ role: "assistant", content: [block] }] })
    expect(failure(build(asAssistant({ type: "tool_use", id: "t", name: "n" }))).field).toBe(
      "messages[0].content[0].input"
    )
    expect(failure(build(asAssistant({ type: "tool_use", id: "t", name: "n", input: [] }))).field).toBe(
      "messages[0].content[0].input"
    )
    expect(failure(build(asAssistant({ type: "thinking", thinking: "x" }))).field).toBe(
      "messages[0].content[0].signature"
    )
    expect(failure(build(userBlocks({ type: "tool_result" }))).field).toBe("messages[0].content[0].tool_use_id")
    expect(failure(build(userBlocks({ type: "tool_result", tool_use_id: "t", is_error: "no" }))).field).toBe(
      "messages[0].content[0].is_error"
    )
    expect(
      failure(build(userBlocks({ type: "tool_result", tool_use_id: "t", content: [{ type: "text" }] }))).field
    ).toBe("messages[0].content[0].content[0].text")
  })
})

describe("buildMessagesBody: cache_control", () => {
  it("accepts ephemeral and persistent wherever cache_control appears", () => {
    const input = withField({
      cache_control: { type: "persistent" },
      system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "t", input_schema: { type: "object" }, cache_control: { type: "persistent" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "5m" } }] }
      ]
    })
    expect(success(build(input))).toEqual(input)
  })

  it("refuses another cache_control type, naming the field and the allowed values", () => {
    const e = failure(build(userBlocks({ type: "text", text: "hi", cache_control: { type: "forever" } })))
    expect(e.field).toBe("messages[0].content[0].cache_control.type")
    expect(e.message).toBe(
      'messages[0].content[0].cache_control.type: "forever" is not allowed; allowed: ephemeral, persistent'
    )
    expect(failure(build(withField({ cache_control: { type: "x" } }))).field).toBe("cache_control.type")
    expect(failure(build(withField({ cache_control: {} }))).field).toBe("cache_control.type")
    expect(failure(build(withField({ system: [{ type: "text", text: "s", cache_control: "ephemeral" }] }))).field).toBe(
      "system[0].cache_control"
    )
    expect(
      failure(
        build(withField({ tools: [{ name: "t", input_schema: { type: "object" }, cache_control: { type: "1h" } }] }))
      ).field
    ).toBe("tools[0].cache_control.type")
  })
})

describe("buildMessagesBody: thinking", () => {
  it("accepts enabled thinking with a budget above 1024 and below max_tokens", () => {
    expect(success(build(withField({ thinking: { type: "enabled", budget_tokens: 2048 } }))).thinking).toEqual({
      type: "enabled",
      budget_tokens: 2048
    })
  })

  it("refuses a budget of 1024 or less", () => {
    const e = failure(build(withField({ thinking: { type: "enabled", budget_tokens: 1024 } })))
    expect(e.field).toBe("thinking.budget_tokens")
    expect(e.message).toBe(`thinking.budget_tokens: 1024 is out of range for ${MODEL}; allowed: greater than 1024`)
  })

  it("refuses a budget not below max_tokens", () => {
    const e = failure(build(withField({ max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 2000 } })))
    expect(e.field).toBe("thinking.budget_tokens")
    expect(e.message).toContain("less than max_tokens (2000)")
  })

  it("requires budget_tokens for enabled thinking and accepts disabled and adaptive without one", () => {
    expect(failure(build(withField({ thinking: { type: "enabled" } }))).field).toBe("thinking.budget_tokens")
    expect(success(build(withField({ thinking: { type: "disabled" } }))).thinking).toEqual({ type: "disabled" })
    expect(success(build(withField({ thinking: { type: "adaptive", display: "summarized" } }))).thinking).toEqual({
      type: "adaptive",
      display: "summarized"
    })
  })

  it("refuses an unknown thinking type, naming the three", () => {
    const e = failure(build(withField({ thinking: { type: "on" } })))
    expect(e.field).toBe("thinking.type")
    expect(e.message).toBe('thinking.type: "on" is not allowed; allowed: enabled, disabled, adaptive')
  })
})

describe("buildMessagesBody: tools and tool_choice", () => {
  const weather = {
    name: "get_weather",
    description: "Weather by city",
    input_schema: { type: "object", properties: { city: { type: "string" } } }
  }

  it("accepts function tools and server tools with a type", () => {
    const tools = [weather, { type: "web_search_20250305", name: "web_search", max_uses: 3 }]
    expect(success(build(withField({ tools }))).tools).toEqual(tools)
  })

  it("requires a name and an input_schema object of type object on function tools", () => {
    expect(failure(build(withField({ tools: [{ input_schema: { type: "object" } }] }))).field).toBe("tools[0].name")
    expect(failure(build(withField({ tools: [{ name: "t" }] }))).field).toBe("tools[0].input_schema")
    expect(failure(build(withField({ tools: [{ name: "t", input_schema: "object" }] }))).field).toBe(
      "tools[0].input_schema"
    )
    const e = failure(build(withField({ tools: [{ name: "t", input_schema: { type: "array" } }] })))
    expect(e.field).toBe("tools[0].input_schema.type")
    expect(e.message).toBe('tools[0].input_schema.type: "array" is not allowed; allowed: object')
  })

  it("refuses a tool name with spaces and a name declared twice", () => {
    expect(
      failure(build(withField({ tools: [{ name: "get weather", input_schema: { type: "object" } }] }))).message
    ).toContain("allowed: 1 to 128 letters, digits, _ or -")
    const e = failure(build(withField({ tools: [weather, weather] })))
    expect(e.field).toBe("tools[1].name")
    expect(e.rule).toBe("unique")
  })

  it("accepts tool_choice in its four forms", () => {
    for (const tool_choice of [
      { type: "auto" },
      { type: "auto", disable_parallel_tool_use: true },
      { type: "any" },
      { type: "none" },
      { type: "tool", name: "get_weather" }
    ])
      expect(success(build(withField({ tools: [weather], tool_choice }))).tool_choice).toEqual(tool_choice)
  })

  it("refuses another tool_choice type, naming the four", () => {
    const e = failure(build(withField({ tool_choice: { type: "required" } })))
    expect(e.field).toBe("tool_choice.type")
    expect(e.message).toBe('tool_choice.type: "required" is not allowed; allowed: auto, any, none, tool')
    expect(failure(build(withField({ tool_choice: "auto" }))).field).toBe("tool_choice")
  })

  it("requires tool_choice.name for type tool, matching a declared tool", () => {
    expect(failure(build(withField({ tools: [weather], tool_choice: { type: "tool" } }))).field).toBe(
      "tool_choice.name"
    )
    const e = failure(build(withField({ tools: [weather], tool_choice: { type: "tool", name: "get_time" } })))
    expect(e.field).toBe("tool_choice.name")
    expect(e.message).toBe('tool_choice.name: "get_time" is not allowed for the declared tools; allowed: get_weather')
  })

  it("refuses a non-boolean disable_parallel_tool_use", () => {
    expect(failure(build(withField({ tool_choice: { type: "auto", disable_parallel_tool_use: 1 } }))).field).toBe(
      "tool_choice.disable_parallel_tool_use"
    )
  })
})

describe("buildCountTokensBody", () => {
  it("builds a body of model and messages, with system and tools optional", () => {
    const input = {
      model: MODEL,
      messages: base.messages,
      system: "s",
      tools: [{ name: "t", input_schema: { type: "object" } }]
    }
    expect(success(buildCountTokensBody(input))).toEqual(input)
  })

  it("drops the output controls it does not count, so a create body counts as it is", () => {
    const body = success(
      buildCountTokensBody(withField({ stream: true, temperature: 0.5, top_k: 5, metadata: { user_id: "u" } }))
    )
    expect(body).toEqual({ model: MODEL, messages: base.messages })
  })

  it("requires model and messages and a messages model", () => {
    expect(failure(buildCountTokensBody({ messages: base.messages })).field).toBe("model")
    expect(failure(buildCountTokensBody({ model: MODEL })).field).toBe("messages")
    expect(failure(buildCountTokensBody({ model: "gpt-4o", messages: base.messages })).message).toContain(
      "cannot be sent to countTokens"
    )
  })

  it("checks the messages and tools it counts", () => {
    expect(failure(buildCountTokensBody({ model: MODEL, messages: [{ role: "bot", content: "x" }] })).field).toBe(
      "messages[0].role"
    )
    expect(failure(buildCountTokensBody({ model: MODEL, messages: base.messages, tools: [{ name: "t" }] })).field).toBe(
      "tools[0].input_schema"
    )
  })

  it("checks a thinking budget without comparing it to max_tokens", () => {
    expect(
      success(
        buildCountTokensBody({
          model: MODEL,
          messages: base.messages,
          thinking: { type: "enabled", budget_tokens: 9000 }
        })
      ).thinking
    ).toEqual({
      type: "enabled",
      budget_tokens: 9000
    })
    expect(
      failure(
        buildCountTokensBody({
          model: MODEL,
          messages: base.messages,
          thinking: { type: "enabled", budget_tokens: 10 }
        })
      ).field
    ).toBe("thinking.budget_tokens")
  })
})

describe("appendToolRound", () => {
  const conversation = [{ role: "user", content: "Weather in Paris and Rome?" }]
  const assistant = [
    { type: "thinking", thinking: "Two calls.", signature: "sig-1" },
    { type: "text", text: "Checking." },
    { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
    { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Rome" } }
  ]

  it("appends the assistant turn unchanged and in order, then a user turn of tool results", () => {
    const next = success(
      appendToolRound(conversation, assistant, [
        { tool_use_id: "toolu_1", content: "Sunny" },
        { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "Rain" }], is_error: false }
      ])
    )
    expect(next).toEqual([
      ...conversation,
      { role: "assistant", content: assistant },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "Sunny" },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "Rain" }], is_error: false }
        ]
      }
    ])
  })

  it("builds a body that buildMessagesBody accepts", () => {
    const messages = success(
      appendToolRound(conversation, assistant, [{ tool_use_id: "toolu_1" }, { tool_use_id: "toolu_2" }])
    )
    expect(success(build(withField({ messages }))).messages).toHaveLength(3)
  })

  it("refuses a result whose tool_use_id names no tool_use of the assistant turn", () => {
    const e = failure(appendToolRound(conversation, assistant, [{ tool_use_id: "toolu_9", content: "?" }]))
    expect(e.field).toBe("toolResults[0].tool_use_id")
    expect(e.message).toBe(
      'toolResults[0].tool_use_id: "toolu_9" is not allowed for the tool_use blocks of the assistant turn; allowed: toolu_1, toolu_2'
    )
  })

  it("refuses a tool_use left without a result and a result given twice", () => {
    const missing = failure(appendToolRound(conversation, assistant, [{ tool_use_id: "toolu_1" }]))
    expect(missing.field).toBe("toolResults")
    expect(missing.message).toContain('"toolu_2"')
    const twice = failure(
      appendToolRound(conversation, assistant, [{ tool_use_id: "toolu_1" }, { tool_use_id: "toolu_1" }])
    )
    expect(twice.field).toBe("toolResults[1].tool_use_id")
    expect(twice.rule).toBe("unique")
  })

  it("refuses an assistant turn without tool_use and empty results", () => {
    expect(failure(appendToolRound(conversation, [{ type: "text", text: "Hi" }], [{ tool_use_id: "x" }])).field).toBe(
      "assistantContent"
    )
    expect(failure(appendToolRound(conversation, assistant, [])).field).toBe("toolResults")
  })

  it("refuses a result of another block type and a malformed conversation", () => {
    const e = failure(
      appendToolRound(conversation, assistant, [{ type: "text", tool_use_id: "toolu_1" }, { tool_use_id: "toolu_2" }])
    )
    expect(e.field).toBe("toolResults[0].type")
    expect(failure(appendToolRound([{ role: "bot", content: "x" }], assistant, [])).field).toBe("messages[0].role")
  })
})
