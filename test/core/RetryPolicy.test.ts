import { it as effectIt } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import {
  backoffMs,
  decide,
  decideError,
  defaultRetryBudget,
  type ErrorLike,
  errorProvesNotActed,
  isTransientError,
  type RetryDecision,
  retrying,
  serverDelayMs,
  type RetryInput
} from "../../src/core/gateway/RetryPolicy.js"
import {
  Aborted,
  AuthenticationError,
  BadRequest,
  DecodeError,
  NotFound,
  RateLimited,
  ServerError,
  TimeoutError,
  TransportError,
  UpstreamError,
  VideoTaskFailed
} from "../../src/core/errors/GatewayError.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"

const now = Date.UTC(2026, 0, 1)
const status = (s: number, headers: Record<string, string> = {}): RetryInput["failure"] => ({
  _tag: "Status",
  status: s,
  headers
})
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
    expect(decide(input({ failure: status(429, { "retry-after-ms": "1234" }) }))).toEqual({
      _tag: "Retry",
      delayMs: 1234,
      source: "server"
    })
    expect(decide(input({ failure: status(429, { "retry-after": "3" }) }))).toEqual({
      _tag: "Retry",
      delayMs: 3000,
      source: "server"
    })
    const date = new Date(now + 7000).toUTCString()
    expect(decide(input({ failure: status(503, { "Retry-After": date }) }))).toEqual({
      _tag: "Retry",
      delayMs: 7000,
      source: "server"
    })
  })

  it("stops when the server asks for a wait above the cap", () => {
    expect(decide(input({ failure: status(429, { "retry-after": "3600" }) }))).toEqual({
      _tag: "Stop",
      reason: "retry-after-too-long"
    })
  })

  it("ignores an unreadable Retry-After and falls back to backoff", () => {
    expect(serverDelayMs({ "retry-after": "soon" }, now)).toBeUndefined()
    expect(decide(input({ failure: status(429, { "retry-after": "soon" }) }))).toEqual({
      _tag: "Retry",
      delayMs: 500,
      source: "backoff"
    })
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
    expect(decide(input({ ...paid, failure: status(503, { "x-should-retry": "true" }) }))).toEqual({
      _tag: "Stop",
      reason: "may-have-acted"
    })
    expect(decide(input({ ...paid, failure: { _tag: "Transport", kind: "reset" } }))).toEqual({
      _tag: "Stop",
      reason: "may-have-acted"
    })
    expect(decide(input({ ...paid, failure: { _tag: "Transport", kind: "timeout" } }))).toEqual({
      _tag: "Stop",
      reason: "may-have-acted"
    })
  })

  it("tells a paid submit the gateway refused (a 4xx other than 408/409/429) from one it may have acted on", () => {
    const paid = { kind: "paid-submit" as const }
    expect(decide(input({ ...paid, failure: status(400) }))).toEqual({ _tag: "Stop", reason: "not-retryable" })
    expect(decide(input({ ...paid, failure: status(500, { "x-should-retry": "false" }) }))).toEqual({
      _tag: "Stop",
      reason: "may-have-acted"
    })
    expect(decide(input({ ...paid, failure: status(409) }))).toEqual({ _tag: "Stop", reason: "may-have-acted" })
  })

  it("reads a wait already taken from the headers (retryAfterMs) like a retry-after-ms header, cap included", () => {
    const asked = (retryAfterMs: number): RetryInput["failure"] => ({
      _tag: "Status",
      status: 429,
      headers: {},
      retryAfterMs
    })
    expect(decide(input({ failure: asked(1234) }))).toEqual({ _tag: "Retry", delayMs: 1234, source: "server" })
    expect(decide(input({ failure: asked(3_600_000) }))).toEqual({ _tag: "Stop", reason: "retry-after-too-long" })
  })
})

// The one retry rule read from a call's typed error: what the transport decides per attempt, and
// what embedMany's adaptive concurrency and the batch slots decide after a call. Pinned here, once.
const family = "video" as const
const retry = (delayMs: number, source: "backoff" | "server" = "backoff"): RetryDecision => ({
  _tag: "Retry",
  delayMs,
  source
})
const stopped = (reason: Extract<RetryDecision, { _tag: "Stop" }>["reason"]): RetryDecision => ({
  _tag: "Stop",
  reason
})
const hour = 3_600_000

