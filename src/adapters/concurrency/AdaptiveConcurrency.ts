/**
 * One call per input with a concurrency that adapts to rate limits. It is the batching rule of
 * `embeddings.embedMany` and of umg/rx's `mapConcurrent`: at most `concurrency` calls in flight; a
 * 429 pauses new calls for the wait the core's `RetryPolicy` decides (the wait it asks, up to the
 * cap, else a jittered 0.5 s → 8 s back-off), halves the concurrency (regained by one after as many
 * successes in a row as the current limit) and puts the item first in line — never dropping or
 * duplicating one. When the policy stops (retries spent, a wait above the cap, a quota exhausted)
 * the batch fails with the 429.
 */
import type { Fiber } from "effect"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import { RateLimited } from "../../core/errors/GatewayError.js"
import { decide, defaultRetryBudget, type RetryBudget } from "../../core/gateway/RetryPolicy.js"
import { errorAnswerOf } from "../CallOptions.js"

/**
 * What a batch reports: a `result` per input, exactly once, in completion order (`index` says where
 * it belongs) with the progress `done` of `total`; and a `rate-limited` notice each time an item is
 * put back after a 429, with the wait and the lowered concurrency.
 * @category models
 */
export type AdaptiveEvent<I, B> =
  | {
      readonly type: "result"
      readonly index: number
      readonly input: I
      readonly result: B
      readonly done: number
      readonly total: number
    }
  | {
      readonly type: "rate-limited"
      readonly index: number
      readonly input: I
      readonly attempt: number
      readonly delayMs: number
      readonly concurrency: number
      readonly done: number
      readonly total: number
    }

/** Options of `mapAdaptive`. @category models */
export interface AdaptiveOptions<E> {
  /** Most calls in flight (at least 1). */
  readonly concurrency: number
  /** Retries of one item after a rate limit before the whole batch fails with it (default 8). */
  readonly maxRetries?: number
  /**
   * When a failure is a rate limit, the wait it asks for (`{}` when it names none), the gateway's
   * error type (`insufficient_quota` is never waited for) and, when known, the answer's headers (an
   * `x-should-retry` among them is honoured as the transport honours it); `undefined` otherwise.
   */
  readonly rateLimit: (error: E) => RateLimitAsked | undefined
  /**
   * The back-off of a rate limit naming no wait (default 0.5 s doubling to 8 s), jittered by up to
   * 25 %, and the longest wait honoured (default 60 s; a 429 asking more fails the batch).
   */
  readonly backoff?: Partial<Pick<RetryBudget, "baseDelayMs" | "maxDelayMs" | "maxRetryAfterMs">>
}

