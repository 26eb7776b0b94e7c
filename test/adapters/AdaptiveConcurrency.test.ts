// The one adaptive batching rule (embeddings.embedMany, umg/rx mapConcurrent) on the TestClock.
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { type AdaptiveEvent, mapAdaptive } from "../../src/adapters/concurrency/AdaptiveConcurrency.js"
import { RateLimited, ServerError } from "../../src/core/errors/GatewayError.js"
import { decideError, defaultRetryBudget } from "../../src/core/gateway/RetryPolicy.js"

const limited = (retryAfterMs?: number) =>
  new RateLimited({
    family: "openai",
    status: 429,
    message: "slow down",
    ...(retryAfterMs === undefined ? {} : { retryAfterMs })
  })
const rateLimit = (e: unknown) => (e instanceof RateLimited ? { retryAfterMs: e.retryAfterMs } : undefined)

type Ev = AdaptiveEvent<string, string>
const result = (index: number, done: number, total: number): Ev => ({
  type: "result",
  index,
  input: `in${index}`,
  result: `out${index}`,
  done,
  total
})

/** Events at the same instant in index order (the TestClock wakes simultaneous sleepers in no set order). */
const byTime = (events: ReadonlyArray<[number, Ev]>) =>
  [...events].sort((a, b) => a[0] - b[0] || a[1].index - b[1].index)

/** Runs a batch, recording each event with the clock's time. */
const recorded = <E>(
  inputs: ReadonlyArray<string>,
  call: (input: string, index: number) => Effect.Effect<string, E>,
  concurrency: number,
  maxRetries?: number
) =>
  Effect.gen(function* () {
    const events: Array<[number, Ev]> = []
    const runtimeClock = yield* Clock.Clock
    const fiber = yield* Effect.forkChild(
      mapAdaptive(inputs, call, { concurrency, rateLimit, ...(maxRetries === undefined ? {} : { maxRetries }) }, (e) =>
        events.push([runtimeClock.currentTimeMillisUnsafe(), e])
      )
    )
    return { events, fiber }
  })