/** [what, error, transient, decision of an idempotent request, decision of a paid submit] — first retry, no jitter. */
export const errorCases: ReadonlyArray<readonly [string, ErrorLike, boolean, RetryDecision, RetryDecision]> = [
  [
    "connection refused",
    new TransportError({ family, reason: "connect", message: "refused" }),
    true,
    retry(500),
    retry(500)
  ],
  [
    "connection reset",
    new TransportError({ family, reason: "reset", message: "lost" }),
    true,
    retry(500),
    stopped("may-have-acted")
  ],
  [
    "socket closed",
    new TransportError({ family, reason: "closed", message: "closed" }),
    true,
    retry(500),
    stopped("may-have-acted")
  ],
  [
    "cancelled by us",
    new TransportError({ family, reason: "aborted", message: "aborted" }),
    false,
    stopped("not-retryable"),
    stopped("may-have-acted")
  ],
  [
    "aborted by the caller's signal",
    new Aborted({ family, message: "aborted" }),
    false,
    stopped("not-retryable"),
    stopped("may-have-acted")
  ],
  [
    "protocol broken",
    new TransportError({ family, reason: "protocol", message: "bad" }),
    false,
    stopped("not-retryable"),
    stopped("may-have-acted")
  ],
  [
    "answer past its bound",
    new TransportError({ family, reason: "too-large", message: "big" }),
    false,
    stopped("not-retryable"),
    stopped("may-have-acted")
  ],
  [
    "request timeout",
    new TimeoutError({ family, phase: "request", timeoutMs: 1, message: "late" }),
    true,
    retry(500),
    stopped("may-have-acted")
  ],
  [
    "first-byte timeout",
    new TimeoutError({ family, phase: "first-byte", timeoutMs: 1, message: "late" }),
    true,
    retry(500),
    stopped("may-have-acted")
  ],
  [
    "no connection made within the time limit",
    new TimeoutError({ family, phase: "connect", timeoutMs: 1, message: "late" }),
    true,
    retry(500),
    retry(500)
  ],
  [
    "a task's poll deadline",
    new TimeoutError({ family, phase: "poll", timeoutMs: 1, message: "late" }),
    false,
    stopped("not-retryable"),
    stopped("not-retryable")
  ],
  ["429 naming no wait", new RateLimited({ family, status: 429, message: "slow" }), true, retry(500), retry(500)],
  [
    "429 asking 2 s",
    new RateLimited({ family, status: 429, message: "slow", retryAfterMs: 2_000 }),
    true,
    retry(2_000, "server"),
    retry(2_000, "server")
  ],
  [
    "429 asking an hour",
    new RateLimited({ family, status: 429, message: "slow", retryAfterMs: hour }),
    true,
    stopped("retry-after-too-long"),
    stopped("retry-after-too-long")
  ],
  [
    "429 out of quota",
    new RateLimited({ family, status: 429, type: "insufficient_quota", message: "quota" }),
    false,
    stopped("not-retryable"),
    stopped("not-retryable")
  ],
  ["500", new ServerError({ family, status: 500, message: "oops" }), true, retry(500), stopped("may-have-acted")],
  [
    "502 upstream",
    new UpstreamError({ family, status: 502, type: "upstream_error", message: "upstream" }),
    true,
    retry(500),
    stopped("may-have-acted")
  ],
  ["409", new BadRequest({ family, status: 409, message: "conflict" }), true, retry(500), stopped("may-have-acted")],
  [
    "400",
    new BadRequest({ family, status: 400, message: "bad" }),
    false,
    stopped("not-retryable"),
    stopped("not-retryable")
  ],
  [
    "401",
    new AuthenticationError({ family, status: 401, message: "who" }),
    false,
    stopped("not-retryable"),
    stopped("not-retryable")
  ],
  [
    "404",
    new NotFound({ family, status: 404, message: "none" }),
    false,
    stopped("not-retryable"),
    stopped("not-retryable")
  ],
  [
    "2xx that does not decode",
    new DecodeError({ family, what: "video task", message: "bad" }),
    false,
    stopped("not-retryable"),
    stopped("may-have-acted")
  ],
  [
    "refused before sending",
    new InvalidRequest({ field: "prompt", rule: "required", message: "prompt is required" }),
    false,
    stopped("not-retryable"),
    stopped("not-retryable")
  ],
  [
    "task failed",
    new VideoTaskFailed({ family, taskId: "t", code: 1, message: "failed" }),
    false,
    stopped("not-retryable"),
    stopped("not-retryable")
  ]
]

describe("RetryPolicy.decideError: the one rule, read from a typed error", () => {
  const at = (error: ErrorLike, kind: "idempotent" | "paid-submit", attempt = 0) =>
    decideError({ error, attempt, kind, budget: defaultRetryBudget, random: 0, now })

  it.each(errorCases)("%s", (_, error, transient, idempotent, paid) => {
    expect(isTransientError(error)).toBe(transient)
    expect(at(error, "idempotent")).toEqual(idempotent)
    expect(at(error, "paid-submit")).toEqual(paid)
    // A proof the gateway did not act is exactly what lets a paid submit be repeated.
    if (errorProvesNotActed(error)) expect(paid._tag === "Retry" || paid.reason !== "may-have-acted").toBe(true)
    // A retry is only ever made within the budget.
    if (idempotent._tag === "Retry")
      expect(at(error, "idempotent", defaultRetryBudget.maxRetries)).toEqual(stopped("budget-exhausted"))
  })
})

