/**
 * `TypedObservable<A, E>`: an RxJS `Observable` that also names, for the type checker only, the
 * errors it can deliver. RxJS types an error as `any`, so umg/rx carries the Effect call's error
 * union alongside, for `ObservableError` to read back.
 */
import type { Observable } from "rxjs"

/**
 * An Observable of `A` whose `error` is an `E` (or a defect: a bug, never a typed failure). `_errors`
 * exists only in the type: it is never set, and operators (`pipe`) return plain Observables.
 * @category models
 */
export interface TypedObservable<A, E> extends Observable<A> {
  /** Type-level only, never set: the typed failures this Observable may deliver to `error`. */
  readonly _errors?: E
}

/**
 * The typed failures an Observable of umg/rx may deliver (`unknown` for an Observable that does not
 * say), e.g. `ObservableError<ReturnType<RxGateway["chat"]["create$"]>>`.
 * @category models
 */
export type ObservableError<O> = O extends { readonly _errors?: infer E } ? E : unknown
