/**
 * `mapConcurrent`: runs one call per input with bounded concurrency, emitting each result with its
 * input index and progress, and meeting 429s by pausing, halving the concurrency (regained one step
 * at a time) and retrying the same item — never dropping or duplicating one.
 */
import { asyncScheduler, Observable, type SchedulerLike, Subscription, take } from "rxjs"
import { RateLimited } from "../core/errors/GatewayError.js"
import { backoffMs, defaultRetryBudget } from "../core/gateway/RetryPolicy.js"

/** Options of `mapConcurrent`. @category models */
export interface MapConcurrentOptions {
  /** Most calls in flight (at least 1). */
  readonly concurrency: number
  /** Retries of one item after `RateLimited` before the whole batch fails with it (default 8). */
  readonly maxRetries?: number
  /** Where the back-off waits are timed (`TestScheduler` in tests). */
  readonly scheduler?: SchedulerLike
}

/**
 * What the batch emits: a `result` per input, exactly once, in completion order (`index` says where
 * it belongs) with the progress `done` of `total`; and a `rate-limited` notice each time an item is
 * put back after a 429, with the wait and the lowered concurrency.
 * @category models
 */
export type MapConcurrentEvent<I, B> =
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

interface Item<I> {
  readonly index: number
  readonly input: I
  readonly attempt: number
}

/**
 * Calls `call(input, index)` for every input (its first value is the result), at most `concurrency`
 * at a time. A `RateLimited` failure pauses new calls for its `retryAfterMs` (else a 0.5 s → 8 s
 * back-off), halves the concurrency (it grows back by one after as many successes in a row as the
 * current limit) and puts the item first in line. Any other failure, or a 429 beyond `maxRetries`,
 * fails the batch and cancels the calls in flight; so does unsubscribing. Completes after the last result.
 * @category constructors
 */
export const mapConcurrent = <I, B>(
  inputs: ReadonlyArray<I>,
  call: (input: I, index: number) => Observable<B>,
  options: MapConcurrentOptions
): Observable<MapConcurrentEvent<I, B>> =>
  new Observable<MapConcurrentEvent<I, B>>((subscriber) => {
    const total = inputs.length
    const max = Math.max(1, Math.floor(options.concurrency))
    const maxRetries = options.maxRetries ?? 8
    const scheduler = options.scheduler ?? asyncScheduler
    const queue: Array<Item<I>> = inputs.map((input, index) => ({ index, input, attempt: 0 }))
    const running = new Subscription()
    let limit = max
    let inFlight = 0
    let successes = 0
    let done = 0
    let pausedUntil = Number.NEGATIVE_INFINITY
    let wake: Subscription | undefined
    let pumping = false
    let again = false

    const start = (item: Item<I>): void => {
      inFlight++
      let answered = false
      const own = new Subscription()
      running.add(own)
      const settle = () => {
        inFlight--
        running.remove(own)
        own.unsubscribe()
      }
      own.add(
        call(item.input, item.index)
          .pipe(take(1))
          .subscribe({
            next: (result) => {
              answered = true
              settle()
              done++
              successes++
              if (successes >= limit && limit < max) {
                limit++
                successes = 0
              }
              subscriber.next({ type: "result", index: item.index, input: item.input, result, done, total })
              if (done === total) subscriber.complete()
              else pump()
            },
            error: (error: unknown) => {
              settle()
              if (!(error instanceof RateLimited) || item.attempt >= maxRetries) return subscriber.error(error)
              const delayMs = error.retryAfterMs ?? backoffMs(item.attempt, defaultRetryBudget, 0)
              limit = Math.max(1, Math.floor(limit / 2))
              successes = 0
              pausedUntil = Math.max(pausedUntil, scheduler.now() + delayMs)
              queue.unshift({ ...item, attempt: item.attempt + 1 })
              subscriber.next({ type: "rate-limited", index: item.index, input: item.input, attempt: item.attempt + 1, delayMs, concurrency: limit, done, total })
              pump()
            },
            complete: () => {
              if (!answered) {
                settle()
                subscriber.error(new TypeError(`the call for input ${item.index} completed without a result`))
              }
            }
          })
      )
    }

    // A trampoline: calls that answer synchronously re-enter pump, which must not recurse per item.
    function pump(): void {
      if (pumping) {
        again = true
        return
      }
      pumping = true
      do {
        again = false
        const wait = pausedUntil - scheduler.now()
        if (wait > 0) {
          if (wake === undefined) {
            const timer = scheduler.schedule(() => {
              running.remove(timer)
              wake = undefined
              pump()
            }, wait)
            wake = timer
            running.add(timer)
          }
          break
        }
        while (!subscriber.closed && inFlight < limit && queue.length > 0) start(queue.shift()!)
      } while (again && !subscriber.closed)
      pumping = false
    }

    if (total === 0) subscriber.complete()
    else pump()
    return running
  })