describe("RetryPolicy.retrying (the rule on the Effect clock)", () => {
  effectIt.effect(
    "retries a transient failure after the policy's waits, up to the budget, and gives back the last error",
    () =>
      Effect.gen(function* () {
        let calls = 0
        const error = new ServerError({ family, status: 503, message: "busy" })
        const fiber = yield* Effect.forkChild(
          retrying(
            Effect.suspend(() => (calls++, Effect.fail(error))),
            { kind: "idempotent", budget: defaultRetryBudget }
          )
        )
        yield* TestClock.adjust(374)
        expect(calls).toBe(1)
        yield* TestClock.adjust(10_000)
        expect(yield* Effect.flip(Fiber.join(fiber))).toBe(error)
        expect(calls).toBe(1 + defaultRetryBudget.maxRetries)
      })
  )

  effectIt.effect(
    "stops at once on a one-hour Retry-After, a refusal, or a paid submit that may have been acted on",
    () =>
      Effect.gen(function* () {
        for (const [error, kind] of [
          [new RateLimited({ family, status: 429, message: "slow", retryAfterMs: hour }), "idempotent"],
          [new BadRequest({ family, status: 400, message: "bad" }), "idempotent"],
          [new TransportError({ family, reason: "reset", message: "lost" }), "paid-submit"]
        ] as const) {
          let calls = 0
          const exit = yield* Effect.exit(
            retrying(
              Effect.suspend(() => (calls++, Effect.fail(error))),
              { kind, budget: defaultRetryBudget }
            )
          )
          expect(exit._tag).toBe("Failure")
          expect(calls).toBe(1)
        }
      })
  )

  effectIt.effect("reads the answer's headers when the caller kept them: x-should-retry: false stops at once", () =>
    Effect.gen(function* () {
      const error = new ServerError({ family, status: 503, message: "busy" })
      const said = { "X-Should-Retry": "false" }
      expect(
        decideError({
          error,
          headers: said,
          attempt: 0,
          kind: "idempotent",
          budget: defaultRetryBudget,
          random: 0,
          now
        })
      ).toEqual(stopped("server-said-no"))
      let calls = 0
      const exit = yield* Effect.exit(
        retrying(
          Effect.suspend(() => (calls++, Effect.fail(error))),
          { kind: "idempotent", budget: defaultRetryBudget, headersOf: () => said }
        )
      )
      expect(exit._tag).toBe("Failure")
      expect(calls).toBe(1)
    })
  )

  effectIt.effect("succeeds as soon as an attempt does", () =>
    Effect.gen(function* () {
      let calls = 0
      const refused = new TransportError({ family, reason: "connect", message: "refused" })
      const fiber = yield* Effect.forkChild(
        retrying(
          Effect.suspend(() => (calls++ === 0 ? Effect.fail(refused) : Effect.succeed("ok"))),
          { kind: "paid-submit", budget: defaultRetryBudget }
        )
      )
      yield* TestClock.adjust(500)
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(calls).toBe(2)
    })
  )
})

describe("permanent error types", () => {
  const base = { attempt: 0, kind: "idempotent" as const, budget: defaultRetryBudget, random: 0, now: 0 }

  it("does not retry a 429 whose type says the quota is exhausted", () => {
    const decision = decide({
      ...base,
      failure: { _tag: "Status", status: 429, headers: {}, errorType: "insufficient_quota" }
    })
    expect(decision).toEqual({ _tag: "Stop", reason: "not-retryable" })
  })

  it("still retries an ordinary 429 rate limit", () => {
    const decision = decide({
      ...base,
      failure: { _tag: "Status", status: 429, headers: {}, errorType: "rate_limit_error" }
    })
    expect(decision._tag).toBe("Retry")
  })

  it("lets x-should-retry: true override a permanent type", () => {
    const decision = decide({
      ...base,
      failure: { _tag: "Status", status: 429, headers: { "x-should-retry": "true" }, errorType: "insufficient_quota" }
    })
    expect(decision._tag).toBe("Retry")
  })
})

describe("errorProvesNotActed (the same rule, read from a call's typed error)", () => {
  it("holds for a connection never made (refused, or not made in time) and for a 429 answer, nothing else", () => {
    expect(errorProvesNotActed(new TransportError({ family: "video", reason: "connect", message: "refused" }))).toBe(
      true
    )
    expect(errorProvesNotActed(new RateLimited({ family: "video", status: 429, message: "slow down" }))).toBe(true)
    expect(errorProvesNotActed(new TransportError({ family: "video", reason: "reset", message: "lost" }))).toBe(false)
    expect(
      errorProvesNotActed(new TimeoutError({ family: "video", phase: "request", timeoutMs: 1, message: "late" }))
    ).toBe(false)
    expect(
      errorProvesNotActed(new TimeoutError({ family: "video", phase: "connect", timeoutMs: 1, message: "late" }))
    ).toBe(true)
    expect(errorProvesNotActed(new ServerError({ family: "video", status: 500, message: "oops" }))).toBe(false)
  })
})
