/**
 * A time limit on one effect, cheap enough for every request. With the live clock it runs the effect
 * in one child fiber and arms a plain host timer, where `Effect.timeoutOrElse` races two fibers
 * through the Clock. Under any other Clock (a `TestClock` in tests) it is `Effect.timeoutOrElse`
 * itself, so virtual time keeps working. It also holds a stream's two limits — until its first item,
 * then between two — one rule for SSE events and byte chunks alike, and their watchdog (`watch`).
 */
import type { Clock, Scope } from "effect"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TimeoutError, type Family } from "../../core/errors/GatewayError.js"
import { acquireSync } from "../http/ByteSource.js"

// The clock every fiber has unless one is provided: time limits under it may use the host's timers.
const liveClock: Clock.Clock = Effect.runSync(Effect.clockWith(Effect.succeed))

/**
 * `effect` in one child fiber, ended early by `arm`: `arm` gets `cut` (interrupt the effect, wait for
 * its interruption — an HTTP request's connection is then closed — and fail with `failure`) and
 * returns its own disarm, called once the effect ended either way. One fork and no race: cheap enough
 * for every call (`Effect.raceFirst` forks two fibers and interrupts the loser even when nothing cuts).
 * @category combinators
 */
export const cutWhen = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  arm: (cut: (failure: E) => void) => () => void
): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkChild(restore(effect)), (child) =>
      Effect.onInterrupt(
        // Only the wait is interruptible: an interruption then reaches the child through `onInterrupt`.
        restore(
          Effect.callback<A, E>((resume) => {
            let settled = false
            const disarm = arm((failure) => {
              if (settled) return
              settled = true
              resume(Effect.andThen(Fiber.interrupt(child), Effect.fail(failure)))
            })
            const unobserve = child.addObserver((exit) => {
              disarm()
              if (settled) return
              settled = true
              resume(exit)
            })
            return Effect.sync(() => {
              disarm()
              unobserve()
            })
          })
        ),
        () => Fiber.interrupt(child)
      )
    )
  )

/**
 * `effect`, failing with `onTimeout()` (and interrupting it) when it has not ended within `ms`.
 * Interrupting an HTTP request closes its connection, whichever client sends it.
 * @category combinators
 */
export const timeoutFail = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  ms: number,
  onTimeout: () => E
): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock) =>
    clock !== liveClock
      ? Effect.timeoutOrElse(effect, { duration: Duration.millis(ms), orElse: () => Effect.fail(onTimeout()) })
      : cutWhen(effect, (cut) => {
          const timer = setTimeout(() => cut(onTimeout()), ms)
          return () => clearTimeout(timer)
        })
  )

/** Whether time limits under `clock` may use the host's timers (the live clock). @category predicates */
export const isLive = (clock: Clock.Clock): boolean => clock === liveClock

/**
 * `watch` under the live clock, started at once, outside any scope: one host timer (unref'd), and
 * the function that stops it. For a caller that releases its resources in one finalizer of its own.
 * @category constructors
 */
export const watchLive = (msLeft: () => number | undefined, expire: () => void): (() => void) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const tick = (): void => {
    timer = undefined
    const left = msLeft()
    if (left === undefined) return
    if (left <= 0) return expire()
    timer = setTimeout(tick, left)
    // A stream waiting on a server must not keep the process alive by its watchdog alone (Node's
    // timers have `unref`; a browser's are numbers).
    const handle: { unref?: () => void } = timer as { unref?: () => void }
    handle.unref?.()
  }
  tick()
  return () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
}

/**
 * A watchdog for a moving deadline: `msLeft()` says how long until it passes (`undefined`: stop
 * watching); when it has passed, `expire()` is called once. It wakes only when the deadline it last
 * read comes, so a deadline moved a thousand times between costs nothing. One host timer under the
 * live clock (`watchLive`), one sleeping fiber under any other; stopped when the scope closes.
 * @category constructors
 */
export const watch = (msLeft: () => number | undefined, expire: () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.clockWith((clock) => {
    if (clock !== liveClock) {
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        const left = msLeft()
        if (left === undefined) return Effect.void
        if (left <= 0) return Effect.sync(expire)
        return Effect.andThen(Effect.sleep(Duration.millis(left)), loop)
      })
      return Effect.asVoid(Effect.forkScoped(loop))
    }
    return Effect.asVoid(
      acquireSync(
        () => watchLive(msLeft, expire),
        (stop) => stop()
      )
    )
  })

/**
 * A stream's two time limits, the one rule of every stream umg reads (an SSE body's events, a byte
 * body's chunks): `firstMs` from the start of its reading to its first item, then `idleMs` between two.
 * @category models
 */
export interface StreamLimits {
  readonly firstMs: number
  readonly idleMs: number
}

/**
 * How long a stream's watchdog (`watch`) may sleep before it looks again (≤ 0: a limit has passed).
 * The watchdog sleeps until the deadline it last read, and the first item moves the deadline to that
 * item's time + `idleMs`, which can come before the first-item deadline (idle 500 ms, first 30 s). So
 * until the first item it wakes at least every `idleMs`: after an item at t it wakes by t + `idleMs`, in time.
 * @category getters
 */
export const streamMsLeft = (
  limits: StreamLimits,
  startedAt: number,
  lastAt: number | undefined,
  now: number
): number =>
  lastAt !== undefined ? lastAt + limits.idleMs - now : Math.min(startedAt + limits.firstMs - now, limits.idleMs)

/**
 * A stream's limit, passed: before its first item (`first`) the `first-byte` phase, after it `idle`;
 * `what` names the item (`event`, `data`).
 * @category constructors
 */
export const streamExpired = (family: Family, first: boolean, limits: StreamLimits, what: string): TimeoutError => {
  const ms = first ? limits.firstMs : limits.idleMs
  return new TimeoutError({
    family,
    phase: first ? "first-byte" : "idle",
    timeoutMs: ms,
    message: first ? `no ${what} within ${ms} ms` : `no ${what} for ${ms} ms`
  })
}
