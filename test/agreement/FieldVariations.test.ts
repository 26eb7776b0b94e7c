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
import { buildCountTokensBody, buildMessagesBody } from "../../src/core/text/messages/Messages.js"
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

/** A native-content family of one model (the path's, suffix included), varying the fields of `vary`. */
const native = (model: string, vary: Family["vary"]): Family => ({
  path: `/v1beta/models/${model}:generateContent`,
  base: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  build: (b) => buildNativeBody(model, b),
  vary
})

const user = (content: unknown) => [{ role: "user", content }]
const tool = (name: string, more: Record<string, unknown> = {}) => ({ name, input_schema: { type: "object" }, ...more })
const png = { type: "base64", media_type: "image/png", data: "AAAA" }
const link = { type: "url", url: "https://example.com/a.png" }
const doc = { type: "text", media_type: "text/plain", data: "a page" }
// The content blocks and tools both messages-style bodies take, inside and just outside their rules.
const blocks = [
  user([{ type: "text", text: "hi", cache_control: { type: "persistent" } }]),
  user([{ type: "text", text: "hi", cache_control: { type: "forever" } }]),
  user([{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } }]),
  user([{ type: "text", text: "hi", cache_control: { type: "persistent", ttl: "5m" } }]),
  user([{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "10m" } }]),
  user([{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: 3600 } }]),
  user([{ type: "text", text: "" }]),
  user([{ type: "text", text: " " }]),
  user([{ type: "image", source: png }]),
  user([{ type: "image", source: link, cache_control: { type: "ephemeral" } }]),
  user([{ type: "image", source: { ...png, media_type: "image/bmp" } }]),
  user([{ type: "image", source: link, cache_control: { type: "x" } }]),
  user([{ type: "image" }]),
  // cache_control on every block kind, a document and a kind passed through included (also inside a tool result).
  user([{ type: "document", source: doc, cache_control: { type: "ephemeral" } }]),
  user([{ type: "document", source: doc, cache_control: { type: "x" } }]),
  user([{ type: "document", source: doc, cache_control: { type: "ephemeral", ttl: "2h" } }]),
  user([{ type: "search_result", source: "s", cache_control: { type: "persistent" } }]),
  user([{ type: "search_result", source: "s", cache_control: { type: "x" } }]),
  user([{ type: "search_result", source: "s", cache_control: "ephemeral" }]),
  [
    ...user("weather?"),
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] },
    ...user([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: [{ type: "document", source: doc, cache_control: { type: "x" } }]
      }
    ])
  ],
  [
    ...user("weather?"),
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] },
    ...user([{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: " " }] }])
  ]
]
const tools = [
  [tool("t", { cache_control: { type: "ephemeral" } })],
  [tool("t", { cache_control: { type: "forever" } })],
  [tool("t", { cache_control: { type: "ephemeral", ttl: "1d" } })],
  [tool("my tool")],
  [tool("a".repeat(128))],
  [tool("a".repeat(129))],
  [tool("t"), tool("t")]
]

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
        { type: "enabled" },
        { type: "enabled", budget_tokens: 1025.5 }
      ],
      stream: [false, "no"],
      metadata: [{ user_id: "u" }, "x"],
      tool_choice: [{ type: "auto" }, { type: "any" }, { type: "none" }, { type: "tool", name: "x" }, "auto"],
      tools: [[{ name: "get_weather", input_schema: { type: "object" } }], [{ name: "x" }], [], ...tools],
      system: ["be brief", [], [{ type: "text", text: "" }], [{ type: "text", text: "s" }]],
      messages: [
        [{ role: "assistant", content: "hi" }],
        user(""),
        user([]),
        user([{ type: "text", text: "hi" }]),
        [...user("a"), ...user("b")],
        ...blocks
      ]
    }
  },
  "count tokens": {
    path: "/v1/messages/count_tokens",
    base: { model: "epsilon-sonnet-4-5-20250929", messages: user("hi") },
    build: (b) => buildCountTokensBody(b),
    vary: {
      thinking: [
        { type: "enabled", budget_tokens: 2048 },
        { type: "enabled", budget_tokens: 1024 },
        { type: "enabled", budget_tokens: 1025.5 },
        { type: "disabled" },
        { type: "x" }
      ],
      cache_control: [
        { type: "ephemeral" },
        { type: "persistent" },
        { type: "forever" },
        "ephemeral",
        { type: "ephemeral", ttl: "5m" },
        { type: "ephemeral", ttl: "2h" }
      ],
      system: ["be brief", [{ type: "text", text: "s", cache_control: { type: "forever" } }]],
      tools,
      messages: blocks
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
      temperature: [0, 2, 2.1, -0.1, "1"],
      top_p: [0, 1, 1.5, -0.1],
      // Chat's rule (0 to 20, an integer), one rule for both bodies.
      top_logprobs: [0, 20, 21, -1, 1.5, "5"],
      input: ["", " ", [], user("hi"), [{ role: "robot", content: "hi" }]],
      stream: [false, "x"],
      instructions: ["x", 1],
      text: [{ format: { type: "text" } }, { format: { type: "x" } }],
      store: [true, "x"],
      metadata: [{ a: "b" }, "x"]
    }
  },
  native: native("zeta-2.5-flash", {
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
      { thinkingConfig: { thinkingBudget: -2 } },
      // The image types a generated image comes in, as the images endpoint's mime_type takes them.
      { imageConfig: { imageOutputOptions: { mimeType: "image/jpeg" } } },
      { imageConfig: { imageOutputOptions: { mimeType: "image/webp" } } },
      { imageConfig: { imageOutputOptions: { mimeType: "image/gif" } } },
      { imageConfig: { imageOutputOptions: { mimeType: "image/x-icon" } } },
      // The aspect ratios and sizes of a generated image.
      { imageConfig: { aspectRatio: "16:9" } },
      { imageConfig: { aspectRatio: "21:9" } },
      { imageConfig: { aspectRatio: "7:3" } },
      { imageConfig: { aspectRatio: "16x9" } },
      { imageConfig: { imageSize: "2K" } },
      { imageConfig: { imageSize: "4K" } },
      { imageConfig: { imageSize: "2k" } },
      { imageConfig: { imageSize: "2048" } }
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
    ],
    tools: [
      [{ functionDeclarations: [{ name: "f" }] }, { vendorSearch: {} }],
      [{ functionDeclarations: [{ name: "f" }], vendorSearch: {} }],
      [{ functionDeclarations: [{ name: "f" }], codeExecution: {} }],
      [{ functionDeclarations: [{ name: "f" }], urlContext: {} }],
      // A function name: a letter or _, then letters, digits, _ . : or -, 128 at most.
      [{ functionDeclarations: [{ name: "_ns.get:weather-v2" }] }],
      [{ functionDeclarations: [{ name: "a".repeat(128) }] }],
      [{ functionDeclarations: [{ name: "a".repeat(129) }] }],
      [{ functionDeclarations: [{ name: "1f" }] }],
      [{ functionDeclarations: [{ name: "my tool" }] }],
      [{ functionDeclarations: [{ name: "" }] }],
      [{ functionDeclarations: [{ description: "no name" }] }],
      [{ functionDeclarations: [{ name: "f" }, { name: "f" }] }],
      [{ functionDeclarations: [{ name: "f" }] }, { functionDeclarations: [{ name: "f" }] }],
      // proto3 JSON: a null field is the field's default, as if absent.
      [{ functionDeclarations: null }],
      [{ functionDeclarations: null, vendorSearch: {} }],
      [{ functionDeclarations: [{ name: "f" }], vendorSearch: null }],
      [{ vendorSearch: null }],
      [{ functionDeclarations: "f" }]
    ]
  }),
  // The thinking a model takes: levels on the 3 class (3 Pro: LOW and HIGH), and what a model id's
  // thinking suffix says, which an explicit thinkingConfig must not contradict.
  "native zeta-3-pro-preview": native("zeta-3-pro-preview", {
    generationConfig: [
      { thinkingConfig: { thinkingLevel: "LOW" } },
      { thinkingConfig: { thinkingLevel: "high" } },
      { thinkingConfig: { thinkingLevel: "MEDIUM" } },
      { thinkingConfig: { thinkingLevel: "MINIMAL" } },
      { thinkingConfig: { thinkingLevel: "x" } },
      // A budget alone is still taken on the 3 class (protocol notes §2.6); never beside a level.
      { thinkingConfig: { thinkingBudget: 1024 } },
      { thinkingConfig: { thinkingBudget: -1 } },
      { thinkingConfig: { thinkingBudget: -2 } },
      { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: "LOW" } }
    ]
  }),
  "native zeta-3-pro-preview-thinking-low": native("zeta-3-pro-preview-thinking-low", {
    generationConfig: [
      { thinkingConfig: { thinkingLevel: "low" } },
      { thinkingConfig: { thinkingLevel: "HIGH" } },
      { thinkingConfig: { thinkingBudget: 1024 } }
    ]
  }),
  "native zeta-2.5-flash-thinking-8192": native("zeta-2.5-flash-thinking-8192", {
    generationConfig: [
      { thinkingConfig: { thinkingBudget: 8192 } },
      { thinkingConfig: { thinkingBudget: 1024 } },
      { thinkingConfig: { thinkingLevel: "LOW" } },
      { thinkingConfig: { includeThoughts: true } }
    ]
  }),
  "native zeta-2.5-flash-thinking": native("zeta-2.5-flash-thinking", {
    generationConfig: [
      { thinkingConfig: { thinkingBudget: -1 } },
      { thinkingConfig: { thinkingBudget: 512 } },
      { thinkingConfig: { thinkingBudget: 0 } }
    ]
  }),
  "native zeta-2.5-flash-nothinking": native("zeta-2.5-flash-nothinking", {
    generationConfig: [{ thinkingConfig: { thinkingBudget: 0 } }, { thinkingConfig: { thinkingBudget: 1024 } }]
  }),
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

