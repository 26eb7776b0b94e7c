import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { GoogleGenAI, type GenerateContentResponse, type Part } from "@google/genai"
import { generateText, jsonSchema, streamText, tool } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nativeSdkClient } from "../fixtures/nativeSdkClient.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { parseSse } from "./RawSse.js"

// The native-content (zeta) generation settings the official clients send, against the emulator:
// `stopSequences`, `candidateCount` (with text, function calls and structured output) and the
// `thoughtSignature` the 3 class puts on function calls — through @google/genai, the AI SDK's
// native-content provider and the raw wire.
let emu: Emulator
let genai: GoogleGenAI
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  genai = nativeSdkClient(emu)
})
afterAll(() => emu.close())

const FLASH = "zeta-2.5-flash"
const PRO3 = "zeta-3-pro-preview"
const prompt = "Describe a lighthouse."
// Thinking off: usage then counts candidate tokens only, and no thought part comes first.
const plain = { thinkingConfig: { thinkingBudget: 0 } }

const textOf = (parts: ReadonlyArray<Part> | undefined): string =>
  (parts ?? []).flatMap((p) => (typeof p.text === "string" && p.thought !== true ? [p.text] : [])).join("")

/** Each candidate's text, by `index`, over all the chunks of a stream. */
const textsByIndex = (chunks: ReadonlyArray<GenerateContentResponse>): Map<number, string> => {
  const out = new Map<number, string>()
  for (const c of chunks)
    for (const k of c.candidates ?? []) out.set(k.index!, (out.get(k.index!) ?? "") + textOf(k.content?.parts))
  return out
}

const collect = async (stream: AsyncGenerator<GenerateContentResponse>): Promise<Array<GenerateContentResponse>> => {
  const chunks: Array<GenerateContentResponse> = []
  for await (const c of stream) chunks.push(c)
  return chunks
}

const words = (text: string): number => text.split(" ").filter((w) => w.length > 0).length

