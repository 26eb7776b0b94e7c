/**
 * The shape every stream accumulator shares, and helpers to run one with Effect `Stream.scan`, RxJS
 * `scan` or over an array. An accumulator is a pure fold `(snapshot, event) → Result<snapshot,
 * IncompleteStream>` that never throws, and a `finish` that turns the last snapshot into the final
 * value (or fails when the stream ended before its final event).
 *
 * Using it with Effect: `Stream.scan(events, () => seed(acc), scanStep(acc))` gives the
 * snapshots; follow with `Stream.mapEffect(Effect.fromResult)` to fail the stream at the first error. With
 * RxJS: `events$.pipe(scan(scanStep(acc), seed(acc)))`.
 */
import * as Result from "effect/Result"
import { IncompleteStream, type Family } from "../errors/GatewayError.js"

/** The result of one fold step: the next snapshot, or why the stream cannot be completed. @category models */
export type Step<Snapshot> = Result.Result<Snapshot, IncompleteStream>

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
  /**
   * A folder of its own, starting at a snapshot: for accumulators whose `step` is derived from one
   * (a draft changed in place between snapshots). Without it, `folderOf` folds with `step`.
   */
  readonly folder?: (from: Snapshot) => Folder<Event, Snapshot>
}

/**
 * A fold owned by one consumer that reads the snapshot only now and then (a transport wanting the
 * final or partial value, not every intermediate one). `push` applies an event, or returns why it
 * does not fit (an `IncompleteStream` whose `partial` is the snapshot before it; the folder is then
 * left as it was). `snapshot()` is the state so far, immutable: later events never change it.
 * @category models
 */
export interface Folder<Event, Snapshot> {
  readonly push: (event: Event) => IncompleteStream | undefined
  readonly snapshot: () => Snapshot
}

/** The accumulator's folder from its initial snapshot: its own, else one over `step`. @category constructors */
export const folderOf = <Event, Snapshot, Final>(acc: Accumulator<Event, Snapshot, Final>): Folder<Event, Snapshot> => {
  if (acc.folder !== undefined) return acc.folder(acc.initial)
  let snapshot = acc.initial
  return {
    push: (event) => {
      const next = acc.step(snapshot, event)
      if (Result.isFailure(next)) return next.failure
      snapshot = next.success
      return undefined
    },
    snapshot: () => snapshot
  }
}

/**
 * The pure step of a folder-made accumulator: a folder from `snapshot`, one event, its snapshot. One
 * rule for both uses: the folder's `push`.
 * @category constructors
 */
export const stepOf =
  <Event, Snapshot>(folder: (from: Snapshot) => Folder<Event, Snapshot>) =>
  (snapshot: Snapshot, event: Event): Step<Snapshot> => {
    const draft = folder(snapshot)
    const failure = draft.push(event)
    return failure === undefined ? Result.succeed(draft.snapshot()) : Result.fail(failure)
  }

/** The seed of a `scan`: the accumulator's initial snapshot as a successful step. @category constructors */
export const seed = <Event, Snapshot, Final>(acc: Accumulator<Event, Snapshot, Final>): Step<Snapshot> =>
  Result.succeed(acc.initial)

/**
 * A step over a `Result` state, for `scan`: once a step has failed the failure is kept and later
 * events are not looked at.
 * @category combinators
 */
export const scanStep =
  <Event, Snapshot, Final>(acc: Accumulator<Event, Snapshot, Final>) =>
  (state: Step<Snapshot>, event: Event): Step<Snapshot> =>
    Result.isFailure(state) ? state : acc.step(state.success, event)

/**
 * Finishes a scanned state: the final value, or the failure already met, or `ended-early`. For the
 * end of a stream, e.g. `Stream.runFold(events, () => seed(acc), scanStep(acc))` then `finishScan(acc)`.
 * @category combinators
 */
export const finishScan =
  <Event, Snapshot, Final>(acc: Accumulator<Event, Snapshot, Final>) =>
  (state: Step<Snapshot>): Step<Final> =>
    Result.flatMap(state, acc.finish)

/** Folds every event and finishes: the final value, or the first error with the partial snapshot. @category combinators */
export const foldAll = <Event, Snapshot, Final>(
  acc: Accumulator<Event, Snapshot, Final>,
  events: Iterable<Event>
): Step<Final> => {
  const folder = folderOf(acc)
  for (const event of events) {
    const failure = folder.push(event)
    if (failure !== undefined) return Result.fail(failure)
  }
  return acc.finish(folder.snapshot())
}

/** The failure of a fold; `partial` is the snapshot before the offending event. @category constructors */
export const incompleteStream = (
  family: Family,
  reason: IncompleteStream["reason"],
  message: string,
  partial: unknown,
  errorType?: string
): IncompleteStream =>
  new IncompleteStream(
    errorType === undefined ? { family, reason, message, partial } : { family, reason, message, partial, errorType }
  )

/** Builds the failure of a step; `partial` is the snapshot before the offending event. @category constructors */
export const incomplete = (
  family: Family,
  reason: IncompleteStream["reason"],
  message: string,
  partial: unknown,
  errorType?: string
): Result.Result<never, IncompleteStream> => Result.fail(incompleteStream(family, reason, message, partial, errorType))

/** Replaces one element of a readonly array, returning a new array (the others are shared). @category combinators */
export const replaceAt = <A>(items: ReadonlyArray<A>, index: number, item: A): ReadonlyArray<A> => {
  const out = items.slice()
  out[index] = item
  return out
}
