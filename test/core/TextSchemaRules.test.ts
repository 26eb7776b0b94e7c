import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { buildChatBody, ChatBody, ChatMessageParam } from "../../src/core/text/chat/ChatBody.js"
import {
  AssistantContent,
  appendToolRound,
  buildCountTokensBody,
  buildMessagesBody,
  CountTokensBody,
  DocumentBlockParam,
  MessageParam,
  MessagesBody,
  ToolResultBlockParam
} from "../../src/core/text/messages/Messages.js"
import {
  buildNativeBody,
  NativeBody,
  NativePartParam,
  nativeThinkingConfigFor,
  NativeTool,
  parseNativeModel
} from "../../src/core/text/native/Native.js"
import { buildResponsesBody, ResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"

// Each rule below lives in a text body's Schema: the Schema alone refuses the value (so the rule cannot
// be dropped from it unnoticed), and the builder reports it with the field, the value and what is allowed.

const is = <A>(schema: Schema.Schema<A>, value: unknown): boolean => Schema.is(schema)(value)

const model = "epsilon-opus-4-5-20251101"
const user = { role: "user", content: "hi" }
const tool = (name: string) => ({ name, input_schema: { type: "object" } })
const messages = (extra: Record<string, unknown>) => ({ model, max_tokens: 4096, messages: [user], ...extra })

describe("messages: rules across fields live in the body Schemas", () => {
  it.effect("a block of one side only is refused in a turn of the other side", () =>
    Effect.gen(function* () {
      const toolUse = { type: "tool_use", id: "t1", name: "f", input: {} }
      expect(is(MessageParam, { role: "assistant", content: [toolUse] })).toBe(true)
      expect(is(MessageParam, { role: "user", content: [toolUse] })).toBe(false)
      expect(is(MessageParam, { role: "assistant", content: [{ type: "tool_result", tool_use_id: "t1" }] })).toBe(false)
      const e = yield* Effect.flip(buildMessagesBody(messages({ messages: [{ role: "user", content: [toolUse] }] })))
      expect(e).toMatchObject({
        field: "messages[0].content[0].type",
        rule: "role",
        message: 'messages[0].content[0].type: "tool_use" is not allowed in a user turn; allowed in: assistant turns'
      })
    })
  )

  it.effect("a tool result holds no block of an assistant turn", () =>
    Effect.gen(function* () {
      const result = { type: "tool_result", tool_use_id: "t1" }
      expect(is(ToolResultBlockParam, { ...result, content: [{ type: "text", text: "ok" }] })).toBe(true)
      expect(
        is(ToolResultBlockParam, { ...result, content: [{ type: "thinking", thinking: "t", signature: "s" }] })
      ).toBe(false)
      const turn = {
        role: "user",
        content: [{ ...result, content: [{ type: "thinking", thinking: "t", signature: "s" }] }]
      }
      const e = yield* Effect.flip(buildMessagesBody(messages({ messages: [turn] })))
      expect(e).toMatchObject({ field: "messages[0].content[0].content[0].type", rule: "role" })
    })
  )

  it.effect("the assistant turn of a tool round holds no tool_result", () =>
    Effect.gen(function* () {
      expect(is(AssistantContent, [{ type: "tool_use", id: "t1", name: "f", input: {} }])).toBe(true)
      expect(is(AssistantContent, [{ type: "tool_result", tool_use_id: "t1" }])).toBe(false)
      expect(is(AssistantContent, [])).toBe(false)
      const e = yield* Effect.flip(
        appendToolRound([user], [{ type: "tool_result", tool_use_id: "t1" }], [{ tool_use_id: "t1" }])
      )
      expect(e).toMatchObject({ field: "assistantContent[0].type", rule: "role" })
    })
  )

  it.effect("a document source names its data, url or file", () =>
    Effect.gen(function* () {
      expect(is(DocumentBlockParam, { type: "document", source: { type: "url", url: "https://x" } })).toBe(true)
      expect(is(DocumentBlockParam, { type: "document", source: { type: "url" } })).toBe(false)
      expect(
        is(DocumentBlockParam, { type: "document", source: { type: "base64", media_type: "application/pdf" } })
      ).toBe(false)
      const block = { type: "document", source: { type: "file" } }
      const e = yield* Effect.flip(buildMessagesBody(messages({ messages: [{ role: "user", content: [block] }] })))
      expect(e).toMatchObject({
        field: "messages[0].content[0].source.file_id",
        rule: "required",
        message: "messages[0].content[0].source.file_id is required"
      })
    })
  )

  it.effect("tool names are unique", () =>
    Effect.gen(function* () {
      expect(is(MessagesBody, messages({ tools: [tool("f"), tool("g")] }))).toBe(true)
      expect(is(MessagesBody, messages({ tools: [tool("f"), tool("f")] }))).toBe(false)
      expect(is(CountTokensBody, { model, messages: [user], tools: [tool("f"), tool("f")] })).toBe(false)
      const e = yield* Effect.flip(buildCountTokensBody({ model, messages: [user], tools: [tool("f"), tool("f")] }))
      expect(e).toMatchObject({
        field: "tools[1].name",
        rule: "unique",
        message: 'tools[1].name: "f" is declared twice; tool names must be unique'
      })
    })
  )

  it.effect("tool_choice names a declared tool", () =>
    Effect.gen(function* () {
      expect(is(MessagesBody, messages({ tools: [tool("f")], tool_choice: { type: "tool", name: "f" } }))).toBe(true)
      expect(is(MessagesBody, messages({ tools: [tool("f")], tool_choice: { type: "tool", name: "g" } }))).toBe(false)
      const e = yield* Effect.flip(
        buildMessagesBody(messages({ tools: [tool("f")], tool_choice: { type: "tool", name: "g" } }))
      )
      expect(e).toMatchObject({
        field: "tool_choice.name",
        rule: "one-of",
        message: 'tool_choice.name: "g" is not allowed for the declared tools; allowed: f'
      })
    })
  )

  it.effect("the thinking budget leaves room in max_tokens", () =>
    Effect.gen(function* () {
      expect(is(MessagesBody, messages({ thinking: { type: "enabled", budget_tokens: 2048 } }))).toBe(true)
      expect(is(MessagesBody, messages({ thinking: { type: "enabled", budget_tokens: 4096 } }))).toBe(false)
      const e = yield* Effect.flip(buildMessagesBody(messages({ thinking: { type: "enabled", budget_tokens: 4096 } })))
      expect(e).toMatchObject({
        field: "thinking.budget_tokens",
        rule: "range",
        message: `thinking.budget_tokens: 4096 is out of range for ${model}; allowed: greater than 1024 and less than max_tokens (4096)`
      })
    })
  )
})

const contents = [{ role: "user", parts: [{ text: "x" }] }]
const declarations = (...names: ReadonlyArray<string>) => [{ functionDeclarations: names.map((name) => ({ name })) }]

describe("native content: rules across fields live in the body Schemas", () => {
  it.effect("a part holds exactly one data kind", () =>
    Effect.gen(function* () {
      expect(is(NativePartParam, { text: "x", thought: true })).toBe(true)
      expect(is(NativePartParam, { text: "x", inlineData: { mimeType: "image/png", data: "x" } })).toBe(false)
      expect(is(NativePartParam, {})).toBe(false)
      const e = yield* Effect.flip(buildNativeBody("zeta-2.5-pro", { contents: [{ parts: [{ text: "x" }, {}] }] }))
      expect(e).toMatchObject({ field: "contents[0].parts[1]", rule: "non-empty" })
    })
  )

  it.effect("a grounding tool is its own tools element", () =>
    Effect.gen(function* () {
      expect(is(NativeTool, { vendorSearch: {} })).toBe(true)
      expect(is(NativeTool, { functionDeclarations: [{ name: "f" }], codeExecution: {} })).toBe(false)
      const e = yield* Effect.flip(
        buildNativeBody("zeta-2.5-pro", {
          contents,
          tools: [{ functionDeclarations: [{ name: "f" }], vendorSearch: {} }]
        })
      )
      expect(e).toMatchObject({ field: "tools[0].vendorSearch", rule: "own-element" })
    })
  )

  it.effect("function names are unique across the tools", () =>
    Effect.gen(function* () {
      expect(is(NativeBody, { contents, tools: declarations("f", "g") })).toBe(true)
      expect(is(NativeBody, { contents, tools: [...declarations("f"), ...declarations("f")] })).toBe(false)
      const e = yield* Effect.flip(
        buildNativeBody("zeta-2.5-pro", { contents, tools: [...declarations("f"), ...declarations("f")] })
      )
      expect(e).toMatchObject({ field: "tools[1].functionDeclarations[0].name", rule: "unique" })
    })
  )

  it.effect("allowedFunctionNames only in mode ANY, naming declared functions", () =>
    Effect.gen(function* () {
      const config = (mode: string, names: ReadonlyArray<string>) => ({
        functionCallingConfig: { mode, allowedFunctionNames: names }
      })
      expect(is(NativeBody, { contents, tools: declarations("f"), toolConfig: config("ANY", ["f"]) })).toBe(true)
      expect(is(NativeBody, { contents, tools: declarations("f"), toolConfig: config("AUTO", ["f"]) })).toBe(false)
      expect(is(NativeBody, { contents, tools: declarations("f"), toolConfig: config("ANY", ["g"]) })).toBe(false)
      const mode = yield* Effect.flip(
        buildNativeBody("zeta-2.5-pro", { contents, tools: declarations("f"), toolConfig: config("AUTO", ["f"]) })
      )
      expect(mode).toMatchObject({
        field: "toolConfig.functionCallingConfig.allowedFunctionNames",
        rule: "mode",
        message: 'toolConfig.functionCallingConfig.allowedFunctionNames: only allowed with mode ANY; mode is "AUTO"'
      })
      const unknown = yield* Effect.flip(
        buildNativeBody("zeta-2.5-pro", { contents, tools: declarations("f"), toolConfig: config("ANY", ["g"]) })
      )
      expect(unknown).toMatchObject({
        field: "toolConfig.functionCallingConfig.allowedFunctionNames[0]",
        rule: "one-of",
        message:
          'toolConfig.functionCallingConfig.allowedFunctionNames[0]: "g" is not allowed for the declared functions; allowed: f'
      })
    })
  )

  it.effect(
    "a model's thinkingConfig: budget or level by class, within the model's range, agreeing with the suffix",
    () =>
      Effect.gen(function* () {
        const pro = nativeThinkingConfigFor(yield* Effect.fromResult(parseNativeModel("zeta-2.5-pro")))
        expect(is(pro, { thinkingBudget: 1024 })).toBe(true)
        expect(is(pro, { thinkingBudget: 50 })).toBe(false)
        expect(is(pro, { thinkingLevel: "LOW" })).toBe(false)
        expect(is(pro, { thinkingBudget: 1024, thinkingLevel: "LOW" })).toBe(false)
        const three = nativeThinkingConfigFor(yield* Effect.fromResult(parseNativeModel("zeta-3-pro-preview")))
        expect(is(three, { thinkingLevel: "low" })).toBe(true)
        expect(is(three, { thinkingLevel: "MEDIUM" })).toBe(false)
        // A budget alone is still taken on the 3 class, for backward compatibility (notes §2.6); never beside a level.
        expect(is(three, { thinkingBudget: 1024 })).toBe(true)
        expect(is(three, { thinkingBudget: 1024, thinkingLevel: "LOW" })).toBe(false)
        const off = nativeThinkingConfigFor(yield* Effect.fromResult(parseNativeModel("zeta-2.5-flash-nothinking")))
        expect(is(off, { thinkingBudget: 0 })).toBe(true)
        expect(is(off, { includeThoughts: true })).toBe(false)
        const both = yield* Effect.flip(
          buildNativeBody("zeta-2.5-pro", {
            contents,
            generationConfig: { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: "LOW" } }
          })
        )
        expect(both).toMatchObject({
          field: "generationConfig.thinkingConfig",
          rule: "exclusive",
          message:
            "generationConfig.thinkingConfig: thinkingBudget and thinkingLevel are both set; allowed: one of them"
        })
        const contradicts = yield* Effect.flip(
          buildNativeBody("zeta-2.5-flash-nothinking", {
            contents,
            generationConfig: { thinkingConfig: { includeThoughts: true } }
          })
        )
        expect(contradicts).toMatchObject({
          field: "generationConfig.thinkingConfig.includeThoughts",
          rule: "contradiction"
        })
        // The level is taken in either case and sent in the enum form.
        const body = yield* buildNativeBody("zeta-3-pro-preview", {
          contents,
          generationConfig: { thinkingConfig: { thinkingLevel: "low" } }
        })
        expect(body.generationConfig?.thinkingConfig?.thinkingLevel).toBe("LOW")
      })
  )
})

