/**
 * The Effect side of one AI SDK provider instance: one `ManagedRuntime` of `Gateway.layer(config)`.
 * A call runs as a Promise with its failure mapped to the AI SDK's errors; a stream is one fiber from
 * the request to the connection's close, filling a web `ReadableStream` as its reader asks (cancelling
 * it closes the connection); `dispose` interrupts every call in flight and frees the runtime.
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import type { CallOptions, ResponseInfo } from "../adapters/CallOptions.js"
import { Gateway, type GatewayService } from "../adapters/Gateway.js"
import type { GatewayConfigInput } from "../adapters/GatewayConfig.js"
import { type CallSite, toSdkError } from "./Errors.js"

/** What the AI SDK passes with every call: its signal and extra headers. @category models */
export interface SdkCallSettings {
  readonly abortSignal?: AbortSignal | undefined
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined
}

/** A call's options for umg and the meta of its answer once it came. @category models */
export interface PreparedCall {
  readonly options: CallOptions
  readonly signal: AbortSignal | undefined
  readonly response: () => ResponseInfo | undefined
}

/**
 * How a stream's chunks become parts: `first` before any, `emit` per chunk (giving each of its parts to
 * `enqueue`, straight onto the stream), `onError` the last parts, for a failure while reading.
 * @category models
 */
export interface StreamParts<A, P> {
  readonly first: () => ReadonlyArray<P>
  readonly emit: (chunk: Arr.NonEmptyReadonlyArray<A>, enqueue: (part: P) => void) => void
  readonly onError: (error: unknown) => ReadonlyArray<P>
}

/** The runtime a provider's models share. @category models */
export interface ProviderRuntime {
  /** The call's options: the call's signal, its headers, and `onResponse` kept. */
  readonly prepare: (settings: SdkCallSettings) => PreparedCall
  /** Runs a call on the gateway; rejects with the AI SDK error of its failure. */
  readonly run: <A, E>(site: CallSite, f: (gateway: GatewayService) => Effect.Effect<A, E>) => Promise<A>
  /**
   * Opens a stream on the gateway: resolves once its answer's headers arrived (rejects, mapped, when
   * opening failed), giving a `ReadableStream` of `emit`'s parts; a failure while reading ends it with
   * the parts `onError` makes. The chunks are read while the reader's queue has room (one chunk beyond it at
   * most). Cancelling the stream closes the connection.
   */
  readonly stream: <A, E, P>(
    site: CallSite,
    open: (gateway: GatewayService) => Effect.Effect<Pull.Pull<Arr.NonEmptyReadonlyArray<A>, E>, E, Scope.Scope>,
    parts: StreamParts<A, P>
  ) => Promise<ReadableStream<P>>
  /** Aborts every call in flight, then frees the runtime. Calls made afterwards are aborted at once. */
  readonly dispose: () => Promise<void>
}

const headersOf = (
  headers: Readonly<Record<string, string | undefined>> | undefined
): Readonly<Record<string, string>> | undefined => {
  if (headers === undefined) return undefined
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value
  return Object.keys(out).length === 0 ? undefined : out
}

const failureOf = <E>(cause: Cause.Cause<E>): unknown => Cause.squash(cause)

const isAborted = (u: unknown): boolean =>
  typeof u === "object" && u !== null && (u as { readonly _tag?: unknown })._tag === "Aborted"

/**
 * A provider's runtime over `Gateway.layer(config)`.
 * @category constructors
 */
