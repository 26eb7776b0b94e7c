import { describe, expect, it } from "vitest"
import {
  platformEnvelopeError,
  retryAfterMs,
  toAnswerError,
  toGatewayError,
  toPlatformAnswerError
} from "../../src/core/wire/ErrorEnvelope.js"

const messagesBody = (type: string, message: string) => ({
  type: "error",
  error: { type, message },
  request_id: "req_body_1"
})
const nativeBody = (code: number, status: string, message: string) => ({ error: { code, message, status } })

describe("toGatewayError: each family's error envelope and status to its typed error", () => {
  it("maps a messages-style 400 invalid_request to BadRequest with type, message and request id", () => {
    const e = toGatewayError({
      family: "messages",
      status: 400,
      headers: {},
      body: messagesBody("invalid_request", "field messages is required")
    })
    expect(e._tag).toBe("BadRequest")
    expect(e).toMatchObject({
      family: "messages",
      status: 400,
      type: "invalid_request",
      message: "field messages is required",
      requestId: "req_body_1"
    })
  })

  it("maps a messages-style 401 authentication_error to AuthenticationError", () => {
    const e = toGatewayError({
      family: "messages",
      status: 401,
      headers: { "request-id": "req_h" },
      body: messagesBody("authentication_error", "invalid x-api-key")
    })
    expect(e._tag).toBe("AuthenticationError")
    expect(e).toMatchObject({
      status: 401,
      type: "authentication_error",
      message: "invalid x-api-key",
      requestId: "req_h"
    })
  })

  it("maps a messages-style 429 rate_limit_error to RateLimited with the wait from retry-after", () => {
    const e = toGatewayError({
      family: "messages",
      status: 429,
      headers: { "retry-after": "7" },
      body: messagesBody("rate_limit_error", "slow down")
    })
    expect(e._tag).toBe("RateLimited")
    expect(e).toMatchObject({ status: 429, type: "rate_limit_error", message: "slow down", retryAfterMs: 7000 })
  })

  it("maps a messages-style 500 upstream_error to UpstreamError and svc_api_error to ServerError", () => {
    const up = toGatewayError({
      family: "messages",
      status: 500,
      headers: {},
      body: messagesBody("upstream_error", "upstream failed")
    })
    expect(up._tag).toBe("UpstreamError")
    expect(up).toMatchObject({ status: 500, type: "upstream_error", message: "upstream failed" })
    const svc = toGatewayError({
      family: "messages",
      status: 500,
      headers: {},
      body: messagesBody("svc_api_error", "internal")
    })
    expect(svc._tag).toBe("ServerError")
    expect(svc).toMatchObject({ status: 500, type: "svc_api_error", message: "internal" })
  })

  it("maps a count-tokens missing parameter to BadRequest, with or without a status", () => {
    const body = { type: "error", error: { type: "invalid_request_error", message: "model: Field required" } }
    for (const status of [400, undefined]) {
      const e = toGatewayError({
        family: "count_tokens",
        ...(status !== undefined ? { status } : {}),
        headers: {},
        body
      })
      expect(e._tag).toBe("BadRequest")
      expect(e).toMatchObject({ type: "invalid_request_error", message: "model: Field required" })
    }
  })

  it("maps the count-tokens 'Invalid token' answer to AuthenticationError whatever the status", () => {
    const body = { error: { message: "Invalid token", type: "invalid_request_error" } }
    for (const status of [400, 401, 200, undefined]) {
      const e = toGatewayError({
        family: "count_tokens",
        ...(status !== undefined ? { status } : {}),
        headers: {},
        body: JSON.stringify(body)
      })
      expect(e._tag).toBe("AuthenticationError")
      expect(e).toMatchObject({ type: "invalid_request_error", message: "Invalid token" })
    }
  })

  it("maps the native-content envelope by status: 400, 401, 404, 429, 500", () => {
    const rows: Array<[number, string, string]> = [
      [400, "INVALID_ARGUMENT", "BadRequest"],
      [401, "UNAUTHENTICATED", "AuthenticationError"],
      [404, "NOT_FOUND", "NotFound"],
      [429, "RESOURCE_EXHAUSTED", "RateLimited"],
      [500, "INTERNAL", "ServerError"]
    ]
    for (const [status, name, tag] of rows) {
      const e = toGatewayError({
        family: "native",
        status,
        headers: { "x-request-id": "rid" },
        body: nativeBody(status, name, `failed ${status}`)
      })
      expect(e._tag).toBe(tag)
      expect(e).toMatchObject({ family: "native", status, type: name, message: `failed ${status}`, requestId: "rid" })
    }
  })

  it("maps the rejected native embedding shape (400) to BadRequest", () => {
    const e = toGatewayError({
      family: "native",
      status: 400,
      headers: {},
      body: nativeBody(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
    })
    expect(e._tag).toBe("BadRequest")
  })

  it("maps the video model access outcomes: 400 invalid api platform and 404 no access", () => {
    const platform = toGatewayError({
      family: "video",
      status: 400,
      headers: {},
      body: { error: { message: "invalid api platform: 3", type: "invalid_request_error", param: null, code: null } }
    })
    expect(platform).toMatchObject({
      _tag: "BadRequest",
      family: "video",
      message: "invalid api platform: 3",
      type: "invalid_request_error"
    })
    const none = toGatewayError({
      family: "video",
      status: 404,
      headers: {},
      body: { error: { message: "model not found", type: "invalid_request_error", code: "model_not_found" } }
    })
    expect(none._tag).toBe("NotFound")
  })

  it("maps 403 to PermissionDenied and 409, 413, 422 to BadRequest", () => {
    expect(
      toGatewayError({ family: "openai", status: 403, headers: {}, body: { error: { message: "no" } } })._tag
    ).toBe("PermissionDenied")
    for (const status of [409, 413, 422, 418])
      expect(toGatewayError({ family: "openai", status, headers: {}, body: "" })._tag).toBe("BadRequest")
    expect(toGatewayError({ family: "openai", status: 503, headers: {}, body: "" })._tag).toBe("ServerError")
  })
})

describe("toGatewayError: messages, request ids and secrets", () => {
  it("falls back to the status and a short body text when the body is not an envelope", () => {
    const e = toGatewayError({
      family: "openai",
      status: 502,
      headers: {},
      body: "<html><body>Bad Gateway</body></html>"
    })
    expect(e._tag).toBe("ServerError")
    expect(e.message).toBe("HTTP 502 bad gateway: <html><body>Bad Gateway</body></html>")
    expect(toGatewayError({ family: "openai", status: 500, headers: {} }).message).toBe(
      "HTTP 500 internal server error"
    )
  })

  it("caps a long body or message at 500 characters", () => {
    const long = "x".repeat(10_000)
    expect(
      toGatewayError({ family: "openai", status: 500, headers: {}, body: long }).message.length
    ).toBeLessThanOrEqual(500)
    expect(
      toGatewayError({ family: "openai", status: 400, headers: {}, body: { error: { message: long } } }).message.length
    ).toBeLessThanOrEqual(500)
  })

  it("prefers the request-id header, then x-request-id, then the body's request_id", () => {
    const body = messagesBody("invalid_request", "m")
    expect(
      toGatewayError({ family: "messages", status: 400, headers: { "request-id": "a", "x-request-id": "b" }, body })
        .requestId
    ).toBe("a")
    expect(toGatewayError({ family: "messages", status: 400, headers: { "x-request-id": "b" }, body }).requestId).toBe(
      "b"
    )
    expect(toGatewayError({ family: "messages", status: 400, headers: {}, body }).requestId).toBe("req_body_1")
    expect(toGatewayError({ family: "openai", status: 400, headers: {}, body: "" }).requestId).toBeUndefined()
  })

  it("never copies a header value other than the request id", () => {
    const headers = {
      authorization: "Bearer sk-secret-123",
      "x-api-key": "sk-secret-456",
      "set-cookie": "sid=secret789",
      "x-request-id": "rid-1"
    }
    const e = toGatewayError({
      family: "messages",
      status: 401,
      headers,
      body: messagesBody("authentication_error", "bad key")
    })
    const text = JSON.stringify(e) + e.message + String(e)
    expect(text).not.toContain("secret")
    expect(e.requestId).toBe("rid-1")
  })

  it("reads a native RetryInfo delay when there is no retry-after header", () => {
    const body = {
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        message: "quota",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "30s" }]
      }
    }
    expect(toGatewayError({ family: "native", status: 429, headers: {}, body })).toMatchObject({
      _tag: "RateLimited",
      retryAfterMs: 30_000
    })
  })

  it("maps a platform envelope with a failure code under HTTP 200 to PlatformError", () => {
    const e = toGatewayError({
      family: "platform",
      status: 200,
      headers: {},
      body: { code: 500, msg: "task rejected", data: null }
    })
    expect(e._tag).toBe("PlatformError")
    expect(e).toMatchObject({ family: "platform", code: 500, type: "500", message: "task rejected" })
  })

  it("never makes a PlatformError of another family's answer: a platform-style body under a non-error status is a ServerError", () => {
    const body = { code: 401, msg: "token expired", data: null }
    for (const family of ["messages", "count_tokens", "native", "openai", "video", "realtime", "live"] as const) {
      const e = toGatewayError({ family, status: 200, headers: {}, body })
      expect(e).toMatchObject({ _tag: "ServerError", family, status: 200, type: "401", message: "token expired" })
      expect(toGatewayError({ family, headers: {}, body })._tag).toBe("ServerError")
    }
  })

  it("maps as toAnswerError for every family but platform, and as toPlatformAnswerError for platform", () => {
    const body = { code: 500, msg: "task rejected", data: null }
    expect(toAnswerError({ family: "platform", status: 200, headers: {}, body })._tag).toBe("ServerError")
    expect(toPlatformAnswerError({ family: "platform", status: 200, headers: {}, body })._tag).toBe("PlatformError")
    // An error status decides first, for the platform as for every family.
    expect(toGatewayError({ family: "platform", status: 401, headers: {}, body })._tag).toBe("AuthenticationError")
    expect(toGatewayError({ family: "video", status: 404, headers: {}, body })._tag).toBe("NotFound")
  })
})

