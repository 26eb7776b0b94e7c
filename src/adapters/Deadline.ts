/**
 * A time limit on one effect, cheap enough for every request. `Effect.timeoutFail` races two forked
 * fibers through the Clock and measured ~63 µs of CPU per call here (a request costs a few hundred);
 * with the live clock this runs the effect in one child fiber and arms a plain timer instead (~16 µs).
 * Under any other Clock (a `TestClock` in tests) it is `Effect.timeoutFail` itself, so virtual time
 * keeps working.
 */
import { type Clock, Duration, Effect, Fiber, type Scope } from "effect"
import * as LeanClient from "./LeanClient.js"
import * as LeanStream from "./LeanStream.js"

// The clock every fiber has unless one is provided: time limits under it may use the host's timers.
const liveClock = Effect.runSync(Effect.clock)

/**
 * `effect`, failing with `onTimeout()` (and interrupting it) when it has not ended within `ms`.
 *
 * `{ expiry: true }` is for an effect that only waits on requests of umg's own HTTP client
 * (`LeanClient.isLean`): the effect runs in the caller's fiber under a `LeanClient.Expiry` the client
 * honours — past the limit, its requests are destroyed, so the effect fails at once, and that failure
 * becomes `onTimeout()`. No fiber is forked: measured ~80 µs less CPU per request than the fork.
 * @category combinators
 */
export const timeoutFail = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  ms: number,
  onTimeout: () => E,
  options?: { readonly expiry?: boolean }
): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock: Clock.Clock) => {
    if (clock !== liveClock) return Effect.timeoutFail(effect, { duration: Duration.millis(ms), onTimeout })
    if (options?.expiry === true)
      return Effect.suspend(() => {
        const expiry = new LeanClient.Expiry()
        const timer = setTimeout(() => expiry.expire(), ms)
        return effect.pipe(
          Effect.locally(LeanClient.currentExpiry, expiry),
          Effect.catchAll((error) => Effect.fail(expiry.expired ? onTimeout() : error)),
          Effect.ensuring(Effect.sync(() => clearTimeout(timer)))
        )
      })
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

/**
 * A watchdog for a moving deadline: `msLeft()` says how long until it passes (`undefined`: stop
 * watching); when it has passed, `expire()` is called once. It wakes only when the deadline it last
 * read comes, so a deadline moved a thousand times between costs nothing. One host timer under the
 * live clock, one sleeping fiber under any other; stopped when the scope closes.
 * @category constructors
 */
export const watch = (msLeft: () => number | undefined, expire: () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.clockWith((clock: Clock.Clock) => {
    if (clock !== liveClock) {
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        const left = msLeft()
        if (left === undefined) return Effect.void
        if (left <= 0) return Effect.sync(expire)
        return Effect.zipRight(Effect.sleep(Duration.millis(left)), loop)
      })
      return Effect.asVoid(Effect.forkScoped(loop))
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const tick = (): void => {
      timer = undefined
      const left = msLeft()
      if (left === undefined) return
      if (left <= 0) return expire()
      timer = setTimeout(tick, left)
      // A stream waiting on a server must not keep the process alive by its watchdog alone.
      ;(timer as unknown as { unref?: () => void }).unref?.()
    }
    return LeanStream.acquireSync(tick, () => {
      if (timer !== undefined) clearTimeout(timer)
    })
  })
