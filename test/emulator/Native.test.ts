import { inflateSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { parseSse } from "./RawSse.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(emu.url + path, {
    method: "POST",
    headers: { "x-vendor-api-key": emu.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
const generate = (model: string, body: unknown) => post(`/v1beta/models/${model}:generateContent`, body)
const stream = (model: string, body: unknown) => post(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, body)

const contents = [{ role: "user", parts: [{ text: "Describe a lighthouse." }] }]
type Part = {
  text?: string
  thought?: boolean
  functionCall?: { name: string; args: Record<string, unknown> }
  inlineData?: { mimeType: string; data: string }
}
type Answer = {
  candidates: Array<{ content: { role: string; parts?: Array<Part> }; finishReason?: string; index: number }>
  usageMetadata: Record<string, number>
  modelVersion: string
  createTime: string
}

const answer = async (res: Response): Promise<Answer> => {
  expect(res.status).toBe(200)
  return (await res.json()) as Answer
}

describe("native-content generate", () => {
  it("answers a deterministic candidate with usage, model version and create time", async () => {
    const a = await answer(await generate("zeta-2.5-pro", { contents }))
    const b = await answer(await generate("zeta-2.5-pro", { contents }))
    expect(a.candidates[0]).toMatchObject({ content: { role: "model" }, finishReason: "STOP", index: 0 })
    expect(a.candidates[0]!.content.parts).toEqual(b.candidates[0]!.content.parts)
    expect(a.modelVersion).toBe("zeta-2.5-pro")
    expect(Date.parse(a.createTime)).not.toBeNaN()
    const u = a.usageMetadata
    expect(u.totalTokenCount).toBe(u.promptTokenCount! + u.candidatesTokenCount! + (u.thoughtsTokenCount ?? 0))
  })

  it("streams data-only SSE with CRLF separators, cumulative usage and the finish reason on the last chunk", async () => {
    const res = await stream("zeta-2.5-flash", { contents })
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    const text = await res.text()
    expect(text).toContain("\r\n\r\n")
    expect(text).not.toContain("event:")
    expect(text).not.toContain("[DONE]")
    const chunks = parseSse(text).map((e) => JSON.parse(e.data) as Answer)
    expect(chunks.length).toBeGreaterThan(1)
    const counts = chunks.map((c) => c.usageMetadata.candidatesTokenCount!)
    expect([...counts].sort((x, y) => x - y)).toEqual(counts)
    expect(chunks.slice(0, -1).every((c) => c.candidates[0]!.finishReason === undefined)).toBe(true)
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe("STOP")
    const unary = await answer(await generate("zeta-2.5-flash", { contents }))
    expect(chunks.flatMap((c) => c.candidates[0]!.content.parts!.map((p) => p.text)).join("")).toBe(
      unary.candidates[0]!.content.parts![0]!.text
    )
  })

  it("answers streamGenerateContent without alt=sse as one JSON array", async () => {
    const res = await post("/v1beta/models/zeta-2.5-flash:streamGenerateContent", { contents })
    expect(Array.isArray(await res.json())).toBe(true)
  })

  it("returns thought parts when includeThoughts is set, and none with -nothinking", async () => {
    const thinking = await answer(
      await generate("zeta-2.5-flash", {
        contents,
        generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } }
      })
    )
    expect(thinking.candidates[0]!.content.parts![0]).toMatchObject({ thought: true, text: expect.any(String) })
    expect(thinking.usageMetadata.thoughtsTokenCount).toBeGreaterThan(0)
    const off = await answer(
      await generate("zeta-2.5-flash-nothinking", {
        contents,
        generationConfig: { thinkingConfig: { includeThoughts: true } }
      })
    )
    expect(off.candidates[0]!.content.parts!.some((p) => p.thought === true)).toBe(false)
    expect(off.usageMetadata.thoughtsTokenCount).toBeUndefined()
  })

  it("accepts the thinking suffixes and thinkingLevel on the 3 class", async () => {
    for (const model of [
      "zeta-2.5-pro-thinking",
      "zeta-2.5-pro-thinking-8192",
      "zeta-3-pro-preview-thinking-low",
      "zeta-3-pro-preview-thinking-high"
    ])
      expect((await generate(model, { contents })).status, model).toBe(200)
    const high = await answer(
      await generate("zeta-3-pro-preview", {
        contents,
        generationConfig: { thinkingConfig: { thinkingLevel: "high" } }
      })
    )
    const low = await answer(
      await generate("zeta-3-pro-preview", { contents, generationConfig: { thinkingConfig: { thinkingLevel: "LOW" } } })
    )
    expect(high.usageMetadata.thoughtsTokenCount).toBeGreaterThan(low.usageMetadata.thoughtsTokenCount!)
  })

  it("calls a declared function, then answers with its response", async () => {
    const tools = [
      {
        functionDeclarations: [
          {
            name: "lookup",
            description: "find",
            parameters: {
              type: "OBJECT",
              properties: { query: { type: "STRING" }, limit: { type: "INTEGER" } },
              required: ["query"]
            }
          }
        ]
      }
    ]
    const first = await answer(await generate("zeta-2.5-pro", { contents, tools }))
    const call = first.candidates[0]!.content.parts![0]!.functionCall!
    expect(call.name).toBe("lookup")
    expect(Object.keys(call.args)).toEqual(["query"])
    const second = await answer(
      await generate("zeta-2.5-pro", {
        contents: [
          ...contents,
          { role: "model", parts: [{ functionCall: call }] },
          { role: "user", parts: [{ functionResponse: { name: "lookup", response: { found: 42 } } }] }
        ],
        tools
      })
    )
    expect(second.candidates[0]!.content.parts![0]!.text).toContain('{"found":42}')
    const none = await answer(
      await generate("zeta-2.5-pro", { contents, tools, toolConfig: { functionCallingConfig: { mode: "NONE" } } })
    )
    expect(none.candidates[0]!.content.parts![0]!.functionCall).toBeUndefined()
  })

  it("returns an image as inlineData PNG when IMAGE is a response modality", async () => {
    const res = await answer(
      await generate("zeta-2.5-flash-image", {
        contents,
        generationConfig: { responseModalities: ["IMAGE"], imageConfig: { aspectRatio: "16:9" } }
      })
    )
    const image = res.candidates[0]!.content.parts!.find((p) => p.inlineData !== undefined)!.inlineData!
    expect(image.mimeType).toBe("image/png")
    const png = Buffer.from(image.data, "base64")
    expect(png.subarray(1, 4).toString("ascii")).toBe("PNG")
    expect(png.readUInt32BE(16) / png.readUInt32BE(20)).toBeCloseTo(16 / 9, 1)
    expect(inflateSync(png.subarray(41, 41 + png.readUInt32BE(33))).length).toBeGreaterThan(0)
  })

  it("accepts the snake_case spelling of the request fields", async () => {
    const res = await answer(
      await generate("zeta-2.5-flash", {
        contents: [
          { role: "user", parts: [{ text: "hi" }, { inline_data: { mime_type: "image/png", data: "iVBORw0KGgo=" } }] }
        ],
        system_instruction: { parts: [{ text: "Be brief." }] },
        generation_config: { max_output_tokens: 3, thinking_config: { include_thoughts: true, thinking_budget: 256 } }
      })
    )
    expect(res.candidates[0]!.finishReason).toBe("MAX_TOKENS")
    expect(res.candidates[0]!.content.parts![0]!.thought).toBe(true)
  })

  it("answers JSON of the response schema when responseMimeType is application/json", async () => {
    const responseSchema = { type: "OBJECT", properties: { title: { type: "STRING" }, year: { type: "INTEGER" } } }
    const res = await answer(
      await generate("zeta-2.5-flash", {
        contents,
        generationConfig: { responseMimeType: "application/json", responseSchema }
      })
    )
    const json = JSON.parse(res.candidates[0]!.content.parts![0]!.text!) as Record<string, unknown>
    expect(Object.keys(json).sort()).toEqual(["title", "year"])
    expect(typeof json.year).toBe("number")
  })

  it("stops at maxOutputTokens with MAX_TOKENS", async () => {
    const res = await answer(await generate("zeta-2.5-flash", { contents, generationConfig: { maxOutputTokens: 2 } }))
    expect(res.candidates[0]!.finishReason).toBe("MAX_TOKENS")
    expect(res.usageMetadata.candidatesTokenCount).toBe(2)
  })

  const invalid: Array<[string, Record<string, unknown>]> = [
    ["missing contents", {}],
    ["empty contents", { contents: [] }],
    ["a content without parts", { contents: [{ role: "user", parts: [] }] }],
    ["temperature above 2", { contents, generationConfig: { temperature: 2.5 } }],
    [
      "thinkingBudget with thinkingLevel",
      { contents, generationConfig: { thinkingConfig: { thinkingBudget: 100, thinkingLevel: "LOW" } } }
    ],
    ["an unsupported parameter", { contents, frequency: 3 }],
    ["a bad function calling mode", { contents, toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } } }]
  ]
  for (const [what, body] of invalid)
    it(`answers ${what} with 400 INVALID_ARGUMENT`, async () => {
      const res = await generate("zeta-2.5-flash", body)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({
        error: { code: 400, message: expect.any(String), status: "INVALID_ARGUMENT" }
      })
    })

  it("rejects thinking budget 0 on the 2.5 pro model and thinkingLevel on the 2.5 class", async () => {
    expect(
      (await generate("zeta-2.5-pro", { contents, generationConfig: { thinkingConfig: { thinkingBudget: 0 } } })).status
    ).toBe(400)
    expect(
      (await generate("zeta-2.5-flash", { contents, generationConfig: { thinkingConfig: { thinkingLevel: "LOW" } } }))
        .status
    ).toBe(400)
  })

  it("answers an unknown model with 404 NOT_FOUND", async () => {
    const res = await generate("zeta-9-nonexistent", { contents })
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } })
  })

  it("rejects the native embedding shape with 400", async () => {
    const res = await post("/v1beta/models/zeta-embedding-001:embedContent", { content: { parts: [{ text: "x" }] } })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } })
    const batch = await post("/v1beta/models/zeta-embedding-001:batchEmbedContents", { requests: [] })
    expect(batch.status).toBe(400)
    const viaGenerate = await generate("zeta-embedding-001", { contents })
    expect(viaGenerate.status).toBe(400)
    expect(await viaGenerate.json()).toMatchObject({ error: { message: expect.stringContaining("/v1/embeddings") } })
  })
})