describe("retryAfterMs", () => {
  const now = Date.UTC(2026, 10, 21, 10, 0, 0)
  it("reads retry-after-ms first, then retry-after seconds, then an HTTP date from now", () => {
    expect(retryAfterMs({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250)
    expect(retryAfterMs({ "retry-after": "1.5" })).toBe(1500)
    expect(retryAfterMs({ "retry-after": "Sat, 21 Nov 2026 10:00:30 GMT" }, now)).toBe(30_000)
    expect(retryAfterMs({ "retry-after": "Sat, 21 Nov 2026 09:00:00 GMT" }, now)).toBe(0)
  })

  it("ignores a date without now, and unreadable values", () => {
    expect(retryAfterMs({ "retry-after": "Sat, 21 Nov 2026 10:00:30 GMT" })).toBeUndefined()
    expect(retryAfterMs({ "retry-after": "soon" }, now)).toBeUndefined()
    expect(retryAfterMs({})).toBeUndefined()
  })
})

describe("platformEnvelopeError", () => {
  it("turns a non-200 code into PlatformError and leaves success alone", () => {
    expect(platformEnvelopeError({ code: 401, msg: "token expired", data: null })).toMatchObject({
      _tag: "PlatformError",
      code: 401,
      message: "token expired",
      type: "401"
    })
    expect(platformEnvelopeError({ code: 500 })?.message).toBe("the platform answered code 500")
    expect(platformEnvelopeError({ code: 200, msg: "ok", data: {} })).toBeUndefined()
    expect(platformEnvelopeError("nope")).toBeUndefined()
  })
})

describe("toGatewayError: bodies as bytes", () => {
  it("reads a body given as UTF-8 bytes", () => {
    const bytes = new TextEncoder().encode(
      JSON.stringify({ error: { code: 404, message: "models/x is not found", status: "NOT_FOUND" } })
    )
    expect(toGatewayError({ family: "native", status: 404, headers: {}, body: bytes })).toMatchObject({
      _tag: "NotFound",
      type: "NOT_FOUND",
      message: "models/x is not found"
    })
  })
})
