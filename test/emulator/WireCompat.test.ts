import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nativeSdkClient } from "../fixtures/nativeSdkClient.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

// The official clients of the upstream protocols, pointed at the emulator, must parse its answers
// and streams without error: the wire shapes are right, not only the ones our own client expects.
// The AI SDK's providers, whose response schemas are stricter, run in AiSdkCompat.test.ts.
let emu: Emulator
let openai: OpenAI
let anthropic: Anthropic
let genai: GoogleGenAI
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  openai = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.url}/v1`, maxRetries: 0 })
  // The gateway takes Bearer on the messages family, so the key goes in as an auth token.
  anthropic = new Anthropic({ apiKey: null, authToken: emu.apiKey, baseURL: emu.url, maxRetries: 0 })
  genai = nativeSdkClient(emu)
})
afterAll(() => emu.close())

const weatherTool = {
  name: "get_weather",
  description: "Weather of a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] }
}

describe("the messages-style client", () => {
  const model = "epsilon-sonnet-4-5-20250929"
  const messages = [{ role: "user" as const, content: "Hello" }]

  it("parses a message", async () => {
    const m = await anthropic.messages.create({ model, max_tokens: 128, messages })
    expect(m.content[0]!.type).toBe("text")
    expect(m.usage.output_tokens).toBeGreaterThan(0)
  })

  it("parses a stream into the same final message", async () => {
    const stream = anthropic.messages.stream({ model, max_tokens: 128, messages })
    const text: Array<string> = []
    stream.on("text", (t) => text.push(t))
    const final = await stream.finalMessage()
    const unary = await anthropic.messages.create({ model, max_tokens: 128, messages })
    expect(text.join("")).toBe((unary.content[0] as { text: string }).text)
    expect(final.stop_reason).toBe("end_turn")
  })

  it("parses streamed thinking and tool input", async () => {
    const stream = anthropic.messages.stream({
      model,
      max_tokens: 4096,
      messages,
      tools: [weatherTool],
      thinking: { type: "enabled", budget_tokens: 2048 }
    })
    const final = await stream.finalMessage()
    expect(final.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"])
    expect((final.content[2] as { input: { city: string } }).input.city).toEqual(expect.any(String))
  })

  it("parses a token count and a typed authentication error", async () => {
    const count = await anthropic.messages.countTokens({ model, messages })
    expect(count.input_tokens).toBeGreaterThan(0)
    const bad = new Anthropic({ apiKey: null, authToken: "wrong", baseURL: emu.url, maxRetries: 0 })
    await expect(bad.messages.create({ model, max_tokens: 8, messages })).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError
    )
  })
})

describe("the OpenAI-style client", () => {
  const messages = [{ role: "user" as const, content: "Hello" }]

  it("parses a chat completion and a chat stream with usage", async () => {
    const c = await openai.chat.completions.create({ model: "gpt-4o", messages })
    expect(c.choices[0]!.message.content).toEqual(expect.any(String))
    const stream = await openai.chat.completions.create({
      model: "gpt-4o",
      messages,
      stream: true,
      stream_options: { include_usage: true }
    })
    let text = ""
    let total = 0
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      total = chunk.usage?.total_tokens ?? total
    }
    expect(text).toBe(c.choices[0]!.message.content)
    expect(total).toBeGreaterThan(0)
  })

  it("parses a streamed tool call with the stream helper", async () => {
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "paint",
          parameters: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] }
        }
      }
    ]
    const final = await openai.chat.completions.stream({ model: "gpt-4o", messages, tools }).finalChatCompletion()
    expect(final.choices[0]!.message.tool_calls![0]).toMatchObject({ type: "function", function: { name: "paint" } })
  })

  it("parses structured output with the parse helper", async () => {
    const schema = {
      type: "object",
      properties: { colour: { type: "string" }, shade: { type: "integer" } },
      required: ["colour", "shade"],
      additionalProperties: false
    }
    const r = await openai.chat.completions.parse({
      model: "gpt-4o",
      messages,
      response_format: { type: "json_schema", json_schema: { name: "paint", schema, strict: true } }
    })
    expect(Object.keys(r.choices[0]!.message.parsed as unknown as object).sort()).toEqual(["colour", "shade"])
  })

  it("parses a response and a response stream", async () => {
    const r = await openai.responses.create({ model: "gpt-5", input: "Hello", max_output_tokens: 100 })
    expect(r.output_text.length).toBeGreaterThan(0)
    const stream = openai.responses.stream({ model: "gpt-5", input: "Hello", max_output_tokens: 100 })
    const final = await stream.finalResponse()
    expect(final.output_text).toBe(r.output_text)
  })

  it("decodes embeddings sent in its default base64 encoding", async () => {
    const e = await openai.embeddings.create({ model: "text-embedding-3-small", input: "hello" })
    expect(e.data[0]!.embedding).toHaveLength(1536)
    const floats = await openai.embeddings.create({
      model: "text-embedding-3-small",
      input: "hello",
      encoding_format: "float"
    })
    expect(e.data[0]!.embedding).toEqual(floats.data[0]!.embedding)
  })

  it("parses the model list, speech bytes, an image and a typed 400", async () => {
    const ids: Array<string> = []
    for await (const m of openai.models.list()) ids.push(m.id)
    expect(ids).toContain("gpt-4o")
    const speech = await openai.audio.speech.create({
      model: "gpt-4o-mini-tts",
      input: "hi",
      voice: "alloy",
      response_format: "wav"
    })
    expect(
      Buffer.from(await speech.arrayBuffer())
        .subarray(0, 4)
        .toString("ascii")
    ).toBe("RIFF")
    const image = await openai.images.generate({
      model: "zeta-2.5-flash-image",
      prompt: "a fox",
      response_format: "b64_json"
    })
    expect(image.data![0]!.b64_json).toEqual(expect.any(String))
    await expect(
      openai.embeddings.create({ model: "text-embedding-3-small", input: ["a", "b"] })
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError)
  })
})

describe("the native-content client", () => {
  it("parses a generate answer and a stream", async () => {
    const r = await genai.models.generateContent({ model: "zeta-2.5-flash", contents: "Hello" })
    expect(r.text).toEqual(expect.any(String))
    expect(r.usageMetadata?.totalTokenCount).toBeGreaterThan(0)
    let text = ""
    for await (const chunk of await genai.models.generateContentStream({ model: "zeta-2.5-flash", contents: "Hello" }))
      text += chunk.text ?? ""
    expect(text).toBe(r.text)
  })

  it("parses thoughts, function calls and inline images", async () => {
    const thoughts = await genai.models.generateContent({
      model: "zeta-2.5-pro",
      contents: "Hello",
      config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } }
    })
    expect(thoughts.candidates![0]!.content!.parts![0]!.thought).toBe(true)
    const call = await genai.models.generateContent({
      model: "zeta-2.5-pro",
      contents: "Weather?",
      config: {
        tools: [
          {
            functionDeclarations: [
              {
                name: "get_weather",
                parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
              }
            ]
          }
        ]
      }
    })
    expect(call.functionCalls![0]!.name).toBe("get_weather")
    const image = await genai.models.generateContent({
      model: "zeta-2.5-flash-image",
      contents: "A fox",
      config: { responseModalities: ["IMAGE"] }
    })
    expect(image.data).toEqual(expect.any(String))
  })

  it("tells a client asking /v1 (@google/genai 3's default) that native content is under /v1beta", async () => {
    const unversioned = new GoogleGenAI({
      apiKey: emu.apiKey,
      httpOptions: { baseUrl: emu.url, headers: { "x-vendor-api-key": emu.apiKey } }
    })
    const error: unknown = await unversioned.models
      .generateContent({ model: "zeta-2.5-flash", contents: "x" })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 404 })
    expect(String((error as Error).message)).toContain(
      "Unknown path: POST /v1/models/zeta-2.5-flash:generateContent; native-content endpoints are under /v1beta"
    )
  })

  it("surfaces a native 400 as an error", async () => {
    await expect(
      genai.models.generateContent({ model: "zeta-2.5-flash", contents: "x", config: { temperature: 5 } })
    ).rejects.toThrow(/INVALID_ARGUMENT|400/)
  })
})
