/**
 * A streaming call's stream and its final answer. Every streaming call (`messages.stream`, …) gives
 * a plain Effect `Stream` of its events — run it with Effect's own `Stream.runForEach` and friends —
 * that is also a `ResultStream`: it carries the way to its final answer, folded by the transport as
 * the events went by, which `runToFinal` gives after the events.
 */
import type { Stream } from "effect"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Pull from "effect/Pull"
import type * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { dual } from "effect/Function"
import { type ChunkPull, fromScopedPull } from "../http/ByteSource.js"

/** What the setup of a `fromScopedOpen` stream gives: its pull, and its result once it has ended. @category models */
export interface Opened<A, E, Z> {
  readonly pull: ChunkPull<A, E>
  /** The stream's result, read once its pull has ended; fails when there is none to give. */
  readonly result: Effect.Effect<Z, E>
  /** When its first event arrived (the clock's milliseconds), once one has: read once, for the call's metrics. */
  readonly firstEventAt?: () => number | undefined
  /** `result` without an effect: read once the stream has ended, for the call's metrics. */
  readonly resultNow?: () => Result.Result<Z, E>
  /**
   * Sets what runs once as the stream's scope closes, with the scope's exit: the call's metrics, recorded
   * by the finalizer that releases the stream's body rather than by one of their own (a second finalizer
   * cost a short stream about a tenth of its CPU).
   */
  readonly onClose?: (f: (exit: Exit.Exit<unknown, unknown>) => void) => void
}

const ResultTypeId: unique symbol = Symbol.for("umg/adapters/Consume/ResultStream")

/**
 * A streaming call's stream: an Effect `Stream` of its events that also has a final answer (the
 * `Message`, `ChatCompletion`, … folded once as the events went by), which `runToFinal` gives.
 * Transforming it (`Stream.map`, …) gives a plain stream, without the final answer.
 * @category models
 */
export interface ResultStream<A, E, Z, R = never> extends Stream.Stream<A, E, R> {
  readonly [ResultTypeId]: Effect.Effect<Opened<A, E, Z>, E, R | Scope.Scope>
}

/**
 * The stream of what the pull `open` makes gives, `open` running when the stream is first pulled, in
 * a scope of its own that closes (with the stream's exit) when the stream ends, fails or is
 * interrupted — during `open` too. `open` also gives the stream's result, for `runToFinal`.
 * @category constructors
 */
export const fromScopedOpen = <A, E, Z, E2, R>(
  open: Effect.Effect<Opened<A, E, Z>, E2, R>
): ResultStream<A, E | E2, Z, Exclude<R, Scope.Scope>> => {
  const stream = fromScopedPull(Effect.map(open, (opened) => opened.pull))
  // `E2` joins the result's error: the same open, read by `runToFinal` instead of the stream's channel.
  const withResult: Effect.Effect<
    Opened<A, E | E2, Z>,
    E | E2,
    Exclude<R, Scope.Scope> | Scope.Scope
  > = open as Effect.Effect<Opened<A, E, Z>, E2, Exclude<R, Scope.Scope> | Scope.Scope>
  return Object.assign(stream, { [ResultTypeId]: withResult })
}

/**
 * How a streaming call's own stream opens (its request sent, its answer's headers read) into its pull
 * and result, in the caller's scope; `undefined` for any other stream.
 * @category destructors
 */
export const openedOf = <A, E, R>(
  stream: Stream.Stream<A, E, R>
): Effect.Effect<Opened<A, E, unknown>, E, R | Scope.Scope> | undefined =>
  (stream as Partial<ResultStream<A, E, unknown, R>>)[ResultTypeId]

/** `f` on each element of a chunk, one after another. */
const eachOf =
  <A, E2, R2>(f: (a: A) => Effect.Effect<unknown, E2, R2>) =>
  (items: ReadonlyArray<A>): Effect.Effect<unknown, E2, R2> => {
    if (items.length === 1) return f(items[0]!)
    let i = 0
    const next = (): Effect.Effect<unknown, E2, R2> =>
      i < items.length ? Effect.flatMap(f(items[i++]!), next) : Effect.void
    return next()
  }

/**
 * Runs `f` on each event of a streaming call, in order, one after another, and then gives the call's
 * final answer — the `Message`, `ChatCompletion`, `GenerateContentResponse` or `ResponsesResponse` —
 * folded once, by the transport, as the events went by: no second fold of the same events, no second
 * consumer. The stream must be the call's own (`gateway.messages.stream(…)` and its siblings); a
 * transformed stream has no final answer, and the types say so (forced, the run dies saying why).
 * Its failures are the stream's (an `IncompleteStream` carries the partial answer) and the step's; a
 * failing step ends the stream (its connection is closed), as interrupting the run does.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Gateway, runToFinal, tokenText } from "umg"
 *
 * const program = Effect.gen(function* () {
 *   const gateway = yield* Gateway
 *   return yield* runToFinal(gateway.messages.stream({ model: "epsilon-sonnet-4-5", max_tokens: 256, messages: [{ role: "user", content: "Hi" }] }), (event) =>
 *     Effect.sync(() => tokenText(event).forEach((text) => process.stdout.write(text)))
 *   )
 * }) // Effect<Message, StreamError | InvalidRequest, Gateway>
 * ```
 * @category destructors
 */
export const runToFinal: {
  <A, E2, R2>(
    f: (a: A) => Effect.Effect<unknown, E2, R2>
  ): <E, Z, R>(stream: ResultStream<A, E, Z, R>) => Effect.Effect<Z, E | E2, R | R2>
  <A, E, Z, R, E2, R2>(
    stream: ResultStream<A, E, Z, R>,
    f: (a: A) => Effect.Effect<unknown, E2, R2>
  ): Effect.Effect<Z, E | E2, R | R2>
} = dual(
  2,
  <A, E, Z, R, E2, R2>(
    stream: ResultStream<A, E, Z, R>,
    f: (a: A) => Effect.Effect<unknown, E2, R2>
  ): Effect.Effect<Z, E | E2, R | R2> => {
    const open = (stream as Partial<ResultStream<A, E, Z, R>>)[ResultTypeId]
    if (open === undefined)
      return Effect.die(
        new Error(
          "runToFinal: the stream has no final answer (it is not a streaming call's own stream, or it was transformed)"
        )
      )
    const step = eachOf(f)
    // `open` in a scope of its own, closed with the run's exit however it ends: what it acquired (the
    // connection, the call's span) lasts until the last event's step has run.
    return Effect.acquireUseRelease(
      Scope.make(),
      (scope) =>
        Effect.flatMap(Scope.provide(open, scope), ({ pull, result }) => {
          const loop: Effect.Effect<Z, E | E2, R2> = Pull.matchEffect(pull, {
            onSuccess: (items) => Effect.flatMap(step(items), () => loop),
            onFailure: Effect.failCause,
            onDone: () => result
          })
          return loop
        }),
      (scope, exit) => Scope.close(scope, exit)
    )
  }
)
