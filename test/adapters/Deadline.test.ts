import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import * as Deadline from "../../src/adapters/internal/Deadline.js"

// The time limits on the live clock use a host timer (no raced fibers); under a TestClock they are
// Effect's own. Both must fail with the given error, interrupt what they bound, and pass a value through.
describe("Deadline.timeoutFail", () => {
  it("on the live clock fails with the given error and interrupts the effect when it runs too long", async () => {
    let interrupted = false
    const slow = Effect.onInterrupt(Effect.never, () => Effect.sync(() => (interrupted = true)))
    const exit = await Effect.runPromiseExit(Deadline.timeoutFail(slow, 50, () => "too slow"))
    expect(exit).toEqual(Exit.fail("too slow"))
    await new Promise((r) => setTimeout(r, 20))
    expect(interrupted).toBe(true)
  })

  it("on the live clock passes a value and a failure of the effect through", async () => {
    expect(await Effect.runPromise(Deadline.timeoutFail(Effect.succeed(7), 1_000, () => "late"))).toBe(7)
    expect(await Effect.runPromiseExit(Deadline.timeoutFail(Effect.fail("own"), 1_000, () => "late"))).toEqual(
      Exit.fail("own")
    )
  })

  it("on the live clock lets the caller interrupt it at once, interrupting the effect", async () => {
    let interrupted = false
    const slow = Effect.onInterrupt(Effect.never, () => Effect.sync(() => (interrupted = true)))
    const fiber = Effect.runFork(Deadline.timeoutFail(slow, 60_000, () => "too slow"))
    await new Promise((r) => setTimeout(r, 10))
    const started = Date.now()
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(Exit.hasInterrupts(await Effect.runPromise(Fiber.await(fiber)))).toBe(true)
    expect(interrupted).toBe(true)
  })

  it("under a TestClock follows virtual time", async () => {
    const program = Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Deadline.timeoutFail(Effect.never, 10_000, () => "late"))
      yield* TestClock.adjust("9 seconds")
      const early = fiber.pollUnsafe()
      yield* TestClock.adjust("2 seconds")
      return [early, yield* Effect.exit(Fiber.join(fiber))] as const
    })
    const [early, exit] = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(early).toBeUndefined()
    expect(exit).toEqual(Exit.fail("late"))
  })
})

describe("Deadline.watch", () => {
  it("expires once, only after the deadline it last read has passed, and stops when told", async () => {
    let deadline = Date.now() + 60
    let expired = 0
    const moved = setTimeout(() => (deadline = Date.now() + 60), 40)
    await Effect.runPromise(
      Effect.scoped(
        Effect.andThen(
          Deadline.watch(
            () => deadline - Date.now(),
            () => void expired++
          ),
          Effect.promise(() => new Promise((r) => setTimeout(r, 80)))
        )
      ).pipe(Effect.tap(() => Effect.sync(() => expect(expired).toBe(0))))
    )
    clearTimeout(moved)
    let stopped = 0
    await Effect.runPromise(
      Effect.scoped(
        Effect.andThen(
          Deadline.watch(
            () => (stopped++ === 0 ? 30 : undefined),
            () => void expired++
          ),
          Effect.promise(() => new Promise((r) => setTimeout(r, 60)))
        )
      )
    )
    expect(expired).toBe(0)
    const start = Date.now()
    await Effect.runPromise(
      Effect.scoped(
        Effect.andThen(
          Deadline.watch(
            () => start + 30 - Date.now(),
            () => void expired++
          ),
          Effect.promise(() => new Promise((r) => setTimeout(r, 90)))
        )
      )
    )
    expect(expired).toBe(1)
  })
})
