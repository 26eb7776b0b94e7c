import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import { prepareSchema } from "../../src/core/structured/AnySchema.js"
import {
  chatMechanism,
  messagesMechanism,
  nativeMechanism,
  responsesMechanism,
  schemaTarget
} from "../../src/core/structured/Mechanisms.js"
import { buildChatBody, type ChatBodyInput } from "../../src/core/text/chat/ChatBody.js"
import { buildMessagesBody } from "../../src/core/text/messages/Messages.js"
import { buildNativeBody, type NativeBodyInput } from "../../src/core/text/native/Native.js"
import { buildResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"
import * as z from "zod"

const settle = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.result(effect))

const prepared = Result.getOrThrow(prepareSchema(z.object({ title: z.string(), year: z.number().int().optional() })))
const target = Result.getOrThrow(schemaTarget(prepared, { name: "movie" }))

describe("the body builders take each family's structured-output fields", () => {
  it("chat: the mechanism's response_format passes, as sent", async () => {
    const input: ChatBodyInput = { model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] }
    const body = Result.getOrThrow(chatMechanism.request(input, target))
    const built = await settle(buildChatBody(body))
    expect(Result.isSuccess(built) && built.success.response_format).toEqual(body.response_format)
  })

  it("responses: the mechanism's text.format passes, with text's other members", async () => {
    const body = Result.getOrThrow(
      responsesMechanism.request({ model: "gpt-4o-mini", input: "x", text: { verbosity: "low" } }, target)
    )
    const built = await settle(buildResponsesBody(body))
    expect(Result.isSuccess(built) && built.success.text).toEqual(body.text)
  })

  it("native: responseMimeType and responseJsonSchema pass", async () => {
    const input: NativeBodyInput = { contents: [{ role: "user", parts: [{ text: "x" }] }] }
    const body = Result.getOrThrow(nativeMechanism.request(input, target))
    const built = await settle(buildNativeBody("zeta-2.5-flash", body))
    expect(Result.isSuccess(built) && built.success.generationConfig).toEqual(body.generationConfig)
  })

  it("messages-style: the forced tool passes, and a forced tool that is not declared is refused", async () => {
    const body = Result.getOrThrow(
      messagesMechanism.request(
        { model: "epsilon-sonnet-4-5-20250929", max_tokens: 64, messages: [{ role: "user", content: "x" }] },
        target
      )
    )
    const built = await settle(buildMessagesBody(body))
    expect(Result.isSuccess(built) && built.success.tool_choice).toEqual({ type: "tool", name: "movie" })
    const undeclared = await settle(buildMessagesBody({ ...body, tools: [] }))
    expect(Result.isFailure(undeclared) && undeclared.failure.field).toBe("tool_choice.name")
  })
})

describe("the builders refuse a malformed structured-output field, naming it and what is allowed", () => {
  const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "x" }] }
  const cases: ReadonlyArray<
    readonly [
      string,
      () => Effect.Effect<unknown, { readonly field: string; readonly message: string }>,
      string,
      RegExp
    ]
  > = [
    [
      "chat type",
      () => buildChatBody({ ...chat, response_format: { type: "jsonschema" } }),
      "response_format.type",
      /allowed: text, json_object, json_schema/
    ],
    [
      "chat json_schema",
      () => buildChatBody({ ...chat, response_format: { type: "json_schema" } }),
      "response_format.json_schema",
      /is required/
    ],
    [
      "chat name",
      () => buildChatBody({ ...chat, response_format: { type: "json_schema", json_schema: { name: "a b" } } }),
      "response_format.json_schema.name",
      /"a b" is not allowed.*allowed: 1 to 64 letters, digits, _ or -/
    ],
    [
      "chat strict",
      () =>
        buildChatBody({ ...chat, response_format: { type: "json_schema", json_schema: { name: "n", strict: "yes" } } }),
      "response_format.json_schema.strict",
      /expected true or false/
    ],
    [
      "responses type",
      () => buildResponsesBody({ model: "gpt-4o-mini", input: "x", text: { format: { type: "xml" } } }),
      "text.format.type",
      /allowed: text, json_object, json_schema/
    ],
    [
      "responses schema",
      () =>
        buildResponsesBody({ model: "gpt-4o-mini", input: "x", text: { format: { type: "json_schema", name: "n" } } }),
      "text.format.schema",
      /is required/
    ],
    [
      "native both schemas",
      () =>
        buildNativeBody("zeta-2.5-flash", {
          contents: [{ role: "user", parts: [{ text: "x" }] }],
          generationConfig: { responseSchema: { type: "OBJECT" }, responseJsonSchema: { type: "object" } }
        }),
      "generationConfig.responseJsonSchema",
      /allowed: one of responseSchema, responseJsonSchema/
    ]
  ]
  for (const [name, build, field, message] of cases)
    it(name, async () => {
      const result = await settle(build())
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        expect(result.failure.field).toBe(field)
        expect(result.failure.message).toMatch(message)
        expect(result.failure.message.startsWith(`${field}`)).toBe(true)
      }
    })
})
