/**
 * `mapConcurrent`: the adapters' adaptive batching rule (`mapAdaptive`) over calls that are
 * Observables, emitting each result with its input index and progress. The concurrency is bounded,
 * halved on a 429 and regained slowly; the item is retried after the wait, never dropped or
 * duplicated.
 */
import * as Effect from "effect/Effect"
import type { Observable } from "rxjs"
import { type AdaptiveEvent, mapAdaptive, rateLimitOf } from "../adapters/concurrency/AdaptiveConcurrency.js"
import { firstValueEffect, fromEmitting, type Runner } from "./Bridge.js"

/** Options of `mapConcurrent`. @category models */
export interface MapConcurrentOptions {
  /** Most calls in flight (at least 1). */
  readonly concurrency: number
  /** Retries of one item after `RateLimited` before the whole batch fails with it (default 8). */
  readonly maxRetries?: number | undefined
}

/**
 * What the batch emits: a `result` per input, exactly once, in completion order (`index` says where
 * it belongs) with the progress `done` of `total`; and a `rate-limited` notice each time an item is
 * put back after a 429, with the wait and the lowered concurrency.
 * @category models
 */
export type MapConcurrentEvent<I, B> = AdaptiveEvent<I, B>

const runDetached: Runner<never> = (effect) => Effect.runFork(effect)

/**
 * Calls `call(input, index)` for every input (its first value is the result), at most `concurrency`
 * at a time. A `RateLimited` failure pauses new calls for its `retryAfterMs` (else a jittered
 * 0.5 s → 8 s back-off), halves the concurrency (it grows back by one after as many successes in a
 * row as the current limit) and puts the item first in line. Any other failure, or a 429 beyond
 * `maxRetries`, fails the batch and cancels the calls in flight; so does unsubscribing. Completes
 * after the last result.
 * @category constructors
 */
export const mapConcurrent = <I, B>(
  inputs: ReadonlyArray<I>,
  call: (input: I, index: number) => Observable<B>,
  options: MapConcurrentOptions
): Observable<MapConcurrentEvent<I, B>> =>
  fromEmitting(runDetached, (emit: (event: MapConcurrentEvent<I, B>) => void) =>
    mapAdaptive(
      inputs,
      // Each call is subscribed on the scheduler's next turn, as Effect 3 started a forked call: the
      // calls one step starts are all under way before an answer given at once (a 429 from a
      // synchronous source) pauses the batch.
      (input, index) =>
        Effect.andThen(
          Effect.yieldNow,
          firstValueEffect(() => call(input, index), `the call for input ${index}`)
        ),
      {
        concurrency: options.concurrency,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        // A 429 saying `x-should-retry: false` is not tried again, as the transport would not.
        rateLimit: rateLimitOf
      },
      emit
    )
  )
