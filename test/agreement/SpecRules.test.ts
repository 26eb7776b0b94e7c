// The rules the client and the emulator once disagreed on, checked on both sides: the client's
// builder refuses (or accepts) a body exactly when the emulator answers 4xx (or 2xx).
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildEmbeddingsBody } from "../../src/core/media/Embeddings.js"
import { buildSpeechBody } from "../../src/core/media/Speech.js"
import { buildChatBody } from "../../src/core/text/chat/ChatBody.js"
import { buildCountTokensBody, buildMessagesBody } from "../../src/core/text/messages/Messages.js"
import { buildNativeBody } from "../../src/core/text/native/Native.js"
import { postStatus } from "../support/emulatorStatus.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const post = (path: string, body: unknown): Promise<number> => postStatus(emu, path, body)
const accepts = (effect: Effect.Effect<unknown, unknown>): boolean =>
  Result.isSuccess(Effect.runSync(Effect.result(effect)))

/** The emulator's status and answer for a JSON POST. */
const answer = async (path: string, body: unknown): Promise<{ status: number; json: unknown }> => {
  const res = await fetch(`${emu.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: res.status, json: await res.json() }
}

const epsilon = "epsilon-sonnet-4-5-20250929"
const hi = [{ role: "user", content: "hi" }]
const say = (content: unknown) => [{ role: "user", content }]
const fn = (name: string, more: Record<string, unknown> = {}) => ({ name, input_schema: { type: "object" }, ...more })
const ask = { contents: [{ role: "user", parts: [{ text: "hi" }] }] }
const png = { type: "base64", media_type: "image/png", data: "AAAA" }

/** A body both sides refuse: the client's builder, and the emulator with a 400 in the family's envelope naming the field. */
interface Refusal {
  readonly what: string
  readonly path: string
  readonly body: Record<string, unknown>
  readonly build: Effect.Effect<unknown, unknown>
  /** The emulator's answer, in part: the family's error envelope, its message naming the field. */
  readonly error: Record<string, unknown>
}

const messages = (what: string, fields: Record<string, unknown>, field: string): Refusal => {
  const body = { model: epsilon, max_tokens: 16, messages: hi, ...fields }
  const error = { type: "error", error: { type: "invalid_request", message: expect.stringContaining(field) } }
  return { what: `messages: ${what}`, path: "/v1/messages", body, build: buildMessagesBody(body), error }
}
const count = (what: string, fields: Record<string, unknown>, field: string): Refusal => {
  const body = { model: epsilon, messages: hi, ...fields }
  const error = { type: "error", error: { type: "invalid_request_error", message: expect.stringContaining(field) } }
  const path = "/v1/messages/count_tokens"
  return { what: `count tokens: ${what}`, path, body, build: buildCountTokensBody(body), error }
}
const native = (model: string, what: string, fields: Record<string, unknown>, field: string): Refusal => {
  const body = { ...ask, ...fields }
  const error = { error: { code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining(field) } }
  const path = `/v1beta/models/${model}:generateContent`
  return { what: `native ${model}: ${what}`, path, body, build: buildNativeBody(model, body), error }
}

const refusals: ReadonlyArray<Refusal> = [
  messages(
    "a text block's cache_control",
    { messages: say([{ type: "text", text: "hi", cache_control: { type: "forever" } }]) },
    "field messages[0].content[0].cache_control.type"
  ),
  messages(
    "an image block's cache_control",
    { messages: say([{ type: "image", source: png, cache_control: { type: "x" } }]) },
    "field messages[0].content[0].cache_control.type"
  ),
  messages("a blank text block", { messages: say([{ type: "text", text: " " }]) }, "field messages[0].content[0].text"),
  messages(
    "an image of a media type outside jpeg, png, gif, webp",
    { messages: say([{ type: "image", source: { ...png, media_type: "image/bmp" } }]) },
    "field messages[0].content[0].source.media_type"
  ),
  messages("an image without source", { messages: say([{ type: "image" }]) }, "field messages[0].content[0].source"),
  messages(
    "a tool's cache_control",
    { tools: [fn("t", { cache_control: { type: "forever" } })] },
    "field tools[0].cache_control.type"
  ),
  messages("a tool name outside the pattern", { tools: [fn("my tool")] }, "field tools[0].name"),
  messages("a tool name declared twice", { tools: [fn("t"), fn("t")] }, "field tools[1].name"),
  messages(
    "a thinking budget that is not an integer",
    { max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 1025.5 } },
    "field thinking.budget_tokens"
  ),
  count("a thinking budget of 1024", { thinking: { type: "enabled", budget_tokens: 1024 } }, "thinking.budget_tokens"),
  count("a top-level cache_control", { cache_control: { type: "forever" } }, "cache_control.type"),
  count("a blank text block", { messages: say([{ type: "text", text: "" }]) }, "messages[0].content[0].text"),
  native(
    "zeta-2.5-flash",
    "function declarations beside vendorSearch",
    { tools: [{ functionDeclarations: [{ name: "f" }], vendorSearch: {} }] },
    "tools[0]: vendorSearch"
  ),
  native(
    "zeta-3-pro-preview",
    "thinkingLevel MEDIUM on 3 Pro",
    { generationConfig: { thinkingConfig: { thinkingLevel: "MEDIUM" } } },
    "thinking_level"
  ),
  native(
    "zeta-2.5-flash-thinking-8192",
    "a budget contradicting the suffix",
    { generationConfig: { thinkingConfig: { thinkingBudget: 1024 } } },
    "thinking_budget"
  ),
  native("zeta-2.5-flash-thinking-low", "a level suffix on the 2.5 class", {}, "-thinking-low"),
  native("zeta-2.5-pro-nothinking", "-nothinking on a model that always thinks", {}, "-nothinking")
]

describe("client and emulator agree on", () => {
  for (const refusal of refusals)
    it(`${refusal.what}: both refuse it, the emulator with a 400 naming the field`, async () => {
      expect(accepts(refusal.build)).toBe(false)
      expect(await answer(refusal.path, refusal.body)).toEqual({
        status: 400,
        json: expect.objectContaining(refusal.error)
      })
    })

  it("zeta-embedding-001 being served by /v1/embeddings", async () => {
    const body = { model: "zeta-embedding-001", input: "hello" }
    expect(accepts(buildEmbeddingsBody(body))).toBe(true)
    expect(await post("/v1/embeddings", body)).toBe(200)
  })

  it("speech voices being the six the gateway accepts", async () => {
    for (const [voice, ok] of [
      ["alloy", true],
      ["shimmer", true],
      ["ash", false],
      ["coral", false]
    ] as const) {
      const body = { model: "gpt-4o-mini-tts", input: "hi", voice }
      expect(accepts(buildSpeechBody(body))).toBe(ok)
      expect(await post("/v1/audio/speech", body)).toBe(ok ? 200 : 400)
    }
  })

  it("cache_control inside system blocks being ephemeral or persistent", async () => {
    for (const [type, ok] of [
      ["ephemeral", true],
      ["persistent", true],
      ["forever", false]
    ] as const) {
      const body = {
        model: "epsilon-sonnet-4-5-20250929",
        max_tokens: 16,
        system: [{ type: "text", text: "be brief", cache_control: { type } }],
        messages: [{ role: "user", content: "hi" }]
      }
      expect(accepts(buildMessagesBody(body))).toBe(ok)
      expect(await post("/v1/messages", body)).toBe(ok ? 200 : 400)
    }
  })

  it("native inlineData needing a mimeType", async () => {
    for (const [inlineData, ok] of [
      [{ mimeType: "image/png", data: "iVBORw0KGgo=" }, true],
      [{ data: "iVBORw0KGgo=" }, false]
    ] as const) {
      const body = { contents: [{ role: "user", parts: [{ text: "what is this?" }, { inlineData }] }] }
      expect(accepts(buildNativeBody("zeta-2.5-flash", body))).toBe(ok)
      expect(await post("/v1beta/models/zeta-2.5-flash:generateContent", body)).toBe(ok ? 200 : 400)
    }
  })

  it("chat max_tokens and max_completion_tokens being positive integers", async () => {
    for (const field of ["max_tokens", "max_completion_tokens"]) {
      for (const [value, ok] of [
        [1, true],
        [4096, true],
        [0, false],
        [-5, false],
        [2.5, false]
      ] as const) {
        const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], [field]: value }
        expect(accepts(buildChatBody(body)), `${field}: ${value}`).toBe(ok)
        expect(await post("/v1/chat/completions", body), `${field}: ${value}`).toBe(ok ? 200 : 400)
      }
    }
  })

  it("the GPT-5 Pro family being served only by /v1/responses", async () => {
    const chat = { model: "gpt-5-pro", messages: [{ role: "user", content: "hi" }] }
    expect(accepts(buildChatBody(chat))).toBe(false)
    expect(await post("/v1/chat/completions", chat)).toBe(400)
    expect(await post("/v1/responses", { model: "gpt-5-pro", input: "hi", max_output_tokens: 16 })).toBe(200)
  })

  it("unknown and other-family models being refused by chat", async () => {
    for (const model of ["gpt-9", "epsilon-sonnet-4-5-20250929", "zeta-2.5-pro", "text-embedding-3-small"]) {
      const body = { model, messages: [{ role: "user", content: "hi" }] }
      expect(accepts(buildChatBody(body))).toBe(false)
      expect(await post("/v1/chat/completions", body)).toBeGreaterThanOrEqual(400)
    }
    expect(
      await post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })
    ).toBe(200)
  })
})
