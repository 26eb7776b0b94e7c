// Tool calls and their results, in every text family: the client's builder refuses a conversation
// whose results answer no call, or whose calls go unanswered, naming the field and the rule, exactly
// when the emulator (as upstream) answers it with a 400; a paired conversation is sent and answered.
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { buildSpeechBody } from "../../src/core/media/Speech.js"
import { buildChatBody } from "../../src/core/text/chat/ChatBody.js"
import { buildMessagesBody } from "../../src/core/text/messages/Messages.js"
import { buildNativeBody } from "../../src/core/text/native/Native.js"
import { buildResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"
import { postStatus } from "../support/emulatorStatus.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

/** The client's verdict: the body it would send, or its refusal. */
const verdict = (effect: Effect.Effect<unknown, InvalidRequest>): Result.Result<unknown, InvalidRequest> =>
  Effect.runSync(Effect.result(effect))

interface Case {
  readonly name: string
  readonly path: string
  readonly body: Record<string, unknown>
  readonly build: (body: Record<string, unknown>) => Effect.Effect<unknown, InvalidRequest>
  /** The client's refusal (field and rule), or `undefined` for a body it sends. */
  readonly refused?: { readonly field: string; readonly rule: string; readonly says: string }
  /** Makes what `body` refers to on the emulator first, and gives the body to use instead. */
  readonly prepare?: () => Promise<Record<string, unknown>>
}

const epsilon = "epsilon-sonnet-4-5-20250929"
const tools = [{ name: "f", input_schema: { type: "object" } }]
const toolUse = { type: "tool_use", id: "toolu_1", name: "f", input: {} }
const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "42" })
const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } }
const messages = (...turns: ReadonlyArray<unknown>) => ({ model: epsilon, max_tokens: 64, tools, messages: turns })
const chat = (...turns: ReadonlyArray<unknown>) => ({ model: "gpt-4o-mini", messages: turns })
const responses = (...input: ReadonlyArray<unknown>) => ({ model: "gpt-5", max_output_tokens: 64, input })
const native = (contents: ReadonlyArray<unknown>) => ({
  contents: [{ role: "user", parts: [{ text: "hi" }] }, ...contents]
})
const callTurn = (...calls: ReadonlyArray<Record<string, unknown>>) => ({
  role: "model",
  parts: calls.map((functionCall) => ({ functionCall }))
})
const responseTurn = (...responses: ReadonlyArray<Record<string, unknown>>) => ({
  role: "user",
  parts: responses.map((functionResponse) => ({ functionResponse }))
})

const hi = { role: "user", content: "hi" }
const usesTool = { role: "assistant", content: [toolUse] }
const calls = (...ids: ReadonlyArray<string>) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => ({ ...call, id }))
})
const toolMessage = (id: string) => ({ role: "tool", tool_call_id: id, content: "42" })
const functionCall = { type: "function_call", call_id: "c1", name: "f", arguments: "{}" }
const output = { type: "function_call_output", call_id: "c1", output: "42" }
const onMessages = { path: "/v1/messages", build: (b: Record<string, unknown>) => buildMessagesBody(b) }
const onChat = { path: "/v1/chat/completions", build: (b: Record<string, unknown>) => buildChatBody(b) }
const onResponses = { path: "/v1/responses", build: (b: Record<string, unknown>) => buildResponsesBody(b) }
const onNative = {
  path: "/v1beta/models/zeta-2.5-flash:generateContent",
  build: (b: Record<string, unknown>) => buildNativeBody("zeta-2.5-flash", b)
}

