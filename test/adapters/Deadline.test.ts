import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import * as Deadline from "../../src/adapters/internal/Deadline.js"

/** An effect that never ends: when it has started, and whether it was interrupted. */
const neverEnding = () => {
  const started = Effect.runSync(Deferred.make<void>())
  let interrupted = false
  return {
    effect: Effect.onInterrupt(Effect.andThen(Deferred.succeed(started, undefined), Effect.never), () =>
      Effect.sync(() => void (interrupted = true))
    ),
    started: () => Effect.runPromise(Deferred.await(started)),
    interrupted: () => interrupted
  }
}

/** Waits, one turn of the event loop at a time, until a host timer (the limit's, faked) is armed. */
const armed = async (): Promise<void> => {
  while (vi.getTimerCount() === 0) await new Promise((r) => setImmediate(r))
}

// The time limits on the live clock use a host timer (no raced fibers); under a TestClock they are
// Effect's own. Both must fail with the given error, interrupt what they bound, and pass a value through.
describe("Deadline.timeoutFail", () => {
  describe("on the live clock", () => {
    // The host timer is faked (Effect schedules its fibers by setImmediate, which is not): the limit
    // passes when the test says, once the effect has started, whatever the machine's load (a real
    // 10 ms wait could pass before the effect had started, and then it was never interrupted).
    beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }))
    afterEach(() => void vi.useRealTimers())

    it("fails with the given error and interrupts the effect when it runs too long", async () => {
      const slow = neverEnding()
      const fiber = Effect.runFork(
        Effect.map(Effect.exit(Deadline.timeoutFail(slow.effect, 50, () => "too slow")), (exit) => ({
          exit,
          interruptedBefore: slow.interrupted()
        }))
      )
      await slow.started()
      await armed()
      vi.advanceTimersByTime(50)
      const { exit, interruptedBefore } = await Effect.runPromise(Fiber.join(fiber))
      expect(exit).toEqual(Exit.fail("too slow"))
      // Interrupted by the time the failure comes (what it held, a request's connection, is let go).
      expect(interruptedBefore).toBe(true)
    })

    it("passes a value and a failure of the effect through", async () => {
      expect(await Effect.runPromise(Deadline.timeoutFail(Effect.succeed(7), 1_000, () => "late"))).toBe(7)
      expect(await Effect.runPromiseExit(Deadline.timeoutFail(Effect.fail("own"), 1_000, () => "late"))).toEqual(
        Exit.fail("own")
      )
      expect(vi.getTimerCount()).toBe(0)
    })

    it("lets the caller interrupt it at once, interrupting the effect and dropping its timer", async () => {
      const slow = neverEnding()
      const fiber = Effect.runFork(Deadline.timeoutFail(slow.effect, 60_000, () => "too slow"))
      await slow.started()
      await armed()
      // The host clock stands still: an interruption held until the limit would never end (the test's
      // own time limit, 10 s, would fail it).
      const exit = await Effect.runPromise(Effect.andThen(Fiber.interrupt(fiber), Fiber.await(fiber)))
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(slow.interrupted()).toBe(true)
      expect(vi.getTimerCount()).toBe(0)
    }, 10_000)
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
  // Under the live clock the watchdog is one host timer reading `Date.now`: both are faked here, so
  // each step is at an exact time, whatever the machine's load (real timers 20 ms apart raced it).
  beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] }))
  afterEach(() => void vi.useRealTimers())

  /** Starts `watch` under the live clock in a scope of its own; the function returned closes it. */
  const watching = (msLeft: () => number | undefined, expire: () => void): (() => void) => {
    const scope = Effect.runSync(Scope.make())
    Effect.runSync(Scope.provide(Deadline.watch(msLeft, expire), scope))
    return () => Effect.runSync(Scope.close(scope, Exit.void))
  }

  it("expires once, only after the deadline it last read has passed", () => {
    let deadline = Date.now() + 60
    let expired = 0
    const close = watching(
      () => deadline - Date.now(),
      () => void expired++
    )
    vi.advanceTimersByTime(40)
    deadline = Date.now() + 60
    // Past the first deadline (60), short of the moved one (100).
    vi.advanceTimersByTime(59)
    expect(expired).toBe(0)
    vi.advanceTimersByTime(1)
    expect(expired).toBe(1)
    vi.advanceTimersByTime(1_000)
    expect(expired).toBe(1)
    close()
  })

  it("stops when the deadline it reads is gone, and when its scope closes", () => {
    let expired = 0
    let reads = 0
    const close = watching(
      () => (reads++ === 0 ? 30 : undefined),
      () => void expired++
    )
    vi.advanceTimersByTime(1_000)
    expect([reads, expired, vi.getTimerCount()]).toEqual([2, 0, 0])
    close()
    const start = Date.now()
    const closeEarly = watching(
      () => start + 30 - Date.now(),
      () => void expired++
    )
    vi.advanceTimersByTime(20)
    closeEarly()
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(1_000)
    expect(expired).toBe(0)
  })
})
