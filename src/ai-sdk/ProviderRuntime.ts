/**
 * The Effect side of one AI SDK provider instance: one `ManagedRuntime` of `Gateway.layer(config)`.
 * A call runs as a Promise with its failure mapped to the AI SDK's errors, a stream opens into a web
 * `ReadableStream` pulled chunk by chunk (cancelling it closes the connection), and `dispose` aborts
 * every call in flight and frees the runtime.
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
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
  readonly signal: AbortSignal
  readonly response: () => ResponseInfo | undefined
}

/**
 * How a stream's chunks become parts: `first` before any, `emit` per chunk (giving each of its parts to
 * `enqueue`, straight onto the stream), `onError` for a failure while reading.
 * @category models
 */
export interface StreamParts<A, P> {
  readonly first: () => ReadonlyArray<P>
  readonly emit: (chunk: Arr.NonEmptyReadonlyArray<A>, enqueue: (part: P) => void) => void
  readonly onError: (error: unknown) => P
}

/** The runtime a provider's models share. @category models */
export interface ProviderRuntime {
  /** Aborted when the provider is disposed. */
  readonly signal: AbortSignal
  /** The call's options: the call's signal joined with the provider's, its headers, and `onResponse` kept. */
  readonly prepare: (settings: SdkCallSettings) => PreparedCall
  /** Runs a call on the gateway; rejects with the AI SDK error of its failure. */
  readonly run: <A, E>(site: CallSite, f: (gateway: GatewayService) => Effect.Effect<A, E>) => Promise<A>
  /**
   * Opens a stream on the gateway: resolves once its answer's headers arrived (rejects, mapped, when
   * opening failed), giving a `ReadableStream` of `emit`'s parts; a failure while reading becomes the
   * part `onError` makes. Cancelling the stream closes the connection.
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

  const prepare = (settings: SdkCallSettings): PreparedCall => {
    const signal =
      settings.abortSignal === undefined ? disposing.signal : AbortSignal.any([settings.abortSignal, disposing.signal])
    let response: ResponseInfo | undefined
    const headers = headersOf(settings.headers)
    return {
      signal,
      response: () => response,
      options: {
        signal,
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
    const exit = await runtime.runPromiseExit(withGateway(f))
    if (Exit.isSuccess(exit)) return exit.value
    throw disposedError() ?? toSdkError(failureOf(exit.cause), site)
  }

  const stream = async <A, E, P>(
    site: CallSite,
    open: (g: GatewayService) => Effect.Effect<Pull.Pull<Arr.NonEmptyReadonlyArray<A>, E>, E, Scope.Scope>,
    { first, emit, onError }: StreamParts<A, P>
  ): Promise<ReadableStream<P>> => {
    if (disposing.signal.aborted) throw disposedError()
    const scope = Scope.makeUnsafe()
    const opened = await runtime.runPromiseExit(Scope.provide(withGateway(open), scope))
    if (Exit.isFailure(opened)) {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      throw disposedError() ?? toSdkError(failureOf(opened.cause), site)
    }
    const pull = opened.value
    let closed = false
    const close = () => {
      if (closed) return Promise.resolve()
      closed = true
      return Effect.runPromise(Scope.close(scope, Exit.void))
    }
    let enqueue: (part: P) => void = () => {}
    return new ReadableStream<P>({
      start: (controller) => {
        enqueue = (part) => controller.enqueue(part)
        for (const part of first()) controller.enqueue(part)
      },
      pull: async (controller) => {
        const exit = disposing.signal.aborted ? undefined : await runtime.runPromiseExit(pull)
        if (closed) return
        if (exit !== undefined && Exit.isSuccess(exit)) return emit(exit.value, enqueue)
        await close()
        if (exit === undefined || disposing.signal.aborted) return controller.error(disposedError())
        if (!Pull.isDoneCause(exit.cause)) {
          const failure = failureOf(exit.cause)
          const error = toSdkError(failure, site)
          // An abort ends the stream as `fetch`'s body does: with the abort error, not an error part.
          if (isAborted(failure)) return controller.error(error)
          controller.enqueue(onError(error))
        }
        controller.close()
      },
      cancel: close
    })
  }

  const dispose = async (): Promise<void> => {
    disposing.abort(new DOMException("The umg provider was disposed.", "AbortError"))
    await runtime.dispose()
  }

  return { signal: disposing.signal, prepare, run, stream, dispose }
}
