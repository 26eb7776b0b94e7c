/**
 * `createGateway(config)`: the Observable face of the gateway, the Effect `Gateway`'s groups with each
 * call a cold Observable (suffix `$`). It builds one `ManagedRuntime` from `Gateway.layer(config)` and
 * runs each call's Effect or Stream on that runtime: unsubscribing interrupts the fiber (the request,
 * the poll, the socket), and disposing interrupts every fiber in flight, each subscriber getting
 * `GatewayDisposed`. The runtime also carries the logging options (`RxLogging`).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Stream from "effect/Stream"
import { Gateway, type GatewayService } from "../adapters/Gateway.js"
import type { CallOptions } from "../adapters/CallOptions.js"
import type { GatewayConfigInput } from "../adapters/GatewayConfig.js"
import type { LiveClientMessage, LiveConnectOptions } from "../adapters/groups/Live.js"
import type { RealtimeClientEvent, RealtimeConnectOptions } from "../adapters/groups/Realtime.js"
import type { LiveServerMessage, LiveSetupInput } from "../core/realtime/Live.js"
import type { RealtimeServerEvent } from "../core/realtime/Realtime.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import type { RequestError, SessionError, SessionOpenError, StreamError } from "../core/errors/GatewayError.js"
import { fromEffect, fromEmitting, fromRegistration, fromStreamOf, type Runner } from "./Bridge.js"
import { embedManyOptions, type EmbedManyRxOptions } from "./embedMany.js"
import { GatewayDisposed } from "./GatewayDisposed.js"
import { logLayer, type RxLogOptions } from "./RxLogging.js"
import type { MapConcurrentEvent } from "./mapConcurrent.js"
import { fromScopedSession, type RxSession } from "./RxSession.js"
import type { TypedObservable } from "./TypedObservable.js"
import type { RxRunTools } from "./runTools.js"
import type { ChatBodyInput } from "../core/text/chat/ChatBody.js"
import type { ChatCompletion } from "../core/text/chat/ChatResponse.js"
import type { MessagesBodyInput } from "../core/text/messages/Messages.js"
import type { Message } from "../core/text/messages/MessagesResponse.js"
import type { GenerateContentResponse } from "../core/text/native/NativeResponse.js"
import type { ResponsesBodyInput } from "../core/text/responses/ResponsesBody.js"
import type { ResponsesResponse } from "../core/text/responses/ResponsesResponse.js"
import type { NativeRequest } from "../adapters/groups/Native.js"
import type { AnySchema } from "../core/structured/AnySchema.js"
import type { ParseOptions, Parsed, StructuredError, StructuredEvent } from "../adapters/structured/Parse.js"
import { makeVideoGroup, type RxVideoGroup } from "./videoGroup.js"

// `(...args: never) => …` is every function's shape: the types below only read a call's parts.
type Args<F> = F extends (...args: infer P) => unknown ? P : never
type Value<F> = F extends (...args: never) => Effect.Effect<infer A, unknown, unknown>
  ? A
  : F extends (...args: never) => Stream.Stream<infer A, unknown, unknown>
    ? A
    : never
type Failure<F> = F extends (...args: never) => Effect.Effect<unknown, infer E, unknown>
  ? E
  : F extends (...args: never) => Stream.Stream<unknown, infer E, unknown>
    ? E
    : never
/**
 * The Observable form of one Effect or Stream call: same arguments, its values, and its error union
 * plus `GatewayDisposed` (the gateway disposed under it).
 * @category models
 */
export type Rx<F> = (...args: Args<F>) => TypedObservable<Value<F>, Failure<F> | GatewayDisposed>

type S = GatewayService

/**
 * A text group's structured output and tool loop as Observables: `parse$` (one decoded value),
 * `parseStream$` (`Partial` values, then `Final`) and `runTools$` (every step of the loop; tools made
 * with `tool()`, whose handlers get an `AbortSignal` that aborts on unsubscribe).
 * @category models
 */