/** What a rate limit asked for: its wait, the gateway's error type, the answer's headers. @category models */
export interface RateLimitAsked {
  readonly retryAfterMs?: number | undefined
  readonly type?: string | undefined
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * What a gateway error asks as a rate limit (`RateLimited`: its wait, type and answer's headers), the
 * `rateLimit` of `embedMany` and umg/rx's `mapConcurrent`; `undefined` for any other error.
 * @category getters
 */
export const rateLimitOf = (error: unknown): RateLimitAsked | undefined =>
  error instanceof RateLimited
    ? { retryAfterMs: error.retryAfterMs, type: error.type, headers: errorAnswerOf(error)?.headers }
    : undefined

interface Item<I> {
  readonly index: number
  readonly input: I
  readonly attempt: number
}

/**
 * The wait before an item that met a 429 is tried again, in whole milliseconds, or `undefined` when
 * the transport's own rule says stop: no retries left, the asked wait above the cap, a quota spent,
 * the server saying `x-should-retry: false`.
 */
const rateLimitDelayMs = (
  asked: RateLimitAsked,
  attempt: number,
  budget: RetryBudget,
  random: number,
  now: number
): number | undefined => {
  const decision = decide({
    failure: {
      _tag: "Status",
      status: 429,
      headers: asked.headers ?? {},
      retryAfterMs: asked.retryAfterMs,
      errorType: asked.type
    },
    attempt,
    kind: "idempotent",
    budget,
    random,
    now
  })
  // Whole milliseconds: a fraction left over would arm a timer of no time again and again.
  return decision._tag === "Stop" ? undefined : Math.ceil(decision.delayMs)
}

/**
 * A trampoline around `drain`: calling the result runs `drain` now or, when called from inside
 * `drain`, once more after it returns (until `stopped()`), so calls that answer at once re-enter
 * without recursing per item.
 */
const trampoline = (drain: () => void, stopped: () => boolean): (() => void) => {
  let running = false
  let requested = false
  const takeRequest = (): boolean => {
    const wanted = requested
    requested = false
    return wanted
  }
  return () => {
    if (running) {
      requested = true
      return
    }
    running = true
    do drain()
    while (takeRequest() && !stopped())
    running = false
  }
}

/**
 * Calls `call(input, index)` for every input and reports each outcome to `onEvent` as it happens;
 * succeeds once every input has a result. Any failure other than a rate limit, or a rate limit past
 * `maxRetries`, fails the batch with it and interrupts the calls in flight; so does interrupting it.
 * Time (waits, jitter) comes from the fiber's `Clock` and `Random`.
 * @category constructors
 */
export const mapAdaptive = <I, B, E>(
  inputs: ReadonlyArray<I>,
  call: (input: I, index: number) => Effect.Effect<B, E>,
  options: AdaptiveOptions<E>,
  onEvent: (event: AdaptiveEvent<I, B>) => void
): Effect.Effect<void, E> =>
  Effect.flatMap(Effect.context<never>(), (services) =>
    Effect.callback<void, E>((resume) => {
      const fork = Effect.runForkWith(services)
      const clock = Context.get(services, Clock.Clock)
      const rng = Context.get(services, Random.Random)
      const random = () => rng.nextDoubleUnsafe()
      const total = inputs.length
      const max = Math.max(1, Math.floor(options.concurrency))
      const maxRetries = options.maxRetries ?? 8
      const budget: RetryBudget = { ...defaultRetryBudget, ...options.backoff, maxRetries }
      const queue: Array<Item<I>> = inputs.map((input, index) => ({ index, input, attempt: 0 }))
      const fibers = new Set<Fiber.Fiber<unknown, unknown>>()
      let limit = max
      let inFlight = 0
      let successes = 0
      let done = 0
      let pausedUntil = Number.NEGATIVE_INFINITY
      let waking = false
      let ended = false

      const stopAll = () => {
        // Copied first: an interrupted call's observer runs at once and deletes itself from the set.
        const running = [...fibers]
        fibers.clear()
        for (const fiber of running) fiber.interruptUnsafe()
      }
      const end = (effect: Effect.Effect<void, E>) => {
        if (ended) return
        ended = true
        stopAll()
        resume(effect)
      }
      const report = (event: AdaptiveEvent<I, B>): boolean => {
        try {
          onEvent(event)
          return true
        } catch (error) {
          end(Effect.die(error))
          return false
        }
      }

      const succeeded = (item: Item<I>, result: B) => {
        done++
        successes++
        if (successes >= limit && limit < max) {
          limit++
          successes = 0
        }
        if (!report({ type: "result", index: item.index, input: item.input, result, done, total })) return
        if (done === total) return end(Effect.void)
        pump()
      }
      const failed = (item: Item<I>, cause: Cause.Cause<E>) => {
        const failure = Cause.findErrorOption(cause)
        const asked = Option.isSome(failure) ? options.rateLimit(failure.value) : undefined
        if (asked === undefined) return end(Effect.failCause(cause))
        const delayMs = rateLimitDelayMs(asked, item.attempt, budget, random(), clock.currentTimeMillisUnsafe())
        if (delayMs === undefined) return end(Effect.failCause(cause))
        limit = Math.max(1, Math.floor(limit / 2))
        successes = 0
        pausedUntil = Math.max(pausedUntil, clock.currentTimeMillisUnsafe() + delayMs)
        const attempt = item.attempt + 1
        queue.unshift({ ...item, attempt })
        const { index, input } = item
        if (!report({ type: "rate-limited", index, input, attempt, delayMs, concurrency: limit, done, total })) return
        pump()
      }
      const start = (item: Item<I>) => {
        inFlight++
        const fiber = fork(call(item.input, item.index))
        fibers.add(fiber)
        fiber.addObserver((exit) => {
          fibers.delete(fiber)
          inFlight--
          if (ended) return
          if (exit._tag === "Success") succeeded(item, exit.value)
          else failed(item, exit.cause)
        })
      }
      const wakeAfter = (wait: number) => {
        if (waking) return
        waking = true
        const timer = fork(Effect.sleep(wait))
        fibers.add(timer)
        timer.addObserver(() => {
          fibers.delete(timer)
          waking = false
          if (!ended) pump()
        })
      }
      // The pause is looked at before every start: an answer given at once may have set it.
      const drain = () => {
        while (!ended) {
          const wait = pausedUntil - clock.currentTimeMillisUnsafe()
          if (wait >= 1) return wakeAfter(wait)
          if (inFlight >= limit || queue.length === 0) return
          start(queue.shift()!)
        }
      }
      const pump = trampoline(drain, () => ended)

      if (total === 0) resume(Effect.void)
      else pump()
      return Effect.sync(() => {
        ended = true
        stopAll()
      })
    })
  )
