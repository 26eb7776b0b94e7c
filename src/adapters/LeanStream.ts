/**
 * The two scoped constructors the runtime's per-stream paths use, each measured cheaper than its
 * Effect counterpart with 10,000 streams open at once (`bench/streams-many.bench.ts`):
 * - `acquireSync`: a resource taken and released synchronously (a socket's listeners, a timer), its
 *   release a plain finalizer of the scope. `Effect.acquireRelease` records the fiber's FiberRefs when
 *   acquiring and diffs and patches them twice when releasing, which is most of what interrupting an
 *   open stream cost.
 * - `fromScopedPull`: a stream whose state a scoped effect sets up on the first pull, torn down when
 *   the stream ends however it ends. `Stream.unwrapScoped` nests a scoped stream in a flattened one,
 *   two more channel executors for every open stream.
 */
import { type Chunk, Effect, Option, Scope, Stream } from "effect"

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
 * The stream of what `pull` gives, `pull` being made by `setup` when the stream is first pulled, in a
 * scope of its own that closes (with the stream's exit) when the stream ends, fails or is
 * interrupted — during `setup` too. `pull` follows `Stream.repeatEffectChunkOption`: a chunk, or
 * `None` to end, or `Some(error)` to fail.
 * @category constructors
 */
export const fromScopedPull = <A, E, E2, R>(
  setup: Effect.Effect<Effect.Effect<Chunk.Chunk<A>, Option.Option<E>>, E2, Scope.Scope | R>
): Stream.Stream<A, E | E2, Exclude<R, Scope.Scope>> =>
  Stream.suspend(() => {
    let scope: Scope.CloseableScope | undefined
    let pull: Effect.Effect<Chunk.Chunk<A>, Option.Option<E | E2>> | undefined
    // The scope exists before `setup` runs, so an interruption during `setup` still closes it.
    const first = Effect.flatMap(
      Effect.mapError(
        Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(Scope.make(), (made) => {
            scope = made
            return restore(Scope.extend(setup, made))
          })
        ),
        (error) => Option.some<E | E2>(error)
      ),
      (made) => {
        pull = made
        return made
      }
    )
    return Stream.ensuringWith(
      Stream.repeatEffectChunkOption(Effect.suspend(() => pull ?? first)),
      (exit) => (scope === undefined ? Effect.void : Scope.close(scope, exit))
    )
  })
