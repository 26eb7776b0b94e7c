import { Effect, Exit, Fiber, FiberRef, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import * as Deadline from "../../src/adapters/Deadline.js"
import * as LeanClient from "../../src/adapters/LeanClient.js"

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
    expect(await Effect.runPromiseExit(Deadline.timeoutFail(Effect.fail("own"), 1_000, () => "late"))).toEqual(Exit.fail("own"))
  })

  it("with an expiry, cancels what waits under it at the limit and fails with the given error, in the caller's fiber", async () => {
    // What a lean client's request does: register a cancel that fails the wait.
    const waitOnRequest = Effect.flatMap(FiberRef.get(LeanClient.currentExpiry), (expiry) =>
      Effect.async<never, string>((resume) => expiry?.onExpire(() => resume(Effect.fail("request destroyed"))))
    )
    const started = Date.now()
    expect(await Effect.runPromiseExit(Deadline.timeoutFail(waitOnRequest, 50, () => "too slow", { expiry: true }))).toEqual(Exit.fail("too slow"))
    expect(Date.now() - started).toBeLessThan(2_000)
    // Before the limit: the effect's own outcome, and no expiry is left behind.
    expect(await Effect.runPromise(Deadline.timeoutFail(Effect.succeed(7), 1_000, () => "late", { expiry: true }))).toBe(7)
    expect(await Effect.runPromiseExit(Deadline.timeoutFail(Effect.fail("own"), 1_000, () => "late", { expiry: true }))).toEqual(Exit.fail("own"))
    expect(await Effect.runPromise(FiberRef.get(LeanClient.currentExpiry))).toBeUndefined()
  })

  it("under a TestClock follows virtual time", async () => {
    const program = Effect.gen(function* () {
      const fiber = yield* Effect.fork(Deadline.timeoutFail(Effect.never, 10_000, () => "late"))
      yield* TestClock.adjust("9 seconds")
      const early = yield* Fiber.poll(fiber)
      yield* TestClock.adjust("2 seconds")
      return [early._tag, yield* Effect.exit(Fiber.join(fiber))] as const
    })
    const [early, exit] = await Effect.runPromise(Effect.provide(program, TestContext.TestContext))
    expect(early).toBe("None")
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
        Effect.zipRight(
          Deadline.watch(() => deadline - Date.now(), () => void expired++),
          Effect.promise(() => new Promise((r) => setTimeout(r, 80)))
        )
      ).pipe(Effect.tap(() => expect(expired).toBe(0)))
    )
    clearTimeout(moved)
    let stopped = 0
    await Effect.runPromise(
      Effect.scoped(
        Effect.zipRight(
          Deadline.watch(() => (stopped++ === 0 ? 30 : undefined), () => void expired++),
          Effect.promise(() => new Promise((r) => setTimeout(r, 60)))
        )
      )
    )
    expect(expired).toBe(0)
    const start = Date.now()
    await Effect.runPromise(
      Effect.scoped(
        Effect.zipRight(
          Deadline.watch(() => start + 30 - Date.now(), () => void expired++),
          Effect.promise(() => new Promise((r) => setTimeout(r, 90)))
        )
      )
    )
    expect(expired).toBe(1)
  })
})
