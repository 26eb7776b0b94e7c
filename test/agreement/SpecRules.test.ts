// The rules the client and the emulator once disagreed on, checked on both sides: the client's
// builder refuses (or accepts) a body exactly when the emulator answers 4xx (or 2xx).
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildEmbeddingsBody } from "../../src/core/media/Embeddings.js"
import { buildSpeechBody } from "../../src/core/media/Speech.js"
import { buildChatBody } from "../../src/core/text/chat/ChatBody.js"
import { buildMessagesBody } from "../../src/core/text/messages/Messages.js"
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

describe("client and emulator agree on", () => {
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
