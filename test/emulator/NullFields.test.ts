import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { jsonEvents } from "./RawSse.js"

// A field the upstream leaves out must not come back as `null`: strict clients (the AI SDK's
// response schemas) accept the field's own type or no field, not null. So every `null` the four text
// families write, in a whole answer and in every streamed event, is listed here with the
// upstream fact that says it is written as null; any other null fails.
let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

type Json = unknown

const post = async (
  path: string,
  body: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${emu.apiKey}` }
): Promise<string> => {
  const res = await fetch(emu.url + path, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  expect(res.status).toBe(200)
  return res.text()
}

/** The paths of every null in `value`, array indices written `[]` (`choices[].logprobs`). */
const nullPaths = (value: Json, at: string, into: Set<string>): Set<string> => {
  if (value === null) into.add(at)
  else if (Array.isArray(value)) for (const v of value) nullPaths(v, `${at}[]`, into)
  else if (typeof value === "object")
    for (const [k, v] of Object.entries(value)) nullPaths(v, at === "" ? k : `${at}.${k}`, into)
  return into
}

/** The null paths of whole answers (`body`) and of streamed events, each under its event's `type` (or `chunk`). */
const nullsOf = (bodies: ReadonlyArray<string>, streams: ReadonlyArray<string>): Array<string> => {
  const into = new Set<string>()
  for (const b of bodies) nullPaths(JSON.parse(b), "body", into)
  for (const s of streams)
    for (const e of jsonEvents(s)) nullPaths(e, typeof e.type === "string" ? e.type : "chunk", into)
  return [...into].sort()
}

const cityTool = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
const colourSchema = {
  type: "object",
  properties: { colour: { type: "string" }, shade: { type: "integer" } },
  required: ["colour", "shade"]
}

describe("the nulls the text families write", () => {
  it("messages-style: only stop_sequence and, in message_start, stop_reason; no citations on text blocks", async () => {
    const model = "epsilon-sonnet-4-5-20250929"
    const user = { role: "user", content: "Weather in Paris?" }
    const tools = [{ name: "get_weather", description: "Weather of a city", input_schema: cityTool }]
    const bodies = [
      { model, max_tokens: 256, messages: [user] },
      { model, max_tokens: 3, messages: [user] },
      { model, max_tokens: 256, messages: [user], stop_sequences: ["the"] },
      { model, max_tokens: 4096, messages: [user], tools, thinking: { type: "enabled", budget_tokens: 2048 } },
      { model, max_tokens: 256, messages: [user], tools, tool_choice: { type: "any" } },
      {
        model,
        max_tokens: 256,
        messages: [
          user,
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }]
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "12 °C" }] }
        ],
        tools
      },
      {
        model,
        max_tokens: 256,
        messages: [user],
        output_config: { format: { type: "json_schema", schema: colourSchema } }
      }
    ]
    const whole = await Promise.all(bodies.map((b) => post("/v1/messages", b)))
    const streamed = await Promise.all(bodies.map((b) => post("/v1/messages", { ...b, stream: true })))
    for (const b of whole)
      for (const block of (JSON.parse(b) as { content: Array<Record<string, unknown>> }).content)
        expect(Object.keys(block)).not.toContain("citations")
    expect(nullsOf(whole, streamed)).toEqual([
      "body.stop_sequence", // string or null, the matched custom stop sequence
      "message_delta.delta.stop_sequence", // the messages-style stream's message_delta
      "message_start.message.stop_reason", // message_start carries stop_reason: null
      "message_start.message.stop_sequence" // and stop_sequence: null
    ])
  })

  it("chat: only content beside a tool call, refusal, logprobs, finish_reason before the end and usage before the usage chunk", async () => {
    const messages = [{ role: "user", content: "Paint something." }]
    const tools = [{ type: "function", function: { name: "paint", parameters: cityTool } }]
    const bodies = [
      { model: "gpt-4o", messages },
      { model: "gpt-4o", messages, max_tokens: 2 },
      { model: "gpt-4o", messages, tools },
      {
        model: "gpt-4o",
        messages: [
          ...messages,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "paint", arguments: "{}" } }]
          },
          { role: "tool", tool_call_id: "call_1", content: "done" }
        ],
        tools
      },
      {
        model: "gpt-4o",
        messages,
        response_format: { type: "json_schema", json_schema: { name: "paint", schema: colourSchema } }
      }
    ]
    const whole = await Promise.all(bodies.map((b) => post("/v1/chat/completions", b)))
    const streamed = await Promise.all(
      bodies.map((b) => post("/v1/chat/completions", { ...b, stream: true, stream_options: { include_usage: true } }))
    )
    expect(nullsOf(whole, streamed)).toEqual([
      "body.choices[].logprobs", // logprobs not asked for
      "body.choices[].message.content", // content: string | null, null beside tool_calls
      "body.choices[].message.refusal", // refusal: string | null
      "chunk.choices[].delta.content", // the first chunk of a tool call: content null
      "chunk.choices[].delta.refusal", // the first chunk: refusal null
      "chunk.choices[].finish_reason", // null on non-final chunks
      "chunk.choices[].logprobs",
      "chunk.usage" // with include_usage, every chunk before the usage chunk
    ])
  })

  it("responses: only error, incomplete_details, instructions, max_output_tokens and previous_response_id, and usage before the answer is done", async () => {
    const tools = [{ type: "function", name: "paint", parameters: cityTool }]
    const bodies = [
      { model: "gpt-5", input: "Hello" },
      { model: "gpt-5", input: "Hello", max_output_tokens: 2, instructions: "Be brief." },
      { model: "gpt-5", input: "Paint", tools },
      {
        model: "gpt-5",
        input: [
          { role: "user", content: "Paint" },
          { type: "function_call", call_id: "call_1", name: "paint", arguments: "{}" },
          { type: "function_call_output", call_id: "call_1", output: "done" }
        ],
        tools
      },
      { model: "gpt-5", input: "Hello", text: { format: { type: "json_schema", name: "paint", schema: colourSchema } } }
    ]
    const whole = await Promise.all(bodies.map((b) => post("/v1/responses", b)))
    const streamed = await Promise.all(bodies.map((b) => post("/v1/responses", { ...b, stream: true })))
    const fields = ["error", "incomplete_details", "instructions", "max_output_tokens", "previous_response_id"]
    expect(nullsOf(whole, streamed)).toEqual(
      [
        ...[
          "body",
          "response.completed.response",
          "response.created.response",
          "response.in_progress.response"
        ].flatMap((at) => fields.map((f) => `${at}.${f}`)),
        // The cut answer (`max_output_tokens: 2`, with instructions) ends with `response.incomplete`.
        "response.incomplete.response.error",
        "response.incomplete.response.previous_response_id",
        // `usage` is null until the response is done.
        "response.created.response.usage",
        "response.in_progress.response.usage"
      ].sort()
    )
  })

  it("native content: none (absent fields are left out)", async () => {
    const headers = { "x-vendor-api-key": emu.apiKey }
    const user = { role: "user", parts: [{ text: "Weather in Paris?" }] }
    const tools = [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: cityTool }] }]
    const bodies = [
      { contents: [user] },
      { contents: [user], generationConfig: { maxOutputTokens: 2 } },
      { contents: [user], generationConfig: { thinkingConfig: { includeThoughts: true } } },
      { contents: [user], tools },
      {
        contents: [
          user,
          { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
          { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { t: 12 } } }] }
        ],
        tools
      },
      { contents: [user], generationConfig: { responseMimeType: "application/json", responseJsonSchema: colourSchema } }
    ]
    const model = "/v1beta/models/zeta-2.5-flash"
    const whole = await Promise.all(bodies.map((b) => post(`${model}:generateContent`, b, headers)))
    const streamed = await Promise.all(bodies.map((b) => post(`${model}:streamGenerateContent?alt=sse`, b, headers)))
    expect(nullsOf(whole, streamed)).toEqual([])
  })
})
