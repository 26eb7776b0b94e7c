/**
 * A time limit on one effect, cheap enough for every request. `Effect.timeoutFail` races two forked
 * fibers through the Clock and measured ~63 µs of CPU per call here (a request costs a few hundred);
 * with the live clock this runs the effect in one child fiber and arms a plain timer instead (~16 µs).
 * Under any other Clock (a `TestClock` in tests) it is `Effect.timeoutFail` itself, so virtual time
 * keeps working.
 */
import { Clock, Duration, Effect, Fiber } from "effect"

// The clock every fiber has unless one is provided: time limits under it may use the host's timers.
const liveClock = Effect.runSync(Effect.clock)

/**
 * `effect`, failing with `onTimeout()` (and interrupting it) when it has not ended within `ms`.
 * @category combinators
 */
export const timeoutFail = <A, E, R>(effect: Effect.Effect<A, E, R>, ms: number, onTimeout: () => E): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock: Clock.Clock) => {
    if (clock !== liveClock) return Effect.timeoutFail(effect, { duration: Duration.millis(ms), onTimeout })
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.fork(restore(effect)), (child) =>
        Effect.onInterrupt(
          Effect.async<A, E>((resume) => {
            let settled = false
            const timer = setTimeout(() => {
              if (settled) return
              settled = true
              child.unsafeInterruptAsFork(child.id())
              resume(Effect.fail(onTimeout()))
            }, ms)
            child.addObserver((exit) => {
              clearTimeout(timer)
              if (settled) return
              settled = true
              resume(exit)
            })
            return Effect.sync(() => clearTimeout(timer))
          }),
          () => Fiber.interrupt(child)
        )
      )
    )
  })
