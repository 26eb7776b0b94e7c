/**
 * `pollTask$`: the adapters' one poll loop (`VideoPoller`) as an Observable for any task query. It
 * queries now, then every 3–5 s from each query's start until the task succeeds or fails, emitting
 * each status change once, within a caller-chosen timeout. It adds no polling rule of its own.
 */
import * as Effect from "effect/Effect"
import type { Observable } from "rxjs"
import * as VideoPoller from "../adapters/polling/VideoPoller.js"
import type { PollableTask, Poller, PollerOptions, PollRequest, PollUpdate } from "../adapters/polling/VideoPoller.js"
import { checkPollSettings } from "../core/video/PollingRule.js"
import { firstValueEffect, fromRegistration, type Runner } from "./Bridge.js"

export type { PollableTask, Poller, PollerOptions, PollRequest, PollUpdate }

/** A poller of one's own (its driver, and its bound on queries in flight, default 64), to share between polls. @category constructors */
export const makePoller = (options?: PollerOptions): Poller => VideoPoller.make(options)

/** Options of `pollTask$`. @category models */
export interface PollTaskOptions {
  /** From one query's start to the next (default 4000); must lie in `[minIntervalMs, 5000]`. */
  readonly intervalMs?: number | undefined
  /** Errors with `TimeoutError` (phase `poll`) this long after subscribing (default 300 000). */
  readonly timeoutMs?: number | undefined
  /**
   * The shortest interval accepted (default 3000, the contract's rule). Lower it only against an
   * emulator with fast timings (tests, the bench); the 5 s ceiling stays.
   */
  readonly minIntervalMs?: number | undefined
  /** The poller to share with other polls (`makePoller()`); by default each subscription has its own. */
  readonly poller?: Poller | undefined
}

const runDetached: Runner<never> = (effect) => Effect.runFork(effect)

/**
 * Polls `fetch` (a cold query of the task) and emits a `PollUpdate` for each status change;
 * completes after `succeeded`; after `failed` emits that update and errors with `VideoTaskFailed`.
 * A query starts `intervalMs` after the previous one started (never while one is in flight); a
 * query error ends the poll with that error. An interval outside `[minIntervalMs, 5000]` is refused
 * with `InvalidRequest` (`field: "intervalMs"`, `rule: "range"`) rather than silently changed.
 * Unsubscribing cancels the query in flight and the poll.
 * @category constructors
 */
export const pollTask$ = <T extends PollableTask>(
  fetch: () => Observable<T>,
  options: PollTaskOptions = {}
): Observable<PollUpdate<T>> =>
  fromRegistration(runDetached, (emit: (update: PollUpdate<T>) => void, end) =>
    Effect.flatMap(Effect.fromResult(checkPollSettings(options, options.minIntervalMs)), ({ intervalMs, timeoutMs }) =>
      Effect.map(Effect.context<never>(), (context) =>
        (options.poller ?? VideoPoller.make()).start(
          context,
          {
            query: firstValueEffect(fetch, "the task query"),
            intervalMs,
            timeoutMs,
            onQuery: (update, changed) => (changed ? emit(update) : undefined)
          },
          end
        )
      )
    )
  )
