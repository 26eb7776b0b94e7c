/**
 * Each call's error channel is the union it can really produce. Most checks here are types
 * (`expectTypeOf`): `npm run typecheck` (tsconfig.json includes test/) fails when a channel widens
 * or narrows; the runtime checks see that the methods named exist and that `Effect.catchTags` over a
 * call's union leaves nothing unhandled.
 */
import { Effect, Result, type Exit, Option, type Scope, type Stream } from "effect"
import { describe, expect, expectTypeOf, it } from "vitest"
import { makeWithHttpClient, type GatewayService } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import { clientLayerOf } from "../../src/adapters/http/HttpTransport.js"
import type { RealtimeSession } from "../../src/adapters/groups/Realtime.js"
import type { LiveSession } from "../../src/adapters/groups/Live.js"
import {
  type Aborted,
  AuthenticationError,
  BadRequest,
  DecodeError,
  NotFound,
  PermissionDenied,
  RateLimited,
  ServerError,
  TimeoutError,
  TransportError,
  UpstreamError,
  type AnswerError,
  type GatewayError,
  type IncompleteStream,
  type ModelCheckError,
  type ModelNotAvailable,
  type PlatformError,
  type PlatformRequestError,
  type RequestError,
  type SessionError,
  type SessionOpenError,
  type StreamError,
  type VideoTaskFailed,
  type VideoWaitError
} from "../../src/core/errors/GatewayError.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { toAnswerError, toGatewayError, toPlatformAnswerError } from "../../src/core/wire/ErrorEnvelope.js"
import type { Observable } from "rxjs"
import {
  createGateway,
  type GatewayDisposed,
  type ObservableError,
  type RxBatch,
  type RxGateway
} from "../../src/streams/index.js"

type S = GatewayService
// `(...args: never) => …` is every function's shape; the success and requirement are covariant.
type EffectError<F> = F extends (...args: never) => Effect.Effect<unknown, infer E, unknown> ? E : never
type StreamError_<F> = F extends (...args: never) => Stream.Stream<unknown, infer E, unknown> ? E : never
type RxError<F> = F extends (...args: never) => infer O ? ObservableError<O> : never

/** The errors no call outside its own kind may produce. */
type Foreign = IncompleteStream | VideoTaskFailed | PlatformError | ModelNotAvailable

// Built, never called: nothing is sent.
const config = GatewayConfig.make({ baseUrl: "http://gw.test", apiKey: "k" })
const service = Effect.runSync(Effect.provide(makeWithHttpClient(config), clientLayerOf(config)))

/** The methods checked below exist on the built service (the types could name a method it lacks). */
const expectMethods = (group: keyof S, methods: ReadonlyArray<string>) => {
  for (const method of methods)
    expect(typeof (service[group] as unknown as Record<string, unknown>)[method], `${group}.${method}`).toBe("function")
}

describe("the error unions", () => {
  it("are built from the error classes as documented", () => {
    expectTypeOf<AnswerError>().toEqualTypeOf<
      AuthenticationError | PermissionDenied | NotFound | RateLimited | BadRequest | UpstreamError | ServerError
    >()
    expectTypeOf<RequestError>().toEqualTypeOf<AnswerError | TimeoutError | TransportError | DecodeError | Aborted>()
    expectTypeOf<StreamError>().toEqualTypeOf<RequestError | IncompleteStream>()
    expectTypeOf<PlatformRequestError>().toEqualTypeOf<RequestError | PlatformError>()
    expectTypeOf<SessionOpenError>().toEqualTypeOf<AnswerError | TimeoutError | TransportError | Aborted>()
    expectTypeOf<SessionError>().toEqualTypeOf<TransportError | DecodeError | Aborted>()
    expectTypeOf<VideoWaitError>().toEqualTypeOf<RequestError | VideoTaskFailed>()
    expectTypeOf<ModelCheckError>().toEqualTypeOf<RequestError | ModelNotAvailable>()
    // GatewayError still holds every failure, so code written against it keeps compiling.
    expectTypeOf<StreamError | PlatformRequestError | VideoWaitError | ModelCheckError>().toEqualTypeOf<GatewayError>()
    expect(new BadRequest({ family: "openai", message: "m" })._tag).toBe("BadRequest")
  })

  it("classify an error answer as PlatformError only for the platform family", () => {
    expectTypeOf(toAnswerError).returns.toEqualTypeOf<AnswerError>()
    expectTypeOf(toPlatformAnswerError).returns.toEqualTypeOf<AnswerError | PlatformError>()
    const openai = toGatewayError({ family: "openai", status: 500 })
    const platform = toGatewayError({ family: "platform", status: 500 })
    expectTypeOf(openai).toEqualTypeOf<AnswerError>()
    expectTypeOf(platform).toEqualTypeOf<AnswerError | PlatformError>()
    expect([openai._tag, platform._tag]).toEqual(["ServerError", "ServerError"])
  })
})