const cases: ReadonlyArray<Case> = [
  {
    name: "messages: a tool_result answering the tool_use before it",
    ...onMessages,
    body: messages(hi, usesTool, { role: "user", content: [result("toolu_1")] })
  },
  {
    name: "messages: a tool_result with no tool_use before it",
    ...onMessages,
    body: messages({ role: "user", content: [result("toolu_1")] }),
    refused: { field: "messages[0].content[0].tool_use_id", rule: "one-of", says: "answers no call; allowed: none" }
  },
  {
    name: "messages: a tool_result answering another id",
    ...onMessages,
    body: messages(hi, usesTool, { role: "user", content: [result("toolu_2")] }),
    refused: { field: "messages[2].content[0].tool_use_id", rule: "one-of", says: `allowed: "toolu_1"` }
  },
  {
    name: "messages: a tool_use the next message leaves unanswered",
    ...onMessages,
    body: messages(hi, usesTool, { role: "user", content: "and then?" }),
    refused: { field: "messages[1].content[0].id", rule: "complete", says: "has no tool_result in messages[2]" }
  },
  {
    name: "messages: tool_choice naming a tool when none is declared",
    ...onMessages,
    body: { model: epsilon, max_tokens: 64, tool_choice: { type: "tool", name: "f" }, messages: [hi] },
    refused: { field: "tool_choice.name", rule: "one-of", says: "(no tools declared)" }
  },
  {
    name: "chat: tool messages answering the tool_calls before them",
    ...onChat,
    body: chat(hi, calls("c1", "c2"), toolMessage("c1"), toolMessage("c2"))
  },
  {
    name: "chat: a tool message first",
    ...onChat,
    body: chat(toolMessage("c1")),
    refused: { field: "messages[0].tool_call_id", rule: "one-of", says: "answers no call" }
  },
  {
    name: "chat: a tool message answering another id",
    ...onChat,
    body: chat(hi, calls("c1"), toolMessage("c9")),
    refused: {
      field: "messages[2].tool_call_id",
      rule: "one-of",
      says: `allowed: "c1" (the tool_calls of messages[1])`
    }
  },
  {
    name: "chat: tool_calls followed by a user message",
    ...onChat,
    body: chat(hi, calls("c1"), { role: "user", content: "and then?" }),
    refused: { field: "messages[1].tool_calls[0].id", rule: "complete", says: `"c1" has no tool message` }
  },
  {
    name: "chat: one of two calls answered",
    ...onChat,
    body: chat(hi, calls("c1", "c2"), toolMessage("c1")),
    refused: { field: "messages[1].tool_calls[1].id", rule: "complete", says: `"c2" has no tool message` }
  },
  {
    name: "responses: a function_call_output answering a function_call of the input",
    ...onResponses,
    body: responses(hi, functionCall, output)
  },
  {
    name: "responses: an output whose call lives on the server (previous_response_id)",
    ...onResponses,
    body: {},
    // The call is made by an earlier response the emulator keeps; the body answers it by its id.
    prepare: async () => {
      const res = await fetch(`${emu.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-5",
          input: "Use f",
          tools: [{ type: "function", name: "f", parameters: { type: "object" } }]
        })
      })
      const first = (await res.json()) as { id: string; output: ReadonlyArray<{ type: string; call_id?: string }> }
      const callId = first.output.find((item) => item.type === "function_call")?.call_id
      expect(callId).toBeDefined()
      return { ...responses({ ...output, call_id: callId }), previous_response_id: first.id }
    }
  },
  {
    name: "responses: an output with no call",
    ...onResponses,
    body: responses(output),
    refused: { field: "input[0].call_id", rule: "one-of", says: "answers no call" }
  },
  {
    name: "responses: a call with no output",
    ...onResponses,
    body: responses(hi, functionCall),
    refused: { field: "input[1].call_id", rule: "complete", says: "has no function_call_output in input" }
  },
  {
    name: "native: responses answering the calls of the model turn before them",
    ...onNative,
    body: native([
      callTurn({ name: "f", args: {} }, { name: "g", args: {} }),
      responseTurn({ name: "f", response: {} }, { name: "g", response: {} })
    ])
  },
  {
    name: "native: a response with no call before it",
    ...onNative,
    body: native([responseTurn({ name: "f", response: {} })]),
    refused: { field: "contents[1].parts[0].functionResponse.name", rule: "one-of", says: "answers no call" }
  },
  {
    name: "native: a response to a function not called",
    ...onNative,
    body: native([callTurn({ name: "f", args: {} }), responseTurn({ name: "g", response: {} })]),
    refused: { field: "contents[2].parts[0].functionResponse.name", rule: "one-of", says: `allowed: "f"` }
  },
  {
    name: "native: a response with another call's id",
    ...onNative,
    body: native([callTurn({ id: "a1", name: "f", args: {} }), responseTurn({ id: "a2", name: "f", response: {} })]),
    refused: { field: "contents[2].parts[0].functionResponse.id", rule: "one-of", says: `allowed: "a1"` }
  },
  {
    name: "native: one response for two calls",
    ...onNative,
    body: native([
      callTurn({ name: "f", args: {} }, { name: "f", args: { x: 1 } }),
      responseTurn({ name: "f", response: {} })
    ]),
    refused: {
      field: "contents[2].parts",
      rule: "complete",
      says: "1 functionResponse parts answer 2 functionCall parts"
    }
  }
]

describe("tool calls and results: client and emulator agree", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const body = c.prepare === undefined ? c.body : await c.prepare()
      const built = verdict(c.build(body))
      if (c.refused === undefined) {
        expect(Result.isSuccess(built)).toBe(true)
        expect(await postStatus(emu, c.path, Result.isSuccess(built) ? built.success : body)).toBe(200)
      } else {
        expect(Result.isFailure(built)).toBe(true)
        if (Result.isFailure(built)) {
          expect({ field: built.failure.field, rule: built.failure.rule }).toEqual({
            field: c.refused.field,
            rule: c.refused.rule
          })
          expect(built.failure.message).toContain(c.refused.says)
        }
        expect(await postStatus(emu, c.path, body)).toBe(400)
      }
    })
  }
})

describe("speech input: client and emulator agree on its length", () => {
  it("takes 4,096 characters and refuses 4,097, naming the length, not the text", async () => {
    const body = (n: number) => ({ model: "tts-1", voice: "alloy", input: "x".repeat(n) })
    expect(Result.isSuccess(verdict(buildSpeechBody(body(4096))))).toBe(true)
    expect(await postStatus(emu, "/v1/audio/speech", body(4096))).toBe(200)
    const refused = verdict(buildSpeechBody(body(4097)))
    expect(Result.isFailure(refused)).toBe(true)
    if (Result.isFailure(refused)) {
      expect({ field: refused.failure.field, rule: refused.failure.rule }).toEqual({
        field: "input",
        rule: "max-length"
      })
      expect(refused.failure.message).toBe("input: 4097 characters is too long; allowed: at most 4096")
    }
    expect(await postStatus(emu, "/v1/audio/speech", body(4097))).toBe(400)
  })
})
