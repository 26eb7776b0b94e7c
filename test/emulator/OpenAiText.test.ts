import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { jsonEvents, parseSse } from "./RawSse.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(emu.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const messages = [{ role: "user", content: "Name a colour." }]
const fn = {
  type: "function",
  function: {
    name: "paint",
    parameters: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] }
  }
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON read field by field: the assertions check the shape
type Any = Record<string, any>

describe("POST /v1/chat/completions", () => {
  it("answers a chat.completion with a deterministic message and usage", async () => {
    const a = (await (await post("/v1/chat/completions", { model: "gpt-4o", messages })).json()) as Any
    const b = (await (await post("/v1/chat/completions", { model: "gpt-4o", messages })).json()) as Any
    expect(a).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant" } }]
    })
    expect(a.choices[0].message.content).toBe(b.choices[0].message.content)
    expect(a.usage.total_tokens).toBe(a.usage.prompt_tokens + a.usage.completion_tokens)
  })

  it("streams chunks with a role chunk, content deltas, a finish chunk, a usage chunk and [DONE]", async () => {
    const text = await (
      await post("/v1/chat/completions", {
        model: "gpt-4o",
        messages,
        stream: true,
        stream_options: { include_usage: true }
      })
    ).text()
    const events = parseSse(text)
    expect(events.every((e) => e.event === undefined)).toBe(true)
    expect(events.at(-1)!.data).toBe("[DONE]")
    const chunks = jsonEvents(text) as Array<Any>
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1)
    expect(chunks[0]!.choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null })
    const finish = chunks.findIndex((c) => c.choices[0]?.finish_reason === "stop")
    expect(chunks[finish + 1]).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } })
    expect(chunks.slice(0, finish + 1).every((c) => c.usage === null)).toBe(true)
    const joined = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")
    const unary = (await (await post("/v1/chat/completions", { model: "gpt-4o", messages })).json()) as Any
    expect(joined).toBe(unary.choices[0].message.content)
  })

  it("leaves out the usage chunk without include_usage", async () => {
    const chunks = jsonEvents(
      await (await post("/v1/chat/completions", { model: "gpt-4o", messages, stream: true })).text()
    ) as Array<Any>
    expect(chunks.every((c) => c.choices.length === 1 && !("usage" in c))).toBe(true)
  })

  it("calls a function, streamed as tool_call fragments, then answers with the tool output", async () => {
    const first = (await (await post("/v1/chat/completions", { model: "gpt-4o", messages, tools: [fn] })).json()) as Any
    expect(first.choices[0].finish_reason).toBe("tool_calls")
    const call = first.choices[0].message.tool_calls[0]
    expect(call).toMatchObject({ type: "function", function: { name: "paint" } })
    expect(Object.keys(JSON.parse(call.function.arguments) as object)).toEqual(["colour"])
    const chunks = jsonEvents(
      await (await post("/v1/chat/completions", { model: "gpt-4o", messages, tools: [fn], stream: true })).text()
    ) as Array<Any>
    const args = chunks
      .flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])
      .map((t: Any) => t.function.arguments as string)
      .join("")
    expect(JSON.parse(args)).toEqual(JSON.parse(call.function.arguments))
    const second = (await (
      await post("/v1/chat/completions", {
        model: "gpt-4o",
        tools: [fn],
        messages: [
          ...messages,
          { role: "assistant", content: null, tool_calls: [call] },
          { role: "tool", tool_call_id: call.id, content: "painted blue" }
        ]
      })
    ).json()) as Any
    expect(second.choices[0].message.content).toContain("painted blue")
  })

  it("answers JSON of the schema for json_schema and a JSON object for json_object", async () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, count: { type: "integer" }, ok: { type: "boolean" } },
      required: ["name", "count", "ok"],
      additionalProperties: false
    }
    const r = (await (
      await post("/v1/chat/completions", {
        model: "gpt-4o",
        messages,
        response_format: { type: "json_schema", json_schema: { name: "t", schema } }
      })
    ).json()) as Any
    const parsed = JSON.parse(r.choices[0].message.content as string) as Any
    expect(Object.keys(parsed).sort()).toEqual(["count", "name", "ok"])
    expect(typeof parsed.count).toBe("number")
    const o = (await (
      await post("/v1/chat/completions", { model: "gpt-4o", messages, response_format: { type: "json_object" } })
    ).json()) as Any
    expect(JSON.parse(o.choices[0].message.content as string)).toEqual({ answer: expect.any(String) })
    const resp = (await (
      await post("/v1/responses", {
        model: "gpt-5",
        input: "x",
        text: { format: { type: "json_schema", name: "t", schema } }
      })
    ).json()) as Any
    expect(Object.keys(JSON.parse(resp.output[0].content[0].text as string) as object).sort()).toEqual([
      "count",
      "name",
      "ok"
    ])
  })

  it("stops at max_tokens with finish_reason length", async () => {
    const r = (await (await post("/v1/chat/completions", { model: "gpt-4o", messages, max_tokens: 2 })).json()) as Any
    expect(r.choices[0].finish_reason).toBe("length")
    expect(r.usage.completion_tokens).toBe(2)
  })

  for (const [what, body, param] of [
    ["missing messages", { model: "gpt-4o" }, "messages"],
    ["empty messages", { model: "gpt-4o", messages: [] }, "messages"],
    ["a missing model", { messages }, "model"],
    ["an embedding model", { model: "text-embedding-3-small", messages }, "model"],
    ["temperature above 2", { model: "gpt-4o", messages, temperature: 3 }, "temperature"]
  ] as const)
    it(`answers ${what} with a 400 OpenAI error naming ${param}`, async () => {
      const res = await post("/v1/chat/completions", body)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param } })
    })
})

