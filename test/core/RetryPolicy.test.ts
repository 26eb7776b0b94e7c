import { describe, expect, it } from "vitest"
import { backoffMs, decide, defaultRetryBudget, errorProvesNotActed, serverDelayMs, type RetryInput } from "../../src/core/gateway/RetryPolicy.js"
import { RateLimited, ServerError, TimeoutError, TransportError } from "../../src/core/errors/GatewayError.js"

const now = Date.UTC(2026, 0, 1)
const status = (s: number, headers: Record<string, string> = {}): RetryInput["failure"] => ({ _tag: "Status", status: s, headers })
const input = (over: Partial<RetryInput>): RetryInput => ({
  failure: status(500),
  attempt: 0,
  kind: "idempotent",
  budget: defaultRetryBudget,
  random: 0,
  now,
  ...over
})

describe("RetryPolicy.decide", () => {
  it("retries 408, 409, 429 and 5xx with the base backoff on the first retry", () => {
    for (const s of [408, 409, 429, 500, 502, 503, 504, 529]) {
      expect(decide(input({ failure: status(s) }))).toEqual({ _tag: "Retry", delayMs: 500, source: "backoff" })
    }
  })

  it("does not retry other 4xx answers", () => {
    for (const s of [400, 401, 403, 404, 413, 422]) {
      expect(decide(input({ failure: status(s) }))).toEqual({ _tag: "Stop", reason: "not-retryable" })
    }
  })

  it("doubles the backoff each attempt and caps it at 8 s", () => {
    expect(backoffMs(0, defaultRetryBudget, 0)).toBe(500)
    expect(backoffMs(1, defaultRetryBudget, 0)).toBe(1000)
    expect(backoffMs(4, defaultRetryBudget, 0)).toBe(8000)
    expect(backoffMs(10, defaultRetryBudget, 0)).toBe(8000)
    expect(backoffMs(0, defaultRetryBudget, 0.999)).toBeCloseTo(375.1, 0)
  })

  it("stops when the retry budget is spent", () => {
    expect(decide(input({ attempt: 2 }))).toEqual({ _tag: "Stop", reason: "budget-exhausted" })
  })

  it("honours x-should-retry in both directions", () => {
    expect(decide(input({ failure: status(503, { "x-should-retry": "false" }) }))._tag).toBe("Stop")
    expect(decide(input({ failure: status(400, { "x-should-retry": "true" }) }))._tag).toBe("Retry")
  })

  it("waits retry-after-ms, Retry-After seconds or an HTTP date", () => {
    expect(decide(input({ failure: status(429, { "retry-after-ms": "1234" }) }))).toEqual({ _tag: "Retry", delayMs: 1234, source: "server" })
    expect(decide(input({ failure: status(429, { "retry-after": "3" }) }))).toEqual({ _tag: "Retry", delayMs: 3000, source: "server" })
    const date = new Date(now + 7000).toUTCString()
    expect(decide(input({ failure: status(503, { "Retry-After": date }) }))).toEqual({ _tag: "Retry", delayMs: 7000, source: "server" })
  })

  it("stops when the server asks for a wait above the cap", () => {
    expect(decide(input({ failure: status(429, { "retry-after": "3600" }) }))).toEqual({ _tag: "Stop", reason: "retry-after-too-long" })
  })

  it("ignores an unreadable Retry-After and falls back to backoff", () => {
    expect(serverDelayMs({ "retry-after": "soon" }, now)).toBeUndefined()
    expect(decide(input({ failure: status(429, { "retry-after": "soon" }) }))).toEqual({ _tag: "Retry", delayMs: 500, source: "backoff" })
  })

  it("retries connection failures of idempotent requests", () => {
    for (const kind of ["connect", "reset", "timeout"] as const) {
      expect(decide(input({ failure: { _tag: "Transport", kind } }))._tag).toBe("Retry")
    }
  })

  it("repeats a paid submit only on connection refused or 429", () => {
    const paid = { kind: "paid-submit" as const }
    expect(decide(input({ ...paid, failure: { _tag: "Transport", kind: "connect" } }))._tag).toBe("Retry")
    expect(decide(input({ ...paid, failure: status(429) }))._tag).toBe("Retry")
    expect(decide(input({ ...paid, failure: status(500) }))).toEqual({ _tag: "Stop", reason: "may-have-acted" })
    expect(decide(input({ ...paid, failure: status(503, { "x-should-retry": "true" }) }))).toEqual({ _tag: "Stop", reason: "may-have-acted" })
    expect(decide(input({ ...paid, failure: { _tag: "Transport", kind: "reset" } }))).toEqual({ _tag: "Stop", reason: "may-have-acted" })
    expect(decide(input({ ...paid, failure: { _tag: "Transport", kind: "timeout" } }))).toEqual({ _tag: "Stop", reason: "may-have-acted" })
  })
})

describe("permanent error types", () => {
  const base = { attempt: 0, kind: "idempotent" as const, budget: defaultRetryBudget, random: 0, now: 0 }

  it("does not retry a 429 whose type says the quota is exhausted", () => {
    const decision = decide({ ...base, failure: { _tag: "Status", status: 429, headers: {}, errorType: "insufficient_quota" } })
    expect(decision).toEqual({ _tag: "Stop", reason: "not-retryable" })
  })

  it("still retries an ordinary 429 rate limit", () => {
    const decision = decide({ ...base, failure: { _tag: "Status", status: 429, headers: {}, errorType: "rate_limit_error" } })
    expect(decision._tag).toBe("Retry")
  })

  it("lets x-should-retry: true override a permanent type", () => {
    const decision = decide({ ...base, failure: { _tag: "Status", status: 429, headers: { "x-should-retry": "true" }, errorType: "insufficient_quota" } })
    expect(decision._tag).toBe("Retry")
  })
})

describe("errorProvesNotActed (the same rule, read from a call's typed error)", () => {
  it("holds for a connection never made and for a 429 answer, nothing else", () => {
    expect(errorProvesNotActed(new TransportError({ family: "video", reason: "connect", message: "refused" }))).toBe(true)
    expect(errorProvesNotActed(new RateLimited({ family: "video", status: 429, message: "slow down" }))).toBe(true)
    expect(errorProvesNotActed(new TransportError({ family: "video", reason: "reset", message: "lost" }))).toBe(false)
    expect(errorProvesNotActed(new TimeoutError({ family: "video", phase: "request", timeoutMs: 1, message: "late" }))).toBe(false)
    expect(errorProvesNotActed(new ServerError({ family: "video", status: 500, message: "oops" }))).toBe(false)
  })
})
