import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { generateText, type LanguageModel, streamText } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { closeCountingServers, countingServer } from "../support/countingServer.js"

// A native-content prompt blocked (`promptFeedback.blockReason`, no candidate) ends a call as the
// official provider ends it, answer or stream alike: no error, the finish reason content-filter with
// the block reason as its raw reason. Served by a loopback server answering every call with the block.
const blocked = {
  promptFeedback: { blockReason: "SAFETY" },
  usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 }
}

let url: string
let umg: UmgProvider
beforeAll(async () => {
  const server = await countingServer((req, res) => {
    req.resume()
    req.on("end", () => {
      if (req.url?.includes(":streamGenerateContent") === true) {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(`data: ${JSON.stringify(blocked)}\r\n\r\n`)
      } else {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(blocked))
      }
    })
  })
  url = server.url
  umg = createUmg({ baseURL: url, apiKey: "test-key", maxRetries: 0 })
})
afterAll(async () => {
  await umg.dispose()
  await closeCountingServers()
})

const model = "zeta-2.5-flash"
const official = (): LanguageModel => createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: "test-key" })(model)

const streamed = async (m: LanguageModel) => {
  const errors: Array<unknown> = []
  const s = streamText({ model: m, prompt: "x", maxRetries: 0, onError: ({ error }) => void errors.push(error) })
  await s.consumeStream()
  return { errors, finishReason: await s.finishReason, raw: await s.rawFinishReason, text: await s.text }
}

describe("a native prompt blocked, through umg/ai-sdk", () => {
  it("generateText ends with content-filter and the block reason as the raw reason, as the official provider", async () => {
    const r = await generateText({ model: umg(model), prompt: "x" })
    const o = await generateText({ model: official(), prompt: "x", maxRetries: 0 })
    expect([r.finishReason, r.rawFinishReason, r.text]).toEqual(["content-filter", "SAFETY", ""])
    expect([o.finishReason, o.rawFinishReason]).toEqual([r.finishReason, r.rawFinishReason])
  })

  it("streamText ends the same way, with no error part, as the official provider", async () => {
    const r = await streamed(umg(model))
    expect(r).toEqual({ errors: [], finishReason: "content-filter", raw: "SAFETY", text: "" })
    expect(await streamed(official())).toEqual(r)
  })
})
