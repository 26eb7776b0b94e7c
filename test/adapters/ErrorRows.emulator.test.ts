/**
 * Every error of the contract (docs/ARCHITECTURE.md), produced by the emulator (its own validation,
 * or an injected status where only a fault can cause it) and read through the one transport +
 * `toGatewayError` mapping. Bodies are sent raw here, bypassing the core, because the Gateway never
 * sends them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Effect, Redacted } from "effect"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import * as HttpAuth from "../../src/adapters/http/HttpAuth.js"
import * as HttpTransport from "../../src/adapters/http/HttpTransport.js"
import type { Family, GatewayError } from "../../src/core/errors/GatewayError.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
})
beforeEach(() => emu.clearFaults())

const errorOf = (family: Family, path: string, body: unknown, key?: string): Promise<GatewayError> =>
  Effect.runPromise(
    Effect.flip(
      Effect.scoped(
        Effect.flatMap(
          HttpTransport.fromConfig(GatewayConfig.make({ baseUrl: emu.url, apiKey: key ?? emu.apiKey, maxRetries: 0 })),
          (t) =>
            t.json({
              family,
              method: "POST",
              url: `${emu.url}${path}`,
              body,
              auth: HttpAuth.bearer(Redacted.make(key ?? emu.apiKey)),
              kind: "idempotent"
            })
        )
      )
    )
  )

const EPSILON = "epsilon-sonnet-4-5-20250929"
const msgs = [{ role: "user", content: "Hi" }]
const contents = [{ role: "user", parts: [{ text: "Hi" }] }]

describe("each family's error answers, as typed errors", () => {
  it("messages 400: a missing field is BadRequest invalid_request naming the field", async () => {
    const e = await errorOf("messages", "/v1/messages", { model: EPSILON, max_tokens: 10 })
    expect(e).toMatchObject({ _tag: "BadRequest", status: 400, family: "messages", type: "invalid_request" })
    expect(e.message).toContain("messages")
  })

  it("messages 401: authentication_error", async () => {
    const e = await errorOf("messages", "/v1/messages", { model: EPSILON, max_tokens: 10, messages: msgs }, "bad-key")
    expect(e).toMatchObject({ _tag: "AuthenticationError", status: 401, type: "authentication_error" })
  })

  it("messages 429: rate_limit_error", async () => {
    emu.inject("messages", { kind: "status", status: 429 })
    const e = await errorOf("messages", "/v1/messages", { model: EPSILON, max_tokens: 10, messages: msgs })
    expect(e).toMatchObject({ _tag: "RateLimited", status: 429, type: "rate_limit_error" })
  })

  it("messages 500: upstream_error", async () => {
    emu.inject("messages", { kind: "status", status: 500 })
    const e = await errorOf("messages", "/v1/messages", { model: EPSILON, max_tokens: 10, messages: msgs })
    expect(e).toMatchObject({ _tag: "UpstreamError", status: 500, type: "upstream_error" })
  })

  it("count tokens: a missing model is invalid_request_error", async () => {
    const e = await errorOf("count_tokens", "/v1/messages/count_tokens", { messages: msgs })
    expect(e).toMatchObject({ _tag: "BadRequest", family: "count_tokens", type: "invalid_request_error" })
    expect(e.message).toContain("model")
  })

  it("count tokens: an invalid key is 'Invalid token', an AuthenticationError", async () => {
    const e = await errorOf("count_tokens", "/v1/messages/count_tokens", { model: EPSILON, messages: msgs }, "bad-key")
    expect(e).toMatchObject({ _tag: "AuthenticationError", family: "count_tokens", message: "Invalid token" })
  })

  it("native 400: missing contents is INVALID_ARGUMENT", async () => {
    const e = await errorOf("native", "/v1beta/models/zeta-2.5-pro:generateContent", {})
    expect(e).toMatchObject({ _tag: "BadRequest", status: 400, family: "native", type: "INVALID_ARGUMENT" })
  })

  it("native 401: authentication failed", async () => {
    const e = await errorOf("native", "/v1beta/models/zeta-2.5-pro:generateContent", { contents }, "bad-key")
    expect(e).toMatchObject({ _tag: "AuthenticationError", status: 401, family: "native" })
  })

  it("native 404: model not found or wrong path", async () => {
    const e = await errorOf("native", "/v1beta/models/zeta-does-not-exist:generateContent", { contents })
    expect(e).toMatchObject({ _tag: "NotFound", status: 404, family: "native" })
  })

  it("native 429 and 500: rate limited and server error", async () => {
    emu.inject("native.generate", { kind: "status", status: 429 })
    expect(await errorOf("native", "/v1beta/models/zeta-2.5-pro:generateContent", { contents })).toMatchObject({
      _tag: "RateLimited",
      type: "RESOURCE_EXHAUSTED"
    })
    emu.inject("native.generate", { kind: "status", status: 500 })
    expect(await errorOf("native", "/v1beta/models/zeta-2.5-pro:generateContent", { contents })).toMatchObject({
      _tag: "ServerError",
      type: "INTERNAL"
    })
  })

  it("native embedding shape: 400", async () => {
    const e = await errorOf("native", "/v1beta/models/zeta-embedding-001:embedContent", {
      content: { parts: [{ text: "hi" }] }
    })
    expect(e).toMatchObject({ _tag: "BadRequest", status: 400, family: "native" })
  })

  it("video access outcomes for the restricted key", async () => {
    const key = emu.restrictedKey!
    const submit = (model: string) => errorOf("video", "/v1/video/generations", { model, prompt: "a sea" }, key)
    expect(await submit("alpha-2")).toMatchObject({
      _tag: "BadRequest",
      status: 400,
      message: "invalid api platform: 3"
    })
    for (const model of ["delta-1-0-lite-t2v-250428", "delta-1-0-lite-i2v-250428", "beta-3.0-generate-preview"]) {
      expect(await submit(model)).toMatchObject({ _tag: "NotFound", status: 404 })
    }
    expect(await submit("wan-unknown-model")).toMatchObject({ _tag: "BadRequest", status: 400 })
  })
})
