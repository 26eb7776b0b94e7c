import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decide, provesNotActed, type RetryFailure, type RetryInput } from "../src/core/gateway/RetryPolicy.js"

const now = Date.UTC(2026, 0, 1)

const headers = fc.record(
  {
    "retry-after": fc.oneof(
      fc.nat(120).map(String),
      fc.constant("garbage"),
      fc.nat(120_000).map((ms) => new Date(now + ms).toUTCString())
    ),
    "retry-after-ms": fc.nat(120_000).map(String),
    "x-should-retry": fc.constantFrom("true", "false")
  },
  { requiredKeys: [] }
)

const failure: fc.Arbitrary<RetryFailure> = fc.oneof(
  fc.record({ _tag: fc.constant("Status" as const), status: fc.integer({ min: 400, max: 599 }), headers }),
  fc.record({
    _tag: fc.constant("Transport" as const),
    kind: fc.constantFrom("connect" as const, "reset" as const, "timeout" as const)
  })
)

const budget = fc.record({
  maxRetries: fc.nat(6),
  baseDelayMs: fc.integer({ min: 1, max: 2000 }),
  maxDelayMs: fc.integer({ min: 1, max: 20_000 }),
  maxRetryAfterMs: fc.integer({ min: 0, max: 90_000 })
})

const input: fc.Arbitrary<RetryInput> = fc.record({
  failure,
  attempt: fc.nat(10),
  kind: fc.constantFrom("idempotent" as const, "paid-submit" as const),
  budget,
  random: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  now: fc.constant(now)
})

describe("RetryPolicy properties", () => {
  it("never retries past the budget", () => {
    fc.assert(
      fc.property(input, (i) => {
        if (i.attempt >= i.budget.maxRetries) expect(decide(i)._tag).toBe("Stop")
      })
    )
  })

  it("keeps every delay between 0 and the larger of the backoff cap and the server cap", () => {
    fc.assert(
      fc.property(input, (i) => {
        const d = decide(i)
        if (d._tag === "Retry") {
          expect(d.delayMs).toBeGreaterThanOrEqual(0)
          const cap = d.source === "server" ? i.budget.maxRetryAfterMs : i.budget.maxDelayMs
          expect(d.delayMs).toBeLessThanOrEqual(cap)
          if (d.source === "backoff") {
            const full = Math.min(i.budget.baseDelayMs * 2 ** i.attempt, i.budget.maxDelayMs)
            expect(d.delayMs).toBeGreaterThanOrEqual(0.75 * full - 1e-9)
          }
        }
      })
    )
  })

  it("never retries a paid submit after a 5xx, a reset or a timeout", () => {
    fc.assert(
      fc.property(input, (i) => {
        const f = i.failure
        const ambiguous = f._tag === "Transport" ? f.kind !== "connect" : f.status !== 429
        if (i.kind === "paid-submit" && ambiguous) expect(decide(i)._tag).toBe("Stop")
      })
    )
  })

  it("gives up on the same retry number whatever the random draw", () => {
    fc.assert(
      fc.property(input, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (i, r) => {
        expect(decide({ ...i, random: r })._tag).toBe(decide(i)._tag)
      })
    )
  })

  it("calls a paid submit's stop `may-have-acted` exactly when nothing proves the gateway did not act and it did not refuse", () => {
    fc.assert(
      fc.property(input, (i) => {
        const d = decide({ ...i, kind: "paid-submit", budget: { ...i.budget, maxRetries: i.attempt + 1 } })
        const f = i.failure
        const refused =
          f._tag === "Status" &&
          f.headers["x-should-retry"] !== "true" &&
          f.status < 500 &&
          ![408, 409, 429].includes(f.status)
        expect(d._tag === "Stop" && d.reason === "may-have-acted").toBe(!provesNotActed(f) && !refused)
      })
    )
  })
})
