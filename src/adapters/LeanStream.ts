/**
 * The two scoped constructors the runtime's per-stream paths use, each measured cheaper than its
 * Effect counterpart with 10,000 streams open at once (`bench/streams-many.bench.ts`):
 * - `acquireSync`: a resource taken and released synchronously (a socket's listeners, a timer), its
 *   release a plain finalizer of the scope. `Effect.acquireRelease` records the fiber's FiberRefs when
 *   acquiring and diffs and patches them twice when releasing, which is most of what interrupting an
 *   open stream cost.
 * - `fromScopedPull` (`fromScopedOpen` with a result): a stream whose state a scoped effect sets up
 *   on the first pull, torn down when the stream ends however it ends. `Stream.unwrapScoped` nests a
 *   scoped stream in a flattened one, two more channel executors for every open stream.
 * And the consumers that run such a stream without its channel (`forEachPulled`, `runToResult`).
 */
import { Channel, type Chunk, Effect, Scope, Stream } from "effect"

/**
 * A resource acquired synchronously and released synchronously when the scope closes; nothing can
 * interrupt between the two.
 * @category constructors
 */
export const acquireSync = <A>(acquire: () => A, release: (a: A) => void): Effect.Effect<A, never, Scope.Scope> =>
  Effect.uninterruptible(
    Effect.flatMap(Effect.scope, (scope) => {
      const a = acquire()
      return Effect.as(
        Scope.addFinalizer(
          scope,
          Effect.sync(() => release(a))
        ),
        a
      )
    })
  )

/**
 * What a pull of `fromScopedPull` gives when the stream has ended (a pull gives a chunk, `End`, or
 * fails with the stream's error).
 * @category constants
 */
export const End: unique symbol = Symbol.for("umg/adapters/LeanStream/End")
export type End = typeof End

/** A pull that gives `End`, for a stream that has ended. @category constants */
export const ended: Effect.Effect<End> = Effect.succeed(End)

/** One pull of a stream: the next chunk, `End`, or the stream's failure. @category models */
export type Pull<A, E> = Effect.Effect<Chunk.Chunk<A> | End, E>

/**
 * The stream of what `pull` gives, `pull` being made by `setup` when the stream is first pulled, in a
 * scope of its own that closes (with the stream's exit) when the stream ends, fails or is
 * interrupted — during `setup` too. `pull` gives a chunk, or `End` to end; its failure fails the stream.
 * `fromScopedOpen` without a result.
 * @category constructors
 */
export const fromScopedPull = <A, E, E2, R>(
  setup: Effect.Effect<Pull<A, E>, E2, Scope.Scope | R>
): Stream.Stream<A, E | E2, Exclude<R, Scope.Scope>> => fromScopedOpen(Effect.map(setup, (pull) => ({ pull, result: Effect.void })))

/** What the setup of a `fromScopedOpen` stream gives: its pull, and its result once it has ended. @category models */
export interface Opened<A, E, Z> {
  readonly pull: Pull<A, E>
  /** The stream's result, read once its pull has given `End`; fails when there is none to give. */
  readonly result: Effect.Effect<Z, E>
}

const OpenTypeId: unique symbol = Symbol.for("umg/adapters/LeanStream/Open")

/**
 * A `fromScopedOpen` stream: besides its elements, a result once it has ended — a streaming call's
 * final answer, folded as its events went by — which `runToResult` gives. It is a `Stream` of its
 * elements like any other; transforming it gives a plain stream, without the result.
 * @category models
 */
export interface ResultStream<A, E, Z, R = never> extends Stream.Stream<A, E, R> {
  readonly [OpenTypeId]: Effect.Effect<Opened<A, E, Z>, E, R | Scope.Scope>
}

/**
 * The stream of what the pull `open` makes gives, `open` running when the stream is first pulled, in
 * a scope of its own that closes (with the stream's exit) when the stream ends, fails or is
 * interrupted — during `open` too. The pull gives a chunk, or `End` to end; its failure fails the
 * stream. `open` also gives the stream's result, for `runToResult`.
 *
 * The stream is one channel that runs the pull and writes its chunk, again and again: measured
 * against `Stream.repeatEffectChunkOption` (which maps every pull's chunk into an `Option` of a pair,
 * catches its failure to tell the end from an error and unwraps a channel made for that one pull),
 * about 0.5 µs less per pull of the ~4 µs a pull costs a `Stream.runForEach` consumer. umg's own
 * consumers (`Consume.ts`) run it without the channel (`forEachPulled`, `runToResult`).
 * @category constructors
 */
