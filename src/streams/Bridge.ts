/**
 * The Effect → Observable bridge every `$` call of `umg/rx` is built on. Work starts on subscribe,
 * unsubscribing interrupts the fiber (and so aborts the request, the poll loop or the socket), a
 * failure arrives as the same typed error instance the Effect API fails with, and a fiber interrupted
 * by someone else (the gateway disposed) still ends its subscriber with an error.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Fiber } from "effect"
import { Observable, take } from "rxjs"
import type { Subscriber, Subscription } from "rxjs"
import type { TypedObservable } from "./TypedObservable.js"

/** Runs an effect as a fiber: `ManagedRuntime#runFork`, `Effect.runForkWith(context)`, or `Effect.runFork` for effects with no requirements. @category models */
export interface Runner<R> {
  <A, E>(effect: Effect.Effect<A, E, R>): Fiber.Fiber<A, E>
  /**
   * The error given to a subscriber still listening when its fiber was interrupted by someone else
   * than itself (the gateway disposed); by default `Cause.squash` of the interruption.
   */
  readonly interrupted?: () => unknown
  /**
   * For work that is not a fiber (a poll registered with the gateway's shared driver): `stop` is
   * called with the error to deliver if the runner is disposed first; the result unregisters it.
   */
  readonly track?: (stop: (error: unknown) => void) => () => void
}

/** What a subscriber still listening gets for a fiber it did not interrupt itself. @category getters */
export const interruptionError = <R>(run: Runner<R>, cause: Cause.Cause<unknown>): unknown =>
  run.interrupted?.() ?? Cause.squash(cause)

/** The error an Observable delivers for a failed fiber: the typed failure itself, else the defect. */
const errorOf = <E>(cause: Cause.Cause<E>): unknown =>
  Option.getOrElse(Cause.findErrorOption(cause), () => Cause.squash(cause))

const observe = <A, E, R>(
  run: Runner<R>,
  subscriber: Subscriber<unknown>,
  effect: Effect.Effect<A, E, R>,
  onSuccess: (a: A) => void
): (() => void) => {
  const fiber = run(effect)
  fiber.addObserver((exit) => {
    if (Exit.isSuccess(exit)) {
      onSuccess(exit.value)
      subscriber.complete()
    } else if (!Cause.hasInterruptsOnly(exit.cause)) {
      subscriber.error(errorOf(exit.cause))
    } else if (!subscriber.closed) {
      // Not our unsubscription (that closes the subscriber first): never leave it waiting in silence.
      subscriber.error(interruptionError(run, exit.cause))
    }
  })
  // Teardown runs on unsubscribe and after complete/error; interrupting a finished fiber is a no-op.
  return () => {
    if (fiber.pollUnsafe() === undefined) fiber.interruptUnsafe()
  }
}

/**
 * A cold Observable of one effect: emits its value once and completes, or errors with its typed
 * failure `E` (or, interrupted by someone else, the runner's `interrupted` error). Unsubscribing
 * before it finishes interrupts the fiber.
 * @category constructors
 */
export const fromEffect = <A, E, R>(run: Runner<R>, effect: Effect.Effect<A, E, R>): TypedObservable<A, E> =>
  new Observable<A>((subscriber) => observe(run, subscriber, effect, (a) => subscriber.next(a)))

/**
 * A cold Observable of a stream: emits each element as it arrives, completes when the stream ends,
 * errors with its typed failure. Unsubscribing interrupts the fiber that drives the stream. The
 * elements a pull gives are emitted in one step (not one effect each); the step stops at an
 * unsubscribe made inside it.
 * @category constructors
 */
export const fromStream = <A, E, R>(run: Runner<R>, stream: Stream.Stream<A, E, R>): TypedObservable<A, E> =>
  fromStreamOf(run, Effect.succeed(stream))

/**
 * `fromStream` of the stream an effect makes (a service's call, the service read from the context):
 * the effect is run, then its stream, in the same fiber, with Effect's own `Stream.runForEachArray`
 * (the elements of each pull emitted in one step) rather than through `Stream.unwrap`.
 * @category constructors
 */
