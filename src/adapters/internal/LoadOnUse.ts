/**
 * A value made from a module that is here already (Node) or imported on the first call that needs it
 * (browsers: a chunk a page that never makes the call never downloads).
 *
 * A module that is here makes the value on the first call, synchronously, and every call goes straight
 * to it, as if there were no loader. A module still to import makes the first calls wait for it, once;
 * later calls go straight to the value. An import that fails (a chunk the browser could not fetch) is
 * the call's defect, and the next call tries again.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** Calls on a value loaded on first use. @category models */
export interface LoadOnUse<G> {
  /** `f`'s effect on the value, loading it first when it has not loaded yet. */
  readonly effect: <A, E, R>(f: (loaded: G) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** `f`'s stream on the value, loading it first (when the stream starts) when it has not loaded yet. */
  readonly stream: <A, E, R>(f: (loaded: G) => Stream.Stream<A, E, R>) => Stream.Stream<A, E, R>
}

/**
 * The value `make` gives from the module `load` gives (now, or once its promise resolves).
 * @category constructors
 */
export const loadOnUse = <M, G>(load: () => M | Promise<M>, make: (module: M) => G): LoadOnUse<G> => {
  let loaded: G | undefined
  let loading: Promise<G> | undefined
  const get = (): G | Promise<G> => {
    if (loaded !== undefined) return loaded
    if (loading !== undefined) return loading
    const module = load()
    if (!(module instanceof Promise)) return (loaded = make(module))
    return (loading = module.then(
      (value) => (loaded ??= make(value)),
      (error: unknown) => {
        loading = undefined
        throw error
      }
    ))
  }
  const effect = <A, E, R>(f: (value: G) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    loaded !== undefined
      ? f(loaded)
      : Effect.suspend(() => {
          const value = get()
          return value instanceof Promise
            ? Effect.flatMap(
                Effect.promise(() => value),
                f
              )
            : f(value)
        })
  return {
    effect,
    stream: (f) => (loaded !== undefined ? f(loaded) : Stream.unwrap(effect((value) => Effect.succeed(f(value)))))
  }
}
