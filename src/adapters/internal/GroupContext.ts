/**
 * What every call group shares: the resolved config, the HTTP transport, URL joining, the gateway
 * credential and the stream time limits, and how a call's own options (`CallOptions`) reach the
 * transport. Groups get it from `Gateway.make`; it is not public API.
 */
import * as Effect from "effect/Effect"
import type { Family, StreamError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import * as CallOptions from "../CallOptions.js"
import type { GatewayConfig } from "../GatewayConfig.js"
import * as HttpAuth from "../http/HttpAuth.js"
import type { HttpTransport, TransportRequest } from "../http/HttpTransport.js"
import type { ResultStream } from "../sse/Consume.js"
import { secretsOf } from "./Secrets.js"
import * as Telemetry from "./Telemetry.js"
import { decodeSseOf, type SseStreamSpec, type SseTimeouts } from "../sse/SseTransport.js"

/** The shared parts of the groups. @category models */
export interface GroupContext {
  readonly config: GatewayConfig
  readonly transport: HttpTransport
  /** `baseUrl` joined with an absolute path (`/v1/…`). */
  readonly gatewayUrl: (path: string) => string
  /** `Authorization: Bearer <apiKey>`. */
  readonly apiAuth: HttpAuth.Auth
  readonly sseTimeouts: SseTimeouts
  /**
   * Registers what a group holds outside any call (the video polls, which have no fiber of their
   * own), released when the service's scope (its layer's) closes; at once when it has closed already.
   */
  readonly onClose: (release: () => void) => void
}

/** The releases of what the groups hold outside any call, run once when the service's scope closes. @category models */
export interface Lifetime {
  readonly onClose: (release: () => void) => void
  readonly close: () => void
}

/** A lifetime not closed yet. @category constructors */
export const makeLifetime = (): Lifetime => {
  let releases: Array<() => void> | undefined = []
  return {
    onClose: (release) => (releases === undefined ? release() : void releases.push(release)),
    close: () => {
      const due = releases ?? []
      releases = undefined
      for (const release of due) release()
    }
  }
}

/** Builds the shared context of the groups; `onClose` defaults to never releasing. @category constructors */
export const make = (
  config: GatewayConfig,
  transport: HttpTransport,
  onClose: (release: () => void) => void = () => {}
): GroupContext => ({
  config,
  transport,
  onClose,
  gatewayUrl: (path) => `${config.baseUrl}${path.startsWith("/") ? path : `/${path}`}`,
  apiAuth: HttpAuth.bearer(config.apiKey),
  sseTimeouts: {
    firstEventMs: config.streamFirstByteTimeoutMs,
    idleMs: config.streamIdleTimeoutMs,
    maxEventBytes: config.limits.maxSseEventBytes,
    maxStreamBytes: config.limits.maxStreamBytes
  }
})

/**
 * A text body with its `stream` flag set, for the family's builder to check. A body that is not an
 * object, or one whose properties throw when read (a getter, a Proxy), goes to the builder as it is:
 * the builder refuses it with an `InvalidRequest` naming what it is, where spreading it would have
 * lost what it was (`null` read as `{}`) or thrown past the builder's guard (a defect).
 * @category constructors
 */
export const withStream = <B>(body: B, stream: boolean): B => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body
  try {
    return { ...body, stream }
  } catch {
    return body
  }
}

/**
 * A JSON POST to the gateway with the API key, retried as idempotent, carrying the call's own
 * options (the transport checks and applies them).
 * @category constructors
 */
export const post = (
  ctx: GroupContext,
  family: Family,
  path: string,
  body: unknown,
  options: CallOptions.CallOptions | undefined
) => ({
  family,
  method: "POST" as const,
  url: ctx.gatewayUrl(path),
  body,
  auth: ctx.apiAuth,
  kind: "idempotent" as const,
  options
})

/**
 * A call made of several requests or waits (a poll, a token then a submit) under the call's signal:
 * failing with `Aborted`, and interrupting whatever is under way, when it aborts. The requests
 * themselves carry the options too (their headers, time limit, retries and `onResponse`).
 * @category combinators
 */
export const abortable = <A, E, R>(
  family: Family,
  options: CallOptions.CallOptions | undefined,
  effect: Effect.Effect<A, E, R>
) => CallOptions.abortable(effect, family, options?.signal)