export const fromScopedOpen = <A, E, Z, E2, R>(
  open: Effect.Effect<Opened<A, E, Z>, E2, Scope.Scope | R>
): ResultStream<A, E | E2, Z, Exclude<R, Scope.Scope>> => {
  const setup = Effect.map(open, (opened) => opened.pull)
  const stream = Stream.suspend(() => {
    let scope: Scope.CloseableScope | undefined
    // The scope exists before `setup` runs, so an interruption during `setup` still closes it.
    const first = Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Scope.make(), (made) => {
        scope = made
        return restore(Scope.extend(setup, made))
      })
    )
    const loopOf = (pull: Pull<A, E>) => {
      const loop: Channel.Channel<Chunk.Chunk<A>, unknown, E, unknown, void, unknown> = Channel.flatMap(Channel.fromEffect(pull), (out) =>
        out === End ? Channel.void : Channel.flatMap(Channel.write(out), () => loop)
      )
      return loop
    }
    return Stream.fromChannel(
      Channel.ensuringWith(Channel.flatMap(Channel.fromEffect(first), loopOf), (exit) => (scope === undefined ? Effect.void : Scope.close(scope, exit)))
    )
  })
  return Object.assign(stream, { [OpenTypeId]: open as Effect.Effect<Opened<A, E | E2, Z>, E | E2, Exclude<R, Scope.Scope> | Scope.Scope> })
}

/** The `open` of a `fromScopedOpen` stream; `undefined` for any other stream. */
const openOf = <A, E, Z, R>(stream: Stream.Stream<A, E, R>): Effect.Effect<Opened<A, E, Z>, E, R | Scope.Scope> | undefined =>
  (stream as Partial<ResultStream<A, E, Z, R>>)[OpenTypeId]

/**
 * `f` run on each chunk of a `fromScopedOpen` stream, in order, until it ends, then its result: what
 * `forEachPulled` does, ending with the result.
 * @category destructors
 */
export const runToResult = <A, E, Z, R, E2, R2>(
  stream: ResultStream<A, E, Z, R>,
  f: (chunk: Chunk.Chunk<A>) => Effect.Effect<unknown, E2, R2>
): Effect.Effect<Z, E | E2, R | R2> => {
  const open = openOf<A, E, Z, R>(stream)
  if (open === undefined) return Effect.dieMessage("runToResult: the stream has no result (it was not made by fromScopedOpen, or it was transformed)")
  return withOwnScope(open, ({ pull, result }) => pullToEnd(pull, f, result))
}

/**
 * `f` run on each chunk of a `fromScopedPull` stream, in order, until it ends, in the caller's own
 * fiber: the same stream — `setup` in a scope of its own, closed with the run's exit however it ends,
 * `pull` until `End` — without its channel, and so without a channel executor or a sink around it.
 * `undefined` for any other stream (one made otherwise, or a `fromScopedPull` stream transformed).
 * A `fromScopedOpen` stream's result is left unread.
 * @category destructors
 */
export const forEachPulled = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (chunk: Chunk.Chunk<A>) => Effect.Effect<unknown, E2, R2>
): Effect.Effect<void, E | E2, R | R2> | undefined => {
  const open = openOf(stream)
  if (open === undefined) return undefined
  return withOwnScope(open, ({ pull }) => pullToEnd(pull, f, Effect.void))
}

/** `f` on each chunk `pull` gives, one after another, then `atEnd` once it gives `End`. */
const pullToEnd = <A, E, E2, R2, Z, E3>(
  pull: Pull<A, E>,
  f: (chunk: Chunk.Chunk<A>) => Effect.Effect<unknown, E2, R2>,
  atEnd: Effect.Effect<Z, E3>
): Effect.Effect<Z, E | E2 | E3, R2> => {
  const loop: Effect.Effect<Z, E | E2 | E3, R2> = Effect.flatMap(pull, (out) => (out === End ? atEnd : Effect.flatMap(f(out), () => loop)))
  return loop
}

/**
 * `use` of what `open` gives, `open` run in a scope of its own that closes with the exit of both:
 * what `open` acquires lasts until `use` ends, however it ends. Only `open` gets that scope; `use`
 * runs in the caller's context, so a `Scope` it needs is the caller's (as a step of
 * `Stream.runForEach` gets it).
 * @category combinators
 */
export const withOwnScope = <A, E, R, B, E2, R2>(
  open: Effect.Effect<A, E, R>,
  use: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, Exclude<R, Scope.Scope> | R2> =>
  Effect.acquireUseRelease(
    Scope.make(),
    (scope) => Effect.flatMap(Scope.extend(open, scope), use),
    (scope, exit) => Scope.close(scope, exit)
  )