const raw = (model: string, body: unknown) =>
  fetch(`${emu.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "x-vendor-api-key": emu.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body)
  })

describe("native-content stopSequences", () => {
  it("cuts the answer before the first stop sequence, leaves the sequence out and finishes with STOP", async () => {
    const whole = await genai.models.generateContent({ model: FLASH, contents: prompt, config: plain })
    const text = whole.text!
    const stop = text.split(" ")[4]!
    const cut = await genai.models.generateContent({
      model: FLASH,
      contents: prompt,
      config: { ...plain, stopSequences: ["no such words here", stop] }
    })
    const candidate = cut.candidates![0]!
    expect(cut.text).toBe(text.slice(0, text.indexOf(stop)))
    expect(cut.text).not.toContain(stop)
    expect(candidate.finishReason).toBe("STOP")
    expect(cut.usageMetadata!.candidatesTokenCount).toBeLessThan(whole.usageMetadata!.candidatesTokenCount!)
    // A stop sequence past maxOutputTokens is never reached.
    const short = await genai.models.generateContent({
      model: FLASH,
      contents: prompt,
      config: { ...plain, stopSequences: [stop], maxOutputTokens: 2 }
    })
    expect(short.candidates![0]!.finishReason).toBe("MAX_TOKENS")
  })

  it("streams nothing past the stop sequence, the finish reason STOP on the last chunk", async () => {
    const whole = await genai.models.generateContent({ model: FLASH, contents: prompt, config: plain })
    const text = whole.text!
    const stop = text.split(" ").slice(9, 11).join(" ")
    const body = {
      contents: [{ role: "user", parts: [{ text: prompt }] }],
      generationConfig: { ...plain, stopSequences: [stop] }
    }
    const wire = await (await raw(FLASH, body)).text()
    expect(wire).not.toContain(stop)
    const chunks = await collect(
      await genai.models.generateContentStream({ model: FLASH, contents: prompt, config: body.generationConfig })
    )
    expect(chunks.map((c) => c.text ?? "").join("")).toBe(text.slice(0, text.indexOf(stop)))
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe("STOP")
    expect(chunks.slice(0, -1).every((c) => c.candidates![0]!.finishReason === undefined)).toBe(true)
  })

  it("cuts JSON output at a stop sequence too", async () => {
    const config = {
      ...plain,
      responseMimeType: "application/json",
      responseSchema: { type: "OBJECT", properties: { title: { type: "STRING" } } }
    }
    const cut = await genai.models.generateContent({
      model: FLASH,
      contents: prompt,
      config: { ...config, stopSequences: ['":'] }
    })
    expect(cut.text).toBe('{"title')
    expect(cut.candidates![0]!.finishReason).toBe("STOP")
  })
})

describe("native-content candidateCount", () => {
  it("answers candidateCount candidates, indexed 0 to n-1, each its own text, usage counting them all", async () => {
    const one = await genai.models.generateContent({ model: FLASH, contents: prompt, config: plain })
    for (const n of [2, 3]) {
      const res = await genai.models.generateContent({
        model: FLASH,
        contents: prompt,
        config: { ...plain, candidateCount: n }
      })
      const again = await genai.models.generateContent({
        model: FLASH,
        contents: prompt,
        config: { ...plain, candidateCount: n }
      })
      const candidates = res.candidates!
      expect(candidates.map((c) => c.index)).toEqual([...Array(n).keys()])
      expect(candidates.every((c) => c.finishReason === "STOP")).toBe(true)
      const texts = candidates.map((c) => textOf(c.content?.parts))
      expect(new Set(texts).size).toBe(n)
      expect(texts).toEqual(again.candidates!.map((c) => textOf(c.content?.parts)))
      expect(texts[0]).toBe(one.text)
      const u = res.usageMetadata!
      expect(u.candidatesTokenCount).toBe(texts.reduce((sum, t) => sum + words(t), 0))
      expect(u.candidatesTokenCount).toBe(n * one.usageMetadata!.candidatesTokenCount!)
      expect(u.totalTokenCount).toBe(u.promptTokenCount! + u.candidatesTokenCount!)
    }
  })

  it("streams the candidates together, each chunk carrying them by index, usage cumulative over all", async () => {
    for (const n of [2, 3]) {
      const config = { ...plain, candidateCount: n }
      const unary = await genai.models.generateContent({ model: FLASH, contents: prompt, config })
      const chunks = await collect(await genai.models.generateContentStream({ model: FLASH, contents: prompt, config }))
      expect(chunks.length).toBeGreaterThan(1)
      expect(chunks[0]!.candidates!.map((c) => c.index)).toEqual([...Array(n).keys()])
      const texts = textsByIndex(chunks)
      expect([...texts.keys()]).toEqual([...Array(n).keys()])
      for (const c of unary.candidates!) expect(texts.get(c.index!)).toBe(textOf(c.content?.parts))
      // Each candidate's finish reason comes once, on its last chunk.
      for (let k = 0; k < n; k++) {
        const mine = chunks.flatMap((c) => (c.candidates ?? []).filter((x) => x.index === k))
        expect(mine.map((x) => x.finishReason).filter((r) => r !== undefined)).toEqual(["STOP"])
        expect(mine.at(-1)!.finishReason).toBe("STOP")
      }
      const counts = chunks.map((c) => c.usageMetadata!.candidatesTokenCount!)
      expect([...counts].sort((a, b) => a - b)).toEqual(counts)
      expect(counts.at(-1)).toBe(unary.usageMetadata!.candidatesTokenCount)
    }
  })

  it("lets a candidate cut short by a stop sequence finish while the others stream on", async () => {
    const config = { ...plain, candidateCount: 2 }
    const both = await genai.models.generateContent({ model: FLASH, contents: prompt, config })
    const [first, second] = both.candidates!.map((c) => textOf(c.content?.parts)) as [string, string]
    const stop = first.split(" ").find((w, i) => i > 0 && !second.includes(w))!
    const withStop = { ...config, stopSequences: [stop] }
    const unary = await genai.models.generateContent({ model: FLASH, contents: prompt, config: withStop })
    expect(unary.candidates!.map((c) => textOf(c.content?.parts))).toEqual([
      first.slice(0, first.indexOf(stop)),
      second
    ])
    const chunks = await collect(
      await genai.models.generateContentStream({ model: FLASH, contents: prompt, config: withStop })
    )
    const texts = textsByIndex(chunks)
    expect([texts.get(0), texts.get(1)]).toEqual([first.slice(0, first.indexOf(stop)), second])
    const last = chunks.findIndex((c) => c.candidates!.some((k) => k.index === 0 && k.finishReason === "STOP"))
    expect(last).toBeLessThan(chunks.length - 1)
    expect(chunks.slice(last + 1).every((c) => c.candidates!.every((k) => k.index === 1))).toBe(true)
    expect(chunks.at(-1)!.usageMetadata!.candidatesTokenCount).toBe(unary.usageMetadata!.candidatesTokenCount)
  })

  it("refuses a candidateCount below 1 and streams as many candidates as a valid count asks for", async () => {
    const res = await raw(FLASH, {
      contents: [{ role: "user", parts: [{ text: prompt }] }],
      generationConfig: { candidateCount: 0 }
    })
    expect(res.status).toBe(400)
    const ok = await raw(FLASH, {
      contents: [{ role: "user", parts: [{ text: prompt }] }],
      generationConfig: { candidateCount: 2 }
    })
    const first = JSON.parse(parseSse(await ok.text())[0]!.data) as { candidates: Array<unknown> }
    expect(first.candidates).toHaveLength(2)
  })
})

const lookup = {
  functionDeclarations: [
    {
      name: "lookup",
      description: "Find a place.",
      parametersJsonSchema: {
        type: "object",
        properties: { query: { type: "string" }, limit: { type: "integer" } },
        required: ["query", "limit"]
      }
    }
  ]
}
const clock = {
  functionDeclarations: [
    {
      name: "clock",
      description: "The time in a zone.",
      parametersJsonSchema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] }
    }
  ]
}

describe("native-content function calls and structured output with several candidates", () => {
  it("gives every candidate its own function call, streaming and not", async () => {
    const config = { ...plain, candidateCount: 2, tools: [lookup] }
    const unary = await genai.models.generateContent({ model: FLASH, contents: prompt, config })
    const calls = unary.candidates!.map((c) => c.content!.parts!.find((p) => p.functionCall)!.functionCall!)
    expect(unary.candidates!.map((c) => c.index)).toEqual([0, 1])
    expect(calls.map((c) => c.name)).toEqual(["lookup", "lookup"])
    expect(calls[0]!.args).not.toEqual(calls[1]!.args)
    const chunks = await collect(await genai.models.generateContentStream({ model: FLASH, contents: prompt, config }))
    const streamed = chunks.flatMap((c) =>
      (c.candidates ?? []).flatMap((k) =>
        (k.content?.parts ?? []).flatMap((p) => (p.functionCall ? [[k.index, p.functionCall]] : []))
      )
    )
    expect(streamed).toEqual([
      [0, calls[0]],
      [1, calls[1]]
    ])
  })

  it("gives every candidate its own JSON of the response schema", async () => {
    const config = {
      ...plain,
      candidateCount: 3,
      responseMimeType: "application/json",
      responseSchema: { type: "OBJECT", properties: { title: { type: "STRING" }, year: { type: "INTEGER" } } }
    }
    const res = await genai.models.generateContent({ model: FLASH, contents: prompt, config })
    const values = res.candidates!.map((c) => JSON.parse(textOf(c.content?.parts)) as Record<string, unknown>)
    expect(values).toHaveLength(3)
    for (const v of values) expect(Object.keys(v).sort()).toEqual(["title", "year"])
    expect(new Set(values.map((v) => JSON.stringify(v))).size).toBe(3)
  })
})

describe("native-content thought signatures", () => {
  const base64 = /^[A-Za-z0-9+/]+={0,2}$/

  it("signs the first function call of each 3-class candidate, the same signature for the same request", async () => {
    const config = { candidateCount: 2, tools: [lookup, clock] }
    const contents = "Use lookup and clock."
    const a = await genai.models.generateContent({ model: PRO3, contents, config })
    const b = await genai.models.generateContent({ model: PRO3, contents, config })
    const signatures = a.candidates!.map((c) => c.content!.parts!.map((p) => p.thoughtSignature))
    for (const [i, s] of signatures.entries()) {
      expect(a.candidates![i]!.content!.parts!.map((p) => p.functionCall?.name)).toEqual(["lookup", "clock"])
      expect(s[0]).toMatch(base64)
      // Parallel calls: only the first carries the turn's signature.
      expect(s[1]).toBeUndefined()
    }
    expect(signatures[0]![0]).not.toBe(signatures[1]![0])
    expect(b.candidates!.map((c) => c.content!.parts![0]!.thoughtSignature)).toEqual(signatures.map((s) => s[0]))
    const streamed = await collect(await genai.models.generateContentStream({ model: PRO3, contents, config }))
    const parts = streamed.flatMap((c) => (c.candidates ?? []).flatMap((k) => k.content?.parts ?? []))
    expect(parts.filter((p) => p.functionCall).map((p) => p.thoughtSignature)).toEqual([
      signatures[0]![0],
      undefined,
      signatures[1]![0],
      undefined
    ])
    // The 2.5 class sends none.
    const older = await genai.models.generateContent({ model: FLASH, contents, config: { tools: [lookup] } })
    expect(older.candidates![0]!.content!.parts![0]!.thoughtSignature).toBeUndefined()
  })

  it("takes the signed turn back in history, as @google/genai's chat sends it", async () => {
    const chat = genai.chats.create({ model: PRO3, config: { tools: [lookup] } })
    const first = await chat.sendMessage({ message: "Find the lighthouse." })
    const part = first.candidates![0]!.content!.parts![0]!
    expect(part.thoughtSignature).toMatch(base64)
    const second = await chat.sendMessage({
      message: [{ functionResponse: { name: "lookup", response: { found: 42 } } }]
    })
    expect(second.text).toContain('{"found":42}')
    expect(chat.getHistory()[1]!.parts![0]!.thoughtSignature).toBe(part.thoughtSignature)
  })

  it("reaches the AI SDK's native-content provider: stop sequences cut, signatures in provider metadata", async () => {
    const google = createGoogleGenerativeAI({
      baseURL: `${emu.url}/v1beta`,
      apiKey: emu.apiKey,
      headers: { authorization: `Bearer ${emu.apiKey}` }
    })
    const whole = await generateText({ model: google(FLASH), prompt })
    const stop = whole.text.split(" ")[3]!
    const cut = await generateText({ model: google(FLASH), prompt, stopSequences: [stop] })
    expect(cut.text).toBe(whole.text.slice(0, whole.text.indexOf(stop)))
    const streamed = streamText({ model: google(FLASH), prompt, stopSequences: [stop] })
    expect(await streamed.text).toBe(cut.text)
    const called = await generateText({
      model: google(PRO3),
      prompt: "Find the lighthouse.",
      tools: {
        lookup: tool({ inputSchema: jsonSchema({ type: "object", properties: { query: { type: "string" } } }) })
      }
    })
    const meta = called.toolCalls[0]!.providerMetadata?.google as { thoughtSignature?: string } | undefined
    expect(meta?.thoughtSignature).toMatch(base64)
  })
})