describe("POST /v1/responses", () => {
  const input = [{ role: "user", content: "Name a colour." }]

  it("answers a completed response with an output_text message", async () => {
    const r = (await (await post("/v1/responses", { model: "gpt-5", input, max_output_tokens: 200 })).json()) as Any
    expect(r).toMatchObject({
      object: "response",
      status: "completed",
      model: "gpt-5",
      output: [{ type: "message", role: "assistant", content: [{ type: "output_text" }] }]
    })
    expect(r.usage.total_tokens).toBe(r.usage.input_tokens + r.usage.output_tokens)
  })

  it("streams typed events with increasing sequence numbers and no [DONE]", async () => {
    const text = await (await post("/v1/responses", { model: "gpt-5", input, stream: true })).text()
    expect(text).not.toContain("[DONE]")
    const events = parseSse(text)
    const payloads = events.map((e) => JSON.parse(e.data) as Any)
    payloads.forEach((p, i) => {
      expect(p.type).toBe(events[i]!.event)
      expect(p.sequence_number).toBe(i)
    })
    const types = payloads.map((p) => p.type)
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added"
    ])
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed"
    ])
    const deltas = payloads
      .filter((p) => p.type === "response.output_text.delta")
      .map((p) => p.delta as string)
      .join("")
    expect(payloads.find((p) => p.type === "response.output_text.done")!.text).toBe(deltas)
  })

  it("returns a function_call item when function tools are given, and text after its output", async () => {
    const tools = [{ type: "function", name: "paint", parameters: fn.function.parameters }]
    const r = (await (await post("/v1/responses", { model: "gpt-5", input, tools })).json()) as Any
    expect(r.output[0]).toMatchObject({ type: "function_call", name: "paint", call_id: expect.any(String) })
    const after = (await (
      await post("/v1/responses", {
        model: "gpt-5",
        tools,
        input: [
          ...input,
          r.output[0],
          { type: "function_call_output", call_id: r.output[0].call_id, output: "painted red" }
        ]
      })
    ).json()) as Any
    expect(after.output[0].content[0].text).toContain("painted red")
  })

  it("ends as incomplete when max_output_tokens cuts the text", async () => {
    const r = (await (await post("/v1/responses", { model: "gpt-5", input, max_output_tokens: 2 })).json()) as Any
    expect(r.status).toBe("incomplete")
    expect(r.incomplete_details).toEqual({ reason: "max_output_tokens" })
  })

  it("answers missing input and a bad max_output_tokens with 400", async () => {
    expect(await (await post("/v1/responses", { model: "gpt-5" })).json()).toMatchObject({ error: { param: "input" } })
    expect((await post("/v1/responses", { model: "gpt-5", input, max_output_tokens: 0 })).status).toBe(400)
  })
})