// The thinking suffix of a native model id, alone: a level suffix is for the 3 class, a budget within
// the model's range, and `-nothinking` only where the model can turn thinking off.
const suffixed = [
  "zeta-2.5-flash-thinking",
  "zeta-2.5-flash-nothinking",
  "zeta-2.5-flash-thinking-8192",
  "zeta-2.5-flash-thinking-0",
  "zeta-2.5-flash-thinking-24577",
  "zeta-2.5-flash-thinking-low",
  "zeta-2.5-flash-thinking-high",
  "zeta-2.5-flash-lite-thinking-256",
  "zeta-2.5-flash-lite-nothinking",
  "zeta-2.5-pro-thinking-100",
  "zeta-2.5-pro-thinking-128",
  "zeta-2.5-pro-nothinking",
  "zeta-3-pro-preview-thinking",
  "zeta-3-pro-preview-thinking-low",
  "zeta-3-pro-preview-thinking-high",
  "zeta-3-pro-preview-thinking-8192",
  "zeta-3-pro-preview-nothinking"
]

it("a native model id's thinking suffix: the client builds a body exactly when the emulator answers 2xx", async () => {
  const disagreements: Array<string> = []
  for (const model of suffixed) {
    const family = native(model, {})
    const built = Effect.runSync(Effect.result(family.build(family.base)))
    const status = await postStatus(emu, family.path, family.base)
    if (Result.isSuccess(built) !== (status >= 200 && status < 300))
      disagreements.push(
        `${model}: client ${Result.isSuccess(built) ? "builds it" : `refuses it (${built.failure.rule})`}, emulator answers ${status}`
      )
  }
  expect(disagreements).toEqual([])
})