describe("chat and responses: rules across fields live in the body Schemas", () => {
  it.effect("chat: content null only on an assistant turn that calls tools", () =>
    Effect.gen(function* () {
      const call = { id: "c", type: "function", function: { name: "f", arguments: "{}" } }
      expect(is(ChatMessageParam, { role: "assistant", content: null, tool_calls: [call] })).toBe(true)
      expect(is(ChatMessageParam, { role: "user", content: null })).toBe(false)
      expect(is(ChatBody, { model: "gpt-4o", messages: [{ role: "assistant", content: null }] })).toBe(false)
      const e = yield* Effect.flip(buildChatBody({ model: "gpt-4o", messages: [{ role: "user", content: null }] }))
      expect(e).toMatchObject({
        field: "messages[0].content",
        rule: "required",
        message: "messages[0].content is required"
      })
    })
  )

  it.effect("responses: input unless a prompt, a previous response or a conversation stands in for it", () =>
    Effect.gen(function* () {
      expect(is(ResponsesBody, { model: "gpt-5", input: "x" })).toBe(true)
      expect(is(ResponsesBody, { model: "gpt-5", previous_response_id: "r" })).toBe(true)
      expect(is(ResponsesBody, { model: "gpt-5" })).toBe(false)
      const e = yield* Effect.flip(buildResponsesBody({ model: "gpt-5", max_output_tokens: 10 }))
      expect(e).toMatchObject({ field: "input", rule: "required", message: "input is required" })
    })
  )
})

