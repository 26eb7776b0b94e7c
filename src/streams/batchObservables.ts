/**
 * The Observable face of a `umg/batch` handle: `progress$` emits the counts per state until every
 * line is final, `results$` emits the results (one per input, in input order) and completes.
 * Unsubscribing stops reading the store; it does not stop the batch, which belongs to its runners.
 * Typed by shape, so `umg/rx` does not depend on `umg/batch`.
 */
import * as Effect from "effect/Effect"
import type { Fiber, Stream } from "effect"
import { fromEffect, fromStream, type Runner } from "./Bridge.js"
import type { TypedObservable } from "./TypedObservable.js"

/** What a batch handle offers (`Batch.video` and `Batch.attach` return one). @category models */
export interface BatchLike<P, R, E> {
  readonly progress: Stream.Stream<P, E>
  readonly results: Effect.Effect<R, E>
}

/** The Observables of a batch. @category models */
export interface RxBatch<P, R, E> {
  readonly progress$: TypedObservable<P, E>
  readonly results$: TypedObservable<R, E>
  /** The typed failures these Observables may deliver. */
  readonly _errors?: E
}

/**
 * Projects a batch handle: each subscription runs the handle's stream or effect on `run` (by
 * default `Effect.runFork`; a `ManagedRuntime`'s `runFork` works as well).
 * @category constructors
 */
export const batchObservables = <P, R, E>(
  handle: BatchLike<P, R, E>,
  run: <A, E2>(effect: Effect.Effect<A, E2>) => Fiber.Fiber<A, unknown> = Effect.runFork
): RxBatch<P, R, E> => {
  // A runtime's own failure (its layer) can only be one the layer already reported when it was built.
  const runner: Runner<never> = (effect) => run(effect) as Fiber.Fiber<never, never>
  return { progress$: fromStream(runner, handle.progress), results$: fromEffect(runner, handle.results) }
}
