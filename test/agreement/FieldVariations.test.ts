// One field at a time: for each family, a valid body with one field set to a value inside or just
// outside its rules. The client's builder accepts it exactly when the emulator answers 2xx, so
// neither is more lenient than the other: a body the client lets through is not refused upstream
// after a round trip, and a program tested against the emulator is not refused by the gateway.
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { buildEmbeddingsBody } from "../../src/core/media/Embeddings.js"
import { buildRerankBody } from "../../src/core/media/Rerank.js"
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

interface Family {
  readonly path: string
  readonly base: Record<string, unknown>
  readonly build: (body: Record<string, unknown>) => Effect.Effect<unknown, InvalidRequest>
  /** Each field, and values for it: valid ones and ones just outside its rules. */
  readonly vary: Record<string, ReadonlyArray<unknown>>
}

const user = (content: unknown) => [{ role: "user", content }]

const families: Record<string, Family> = {
  messages: {
    path: "/v1/messages",
    base: { model: "epsilon-sonnet-4-5-20250929", max_tokens: 4096, messages: user("hi") },
    build: (b) => buildMessagesBody(b),
    vary: {
      top_k: [-1, 0, 5, 2.5, "5"],
      stop_sequences: [["a"], [""], [" "], "a", [1], []],
      temperature: [0, 1, 1.5, -0.1],
      top_p: [0, 1, 1.2],
      thinking: [
        { type: "enabled", budget_tokens: 2048 },
        { type: "enabled", budget_tokens: 1024 },
        { type: "enabled", budget_tokens: 8192 },
        { type: "disabled" },
        { type: "x" },
        { type: "enabled" }
      ],
      stream: [false, "no"],
      metadata: [{ user_id: "u" }, "x"],
      tool_choice: [{ type: "auto" }, { type: "any" }, { type: "none" }, { type: "tool", name: "x" }, "auto"],
      tools: [[{ name: "get_weather", input_schema: { type: "object" } }], [{ name: "x" }], []],
      system: ["be brief", [], [{ type: "text", text: "" }], [{ type: "text", text: "s" }]],
      messages: [
        [{ role: "assistant", content: "hi" }],
        user(""),
        user([]),
        user([{ type: "text", text: "hi" }]),
        [...user("a"), ...user("b")]
      ]
    }
  },
  chat: {
    path: "/v1/chat/completions",
    base: { model: "gpt-4o-mini", messages: user("hi") },
    build: (b) => buildChatBody(b),
    vary: {
      n: [1, 2, 0, 1.5, 128, 129],
      presence_penalty: [-2, 2, 2.5, -2.1, "x"],
      frequency_penalty: [0, 2.1],
      top_logprobs: [0, 20, 21, -1, 1.5],
      top_p: [0, 1, 1.5],
      temperature: [0, 2, 2.1],
      max_tokens: [1, 0, 2.5],
      logprobs: [true, "x"],
      seed: [1, 1.5],
      stop: ["a", ["a"], null, 1],
      response_format: [{ type: "text" }, { type: "json_object" }, { type: "x" }],
      user: ["u", 1],
      stream: [false, "no"],
      messages: [
        [{ role: "system", content: "s" }],
        [{ role: "developer", content: "x" }],
        user(null),
        [{ role: "robot", content: "x" }]
      ]
    }
  },
  responses: {
    path: "/v1/responses",
    base: { model: "gpt-5", input: "hi", max_output_tokens: 64 },
    build: (b) => buildResponsesBody(b),
    vary: {
      max_output_tokens: [1, 16, 0, 2.5],
      input: ["", " ", [], user("hi"), [{ role: "robot", content: "hi" }]],
      stream: [false, "x"],
      instructions: ["x", 1],
      text: [{ format: { type: "text" } }, { format: { type: "x" } }],
      store: [true, "x"],
      metadata: [{ a: "b" }, "x"]
    }
  },
  native: {
    path: "/v1beta/models/zeta-2.5-flash:generateContent",
    base: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
    build: (b) => buildNativeBody("zeta-2.5-flash", b),
    vary: {
      generationConfig: [
        { temperature: 2 },
        { temperature: 2.1 },
        { topP: 1 },
        { topP: 1.1 },
        { topK: 0 },
        { topK: 40 },
        { topK: -1 },
        { topK: 2.5 },
        { candidateCount: 1 },
        { candidateCount: 0 },
        { candidateCount: 8 },
        { candidateCount: 9 },
        { candidateCount: 1_000_000_000 },
        { maxOutputTokens: 0 },
        { stopSequences: ["a"] },
        { stopSequences: "a" },
        { seed: 1 },
        { seed: 1.5 },
        { thinkingConfig: { thinkingBudget: 0 } },
        { thinkingConfig: { thinkingBudget: 24576 } },
        { thinkingConfig: { thinkingBudget: 24577 } },
        { thinkingConfig: { thinkingBudget: -1 } },
        { thinkingConfig: { thinkingBudget: -2 } }
      ],
      systemInstruction: [{ parts: [{ text: "s" }] }, "s", { parts: [] }],
      contents: [
        [{ role: "model", parts: [{ text: "hi" }] }],
        [{ parts: [{ text: "hi" }] }],
        [{ role: "user", parts: [] }],
        [{ role: "user", parts: [{}] }]
      ],
      safetySettings: [
        [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
        [{ category: "x", threshold: "BLOCK_NONE" }]
      ]
    }
  },
  embeddings: {
    path: "/v1/embeddings",
    base: { model: "text-embedding-3-small", input: "hi" },
    build: (b) => buildEmbeddingsBody(b),
    vary: {
      input: [["a", "b"], [], [""], "", 5],
      encoding_format: ["float", "base64", "x"],
      dimensions: [1, 0, 1536, 1537],
      user: ["u", 1]
    }
  },
  rerank: {
    path: "/v1/rerank",
    base: { model: "rerank-v1", query: "q", documents: ["a", "b"] },
    build: (b) => buildRerankBody(b),
    vary: {
      top_n: [1, 2, 0, 3, 1.5],
      documents: [[], ["a"], "a"],
      query: ["", " "],
      return_documents: [true, "x"]
    }
  },
  speech: {
    path: "/v1/audio/speech",
    base: { model: "tts-1", input: "hi", voice: "alloy" },
    build: (b) => buildSpeechBody(b),
    vary: {
      speed: [0.25, 0.24, 4, 4.1],
      response_format: ["mp3", "wav", "x"],
      input: ["", " ", "x".repeat(4096), "x".repeat(4097)],
      instructions: ["x", 1],
      voice: ["nova", "x"]
    }
  }
}

describe("one field at a time, the client builds a body exactly when the emulator answers 2xx", () => {
  for (const [name, family] of Object.entries(families)) {
    it(name, async () => {
      const disagreements: Array<string> = []
      for (const [field, values] of Object.entries(family.vary))
        for (const value of values) {
          const body = { ...family.base, [field]: value }
          const built = Effect.runSync(Effect.result(family.build(body)))
          const status = await postStatus(emu, family.path, body)
          if (Result.isSuccess(built) !== (status >= 200 && status < 300))
            disagreements.push(
              `${field}: ${JSON.stringify(value).slice(0, 60)}: client ${
                Result.isSuccess(built) ? "builds it" : `refuses it (${built.failure.rule})`
              }, emulator answers ${status}`
            )
        }
      expect(disagreements).toEqual([])
    })
  }
})
