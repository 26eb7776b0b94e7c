/**
 * The shape every stream accumulator shares: a pure fold `(snapshot, event) → Either<snapshot,
 * IncompleteStream>` that never throws, a `finish` that turns the last snapshot into the final value
 * (or fails when the stream ended before its final event), and helpers to run it with Effect
 * `Stream.scan`, RxJS `scan` or over an array.
 *
 * Using it with Effect: `Stream.scan(events, seed(acc), scanStep(acc))` gives the
 * snapshots; follow with `Stream.mapEffect(identity)` to fail the stream at the first error. With
 * RxJS: `events$.pipe(scan(scanStep(acc), seed(acc)))`.
 */
import { Either } from "effect"
import { IncompleteStream, type Family } from "../errors/GatewayError.js"

/** The result of one fold step: the next snapshot, or why the stream cannot be completed. @category models */
export type Step<Snapshot> = Either.Either<Snapshot, IncompleteStream>

/**
 * A pure stream accumulator. `step` returns a fresh snapshot and never mutates the previous one
 * (unchanged parts are shared, not copied). `finish` fails with `ended-early` when the final event
 * has not been seen.
 * @category models
 */
export interface Accumulator<Event, Snapshot, Final> {
  readonly family: Family
  readonly initial: Snapshot
  readonly step: (snapshot: Snapshot, event: Event) => Step<Snapshot>
  readonly finish: (snapshot: Snapshot) => Step<Final>
}

/** The seed of a `scan`: the accumulator's initial snapshot as a successful step. @category constructors */
export const seed = <Event, Snapshot, Final>(acc: Accumulator<Event, Snapshot, Final>): Step<Snapshot> => Either.right(acc.initial)

/**
 * A step over an `Either` state, for `scan`: once a step has failed the failure is kept and later
 * events are not looked at.
 * @category combinators
 */
export const scanStep =
  <Event, Snapshot, Final>(acc: Accumulator<Event, Snapshot, Final>) =>
  (state: Step<Snapshot>, event: Event): Step<Snapshot> =>
    Either.isLeft(state) ? state : acc.step(state.right, event)

/**
 * Finishes a scanned state: the final value, or the failure already met, or `ended-early`. For the
 * end of a stream, e.g. `Stream.runFold(events, seed(acc), scanStep(acc))` then `finishScan(acc)`.
 * @category combinators
 */
export const finishScan =
  <Event, Snapshot, Final>(acc: Accumulator<Event, Snapshot, Final>) =>
  (state: Step<Snapshot>): Step<Final> =>
    Either.flatMap(state, acc.finish)

/** Folds every event and finishes: the final value, or the first error with the partial snapshot. @category combinators */
export const foldAll = <Event, Snapshot, Final>(
  acc: Accumulator<Event, Snapshot, Final>,
  events: Iterable<Event>
): Step<Final> => {
  let snapshot = acc.initial
  for (const event of events) {
    const next = acc.step(snapshot, event)
    if (Either.isLeft(next)) return Either.left(next.left)
    snapshot = next.right
  }
  return acc.finish(snapshot)
}

/** Builds the failure of a step; `partial` is the snapshot before the offending event. @category constructors */
export const incomplete = (
  family: Family,
  reason: IncompleteStream["reason"],
  message: string,
  partial: unknown,
  errorType?: string
): Either.Either<never, IncompleteStream> =>
  Either.left(
    new IncompleteStream(errorType === undefined ? { family, reason, message, partial } : { family, reason, message, partial, errorType })
  )

/** Replaces one element of a readonly array, returning a new array (the others are shared). @category combinators */
export const replaceAt = <A>(items: ReadonlyArray<A>, index: number, item: A): ReadonlyArray<A> => {
  const out = items.slice()
  out[index] = item
  return out
}
