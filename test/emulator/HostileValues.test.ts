// A value that is not what a field should be, and that `String()` cannot convert (`{"toString": 1}`),
// put in place of every value of a valid request of each text family: the answer is the family's
// 4xx (or a 200 where the field is not read), never the emulator's 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const HOSTILE = { toString: 1, valueOf: 1 }
const tool = { type: "object", properties: { city: { type: "string" } }, required: ["city"] }

/** Valid requests of each family, rich in the fields the emulator reads. */
const REQUESTS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  [
    "/v1/chat/completions",
    {
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "w", arguments: "{}" } }]
        },
        { role: "tool", tool_call_id: "c1", content: "sunny" }
      ],
      tools: [{ type: "function", function: { name: "w", parameters: tool } }],
      tool_choice: { type: "function", function: { name: "w" } },
      response_format: { type: "json_schema", json_schema: { name: "x", schema: tool } },
      stop: ["zz"],
      n: 1
    }
  ],
  [
    "/v1/responses",
    {
      model: "gpt-5",
      input: [
        { role: "user", content: "Weather?" },
        { type: "function_call", call_id: "c1", name: "w", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "sunny" }
      ],
      tools: [{ type: "function", name: "w", parameters: tool }],
      tool_choice: "auto",
      text: { format: { type: "json_schema", name: "x", schema: tool } }
    }
  ],
  [
    "/v1/messages",
    {
      model: "epsilon-sonnet-4-5-20250929",
      max_tokens: 64,
      system: [{ type: "text", text: "Be brief." }],
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "w", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "sunny" }] }
      ],
      tools: [{ name: "w", input_schema: tool }],
      tool_choice: { type: "tool", name: "w" },
      thinking: { type: "disabled" },
      stop_sequences: ["zz"]
    }
  ],
  [
    "/v1/messages/count_tokens",
    {
      model: "epsilon-sonnet-4-5-20250929",
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "w", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "sunny" }] }
      ],
      tools: [{ name: "w", input_schema: tool }]
    }
  ],
  [
    "/v1beta/models/zeta-2.5-flash:generateContent",
    {
      contents: [
        { role: "user", parts: [{ text: "Weather?" }] },
        { role: "model", parts: [{ functionCall: { name: "w", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "w", response: { r: "sunny" } } }] }
      ],
      tools: [{ functionDeclarations: [{ name: "w", parametersJsonSchema: tool }] }],
      toolConfig: { functionCallingConfig: { mode: "AUTO" } },
      safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
      generationConfig: {
        responseModalities: ["TEXT"],
        thinkingConfig: { thinkingBudget: 512 },
        responseMimeType: "application/json",
        responseSchema: { type: "OBJECT", properties: { a: { type: "STRING", enum: ["x", "y"] } } }
      }
    }
  ]
]

/** Every path to a value in `value` (objects and arrays included), parents first. */
const paths = (value: unknown, at: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  if (typeof value !== "object" || value === null) return [at]
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value)
  return [...(at.length === 0 ? [] : [at]), ...entries.flatMap(([k, v]) => paths(v, [...at, k]))]
}

/** `value` with the value at `path` replaced by `replacement`. */
const replaced = (value: unknown, path: ReadonlyArray<string | number>, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>
  copy[head!] = replaced(copy[head!], rest, replacement)
  return copy
}

describe("hostile values in text requests", () => {
  it.each(REQUESTS)("%s answers a 4xx or 200, never 500, for {toString: 1} anywhere", async (path, body) => {
    const crashes: Array<string> = []
    const ok = await fetch(emu.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    expect(ok.status).toBe(200)
    for (const at of paths(body)) {
      const res = await fetch(emu.url + path, {
        method: "POST",
        headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(replaced(body, at, HOSTILE))
      })
      const text = await res.text()
      if (res.status >= 500) crashes.push(`${at.join(".")}: ${res.status} ${text.slice(0, 160)}`)
    }
    expect(crashes).toEqual([])
  })

  it("names the role field in the family's 400", async () => {
    const chat = await fetch(`${emu.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: HOSTILE, content: "hi" }] })
    })
    expect(chat.status).toBe(400)
    expect(await chat.json()).toMatchObject({ error: { param: "messages[0].role" } })
    const responses = await fetch(`${emu.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-5", input: [{ role: HOSTILE, content: "hi" }] })
    })
    expect(responses.status).toBe(400)
    expect(await responses.json()).toMatchObject({ error: { param: "input[0].role" } })
  })
})