describe("conform reports the text Schemas' failures as the old rules did", () => {
  it.effect("an array where a union of objects is expected is named as such, not by a missing tag", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(buildMessagesBody(messages({ messages: [user, [1]] })))
      expect(e).toMatchObject({
        field: "messages[1]",
        rule: "type",
        message: "messages[1]: expected an object, got an array of 1"
      })
      const block = yield* Effect.flip(buildMessagesBody(messages({ messages: [{ role: "user", content: [[1]] }] })))
      expect(block).toMatchObject({
        field: "messages[0].content[0]",
        rule: "type",
        message: "messages[0].content[0]: expected an object, got an array of 1"
      })
    })
  )

  it.effect("a block without a type is refused plainly: other kinds pass through, so no list of kinds is given", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(
        buildMessagesBody(messages({ messages: [{ role: "user", content: [{ text: "x" }] }] }))
      )
      expect(e).toMatchObject({
        field: "messages[0].content[0].type",
        rule: "required",
        message: "messages[0].content[0].type is required"
      })
    })
  )

  it.effect("a server tool with a bad name is reported as a server tool, not as a function tool of another type", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(buildMessagesBody(messages({ tools: [{ type: "web_search_20250305", name: "" }] })))
      expect(e).toMatchObject({ field: "tools[0].name", rule: "non-empty", message: "tools[0].name must not be empty" })
      const custom = yield* Effect.flip(
        buildMessagesBody(messages({ tools: [{ name: "has space", input_schema: { type: "object" } }] }))
      )
      expect(custom).toMatchObject({ field: "tools[0].name", rule: "one-of" })
      expect(custom.message).toContain("allowed: 1 to 128 letters, digits, _ or -")
    })
  )

  it.effect("a string of a described form names what is allowed for a value of any kind", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(
        buildNativeBody("zeta-2.5-pro", { contents, generationConfig: { imageConfig: { imageSize: 5 } } })
      )
      expect(e).toMatchObject({
        field: "generationConfig.imageConfig.imageSize",
        rule: "one-of",
        message:
          "generationConfig.imageConfig.imageSize: 5 is not allowed for zeta-2.5-pro; allowed: 1K, 2K, 4K (an uppercase K)"
      })
    })
  )
})
