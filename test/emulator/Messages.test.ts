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

const model = "epsilon-sonnet-4-5-20250929"
const base = { model, max_tokens: 256, messages: [{ role: "user", content: "Tell me about the sea." }] }
const weather = {
  name: "get_weather",
  description: "Weather of a city",
  input_schema: {
    type: "object",
    properties: {
      city: { type: "string" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
      days: { type: "integer" }
    },
    required: ["city", "unit"]
  }
}

type Msg = {
  content: Array<Record<string, unknown>>
  stop_reason: string
  usage: Record<string, number>
  type: string
  role: string
}

describe("POST /v1/messages", () => {
  it("answers a message whose text is a function of the request", async () => {
    const a = (await (await post("/v1/messages", base)).json()) as Msg
    const b = (await (await post("/v1/messages", base)).json()) as Msg
    const c = (await (
      await post("/v1/messages", { ...base, messages: [{ role: "user", content: "Something else" }] })
    ).json()) as Msg
    expect(a).toMatchObject({ type: "message", role: "assistant", model, stop_reason: "end_turn", stop_sequence: null })
    expect(a.content[0]).toMatchObject({ type: "text" })
    expect(a.content[0]!.text).toBe(b.content[0]!.text)
    expect(a.content[0]!.text).not.toBe(c.content[0]!.text)
    expect(a.usage.input_tokens).toBeGreaterThan(0)
    expect(a.usage.output_tokens).toBe(String(a.content[0]!.text).split(" ").length)
  })

  it("stops at max_tokens", async () => {
    const m = (await (await post("/v1/messages", { ...base, max_tokens: 3 })).json()) as Msg
    expect(m.stop_reason).toBe("max_tokens")
    expect(String(m.content[0]!.text).split(" ")).toHaveLength(3)
  })

  it("stops at a stop sequence found in the text", async () => {
    const full = (await (await post("/v1/messages", base)).json()) as Msg
    const word = String(full.content[0]!.text).split(" ")[2]!
    const m = (await (await post("/v1/messages", { ...base, stop_sequences: [word] })).json()) as Msg
    expect(m.stop_reason).toBe("stop_sequence")
    expect(m).toMatchObject({ stop_sequence: word })
    expect(String(m.content[0]!.text)).not.toContain(word)
  })

  it("streams the full event sequence with event lines, a ping and cumulative usage", async () => {
    const res = await post("/v1/messages", { ...base, stream: true })
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    const text = await res.text()
    const events = parseSse(text)
    for (const e of events) expect((JSON.parse(e.data) as { type: string }).type).toBe(e.event)
    const names = events.map((e) => e.event)
    expect(names[0]).toBe("message_start")
    expect(names.slice(1, 3)).toEqual(["content_block_start", "ping"])
    expect(names.slice(-4)).toEqual(["content_block_delta", "content_block_stop", "message_delta", "message_stop"])
    const deltas = jsonEvents(text).filter((e) => e.type === "content_block_delta") as Array<{
      delta: { text: string }
    }>
    const nonStream = (await (await post("/v1/messages", base)).json()) as Msg
    expect(deltas.map((d) => d.delta.text).join("")).toBe(nonStream.content[0]!.text)
    const last = jsonEvents(text).find((e) => e.type === "message_delta") as {
      usage: { output_tokens: number }
      delta: { stop_reason: string }
    }
    expect(last.delta.stop_reason).toBe("end_turn")
    expect(last.usage.output_tokens).toBe(deltas.length)
  })

  it("returns a thinking block before the text when thinking is enabled, streamed with a signature", async () => {
    const body = { ...base, max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 } }
    const m = (await (await post("/v1/messages", body)).json()) as Msg
    expect(m.content.map((b) => b.type)).toEqual(["thinking", "text"])
    expect(m.content[0]!.signature).toEqual(expect.any(String))
    const events = jsonEvents(await (await post("/v1/messages", { ...body, stream: true })).text()) as Array<{
      type: string
      delta?: { type: string }
    }>
    const kinds = events.filter((e) => e.type === "content_block_delta").map((e) => e.delta!.type)
    expect(kinds).toContain("thinking_delta")
    expect(kinds.indexOf("signature_delta")).toBeLessThan(kinds.indexOf("text_delta"))
  })

  it("takes its thinking blocks back unchanged, and refuses one altered or made up, as upstream does", async () => {
    const body = { ...base, max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 } }
    const m = (await (await post("/v1/messages", body)).json()) as Msg
    const next = (content: ReadonlyArray<unknown>) => ({
      ...body,
      messages: [...base.messages, { role: "assistant", content }, { role: "user", content: "And the sky?" }]
    })
    expect((await post("/v1/messages", next(m.content))).status).toBe(200)
    const thinking = m.content[0] as { thinking: string; signature: string }
    for (const altered of [
      { ...thinking, thinking: `${thinking.thinking} (edited)` },
      { ...thinking, signature: "c2ln" },
      { type: "thinking", thinking: "made up" }
    ]) {
      const res = await post("/v1/messages", next([altered, m.content[1]]))
      expect(res.status).toBe(400)
      // The gateway's type for a refused messages-style body (the contract's table), upstream's words.
      expect(((await res.json()) as { error: { type: string; message: string } }).error).toEqual({
        type: "invalid_request",
        message: "messages.1.content.0: Invalid `signature` in `thinking` block"
      })
    }
  })

  it("uses a tool in two rounds: first a tool_use with the required inputs, then text using the result", async () => {
    const first = (await (await post("/v1/messages", { ...base, tools: [weather] })).json()) as Msg
    expect(first.stop_reason).toBe("tool_use")
    const use = first.content.find((b) => b.type === "tool_use")!
    expect(use).toMatchObject({ name: "get_weather", id: expect.stringMatching(/^toolu_/) })
    expect(Object.keys(use.input as object).sort()).toEqual(["city", "unit"])
    expect((use.input as { unit: string }).unit).toBe("celsius")
    const second = (await (
      await post("/v1/messages", {
        ...base,
        tools: [weather],
        messages: [
          ...base.messages,
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "18 degrees and sunny" }] }
        ]
      })
    ).json()) as Msg
    expect(second.stop_reason).toBe("end_turn")
    expect(String(second.content[0]!.text)).toContain("18 degrees and sunny")
  })

  it("streams tool input as input_json_delta pieces that join to the input", async () => {
    const events = jsonEvents(
      await (
        await post("/v1/messages", {
          ...base,
          tools: [weather],
          tool_choice: { type: "tool", name: "get_weather" },
          stream: true
        })
      ).text()
    ) as Array<{
      type: string
      index?: number
      content_block?: { type: string }
      delta?: { partial_json?: string; stop_reason?: string }
    }>
    const start = events.find((e) => e.type === "content_block_start" && e.content_block?.type === "tool_use")!
    const json = events
      .filter((e) => e.type === "content_block_delta" && e.index === start.index)
      .map((e) => e.delta?.partial_json)
      .join("")
    expect(Object.keys(JSON.parse(json) as object).sort()).toEqual(["city", "unit"])
    expect(events.find((e) => e.type === "message_delta")!.delta?.stop_reason).toBe("tool_use")
  })

  it("answers JSON of the schema asked for by output_config.format", async () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, score: { type: "number" } },
      required: ["city"]
    }
    const m = (await (
      await post("/v1/messages", { ...base, output_config: { format: { type: "json_schema", schema } } })
    ).json()) as Msg
    expect(Object.keys(JSON.parse(String(m.content[0]!.text)) as object).sort()).toEqual(["city", "score"])
  })

  it("does not call a tool when tool_choice is none", async () => {
    const m = (await (
      await post("/v1/messages", { ...base, tools: [weather], tool_choice: { type: "none" } })
    ).json()) as Msg
    expect(m.stop_reason).toBe("end_turn")
  })

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["a missing messages field", { model, max_tokens: 10 }, "field messages is required"],
    ["a missing model", { max_tokens: 10, messages: base.messages }, "field model is required"],
    ["a missing max_tokens", { model, messages: base.messages }, "field max_tokens is required"],
    ["max_tokens 0", { ...base, max_tokens: 0 }, "max_tokens must be an integer greater than 0"],
    ["empty messages", { ...base, messages: [] }, "messages must be a non-empty array"],
    ["a bad role", { ...base, messages: [{ role: "robot", content: "x" }] }, "messages[0].role"],
    ["temperature above 1", { ...base, temperature: 1.5 }, "temperature must be between 0 and 1"],
    ["top_p below 0", { ...base, top_p: -0.1 }, "top_p must be between 0 and 1"],
    [
      "a thinking budget of 1024",
      { ...base, max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 1024 } },
      "budget_tokens must be greater than 1024"
    ],
    ["a tool without input_schema", { ...base, tools: [{ name: "x" }] }, "tools[0].input_schema"],
    ["a bad cache_control type", { ...base, cache_control: { type: "forever" } }, "cache_control.type"]
  ]
  for (const [what, body, message] of invalid)
    it(`answers ${what} with 400 invalid_request`, async () => {
      const res = await post("/v1/messages", body)
      expect(res.status).toBe(400)
      const err = (await res.json()) as { type: string; error: { type: string; message: string } }
      expect(err.type).toBe("error")
      expect(err.error.type).toBe("invalid_request")
      expect(err.error.message).toContain(message)
      expect((err as { request_id?: string }).request_id).toBe(res.headers.get("request-id"))
    })

  it("answers a body that is not JSON with 400 invalid_request", async () => {
    const res = await fetch(`${emu.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.apiKey}` },
      body: "{not json"
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request" } })
  })

  it("answers an unknown model with 404 not_found_error", async () => {
    const res = await post("/v1/messages", { ...base, model: "epsilon-unknown" })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: { type: "not_found_error" } })
  })
})

