/**
 * `createGateway(config)`: the Observable face of the gateway — one `ManagedRuntime` built from
 * `Gateway.layer(config)`, and the same groups as the Effect `Gateway` with each call a cold
 * Observable (suffix `$`) running the service's Effect or Stream on that runtime: unsubscribing
 * interrupts the fiber (the request, the poll, the socket), and disposing interrupts every fiber in
 * flight, each subscriber getting `GatewayDisposed`.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Stream from "effect/Stream"
import { Gateway, type GatewayService } from "../adapters/Gateway.js"
import type { GatewayConfigInput } from "../adapters/GatewayConfig.js"
import type { LiveClientMessage, LiveConnectOptions } from "../adapters/groups/Live.js"
import type { RealtimeClientEvent, RealtimeConnectOptions } from "../adapters/groups/Realtime.js"
import type { LiveServerMessage } from "../core/realtime/Live.js"
import type { RealtimeServerEvent } from "../core/realtime/Realtime.js"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import type { RequestError, SessionError, SessionOpenError } from "../core/errors/GatewayError.js"
import { fromEffect, fromEmitting, fromRegistration, fromStreamOf, type Runner } from "./Bridge.js"
import { embedManyOptions, type EmbedManyRxOptions } from "./embedMany.js"
import { GatewayDisposed } from "./GatewayDisposed.js"
import type { MapConcurrentEvent } from "./mapConcurrent.js"
import { fromScopedSession, type RxSession } from "./RxSession.js"
import type { TypedObservable } from "./TypedObservable.js"
import { makeVideoGroup, type RxVideoGroup } from "./videoGroup.js"

// `any` here only matches function shapes at the type level; no value is typed with it.
type Args<F> = F extends (...args: infer P) => any ? P : never
type Value<F> = F extends (...args: any) => Effect.Effect<infer A, any, any>
  ? A
  : F extends (...args: any) => Stream.Stream<infer A, any, any>
    ? A
    : never
type Failure<F> = F extends (...args: any) => Effect.Effect<any, infer E, any>
  ? E
  : F extends (...args: any) => Stream.Stream<any, infer E, any>
    ? E
    : never
/**
 * The Observable form of one Effect or Stream call: same arguments, its values, and its error union
 * plus `GatewayDisposed` (the gateway disposed under it).
 * @category models
 */
export type Rx<F> = (...args: Args<F>) => TypedObservable<Value<F>, Failure<F> | GatewayDisposed>

type S = GatewayService

/** The gateway's calls as cold Observables, grouped like the Effect `Gateway`. @category models */
export interface RxGateway {
  readonly models: { readonly list$: Rx<S["models"]["list"]>; readonly has$: Rx<S["models"]["has"]> }
  readonly messages: {
    readonly create$: Rx<S["messages"]["create"]>
    /** Decoded events; pipe through `textDeltas()`, `accumulateMessage()`, `toolCalls()`. */
    readonly stream$: Rx<S["messages"]["stream"]>
    readonly countTokens$: Rx<S["messages"]["countTokens"]>
  }
  readonly native: { readonly generate$: Rx<S["native"]["generate"]>; readonly stream$: Rx<S["native"]["stream"]> }
  readonly chat: { readonly create$: Rx<S["chat"]["create"]>; readonly stream$: Rx<S["chat"]["stream"]> }
  readonly responses: { readonly create$: Rx<S["responses"]["create"]>; readonly stream$: Rx<S["responses"]["stream"]> }
  readonly embeddings: {
    readonly create$: Rx<S["embeddings"]["create"]>
    /** `embeddings.embedMany`'s events: one request per text, results with their index and progress, 429s met by adapting. */
    readonly embedMany$: (
      inputs: ReadonlyArray<string>,
      options: EmbedManyRxOptions
    ) => TypedObservable<MapConcurrentEvent<string, Float32Array>, RequestError | InvalidRequest | GatewayDisposed>
  }
  readonly rerank: { readonly create$: Rx<S["rerank"]["create"]> }
  readonly speech: { readonly create$: Rx<S["speech"]["create"]>; readonly stream$: Rx<S["speech"]["stream"]> }
  readonly images: { readonly generate$: Rx<S["images"]["generate"]> }
  readonly video: RxVideoGroup
  readonly realtime: {
    /**
     * Emits the session at once (state `connecting`); unsubscribing closes the socket. Errors as the
     * session's `events$` do, or with what opening it failed with.
     */
    readonly connect$: (
      options: RealtimeConnectOptions | string
    ) => TypedObservable<
      RxSession<RealtimeServerEvent, RealtimeClientEvent, SessionError | GatewayDisposed>,
      SessionOpenError | SessionError | InvalidRequest | GatewayDisposed
    >
  }
  readonly live: {
    /** Emits the session at once; it opens after the server's `setupComplete`; unsubscribing closes the socket. */
    readonly connect$: (
      options: LiveConnectOptions | string,
      setup?: Readonly<Record<string, unknown>>
    ) => TypedObservable<
      RxSession<LiveServerMessage, LiveClientMessage, SessionError | GatewayDisposed>,
      SessionOpenError | SessionError | InvalidRequest | GatewayDisposed
    >
  }
  readonly platform: {
    readonly login$: Rx<S["platform"]["login"]>
    readonly textToVideo$: Rx<S["platform"]["textToVideo"]>
    readonly anyShootEasy$: Rx<S["platform"]["anyShootEasy"]>
    readonly anyShootAdvanced$: Rx<S["platform"]["anyShootAdvanced"]>
  }
  /**
   * Interrupts every call in flight (their requests aborted, sockets closed; each subscriber gets
   * `GatewayDisposed`), then frees the runtime. Calls made afterwards fail with `GatewayDisposed`.
   */
  readonly dispose: () => Promise<void>
}