describe("mapAdaptive (TestClock)", () => {
  it.effect("runs at most `concurrency` calls at once and reports each result with its index and progress", () =>
    Effect.gen(function* () {
      let running = 0
      let peak = 0
      const starts: Array<number> = []
      const call = (input: string) =>
        Effect.gen(function* () {
          starts.push(yield* Clock.currentTimeMillis)
          peak = Math.max(peak, ++running)
          yield* Effect.sleep(2)
          running--
          return input.replace("in", "out")
        })
      const { events, fiber } = yield* recorded(["in0", "in1", "in2", "in3", "in4"], call, 2)
      yield* TestClock.adjust(10)
      yield* Fiber.join(fiber)
      expect(byTime(events).map(([t, e]) => [t, e.index])).toEqual([
        [2, 0],
        [2, 1],
        [4, 2],
        [4, 3],
        [6, 4]
      ])
      expect(events.map(([, e]) => e.type === "result" && [e.done, e.total])).toEqual([
        [1, 5],
        [2, 5],
        [3, 5],
        [4, 5],
        [5, 5]
      ])
      expect(byTime(events).map(([, e]) => e)).toContainEqual(result(4, 5, 5))
      expect(starts).toEqual([0, 0, 2, 2, 4])
      expect(peak).toBe(2)
    })
  )

  it.effect("on a 429 pauses for retryAfterMs, halves the concurrency and retries that same item", () =>
    Effect.gen(function* () {
      let firstTry = true
      const retriedAt: Array<number> = []
      const call = (input: string, i: number) =>
        Effect.gen(function* () {
          if (i === 1 && firstTry) {
            firstTry = false
            yield* Effect.sleep(1)
            return yield* Effect.fail(limited(100))
          }
          if (i === 1) retriedAt.push(yield* Clock.currentTimeMillis)
          yield* Effect.sleep(2)
          return input.replace("in", "out")
        })
      const { events, fiber } = yield* recorded(["in0", "in1", "in2", "in3"], call, 4)
      yield* TestClock.adjust(200)
      yield* Fiber.join(fiber)
      expect(events[0]).toEqual([
        1,
        { type: "rate-limited", index: 1, input: "in1", attempt: 1, delayMs: 100, concurrency: 2, done: 0, total: 4 }
      ])
      expect(byTime(events.slice(1, 4)).map(([t, e]) => [t, e.index])).toEqual([
        [2, 0],
        [2, 2],
        [2, 3]
      ])
      expect(events[4]).toEqual([103, result(1, 4, 4)])
      expect(retriedAt).toEqual([101])
    })
  )

  it.effect("backs off 0.5 s, then 1 s, each less up to 25 % jitter, when a 429 names no wait", () =>
    Effect.gen(function* () {
      let tries = 0
      const call = () => (tries++ < 2 ? Effect.fail(limited()) : Effect.succeed("out0"))
      const { events, fiber } = yield* recorded(["in0"], call, 1)
      yield* TestClock.adjust(2_000)
      yield* Fiber.join(fiber)
      const delays = events.flatMap(([, e]) => (e.type === "rate-limited" ? [e.delayMs] : []))
      expect(delays).toHaveLength(2)
      expect(delays[0]).toBeGreaterThanOrEqual(375)
      expect(delays[0]).toBeLessThanOrEqual(500)
      expect(delays[1]).toBeGreaterThanOrEqual(750)
      expect(delays[1]).toBeLessThanOrEqual(1_000)
    })
  )

  it.effect("jitters: many batches meeting a 429 do not all come back at the same moment", () =>
    Effect.gen(function* () {
      const delays = new Set<number>()
      for (let i = 0; i < 20; i++) {
        let tries = 0
        const call = () => (tries++ < 1 ? Effect.fail(limited()) : Effect.succeed("out"))
        const { events, fiber } = yield* recorded(["in0"], call, 1)
        yield* TestClock.adjust(1_000)
        yield* Fiber.join(fiber)
        for (const [, e] of events) if (e.type === "rate-limited") delays.add(e.delayMs)
      }
      expect(delays.size).toBeGreaterThan(10)
    })
  )

  it.effect("fails with a non-429 error and interrupts the calls in flight", () =>
    Effect.gen(function* () {
      const error = new ServerError({ family: "openai", status: 500, message: "boom" })
      let interrupted = 0
      const call = (_: string, i: number) =>
        i === 0
          ? Effect.onInterrupt(Effect.as(Effect.sleep(10), "out0"), () => Effect.sync(() => interrupted++))
          : Effect.andThen(Effect.sleep(1), Effect.fail(error))
      const { fiber } = yield* recorded(["in0", "in1"], call, 2)
      yield* TestClock.adjust(5)
      expect(yield* Effect.flip(Fiber.join(fiber))).toBe(error)
      yield* TestClock.adjust(1)
      expect(interrupted).toBe(1)
    })
  )

  it.effect("gives up with the RateLimited error after maxRetries", () =>
    Effect.gen(function* () {
      const error = limited(10)
      const { events, fiber } = yield* recorded(["in0"], () => Effect.fail(error), 1, 2)
      yield* TestClock.adjust(100)
      expect(yield* Effect.flip(Fiber.join(fiber))).toBe(error)
      expect(events.map(([t, e]) => [t, e.type])).toEqual([
        [0, "rate-limited"],
        [10, "rate-limited"]
      ])
    })
  )

  it.effect("interrupts every call in flight when interrupted", () =>
    Effect.gen(function* () {
      let interrupted = 0
      const call = () => Effect.onInterrupt(Effect.as(Effect.sleep(50), "x"), () => Effect.sync(() => interrupted++))
      const { fiber } = yield* recorded(["in0", "in1", "in2"], call, 2)
      yield* TestClock.adjust(3)
      yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust(1)
      expect(interrupted).toBe(2)
    })
  )

  it.effect("succeeds at once for no inputs", () =>
    Effect.gen(function* () {
      const events: Array<Ev> = []
      yield* mapAdaptive(
        [],
        () => Effect.die("never called"),
        { concurrency: 3, rateLimit },
        (e) => events.push(e)
      )
      expect(events).toEqual([])
    })
  )

  it("answers every input exactly once, within the concurrency, whatever the 429s and latencies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(5), fc.nat(3)), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        async (plan, concurrency) => {
          const seen: Array<number> = []
          let inFlight = 0
          let peak = 0
          const tries = new Map<number, number>()
          const call = (input: number, index: number) =>
            Effect.gen(function* () {
              peak = Math.max(peak, ++inFlight)
              const attempt = tries.get(index) ?? 0
              tries.set(index, attempt + 1)
              const [latency, failures] = plan[index]!
              for (let i = 0; i < latency; i++) yield* Effect.yieldNow
              if (attempt < failures) return yield* Effect.fail(limited(0))
              return input * 2
            }).pipe(Effect.ensuring(Effect.sync(() => inFlight--)))
          await Effect.runPromise(
            mapAdaptive(
              plan.map((_, i) => i),
              call,
              { concurrency, rateLimit },
              (e) => {
                if (e.type === "result") {
                  expect(e.result).toBe(e.index * 2)
                  seen.push(e.index)
                }
              }
            )
          )
          expect([...seen].sort((a, b) => a - b)).toEqual(plan.map((_, i) => i))
          expect(peak).toBeLessThanOrEqual(concurrency)
        }
      ),
      { numRuns: 200 }
    )
  })

  // The transport's retry rule (RetryPolicy, pinned in test/core/RetryPolicy.test.ts) is the one read here.
  const rateLimitWithType = (e: unknown) =>
    e instanceof RateLimited ? { retryAfterMs: e.retryAfterMs, type: e.type } : undefined

  it.effect(
    "waits what the one retry rule decides for a 429, and stops where it stops (an hour asked, a quota spent)",
    () =>
      Effect.gen(function* () {
        const cases = [
          limited(2_000),
          limited(60_000),
          limited(60_001),
          limited(3_600_000),
          new RateLimited({ family: "openai", status: 429, type: "insufficient_quota", message: "out of quota" })
        ]
        for (const error of cases) {
          const decision = decideError({
            error,
            attempt: 0,
            kind: "idempotent",
            budget: { ...defaultRetryBudget, maxRetries: 8 },
            random: 0,
            now: 0
          })
          let tries = 0
          const events: Array<Ev> = []
          const fiber = yield* Effect.forkChild(
            mapAdaptive(
              ["in0"],
              () => (tries++ === 0 ? Effect.fail(error) : Effect.succeed("out0")),
              { concurrency: 2, rateLimit: rateLimitWithType },
              (e) => events.push(e)
            )
          )
          yield* TestClock.adjust(0)
          if (decision._tag === "Stop") {
            // Fails at once with the 429, as the transport gives it up: no wait at all, no second try.
            expect(yield* Effect.flip(Fiber.join(fiber))).toBe(error)
            expect(tries).toBe(1)
            expect(events).toEqual([])
          } else {
            expect(events.map((e) => e.type === "rate-limited" && e.delayMs)).toEqual([decision.delayMs])
            yield* TestClock.adjust(decision.delayMs - 1)
            expect(tries).toBe(1)
            yield* TestClock.adjust(1)
            yield* Fiber.join(fiber)
            expect(tries).toBe(2)
          }
        }
      })
  )

  it.effect(
    "a one-hour Retry-After fails the batch at once instead of pausing it for an hour; a raised cap waits it",
    () =>
      Effect.gen(function* () {
        const error = limited(3_600_000)
        const failed = yield* Effect.flip(
          mapAdaptive(
            ["in0", "in1"],
            () => Effect.fail(error),
            { concurrency: 2, rateLimit },
            () => {}
          )
        )
        expect(failed).toBe(error)
        let tries = 0
        const fiber = yield* Effect.forkChild(
          mapAdaptive(
            ["in0"],
            () => (tries++ === 0 ? Effect.fail(error) : Effect.succeed("out")),
            { concurrency: 1, rateLimit, backoff: { maxRetryAfterMs: 3_600_000 } },
            () => {}
          )
        )
        yield* TestClock.adjust("59 minutes")
        expect(tries).toBe(1)
        yield* TestClock.adjust("1 minute")
        yield* Fiber.join(fiber)
        expect(tries).toBe(2)
      })
  )
})
