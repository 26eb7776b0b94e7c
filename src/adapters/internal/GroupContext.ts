/**
 * What every call group shares: the resolved config, the HTTP transport, URL joining, the gateway
 * credential and the stream time limits. Groups get it from `Gateway.make`; it is not public API.
 */
import * as Effect from "effect/Effect"
import type { Family, StreamError } from "../../core/errors/GatewayError.js"
import type { GatewayConfig } from "../GatewayConfig.js"
import * as HttpAuth from "../http/HttpAuth.js"
import type { HttpTransport, TransportRequest } from "../http/HttpTransport.js"
import type { ResultStream } from "../sse/Consume.js"
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
}

/** Builds the shared context of the groups. @category constructors */
export const make = (config: GatewayConfig, transport: HttpTransport): GroupContext => ({
  config,
  transport,
  gatewayUrl: (path) => `${config.baseUrl}${path.startsWith("/") ? path : `/${path}`}`,
  apiAuth: HttpAuth.bearer(config.apiKey),
  sseTimeouts: {
    firstEventMs: config.streamFirstByteTimeoutMs,
    idleMs: config.streamIdleTimeoutMs,
    maxEventBytes: config.limits.maxSseEventBytes
  }
})

/** A JSON POST to the gateway with the API key, retried as idempotent. @category constructors */
export const post = (ctx: GroupContext, family: Family, path: string, body: unknown) => ({
  family,
  method: "POST" as const,
  url: ctx.gatewayUrl(path),
  body,
  auth: ctx.apiAuth,
  kind: "idempotent" as const
})

/**
 * A streaming call: validate (the request is only built from a valid body), open, decode the SSE.
 * @category constructors
 */
export const sse = <E, Event, Snapshot, Final>(
  ctx: GroupContext,
  request: Effect.Effect<TransportRequest, E>,
  spec: SseStreamSpec<Event, Snapshot, Final>
): ResultStream<Event, StreamError | E, Final> =>
  Telemetry.spannable((span) =>
    decodeSseOf(
      Telemetry.inSpanScoped(
        span,
        Effect.flatMap(request, (req) => ctx.transport.open(req))
      ),
      spec,
      ctx.sseTimeouts
    )
  )
