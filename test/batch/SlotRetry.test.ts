/**
 * A batch slot's decisions are the transport's retry rule read for a paid submit (RetryPolicy, pinned
 * once in test/core/RetryPolicy.test.ts). A submit proven not sent is given back and waited for, one
 * that may have reached the gateway is `unknown` (never resent), the rest `failed` — but a refusal of
 * the whole key or account (401, 403, 402, out of quota) halts the batch with the line given back.
 */
import { describe, expect, it } from "vitest"
import {
  AuthenticationError,
  BadRequest,
  DecodeError,
  NotFound,
  PermissionDenied,
  RateLimited,
  ServerError,
  TimeoutError,
  TransportError
} from "../../src/core/errors/GatewayError.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { decideError, type ErrorLike, isTransientError } from "../../src/core/gateway/RetryPolicy.js"
import { Batch } from "../../src/batch/index.js"
import { followBudget, submitBudget, submitOutcome } from "../../src/batch/Slot.js"

const family = "video" as const

const cases: ReadonlyArray<readonly [string, ErrorLike, ReturnType<typeof submitOutcome>]> = [
  [
    "connection refused: given back",
    new TransportError({ family, reason: "connect", message: "refused" }),
    { _tag: "GiveBack", waitMs: 1_000 }
  ],
  [
    "429: given back after the wait it asks",
    new RateLimited({ family, status: 429, message: "slow", retryAfterMs: 2_500 }),
    { _tag: "GiveBack", waitMs: 2_500 }
  ],
  [
    "429 naming no wait: given back after the back-off",
    new RateLimited({ family, status: 429, message: "slow" }),
    { _tag: "GiveBack", waitMs: 1_000 }
  ],
  [
    "429 asking an hour: failed, not waited for",
    new RateLimited({ family, status: 429, message: "slow", retryAfterMs: 3_600_000 }),
    { _tag: "Failed" }
  ],
  [
    "429 out of quota: halts the batch, the line given back",
    new RateLimited({ family, status: 429, type: "insufficient_quota", message: "quota" }),
    { _tag: "Halt", reason: "quota" }
  ],
  [
    "401 (the key refused): halts the batch, the line given back",
    new AuthenticationError({ family, status: 401, type: "authentication_error", message: "Invalid API key." }),
    { _tag: "Halt", reason: "authentication" }
  ],
  [
    "403 (the key may not): halts the batch, the line given back",
    new PermissionDenied({ family, status: 403, type: "permission_error", message: "no" }),
    { _tag: "Halt", reason: "permission" }
  ],
  [
    "402 (billing): halts the batch, the line given back",
    new BadRequest({ family, status: 402, type: "billing_error", message: "pay" }),
    { _tag: "Halt", reason: "billing" }
  ],
  ["404 (one line's model): failed", new NotFound({ family, status: 404, message: "no model" }), { _tag: "Failed" }],
  ["connection reset: unknown", new TransportError({ family, reason: "reset", message: "lost" }), { _tag: "Unknown" }],
  [
    "cancelled mid-request: unknown",
    new TransportError({ family, reason: "aborted", message: "aborted" }),
    { _tag: "Unknown" }
  ],
  [
    "timeout: unknown",
    new TimeoutError({ family, phase: "request", timeoutMs: 1, message: "late" }),
    { _tag: "Unknown" }
  ],
  [
    "answer that does not decode: unknown",
    new DecodeError({ family, what: "video task", message: "bad" }),
    { _tag: "Unknown" }
  ],
  [
    "500: unknown (the gateway may have made the task)",
    new ServerError({ family, status: 500, message: "oops" }),
    { _tag: "Unknown" }
  ],
  ["400: failed", new BadRequest({ family, status: 400, message: "bad" }), { _tag: "Failed" }],
  [
    "refused before sending: failed",
    new InvalidRequest({ field: "prompt", rule: "required", message: "prompt is required" }),
    { _tag: "Failed" }
  ]
]

describe("a batch slot's submit outcome", () => {
  it.each(cases)("%s", (_, error, expected) => {
    expect(submitOutcome(error, 0, 0, 0)).toEqual(expected)
    // Nothing of its own: the outcome is the rule's decision for a paid submit.
    const decision = decideError({ error, attempt: 0, kind: "paid-submit", budget: submitBudget, random: 0, now: 0 })
    expect(expected._tag === "GiveBack").toBe(decision._tag === "Retry")
    expect(expected._tag === "Unknown").toBe(decision._tag === "Stop" && decision.reason === "may-have-acted")
  })

  it("backs off 1 s doubling to 30 s over lines given back in a row, and never gives up on a line not sent", () => {
    const refused = new TransportError({ family, reason: "connect", message: "refused" })
    expect([0, 1, 2, 3, 4, 5, 6, 1_000].map((waits) => submitOutcome(refused, waits, 0, 0))).toEqual(
      [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000].map((waitMs) => ({ _tag: "GiveBack", waitMs }))
    )
  })

  it("follows a task through the same transient failures as every request, five times", () => {
    expect(followBudget.maxRetries).toBe(5)
    for (const [, error] of cases) {
      const decision = decideError({ error, attempt: 0, kind: "idempotent", budget: followBudget, random: 0, now: 0 })
      expect(decision._tag === "Retry" || decision.reason === "retry-after-too-long").toBe(isTransientError(error))
    }
  })
})

describe("a batch store's address", () => {
  it("is shown without its password, by the core's one redaction", () => {
    expect(Batch.describeStore(Batch.postgres("postgres://umg:s3cr3t-pw@127.0.0.1:1/umg"))).toBe(
      "postgres://umg:***@127.0.0.1:1/umg"
    )
    expect(Batch.describeStore(Batch.postgres("postgres://umg@db/umg"))).toBe("postgres://umg@db/umg")
    expect(Batch.describeStore(Batch.sqlite("/tmp/b.db"))).toBe("/tmp/b.db")
  })
})