export const fromStreamOf = <A, E, E2, R>(
  run: Runner<R>,
  make: Effect.Effect<Stream.Stream<A, E, R>, E2, R>
): TypedObservable<A, E | E2> =>
  new Observable<A>((subscriber) =>
    observe(
      run,
      subscriber,
      Effect.flatMap(make, (stream) =>
        Stream.runForEachArray(stream, (chunk) =>
          Effect.sync(() => {
            for (const a of chunk) {
              if (subscriber.closed) return
              subscriber.next(a)
            }
          })
        )
      ),
      () => undefined
    )
  )

/**
 * A cold Observable of an effect that emits as it runs: `f` gets `emit` (values go to the subscriber
 * at once, in order), and the Observable completes when the effect succeeds or errors with its typed
 * failure. Unsubscribing interrupts the fiber.
 * @category constructors
 */
export const fromEmitting = <A, E, R>(
  run: Runner<R>,
  f: (emit: (a: A) => void) => Effect.Effect<unknown, E, R>
): TypedObservable<A, E> =>
  new Observable<A>((subscriber) =>
    observe(
      run,
      subscriber,
      Effect.suspend(() => f((a) => subscriber.next(a))),
      () => undefined
    )
  )

/**
 * The other way round, for the rx operators that hand a caller's Observables to the adapters' rules
 * (`pollTask$`, `mapConcurrent`): an effect of the first value of a cold Observable, failing with
 * its error, dying when it completes empty; interrupting it unsubscribes.
 * @category constructors
 */
export const firstValueEffect = <A>(source: () => Observable<A>, what: string): Effect.Effect<A, unknown> =>
  Effect.callback<A, unknown>((resume) => {
    let outcome: Effect.Effect<A, unknown> | undefined
    let subscription: Subscription | undefined
    // The source is unsubscribed (its teardown run) before the fiber resumes, which may start the
    // next call at once: a call's end and the next one's start never overlap.
    const settle = (effect: Effect.Effect<A, unknown>) => {
      if (outcome !== undefined) return
      outcome = effect
      if (subscription === undefined) return
      subscription.unsubscribe()
      resume(effect)
    }
    subscription = source()
      .pipe(take(1))
      .subscribe({
        next: (value) => settle(Effect.succeed(value)),
        error: (error: unknown) => settle(Effect.fail(error)),
        complete: () => settle(Effect.die(new TypeError(`${what} completed without a value`)))
      })
    // Settled while subscribing (a synchronous source).
    if (outcome !== undefined) {
      subscription.unsubscribe()
      resume(outcome)
    }
    return Effect.sync(() => subscription.unsubscribe())
  })

/**
 * A cold Observable of work registered with a shared driver rather than run as a fiber of its own
 * (what keeps thousands of `poll$` subscriptions to a few hundred bytes each): `register` is run on
 * subscribe and succeeds with the function that stops the work; the work emits through `emit` and
 * reports its end through `end` (success completes, failure errors). Unsubscribing stops it.
 * @category constructors
 */
export const fromRegistration = <A, B, E, R>(
  run: Runner<R>,
  register: (emit: (a: A) => void, end: (exit: Exit.Exit<B, E>) => void) => Effect.Effect<() => void, E, R>
): TypedObservable<A, E> =>
  new Observable<A>((subscriber) => {
    let stop: (() => void) | undefined
    let untrack: (() => void) | undefined
    let ended = false
    const end = (exit: Exit.Exit<B, E>) => {
      ended = true
      untrack?.()
      if (Exit.isSuccess(exit)) subscriber.complete()
      else
        subscriber.error(Cause.hasInterruptsOnly(exit.cause) ? interruptionError(run, exit.cause) : errorOf(exit.cause))
    }
    // Held only until the registration is done: a finished fiber kept per subscription costs kilobytes.
    let fiber: Fiber.Fiber<() => void, E> | undefined = run(register((a) => subscriber.next(a), end))
    fiber.addObserver((exit) => {
      fiber = undefined
      if (Exit.isSuccess(exit)) {
        stop = exit.value
        if (subscriber.closed) return stop()
        if (!ended && run.track !== undefined) {
          untrack = run.track((error) => {
            stop?.()
            subscriber.error(error)
          })
        }
      } else if (!Cause.hasInterruptsOnly(exit.cause)) subscriber.error(errorOf(exit.cause))
      else if (!subscriber.closed) subscriber.error(interruptionError(run, exit.cause))
    })
    return () => {
      untrack?.()
      if (stop !== undefined) stop()
      else fiber?.interruptUnsafe()
    }
  })
