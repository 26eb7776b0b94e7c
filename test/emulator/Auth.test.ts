import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const json = { "content-type": "application/json" }
const call = (path: string, body: unknown, headers: Record<string, string>): Promise<Response> =>
  fetch(emu.url + path, { method: "POST", headers: { ...json, ...headers }, body: JSON.stringify(body) })

const message = { model: "epsilon-haiku-4-5-20251001", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }
const native = { contents: [{ role: "user", parts: [{ text: "hi" }] }] }

describe("authentication", () => {
  it("accepts a Bearer key on every gateway family", async () => {
    const bearer = { authorization: `Bearer ${emu.apiKey}` }
    expect((await call("/v1/messages", message, bearer)).status).toBe(200)
    expect(
      (await call("/v1/messages/count_tokens", { model: message.model, messages: message.messages }, bearer)).status
    ).toBe(200)
    expect((await call("/v1beta/models/zeta-2.5-flash:generateContent", native, bearer)).status).toBe(200)
    expect((await call("/v1/chat/completions", { model: "gpt-4o", messages: message.messages }, bearer)).status).toBe(
      200
    )
  })

  it("answers a missing key on messages with 401 authentication_error", async () => {
    const res = await call("/v1/messages", message, {})
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({
      type: "error",
      error: { type: "authentication_error" },
      request_id: expect.stringMatching(/^req_/)
    })
  })

  it("answers a wrong key on messages with 401 authentication_error", async () => {
    const res = await call("/v1/messages", message, { authorization: "Bearer not-a-key" })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ error: { type: "authentication_error" } })
  })

  it("does not take x-api-key as the messages key (the gateway wants Bearer)", async () => {
    const res = await call("/v1/messages", message, { "x-api-key": emu.apiKey, "anthropic-version": "2023-06-01" })
    expect(res.status).toBe(401)
  })

  it("answers a wrong key on count tokens with Invalid token / invalid_request_error", async () => {
    const res = await call(
      "/v1/messages/count_tokens",
      { model: message.model, messages: message.messages },
      { authorization: "Bearer nope" }
    )
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ error: { message: "Invalid token", type: "invalid_request_error" } })
  })

  it("accepts x-vendor-api-key and ?key= on native content", async () => {
    expect(
      (await call("/v1beta/models/zeta-2.5-flash:generateContent", native, { "x-vendor-api-key": emu.apiKey })).status
    ).toBe(200)
    expect((await call(`/v1beta/models/zeta-2.5-flash:generateContent?key=${emu.apiKey}`, native, {})).status).toBe(200)
  })

  it("answers a missing or wrong native key with the 401 native envelope", async () => {
    for (const headers of [{}, { "x-vendor-api-key": "wrong" }]) {
      const res = await call("/v1beta/models/zeta-2.5-flash:generateContent", native, headers)
      expect(res.status).toBe(401)
      expect(await res.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } })
    }
  })

  it("does not take ?key= on non-native families", async () => {
    const res = await call(`/v1/embeddings?key=${emu.apiKey}`, { model: "text-embedding-3-small", input: "x" }, {})
    expect(res.status).toBe(401)
  })

  it("answers a wrong key on OpenAI-style endpoints with invalid_api_key", async () => {
    for (const path of [
      "/v1/chat/completions",
      "/v1/responses",
      "/v1/embeddings",
      "/v1/rerank",
      "/v1/audio/speech",
      "/v1/images/generations"
    ]) {
      const res = await call(path, {}, { authorization: "Bearer wrong" })
      expect(res.status, path).toBe(401)
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_api_key" } })
    }
  })

  it("accepts a configured restricted key too", async () => {
    const res = await call(
      "/v1/embeddings",
      { model: "text-embedding-3-small", input: "x" },
      { authorization: `Bearer ${emu.restrictedKey!}` }
    )
    expect(res.status).toBe(200)
  })

  it("authenticates the model list with the key of its format", async () => {
    const get = (path: string, headers: Record<string, string>) => fetch(emu.url + path, { headers })
    expect((await get("/v1/models", { "x-api-key": emu.apiKey, "anthropic-version": "2023-06-01" })).status).toBe(200)
    expect((await get("/v1/models", { "x-vendor-api-key": emu.apiKey })).status).toBe(200)
    expect((await get(`/v1/models?key=${emu.apiKey}`, {})).status).toBe(200)
    const wrong = await get("/v1/models", { "x-api-key": "bad", "anthropic-version": "2023-06-01" })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ error: { type: "authentication_error" } })
    const none = await get("/v1/models", {})
    expect(none.status).toBe(401)
    expect(await none.json()).toMatchObject({ error: { code: "invalid_api_key" } })
  })
})