/**
 * The options each request of a call made of several carries: all but the signal, which the whole
 * call is raced against (`abortable`) rather than every request.
 * @category constructors
 */
export const perRequest = (options: CallOptions.CallOptions | undefined): CallOptions.CallOptions | undefined => {
  if (options?.signal === undefined) return options
  const { signal: _signal, ...rest } = options
  return rest
}

/** What a WebSocket session takes from its call's own options. @category models */
export interface SessionCallOptions {
  /** The call's headers; the session's credential headers are set after them. */
  readonly headers: Readonly<Record<string, string>>
  /** The handshake's time limit: the call's `timeoutMs`, else the layer's `limits.webSocketHandshakeTimeoutMs`. */
  readonly connectTimeoutMs: number
  readonly signal: AbortSignal | undefined
  /** What a close reason may echo: the configured secrets and the call's header values. */
  readonly secrets: ReadonlyArray<string>
  /** What the server's messages may be (the layer's `limits`), and how much of a refused upgrade is read. */
  readonly bounds: {
    readonly maxFrameBytes: number
    readonly maxFramesPerSecond: number
    readonly maxPendingBytes: number
    readonly maxErrorBodyBytes: number
  }
}

/**
 * A WebSocket session's part of the call's options, checked (`InvalidRequest`, as for a request). A
 * session has no HTTP answer to read and is never retried: `onResponse` and `maxRetries` do not apply.
 * @category constructors
 */
export const sessionOptions = (
  ctx: GroupContext,
  options: CallOptions.CallOptions | undefined
): Effect.Effect<SessionCallOptions, InvalidRequest> =>
  Effect.map(
    options === undefined ? Effect.succeed<CallOptions.CallOptions>({}) : Effect.fromResult(CallOptions.check(options)),
    (checked) => ({
      // The layer's headers go with every gateway request, the upgrade too; the call's override them.
      headers: { ...ctx.config.headers, ...checked.headers },
      connectTimeoutMs: checked.timeoutMs ?? ctx.config.limits.webSocketHandshakeTimeoutMs,
      signal: checked.signal,
      secrets: [...secretsOf(ctx.config), ...Object.values(checked.headers ?? {})],
      bounds: {
        maxFrameBytes: ctx.config.limits.maxFrameBytes,
        maxFramesPerSecond: ctx.config.limits.maxFramesPerSecond,
        maxPendingBytes: ctx.config.limits.maxPendingBytes,
        maxErrorBodyBytes: ctx.config.limits.maxErrorBodyBytes
      }
    })
  )

/**
 * A stream's time limits: the call's `timeoutMs` bounds the wait for the first event too (as it
 * bounds the wait for the headers), in place of `streamFirstByteTimeoutMs`; its
 * `streamIdleTimeoutMs`, the gaps after, in place of the layer's.
 */
const timeoutsOf = (ctx: GroupContext, request: TransportRequest): SseTimeouts => {
  const first = request.options?.timeoutMs
  const idle = request.options?.streamIdleTimeoutMs
  return first === undefined && idle === undefined
    ? ctx.sseTimeouts
    : {
        ...ctx.sseTimeouts,
        firstEventMs: first ?? ctx.sseTimeouts.firstEventMs,
        idleMs: idle ?? ctx.sseTimeouts.idleMs
      }
}

/**
 * A streaming call: validate (the request is only built from a valid body), open, decode the SSE.
 * @category constructors
 */
export const sse = <E, Event, Snapshot, Final>(
  ctx: GroupContext,
  request: Effect.Effect<TransportRequest, E>,
  spec: SseStreamSpec<Event, Snapshot, Final>
): ResultStream<Event, StreamError | InvalidRequest | E, Final> =>
  Telemetry.spannable((span) =>
    decodeSseOf(
      Telemetry.inSpanScoped(
        span,
        Effect.flatMap(request, (req) =>
          Effect.map(ctx.transport.open({ ...req, expect: "event-stream" }), (bytes) => ({
            bytes,
            timeouts: timeoutsOf(ctx, req),
            secrets: [...secretsOf(ctx.config, req.auth), ...Object.values(req.options?.headers ?? {})]
          }))
        )
      ),
      spec
    )
  )