describe("POST /v1/messages/count_tokens", () => {
  it("counts system, messages and tools locally, images at about 1000 tokens", async () => {
    const count = async (body: unknown) =>
      ((await (await post("/v1/messages/count_tokens", body)).json()) as { input_tokens: number }).input_tokens
    const plain = await count({ model, messages: base.messages })
    const withSystem = await count({ model, system: "You are terse and precise.", messages: base.messages })
    const withTools = await count({ model, messages: base.messages, tools: [weather] })
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
    const withImage = await count({
      model,
      messages: [{ role: "user", content: [image, { type: "text", text: "Tell me about the sea." }] }]
    })
    expect(plain).toBeGreaterThan(0)
    expect(withSystem).toBeGreaterThan(plain)
    expect(withTools).toBeGreaterThan(plain)
    expect(withImage - plain).toBe(1000)
    expect(await count({ model, messages: base.messages, max_tokens: 100000 })).toBe(plain)
  })

  it("answers a missing model with the count-tokens error shape", async () => {
    const res = await post("/v1/messages/count_tokens", { messages: base.messages })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "model: Field required" }
    })
  })

  it("answers missing messages with the count-tokens error shape", async () => {
    const res = await post("/v1/messages/count_tokens", { model })
    expect(await res.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "messages: Field required" }
    })
  })
})