/**
 * Builds the Rx gateway client. Nothing connects until a call is subscribed; every subscription is
 * its own request (cold), and errors are the typed instances the Effect API fails with.
 * @category constructors
 */
export const createGateway = (config: GatewayConfigInput): RxGateway => {
  const runtime = ManagedRuntime.make(Gateway.layer(config))
  // Every fiber in flight, so that dispose can interrupt them (a ManagedRuntime does not), and every
  // poll registered with the gateway's shared driver (not a fiber), so that dispose can stop it.
  const live = new Set<Fiber.Fiber<unknown, unknown>>()
  const registered = new Set<(error: unknown) => void>()
  // Set at once when disposing starts: interrupting a fiber ends it (and calls its observers) at once.
  let closed = false
  let disposing: Promise<void> | undefined
  const disposed = () => new GatewayDisposed({ message: "the gateway was disposed" })
  const run: Runner<Gateway> = Object.assign(
    <A, E>(effect: Effect.Effect<A, E, Gateway>): Fiber.Fiber<A, E> => {
      if (closed) return Effect.runFork(Effect.fail(disposed())) as unknown as Fiber.Fiber<A, E>
      const fiber = runtime.runFork(effect)
      live.add(fiber)
      fiber.addObserver(() => live.delete(fiber))
      return fiber
    },
    {
      interrupted: () => (closed ? disposed() : undefined),
      track: (stop: (error: unknown) => void) => {
        registered.add(stop)
        return () => void registered.delete(stop)
      }
    }
  )
  // Each adds `GatewayDisposed`: what `run` fails with once disposing, and what `interrupted` gives then.
  const call = <A, E>(f: (g: S) => Effect.Effect<A, E>): TypedObservable<A, E | GatewayDisposed> =>
    fromEffect(run, Effect.flatMap(Gateway, f))
  const emitting = <A, E>(
    f: (g: S, emit: (a: A) => void) => Effect.Effect<unknown, E>
  ): TypedObservable<A, E | GatewayDisposed> =>
    fromEmitting(run, (emit: (a: A) => void) => Effect.flatMap(Gateway, (g) => f(g, emit)))
  const stream = <A, E>(f: (g: S) => Stream.Stream<A, E>): TypedObservable<A, E | GatewayDisposed> =>
    fromStreamOf(run, Effect.map(Gateway, f))
  return {
    models: { list$: (options) => call((g) => g.models.list(options)), has$: (id) => call((g) => g.models.has(id)) },
    messages: {
      create$: (body) => call((g) => g.messages.create(body)),
      stream$: (body) => stream((g) => g.messages.stream(body)),
      countTokens$: (body) => call((g) => g.messages.countTokens(body))
    },
    native: {
      generate$: (request) => call((g) => g.native.generate(request)),
      stream$: (request) => stream((g) => g.native.stream(request))
    },
    chat: {
      create$: (body) => call((g) => g.chat.create(body)),
      stream$: (body) => stream((g) => g.chat.stream(body))
    },
    responses: {
      create$: (body) => call((g) => g.responses.create(body)),
      stream$: (body) => stream((g) => g.responses.stream(body))
    },
    embeddings: {
      create$: (body) => call((g) => g.embeddings.create(body)),
      embedMany$: (inputs, options) =>
        emitting((g, emit: (event: MapConcurrentEvent<string, Float32Array>) => void) =>
          g.embeddings.embedMany(embedManyOptions(inputs, options, emit))
        )
    },
    rerank: { create$: (body) => call((g) => g.rerank.create(body)) },
    speech: {
      create$: (body) => call((g) => g.speech.create(body)),
      stream$: (body) => stream((g) => g.speech.stream(body))
    },
    images: { generate$: (...args) => call((g) => g.images.generate(...args)) },
    video: makeVideoGroup(call, emitting, (f) =>
      fromRegistration(run, (emit, end) => Effect.flatMap(Gateway, (g) => f(g, emit, end)))
    ),
    realtime: {
      connect$: (options) =>
        fromScopedSession(
          run,
          "realtime",
          Effect.flatMap(Gateway, (g) => g.realtime.connect(typeof options === "string" ? { model: options } : options))
        )
    },
    live: {
      connect$: (options, setup) =>
        fromScopedSession(
          run,
          "live",
          Effect.flatMap(Gateway, (g) =>
            g.live.connect(
              typeof options === "string" ? { model: options, ...(setup === undefined ? {} : { setup }) } : options
            )
          )
        )
    },
    platform: {
      login$: () => call((g) => g.platform.login()),
      textToVideo$: (body) => call((g) => g.platform.textToVideo(body)),
      anyShootEasy$: (body) => call((g) => g.platform.anyShootEasy(body)),
      anyShootAdvanced$: (body) => call((g) => g.platform.anyShootAdvanced(body))
    },
    dispose: () =>
      (disposing ??= (async () => {
        closed = true
        for (const stop of [...registered]) stop(disposed())
        registered.clear()
        await Effect.runPromise(Fiber.interruptAll([...live]))
        await runtime.dispose()
      })())
  }
}