export interface RxTextHelpers<Body, Response> {
  readonly parse$: <A>(
    body: Body,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => TypedObservable<Parsed<A, Response>, RequestError | InvalidRequest | StructuredError | GatewayDisposed>
  readonly parseStream$: <A>(
    body: Body,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => TypedObservable<StructuredEvent<A, Response>, StreamError | InvalidRequest | StructuredError | GatewayDisposed>
  readonly runTools$: RxRunTools<Body, Response, RequestError | InvalidRequest>
}
/** The gateway's calls as cold Observables, grouped like the Effect `Gateway`. @category models */
export interface RxGateway {
  readonly models: { readonly list$: Rx<S["models"]["list"]>; readonly has$: Rx<S["models"]["has"]> }
  readonly messages: {
    readonly create$: Rx<S["messages"]["create"]>
    /** Decoded events; pipe through `textDeltas()`, `accumulateMessage()`, `toolCalls()`. */
    readonly stream$: Rx<S["messages"]["stream"]>
    readonly countTokens$: Rx<S["messages"]["countTokens"]>
  } & RxTextHelpers<MessagesBodyInput, Message>
  readonly native: {
    readonly generate$: Rx<S["native"]["generate"]>
    readonly stream$: Rx<S["native"]["stream"]>
  } & RxTextHelpers<NativeRequest, GenerateContentResponse>
  readonly chat: {
    readonly create$: Rx<S["chat"]["create"]>
    readonly stream$: Rx<S["chat"]["stream"]>
  } & RxTextHelpers<ChatBodyInput, ChatCompletion>
  readonly responses: {
    readonly create$: Rx<S["responses"]["create"]>
    readonly stream$: Rx<S["responses"]["stream"]>
  } & RxTextHelpers<ResponsesBodyInput, ResponsesResponse>
  readonly embeddings: {
    readonly create$: Rx<S["embeddings"]["create"]>
    /** `embeddings.embedMany`'s events: one request per text, results with their index and progress, 429s met by adapting. */
    readonly embedMany$: (
      inputs: ReadonlyArray<string>,
      options: EmbedManyRxOptions,
      callOptions?: CallOptions
    ) => TypedObservable<MapConcurrentEvent<string, Float32Array>, RequestError | InvalidRequest | GatewayDisposed>
  }
  readonly rerank: { readonly create$: Rx<S["rerank"]["create"]> }
  readonly speech: { readonly create$: Rx<S["speech"]["create"]>; readonly stream$: Rx<S["speech"]["stream"]> }
  readonly images: { readonly generate$: Rx<S["images"]["generate"]> }
  readonly video: RxVideoGroup
  readonly realtime: {
    /**
     * Emits the session at once (state `connecting`); unsubscribing closes the socket, and so does the
     * call's signal (`Aborted`). Errors as the session's `events$` do, or with what opening it failed with.
     */
    readonly connect$: (
      options: RealtimeConnectOptions | string,
      callOptions?: CallOptions
    ) => TypedObservable<
      RxSession<RealtimeServerEvent, RealtimeClientEvent, SessionError | GatewayDisposed>,
      SessionOpenError | SessionError | InvalidRequest | GatewayDisposed
    >
  }
  readonly live: {
    /**
     * Emits the session at once; it opens after the server's `setupComplete`; unsubscribing closes the
     * socket, and so does the call's signal (`Aborted`). The `setup` fields are given either as
     * `options.setup` or as the second argument (with a model id or an options object alike); given
     * both ways, the call fails with `InvalidRequest` (field `setup`, rule `conflict`), nothing sent.
     */
    readonly connect$: (
      options: LiveConnectOptions | string,
      setup?: LiveSetupInput,
      callOptions?: CallOptions
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
 * The options of `live.connect` from `live.connect$`'s first two arguments: `setup` goes into
 * `options.setup` when only one of them gives it; both giving it is refused rather than one dropped.
 */
const liveOptions = (
  options: LiveConnectOptions | string,
  setup: LiveSetupInput | undefined
): Effect.Effect<LiveConnectOptions, InvalidRequest> => {
  const given = typeof options === "string" ? { model: options } : options
  if (setup === undefined) return Effect.succeed(given)
  if (given.setup !== undefined)
    return Effect.fail(
      new InvalidRequest({
        field: "setup",
        rule: "conflict",
        message: "setup is given twice, as options.setup and as live.connect$'s second argument; give one of them"
      })
    )
  return Effect.succeed({ ...given, setup })
}

/**
 * `createGateway`'s settings: `Gateway.layer`'s, and how much it logs and where (`logLevel`, `logger`;
 * `UMG_LOG` when no `logLevel` is given).
 * @category models
 */
export interface RxGatewayConfig extends GatewayConfigInput, RxLogOptions {}

/**
 * Builds the Rx gateway client. Nothing connects until a call is subscribed; every subscription is
 * its own request (cold), and errors are the typed instances the Effect API fails with. With
 * `logLevel: "debug"` (or `UMG_LOG=debug`) each request, answer, retry, stream end and WebSocket
 * open/close is a log line (to `logger`, else Effect's console logger); never a credential or a body.
 * @category constructors
 */
export const createGateway = (config: RxGatewayConfig): RxGateway => {
  // The logging layer first: a wrong `logLevel`, `logger` or `UMG_LOG` throws here, as a wrong setting does.
  const logging = logLayer(config)
  const runtime = ManagedRuntime.make(Layer.merge(Gateway.layer(config), logging))
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
    // Every argument is passed on, the call's own options (last) included.
    models: {
      list$: (...args) => call((g) => g.models.list(...args)),
      has$: (...args) => call((g) => g.models.has(...args))
    },
    messages: {
      create$: (...args) => call((g) => g.messages.create(...args)),
      stream$: (...args) => stream((g) => g.messages.stream(...args)),
      countTokens$: (...args) => call((g) => g.messages.countTokens(...args)),
      parse$: (body, schema, options) => call((g) => g.messages.parse(body, schema, options)),
      parseStream$: (body, schema, options) => stream((g) => g.messages.parseStream(body, schema, options)),
      runTools$: (body, config, options) => stream((g) => g.messages.runTools(body, config, options))
    },
    native: {
      generate$: (...args) => call((g) => g.native.generate(...args)),
      stream$: (...args) => stream((g) => g.native.stream(...args)),
      parse$: (body, schema, options) => call((g) => g.native.parse(body, schema, options)),
      parseStream$: (body, schema, options) => stream((g) => g.native.parseStream(body, schema, options)),
      runTools$: (body, config, options) => stream((g) => g.native.runTools(body, config, options))
    },
    chat: {
      create$: (...args) => call((g) => g.chat.create(...args)),
      stream$: (...args) => stream((g) => g.chat.stream(...args)),
      parse$: (body, schema, options) => call((g) => g.chat.parse(body, schema, options)),
      parseStream$: (body, schema, options) => stream((g) => g.chat.parseStream(body, schema, options)),
      runTools$: (body, config, options) => stream((g) => g.chat.runTools(body, config, options))
    },
    responses: {
      create$: (...args) => call((g) => g.responses.create(...args)),
      stream$: (...args) => stream((g) => g.responses.stream(...args)),
      parse$: (body, schema, options) => call((g) => g.responses.parse(body, schema, options)),
      parseStream$: (body, schema, options) => stream((g) => g.responses.parseStream(body, schema, options)),
      runTools$: (body, config, options) => stream((g) => g.responses.runTools(body, config, options))
    },
    embeddings: {
      create$: (...args) => call((g) => g.embeddings.create(...args)),
      embedMany$: (inputs, options, callOptions) =>
        emitting((g, emit: (event: MapConcurrentEvent<string, Float32Array>) => void) =>
          g.embeddings.embedMany(embedManyOptions(inputs, options, emit), callOptions)
        )
    },
    rerank: { create$: (...args) => call((g) => g.rerank.create(...args)) },
    speech: {
      create$: (...args) => call((g) => g.speech.create(...args)),
      stream$: (...args) => stream((g) => g.speech.stream(...args))
    },
    images: { generate$: (...args) => call((g) => g.images.generate(...args)) },
    video: makeVideoGroup(call, emitting, (f) =>
      fromRegistration(run, (emit, end) => Effect.flatMap(Gateway, (g) => f(g, emit, end)))
    ),
    realtime: {
      connect$: (options, callOptions) =>
        fromScopedSession(
          run,
          "realtime",
          Effect.flatMap(Gateway, (g) =>
            g.realtime.connect(typeof options === "string" ? { model: options } : options, callOptions)
          )
        )
    },
    live: {
      connect$: (options, setup, callOptions) =>
        fromScopedSession(
          run,
          "live",
          Effect.flatMap(liveOptions(options, setup), (o) =>
            Effect.flatMap(Gateway, (g) => g.live.connect(o, callOptions))
          )
        )
    },
    platform: {
      login$: (...args) => call((g) => g.platform.login(...args)),
      textToVideo$: (...args) => call((g) => g.platform.textToVideo(...args)),
      anyShootEasy$: (...args) => call((g) => g.platform.anyShootEasy(...args)),
      anyShootAdvanced$: (...args) => call((g) => g.platform.anyShootAdvanced(...args))
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
