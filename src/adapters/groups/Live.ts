/**
 * The `live` group: a scoped WebSocket session at `/ws/v1beta/models/{model}/liveStream` that sends
 * the core-built `setup` first and is handed over only after the server's `setupComplete`. A connect
 * that fails closes its socket at once; a second `setup` is refused before it is sent.
 */
import type { Scope } from "effect"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  TimeoutError,
  TransportError,
  type SessionError,
  type SessionOpenError
} from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import {
  buildLiveSetup,
  decodeLiveServerMessage,
  validateLiveClientMessage,
  type LiveServerMessage,
  type LiveSetupInput
} from "../../core/realtime/Live.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import { connectWith, type SocketOpener, type WebSocketSession } from "../socket/WebSocketSession.js"
import { webSocketUrl } from "./Realtime.js"

/** A live client message (`{clientContent}`, `{realtimeInput}`, `{toolResponse}`), validated when sent. @category models */
export type LiveClientMessage = Readonly<Record<string, unknown>>

/** Options of `live.connect`. @category models */
export interface LiveConnectOptions {
  readonly model: string
  /** The `setup` fields besides the model (`generationConfig`, `systemInstruction`, …; `extra` for fields umg does not know). */
  readonly setup?: LiveSetupInput | undefined
}

/** An open live session (after `setupComplete`). @category models */
export type LiveSession = WebSocketSession<LiveServerMessage, LiveClientMessage>

/** The `live` calls. @category models */
export interface LiveGroup {
  /**
   * Opens a session for the scope's lifetime; succeeds once the server confirmed the setup (what it
   * sends before that may fail it as a session's events do, and its wait is bounded by `timeoutMs`).
   * Of the call's own options, the headers go with the upgrade request, `timeoutMs` bounds the
   * handshake and the wait for `setupComplete`, and the signal closes the socket (`Aborted`). When it
   * fails, its socket is closed at once, not when the scope ends. The session's `send` refuses a
   * `setup` (already sent) with `InvalidRequest`.
   */
  readonly connect: (
    options: LiveConnectOptions,
    callOptions?: CallOptions
  ) => Effect.Effect<LiveSession, SessionOpenError | SessionError | InvalidRequest, Scope.Scope>
}

/**
 * Waits for the server's `setupComplete` within `timeoutMs`; anything the server says before it is not
 * part of the session, and an end before it is an error.
 */
const awaitSetupComplete = (
  session: LiveSession,
  timeoutMs: number
): Effect.Effect<void, SessionError | TimeoutError> => {
  const waitSetup: Effect.Effect<void, SessionError> = Effect.flatMap(
    Effect.mapError(session.next, (o) =>
      Option.getOrElse(
        o,
        () =>
          new TransportError({
            family: "live",
            reason: "closed",
            message: "the server closed the session before setupComplete"
          })
      )
    ),
    (message) => (message.setupComplete !== undefined ? Effect.void : waitSetup)
  )
  return Effect.timeoutOrElse(waitSetup, {
    duration: Duration.millis(timeoutMs),
    orElse: () =>
      Effect.fail(
        new TimeoutError({
          family: "live",
          phase: "connect",
          timeoutMs,
          message: `no setupComplete within ${timeoutMs} ms`
        })
      )
  })
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext, open: SocketOpener): LiveGroup => ({
  connect: Effect.fnUntraced(function* (options: LiveConnectOptions, callOptions?: CallOptions) {
    const call = yield* GroupContext.sessionOptions(ctx, callOptions)
    const setupTimeoutMs = callOptions?.timeoutMs ?? ctx.config.timeoutMs
    const setup = yield* buildLiveSetup(options.model, options.setup ?? {}, {
      allowUnknownModels: ctx.config.allowUnknownModels
    })
    const path = `/ws/v1beta/models/${encodeURIComponent(options.model)}/liveStream`
    const query = ctx.config.nativeAuth === "query"
    const { limits } = ctx.config
    // `setup` is the first message only: once it is sent, another is refused before it leaves.
    let setupSent = false
    return yield* connectWith(
      {
        family: "live",
        url: webSocketUrl(
          ctx.gatewayUrl(query ? `${path}?key=${encodeURIComponent(Redacted.value(ctx.config.apiKey))}` : path)
        ),
        headers: {
          ...call.headers,
          ...(query
            ? {}
            : ctx.config.nativeAuth === "x-vendor-api-key"
              ? { "x-vendor-api-key": Redacted.value(ctx.config.apiKey) }
              : { authorization: `Bearer ${Redacted.value(ctx.config.apiKey)}` })
        },
        connectTimeoutMs: call.connectTimeoutMs,
        ...call.bounds,
        secrets: call.secrets,
        signal: call.signal,
        // The configured depth bound (limits.maxJsonDepth) applies to frames as to HTTP answers.
        decode: (frame) => decodeLiveServerMessage(frame, { maxDepth: limits.maxJsonDepth }),
        validate: (message) => validateLiveClientMessage(message, { setupSent }),
        open
      },
      // The setup and the wait for setupComplete belong to the opening: if either fails, the socket closes now.
      (session: LiveSession) =>
        session.send(setup).pipe(
          Effect.andThen(
            Effect.sync(() => {
              setupSent = true
            })
          ),
          Effect.andThen(awaitSetupComplete(session, setupTimeoutMs)),
          Effect.as(session)
        )
    )
  })
})
