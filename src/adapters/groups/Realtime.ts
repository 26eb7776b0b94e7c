/**
 * The `realtime` group: a scoped WebSocket session at `/v1/realtime?model=`. Its event style (v1 beta
 * or v2 GA) follows the model; an initial `session.update` is built for that style, and every client
 * event is validated for it before it is sent. A connect that fails closes its socket at once.
 */
import type { Scope } from "effect"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { SessionOpenError, TransportError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import {
  buildSessionUpdate,
  decodeRealtimeServerEvent,
  realtimeVersion,
  validateRealtimeClientEvent,
  type RealtimeServerEvent,
  type RealtimeSessionInput,
  type RealtimeVersion
} from "../../core/realtime/Realtime.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import { connectWith, type SocketOpener, type WebSocketSession } from "../socket/WebSocketSession.js"

/** A realtime client event (`{type: "response.create", …}`), validated when sent. @category models */
export interface RealtimeClientEvent {
  readonly type: string
  readonly [field: string]: unknown
}

/** Options of `realtime.connect`. @category models */
export interface RealtimeConnectOptions {
  readonly model: string
  /** Session fields for the first `session.update` (v1 `modalities`, v2 `output_modalities`, …; `extra` for fields umg does not know). */
  readonly session?: RealtimeSessionInput | undefined
}

/** An open realtime session. @category models */
export interface RealtimeSession extends WebSocketSession<RealtimeServerEvent, RealtimeClientEvent> {
  readonly version: RealtimeVersion
}

/** The `realtime` calls. @category models */
export interface RealtimeGroup {
  /**
   * Opens a session for the scope's lifetime. Of the call's own options, the headers go with the
   * upgrade request, `timeoutMs` bounds the handshake and the signal closes the socket (`Aborted`).
   * When it fails (the initial `session.update` cannot be sent, say), its socket is closed at once,
   * not when the scope ends.
   */
  readonly connect: (
    options: RealtimeConnectOptions,
    callOptions?: CallOptions
  ) => Effect.Effect<RealtimeSession, SessionOpenError | InvalidRequest, Scope.Scope>
}

/** `http(s)://host/...` → `ws(s)://host/...`. @category constructors */
export const webSocketUrl = (httpUrl: string): string =>
  httpUrl.replace(/^http(s?):\/\//i, (_, s: string) => `ws${s}://`)

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext, open: SocketOpener): RealtimeGroup => ({
  connect: Effect.fnUntraced(function* (options: RealtimeConnectOptions, callOptions?: CallOptions) {
    const call = yield* GroupContext.sessionOptions(ctx, callOptions)
    const routing = { allowUnknownModels: ctx.config.allowUnknownModels }
    const version = yield* realtimeVersion(options.model, routing)
    const update =
      options.session === undefined ? undefined : yield* buildSessionUpdate(options.model, options.session, routing)
    const { limits } = ctx.config
    return yield* connectWith(
      {
        family: "realtime",
        url: webSocketUrl(ctx.gatewayUrl(`/v1/realtime?model=${encodeURIComponent(options.model)}`)),
        headers: {
          ...call.headers,
          authorization: `Bearer ${Redacted.value(ctx.config.apiKey)}`,
          ...(version === "v1" ? { "openai-beta": "realtime=v1" } : {})
        },
        connectTimeoutMs: call.connectTimeoutMs,
        ...call.bounds,
        secrets: call.secrets,
        signal: call.signal,
        // The configured depth bound (limits.maxJsonDepth) applies to frames as to HTTP answers.
        decode: (frame) => decodeRealtimeServerEvent(frame, { maxDepth: limits.maxJsonDepth }),
        validate: (event) => validateRealtimeClientEvent(options.model, event, routing),
        open
      },
      // The first `session.update` belongs to the opening: if it cannot be sent, the socket closes now.
      (
        session: WebSocketSession<RealtimeServerEvent, RealtimeClientEvent>
      ): Effect.Effect<RealtimeSession, TransportError | InvalidRequest> =>
        Effect.as(update === undefined ? Effect.void : session.send(update), { ...session, version })
    )
  })
})