export const makeProviderRuntime = (config: GatewayConfigInput): ProviderRuntime => {
  const runtime = ManagedRuntime.make(Gateway.layer(config))
  const disposing = new AbortController()
  const withGateway = <A, E, R>(f: (g: GatewayService) => Effect.Effect<A, E, R>) => Effect.flatMap(Gateway, f)

  // The call's own signal goes to umg; the provider's disposal interrupts the call's fiber instead
  // (`run`, `stream`), which closes its connection as an abort does, at no cost to a call without one.
  const prepare = (settings: SdkCallSettings): PreparedCall => {
    const signal = settings.abortSignal
    let response: ResponseInfo | undefined
    const headers = headersOf(settings.headers)
    return {
      signal,
      response: () => response,
      options: {
        ...(signal === undefined ? {} : { signal }),
        ...(headers === undefined ? {} : { headers }),
        onResponse: (info) => {
          response = info
        }
      }
    }
  }

  // Once disposed, a call fails as an aborted one: with the disposal's reason, the runtime left alone.
  const disposedError = (): unknown => (disposing.signal.aborted ? disposing.signal.reason : undefined)

  const run = async <A, E>(site: CallSite, f: (g: GatewayService) => Effect.Effect<A, E>): Promise<A> => {
    if (disposing.signal.aborted) throw disposedError()
    const exit = await runtime.runPromiseExit(withGateway(f), { signal: disposing.signal })
    if (Exit.isSuccess(exit)) return exit.value
    throw disposedError() ?? toSdkError(failureOf(exit.cause), site)
  }

  // One fiber per stream, from the request to the scope's close: it opens the call (resolving the
  // promise once the answer's headers arrived), then pulls chunk after chunk onto the stream while the
  // reader's queue has room, waiting for the reader's next pull when it has not.
  const stream = <A, E, P>(
    site: CallSite,
    open: (g: GatewayService) => Effect.Effect<Pull.Pull<Arr.NonEmptyReadonlyArray<A>, E>, E, Scope.Scope>,
    { first, emit, onError }: StreamParts<A, P>
  ): Promise<ReadableStream<P>> => {
    if (disposing.signal.aborted) return Promise.reject(disposedError())
    return new Promise((resolve, reject) => {
      let opened = false
      let cancelled = false
      let wake: (() => void) | undefined
      let controller: ReadableStreamDefaultController<P> | undefined
      const enqueue = (part: P) => controller!.enqueue(part)
      const readable = new ReadableStream<P>({
        start: (c) => {
          controller = c
          for (const part of first()) c.enqueue(part)
        },
        pull: () => {
          const resume = wake
          wake = undefined
          resume?.()
        },
        cancel: () => {
          cancelled = true
          return Effect.runPromise(Fiber.interrupt(fiber))
        }
      })
      // The reader's demand: its next pull, once its queue is full.
      const demand = Effect.callback<void>((resume) => {
        wake = () => resume(Effect.void)
        return Effect.sync(() => {
          wake = undefined
        })
      })
      const reading = (pull: Pull.Pull<Arr.NonEmptyReadonlyArray<A>, E>): Effect.Effect<never, E | Cause.Done> => {
        const next: Effect.Effect<never, E | Cause.Done> = Effect.flatMap(pull, (chunk) => {
          emit(chunk, enqueue)
          return controller!.desiredSize! > 0 ? next : Effect.flatMap(demand, () => next)
        })
        return next
      }
      const fiber = runtime.runFork(
        Effect.scoped(
          Effect.flatMap(withGateway(open), (pull) => {
            opened = true
            resolve(readable)
            return reading(pull)
          })
        ),
        { signal: disposing.signal }
      )
      fiber.addObserver((exit) => {
        if (!opened)
          return reject(disposedError() ?? toSdkError(failureOf(Exit.isFailure(exit) ? exit.cause : Cause.empty), site))
        if (cancelled) return
        if (disposing.signal.aborted) return controller!.error(disposedError())
        if (Exit.isFailure(exit) && !Pull.isDoneCause(exit.cause)) {
          const failure = failureOf(exit.cause)
          const error = toSdkError(failure, site)
          // An abort ends the stream as `fetch`'s body does: with the abort error, not an error part.
          if (isAborted(failure)) return controller!.error(error)
          for (const part of onError(error)) controller!.enqueue(part)
        }
        controller!.close()
      })
    })
  }

  const dispose = async (): Promise<void> => {
    disposing.abort(new DOMException("The umg provider was disposed.", "AbortError"))
    await runtime.dispose()
  }

  return { prepare, run, stream, dispose }
}