describe("Gateway: each method's error channel", () => {
  it("is RequestError | InvalidRequest for every single-answer call", () => {
    expectTypeOf<EffectError<S["messages"]["create"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["messages"]["countTokens"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["native"]["generate"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["chat"]["create"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["responses"]["create"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["embeddings"]["create"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["embeddings"]["embedMany"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["rerank"]["create"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["speech"]["create"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    // Audio bytes as they arrive: a cut is a TransportError, there is no final event to miss.
    expectTypeOf<StreamError_<S["speech"]["stream"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["images"]["generate"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["video"]["submit"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["video"]["get"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["video"]["download"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["video"]["check"]>>().toEqualTypeOf<InvalidRequest>()
    expectTypeOf<Extract<EffectError<S["chat"]["create"]>, Foreign>>().toBeNever()
    expectMethods("messages", ["create", "countTokens"])
    expectMethods("native", ["generate"])
    expectMethods("chat", ["create"])
    expectMethods("responses", ["create"])
    expectMethods("embeddings", ["create", "embedMany"])
    expectMethods("rerank", ["create"])
    expectMethods("speech", ["create", "stream"])
    expectMethods("images", ["generate"])
    expectMethods("video", ["check", "submit", "get", "download"])
  })

  it("adds IncompleteStream for the SSE streams", () => {
    expectTypeOf<StreamError_<S["messages"]["stream"]>>().toEqualTypeOf<StreamError | InvalidRequest>()
    expectTypeOf<StreamError_<S["native"]["stream"]>>().toEqualTypeOf<StreamError | InvalidRequest>()
    expectTypeOf<StreamError_<S["chat"]["stream"]>>().toEqualTypeOf<StreamError | InvalidRequest>()
    expectTypeOf<StreamError_<S["responses"]["stream"]>>().toEqualTypeOf<StreamError | InvalidRequest>()
    expectTypeOf<Extract<StreamError_<S["chat"]["stream"]>, IncompleteStream>>().toEqualTypeOf<IncompleteStream>()
    expectTypeOf<
      Extract<StreamError_<S["chat"]["stream"]>, VideoTaskFailed | PlatformError | ModelNotAvailable>
    >().toBeNever()
    expectMethods("messages", ["stream"])
    expectMethods("native", ["stream"])
    expectMethods("chat", ["stream"])
    expectMethods("responses", ["stream"])
  })

  it("adds VideoTaskFailed for the video waits", () => {
    expectTypeOf<EffectError<S["video"]["wait"]>>().toEqualTypeOf<VideoWaitError | InvalidRequest>()
    expectTypeOf<EffectError<S["video"]["generate"]>>().toEqualTypeOf<VideoWaitError | InvalidRequest>()
    expectTypeOf<StreamError_<S["video"]["poll"]>>().toEqualTypeOf<VideoWaitError | InvalidRequest>()
    // waitAll fails only on bad settings; each task's outcome carries its own error.
    type WaitAll = ReturnType<S["video"]["waitAll"]>
    expectTypeOf<Effect.Error<WaitAll>>().toEqualTypeOf<InvalidRequest>()
    expectTypeOf<Result.Result.Failure<Effect.Success<WaitAll>[number]>>().toEqualTypeOf<
      VideoWaitError | InvalidRequest
    >()
    type OnEnd = Parameters<S["video"]["follow"]>[2]
    type EndError = Parameters<OnEnd>[0] extends Exit.Exit<unknown, infer E> ? E : never
    expectTypeOf<EndError>().toEqualTypeOf<VideoWaitError | InvalidRequest>()
    expectTypeOf<EffectError<S["video"]["follow"]>>().toEqualTypeOf<InvalidRequest>()
    expectMethods("video", ["wait", "generate", "poll", "waitAll", "follow"])
  })

  it("adds ModelNotAvailable only for models.has", () => {
    expectTypeOf<EffectError<S["models"]["list"]>>().toEqualTypeOf<RequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["models"]["has"]>>().toEqualTypeOf<ModelCheckError | InvalidRequest>()
    expectMethods("models", ["list", "has"])
  })

  it("adds PlatformError only for the platform calls", () => {
    expectTypeOf<EffectError<S["platform"]["login"]>>().toEqualTypeOf<PlatformRequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["platform"]["textToVideo"]>>().toEqualTypeOf<PlatformRequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["platform"]["anyShootEasy"]>>().toEqualTypeOf<PlatformRequestError | InvalidRequest>()
    expectTypeOf<EffectError<S["platform"]["anyShootAdvanced"]>>().toEqualTypeOf<
      PlatformRequestError | InvalidRequest
    >()
    expectMethods("platform", ["login", "textToVideo", "anyShootEasy", "anyShootAdvanced"])
  })

  it("is SessionOpenError to open a WebSocket session and SessionError for its events", () => {
    expectTypeOf<EffectError<S["realtime"]["connect"]>>().toEqualTypeOf<SessionOpenError | InvalidRequest>()
    // live waits for setupComplete: what the server sends before it may fail the call as events do.
    expectTypeOf<EffectError<S["live"]["connect"]>>().toEqualTypeOf<SessionOpenError | SessionError | InvalidRequest>()
    expectTypeOf<Effect.Services<ReturnType<S["realtime"]["connect"]>>>().toEqualTypeOf<Scope.Scope>()
    type Session = RealtimeSession | LiveSession
    expectTypeOf<Stream.Error<Session["events"]>>().toEqualTypeOf<SessionError>()
    expectTypeOf<Effect.Error<Session["next"]>>().toEqualTypeOf<Option.Option<SessionError>>()
    expectTypeOf<EffectError<RealtimeSession["send"]> | EffectError<LiveSession["send"]>>().toEqualTypeOf<
      TransportError | InvalidRequest
    >()
    expectMethods("realtime", ["connect"])
    expectMethods("live", ["connect"])
  })
})

describe("Effect.catchTags over a call's union", () => {
  it("handles chat.create's every failure with eight handlers, and refuses one for a failure it cannot produce", async () => {
    const create = (fail: RequestError | InvalidRequest): ReturnType<S["chat"]["create"]> => Effect.fail(fail)
    const handled = (fail: RequestError | InvalidRequest) =>
      create(fail).pipe(
        Effect.map(() => "answered"),
        Effect.catchTags({
          InvalidRequest: (e) => Effect.succeed(`not sent: ${e.field}`),
          AuthenticationError: () => Effect.succeed("check the key"),
          PermissionDenied: () => Effect.succeed("not allowed"),
          NotFound: () => Effect.succeed("no such model"),
          RateLimited: (e) => Effect.succeed(`wait ${e.retryAfterMs ?? "?"} ms`),
          BadRequest: (e) => Effect.succeed(`refused: ${e.message}`),
          UpstreamError: () => Effect.succeed("upstream"),
          ServerError: () => Effect.succeed("server"),
          TimeoutError: (e) => Effect.succeed(`timeout (${e.phase})`),
          TransportError: (e) => Effect.succeed(`connection (${e.reason})`),
          DecodeError: (e) => Effect.succeed(`bad answer: ${e.what}`),
          Aborted: (e) => Effect.succeed(`aborted (${e.family})`)
        })
      )
    expectTypeOf<Effect.Error<ReturnType<typeof handled>>>().toBeNever()
    expect(
      await Effect.runPromise(handled(new RateLimited({ family: "openai", message: "slow", retryAfterMs: 50 })))
    ).toBe("wait 50 ms")
    expect(
      await Effect.runPromise(
        handled(new InvalidRequest({ field: "model", rule: "required", message: "model is required" }))
      )
    ).toBe("not sent: model")

    // A handler for a failure chat.create cannot produce: Effect 4 reports the refusal on the call.
    // @ts-expect-error chat.create never fails with VideoTaskFailed: a handler for it does not compile.
    Effect.catchTags(create(new ServerError({ family: "openai", message: "m" })), {
      ServerError: () => Effect.succeed("server"),
      VideoTaskFailed: () => Effect.succeed("never")
    })
  })
})

describe("umg/rx: each Observable's errors", () => {
  type G = RxGateway
  it("are the projected call's union plus GatewayDisposed, on Observables the Rx gateway really has", async () => {
    expectTypeOf<RxError<G["chat"]["create$"]>>().toEqualTypeOf<RequestError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["chat"]["stream$"]>>().toEqualTypeOf<StreamError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["messages"]["stream$"]>>().toEqualTypeOf<StreamError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["speech"]["stream$"]>>().toEqualTypeOf<RequestError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["embeddings"]["embedMany$"]>>().toEqualTypeOf<
      RequestError | InvalidRequest | GatewayDisposed
    >()
    expectTypeOf<RxError<G["models"]["has$"]>>().toEqualTypeOf<ModelCheckError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["platform"]["login$"]>>().toEqualTypeOf<
      PlatformRequestError | InvalidRequest | GatewayDisposed
    >()
    expectTypeOf<RxError<G["platform"]["textToVideo$"]>>().toEqualTypeOf<
      PlatformRequestError | InvalidRequest | GatewayDisposed
    >()
    expectTypeOf<RxError<G["video"]["get$"]>>().toEqualTypeOf<RequestError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["video"]["downloadStream$"]>>().toEqualTypeOf<
      RequestError | InvalidRequest | GatewayDisposed
    >()
    expectTypeOf<RxError<G["video"]["poll$"]>>().toEqualTypeOf<VideoWaitError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["video"]["generate$"]>>().toEqualTypeOf<VideoWaitError | InvalidRequest | GatewayDisposed>()
    expectTypeOf<RxError<G["realtime"]["connect$"]>>().toEqualTypeOf<
      SessionOpenError | SessionError | InvalidRequest | GatewayDisposed
    >()
    expectTypeOf<RxError<G["live"]["connect$"]>>().toEqualTypeOf<
      SessionOpenError | SessionError | InvalidRequest | GatewayDisposed
    >()
    type Session = ReturnType<G["live"]["connect$"]> extends Observable<infer X> ? X : never
    expectTypeOf<ObservableError<Session["events$"]>>().toEqualTypeOf<SessionError | GatewayDisposed>()
    // A batch handle's Observables carry the handle's own error type.
    expectTypeOf<ObservableError<RxBatch<number, string, TimeoutError>["results$"]>>().toEqualTypeOf<TimeoutError>()
    const rx = createGateway({ baseUrl: "http://gw.test", apiKey: "k" })
    for (const [group, calls] of Object.entries(rx)) {
      if (typeof calls === "function") continue
      for (const [name, call] of Object.entries(calls as Record<string, unknown>))
        expect(typeof call, `${group}.${name}`).toBe("function")
    }
    expect(Object.keys(rx.video).sort()).toEqual([
      "download$",
      "downloadStream$",
      "generate$",
      "get$",
      "poll$",
      "submit$"
    ])
    await rx.dispose()
  })
})
