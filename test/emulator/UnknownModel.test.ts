// An unknown model on each JSON endpoint of the gateway. The contract's errors table gives 404 for a
// model not found (native content: "model not found or wrong path"; the OpenAI-style bodies answer
// 404 `model_not_found`, protocol notes §3.3), so every endpoint answers it alike, images included.
// Video is the exception the contract records: submitting an unknown video model id gives 400
// "model not found" (E1's access outcomes), so it is not listed here; nor is count tokens, a local
// calculation that makes no model request (E9), for which the contract gives no unknown-model outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const unknown = "no-such-model-1"
const user = [{ role: "user", content: "hi" }]

const endpoints: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
  ["chat", "/v1/chat/completions", { model: unknown, messages: user }],
  ["responses", "/v1/responses", { model: unknown, input: "hi" }],
  ["messages", "/v1/messages", { model: unknown, max_tokens: 16, messages: user }],
  ["native", `/v1beta/models/${unknown}:generateContent`, { contents: [{ parts: [{ text: "hi" }] }] }],
  ["embeddings", "/v1/embeddings", { model: unknown, input: "hi" }],
  ["rerank", "/v1/rerank", { model: unknown, query: "q", documents: ["a"] }],
  ["speech", "/v1/audio/speech", { model: unknown, input: "hi", voice: "alloy" }],
  ["images", "/v1/images/generations", { model: unknown, prompt: "a fox" }]
]

describe("an unknown model answers 404 on every JSON endpoint", () => {
  for (const [name, path, body] of endpoints)
    it(name, async () => {
      const res = await fetch(`${emu.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      const text = await res.text()
      expect({ status: res.status, mentionsModel: text.includes(unknown) }).toEqual({
        status: 404,
        mentionsModel: true
      })
    })
})
