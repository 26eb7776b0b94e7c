/**
 * A WebSocket session (realtime or live) as Observables: connecting on subscribe, server events as
 * `events$`, the lifecycle as `state$`, validated `send`, and the socket closed on unsubscribe.
 */
import type { Scope } from "effect"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { Observable, ReplaySubject, Subject } from "rxjs"
import { TransportError, type Family } from "../core/errors/GatewayError.js"
import { interruptionError, type Runner } from "./Bridge.js"
import type { TypedObservable } from "./TypedObservable.js"

/** Where a session is in its life; `closed` says who ended it and, when known, with which code. @category models */
export type SessionState =
  | { readonly status: "connecting" }
  | { readonly status: "open" }
  | { readonly status: "closed"; readonly by: "client" | "server"; readonly code?: number; readonly error?: unknown }

/** A live session; `E`: what its events may fail with. @category models */
export interface RxSession<Server, Client, E = unknown> {
  /** The server's events, decoded, in order (hot: subscribe when the session is emitted to see them all). */
  readonly events$: TypedObservable<Server, E>
  /**
   * `connecting`, `open`, then `closed`; replays the current state to each new subscriber, and once the
   * session has ended, its final `closed` state and then `complete`.
   */
  readonly state$: Observable<SessionState>
  /**
   * Validates the client event with the core and sends it (once open, when still connecting).
   * Eager: sending is an action, so it happens whether or not the promise is awaited; it rejects with
   * `InvalidRequest`, with why the session failed to open (a refused upgrade, `AuthenticationError`, …)
   * when it never opened, or else a `TransportError` (closed). The promise is marked handled, so a
   * fire-and-forget `void session.send(...)` never surfaces as an unhandled rejection.
   */
  readonly send: (event: Client) => Promise<void>
}

/** The adapter's session, as far as this wrapper needs it; `E`: what its events may fail with. */
interface ScopedSession<Server, Client, E> {
  readonly events: Stream.Stream<Server, E>
  readonly send: (event: Client) => Effect.Effect<void, unknown>
  /** The code of an orderly close, when the socket knows it. */
  readonly closeCode?: Effect.Effect<Option.Option<number>>
}

const failureOf = (cause: Cause.Cause<unknown>): unknown =>
  Option.getOrElse(Cause.findErrorOption(cause), () => Cause.squash(cause))

/** The same promise, marked handled: it still rejects for whoever awaits it, never as an unhandled rejection. */
const handled = <A>(promise: Promise<A>): Promise<A> => {
  promise.catch(() => {})
  return promise
}

/**
 * A cold Observable of one session: subscribing connects and emits the session at once (state
 * `connecting`); it completes when the server ends the session normally, errors with the typed
 * failure (a refused upgrade, a `TransportError` carrying the close code), and unsubscribing closes
 * the socket (code 1000). Typed errors: `C` (opening) or `E` (the events), as `events$` delivers `E`;
 * a fiber interrupted by someone else gives the runner's `interrupted` error to both.
 * @category constructors
 */
export const fromScopedSession = <Server, Client, E, C, R>(
  run: Runner<R>,
  family: Family,
  connect: Effect.Effect<ScopedSession<Server, Client, E>, C, R | Scope.Scope>
): TypedObservable<RxSession<Server, Client, E>, C | E> =>
  new Observable<RxSession<Server, Client, E>>((subscriber) => {
    // A replay of the last state (not a BehaviorSubject): once completed it still gives late subscribers `closed`.
    const state = new ReplaySubject<SessionState>(1)
    let current: SessionState = { status: "connecting" }
    const setState = (next: SessionState) => {
      current = next
      state.next(next)
    }
    state.next(current)
    const events = new Subject<Server>()
    let open: ScopedSession<Server, Client, E> | undefined
    let closing = false
    const program = Effect.scoped(
      Effect.gen(function* () {
        const session = yield* connect
        open = session
        setState({ status: "open" })
        yield* Stream.runForEach(session.events, (event) => Effect.sync(() => events.next(event)))
        return session.closeCode === undefined ? Option.none<number>() : yield* session.closeCode
      })
    )
    const fiber = run(program)
    // Why a send cannot be delivered: the failure to open when the session never opened, else "closed".
    const undeliverable = (s: SessionState): unknown =>
      open === undefined && s.status === "closed" && s.error !== undefined
        ? s.error
        : new TransportError({ family, reason: "closed", message: "the session is closed" })
    const sendNow = (session: ScopedSession<Server, Client, E>, event: Client) =>
      new Promise<void>((resolve, reject) =>
        run(session.send(event) as Effect.Effect<void, unknown, R>).addObserver((exit) =>
          Exit.isSuccess(exit) ? resolve() : reject(failureOf(exit.cause))
        )
      )
    const deliver = (event: Client): Promise<void> => {
      if (current.status === "open" && open !== undefined) return sendNow(open, event)
      if (current.status === "closed") return Promise.reject(undeliverable(current))
      // Still connecting: send once open, or reject when the session ends first.
      return new Promise<void>((resolve, reject) => {
        const watch = state.subscribe((s) => {
          if (s.status === "open" && open !== undefined) sendNow(open, event).then(resolve, reject)
          else if (s.status === "closed") reject(undeliverable(s))
          else return
          queueMicrotask(() => watch.unsubscribe())
        })
      })
    }
    const send = (event: Client): Promise<void> => handled(deliver(event))
    fiber.addObserver((exit) => {
      if (Exit.isSuccess(exit)) {
        setState({
          status: "closed",
          by: "server",
          ...Option.match(exit.value, { onNone: () => ({}), onSome: (code) => ({ code }) })
        })
        events.complete()
        subscriber.complete()
      } else if (Cause.hasInterruptsOnly(exit.cause) && closing) {
        setState({ status: "closed", by: "client", code: 1000 })
        events.complete()
      } else if (Cause.hasInterruptsOnly(exit.cause)) {
        // Interrupted by someone else (the gateway disposed): the socket is closed; say so, never go silent.
        const error = interruptionError(run, exit.cause)
        setState({ status: "closed", by: "client", code: 1000, error })
        events.error(error)
        subscriber.error(error)
      } else {
        const error = failureOf(exit.cause)
        const code = error instanceof TransportError ? error.closeCode : undefined
        setState({
          status: "closed",
          by: closing ? "client" : "server",
          ...(code === undefined ? {} : { code }),
          error
        })
        events.error(error)
        subscriber.error(error)
      }
      state.complete()
    })
    subscriber.next({ events$: events.asObservable(), state$: state.asObservable(), send })
    return () => {
      closing = true
      if (fiber.pollUnsafe() === undefined) fiber.interruptUnsafe()
    }
  })
