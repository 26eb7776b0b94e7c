/**
 * The typed failures of talking to the gateway, shared by every endpoint family. They cover what the
 * gateway answered (authentication, rate limit, not found, bad request, upstream, server, platform
 * code, video task failed), what happened on the way (timeout, transport, decode, incomplete stream)
 * and the caller's own cancellation (`Aborted`, the call's `AbortSignal`).
 *
 * Every error carries the endpoint `family`, and where the gateway gave them the HTTP `status`,
 * the gateway's own error `type`, its `message` and the `requestId`. None ever carries a secret.
 * The unions at the end name what each kind of call can fail with (`RequestError`, `StreamError`,
 * …), so a call's error channel lists only the failures it can really produce.
 */
import * as Data from "effect/Data"

/**
 * The endpoint families, each with its own error envelope.
 * @category models
 */
export type Family =
  | "messages" //     epsilon, /v1/messages
  | "count_tokens" // epsilon, /v1/messages/count_tokens
  | "native" //       zeta, /v1beta/models/{model}:generateContent
  | "openai" //       chat, responses, embeddings, rerank, speech, images, models
  | "video" //        /v1/video/generations
  | "platform" //     {platform_url}/prod-api/...
  | "realtime" //     /v1/realtime WebSocket
  | "live" //         /ws/v1beta/models/{model}/liveStream WebSocket

/** What the gateway said about a failed request. @category models */
export interface GatewayErrorInfo {
  readonly family: Family
  /** HTTP status, when the failure was an HTTP answer. */
  readonly status?: number
  /** The gateway's own error type or status name (`authentication_error`, `INVALID_ARGUMENT`, …). */
  readonly type?: string
  /** The gateway's message (or ours when the gateway gave none). */
  readonly message: string
  /** The request id header (`request-id`, `x-request-id`) or body field, when present. */
  readonly requestId?: string
}

/** 401: the key (or platform token) is missing, wrong or unauthorized. @category errors */
export class AuthenticationError extends Data.TaggedError("AuthenticationError")<GatewayErrorInfo> {}

/** 403: the key may not use this resource. @category errors */
export class PermissionDenied extends Data.TaggedError("PermissionDenied")<GatewayErrorInfo> {}

/** 404: model or resource not found, or not available to this key. @category errors */
export class NotFound extends Data.TaggedError("NotFound")<GatewayErrorInfo> {}

/** 429: rate limited; `retryAfterMs` when the gateway said how long to wait. @category errors */
export class RateLimited extends Data.TaggedError("RateLimited")<
  GatewayErrorInfo & { readonly retryAfterMs?: number }
> {}

/** 400, 409, 413, 422 and other 4xx: the gateway refused the request as sent. @category errors */
export class BadRequest extends Data.TaggedError("BadRequest")<GatewayErrorInfo> {}

/** A failure of the upstream provider behind the gateway (`upstream_error`). @category errors */
export class UpstreamError extends Data.TaggedError("UpstreamError")<GatewayErrorInfo> {}

/** 5xx from the gateway itself. @category errors */
export class ServerError extends Data.TaggedError("ServerError")<GatewayErrorInfo> {}

/** A platform envelope whose `code` is not 200. @category errors */
export class PlatformError extends Data.TaggedError("PlatformError")<GatewayErrorInfo & { readonly code: number }> {}

/** A video task reached `failed`; `code` and `message` are the task's `error`. @category errors */
export class VideoTaskFailed extends Data.TaggedError("VideoTaskFailed")<{
  readonly family: "video"
  readonly taskId: string
  readonly code: number
  readonly message: string
}> {}

/** The model id is not in `GET /v1/models` for this key. @category errors */
export class ModelNotAvailable extends Data.TaggedError("ModelNotAvailable")<{
  readonly family: Family
  readonly model: string
  readonly message: string
}> {}

/**
 * A time limit passed: the whole request, the first byte of a stream, a stream's idle gap, or a poll.
 * Phase `connect`: it passed before a connection was made — an HTTP request that never left umg
 * (resolving the host, connecting, a proxy's tunnel opening: safe to send again, even a paid submit),
 * or a WebSocket session not opened.
 * @category errors
 */
export class TimeoutError extends Data.TaggedError("TimeoutError")<{
  readonly family: Family
  readonly phase: "request" | "first-byte" | "idle" | "poll" | "connect"
  readonly timeoutMs: number
  readonly message: string
  /** Phase `poll`: the video task waited for, when known (it was submitted, and may still finish). */
  readonly taskId?: string | undefined
}> {}

/**
 * The connection failed. `reason` says how: `connect` (refused or unreachable: the gateway never saw
 * the request), `reset` (dropped while sending or receiving), `aborted` (cancelled by us), `closed`
 * (a WebSocket closed; `closeCode` says with what).
 * @category errors
 */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly family: Family
  /** `too-large`: an answer past its bound (`limits` in the config), stopped while reading. */
  readonly reason: "connect" | "reset" | "aborted" | "closed" | "protocol" | "too-large"
  readonly message: string
  readonly closeCode?: number
}> {}

/**
 * The caller aborted the call through its `AbortSignal` (the per-call `signal` option): nothing was
 * sent when the signal was already aborted; otherwise the connection (or the WebSocket) was closed
 * and nothing more is read. Never retried.
 * @category errors
 */
export class Aborted extends Data.TaggedError("Aborted")<{
  readonly family: Family
  readonly message: string
}> {}

/** An answer (body, event, frame) did not match its Schema. @category errors */
export class DecodeError extends Data.TaggedError("DecodeError")<{
  readonly family: Family
  /** What was being decoded, e.g. `messages response`, `content_block_delta event`. */
  readonly what: string
  readonly message: string
  readonly requestId?: string
}> {}

/**
 * A stream that did not complete: it was cut, ended before its final event, carried an `error`
 * event, or sent events out of order. `partial` is the snapshot accumulated so far, so nothing
 * received is lost.
 * @category errors
 */
export class IncompleteStream extends Data.TaggedError("IncompleteStream")<{
  readonly family: Family
  readonly reason: "ended-early" | "error-event" | "out-of-order" | "cut"
  readonly message: string
  readonly partial: unknown
  /** For `error-event`: the error type the stream carried (`overloaded_error`, …). */
  readonly errorType?: string
}> {}

/**
 * An HTTP error answer of the gateway (401, 403, 404, 429, other 4xx, `upstream_error`, 5xx).
 * @category errors
 */
export type AnswerError =
  AuthenticationError | PermissionDenied | NotFound | RateLimited | BadRequest | UpstreamError | ServerError

/**
 * What one HTTP request to the gateway can fail with: an error answer, a time limit, the connection,
 * an answer that does not decode, or the caller's abort. Every single-answer call (`chat.create`, `video.get`, …).
 * @category errors
 */
export type RequestError = AnswerError | TimeoutError | TransportError | DecodeError | Aborted

/** What a platform call (E4–E7) can fail with: a request's errors, or a platform envelope whose `code` is not 200. @category errors */
export type PlatformRequestError = RequestError | PlatformError

/** What a streamed answer (`messages.stream`, `chat.stream`, …) can fail with: a request's errors, or a stream that did not complete. @category errors */
export type StreamError = RequestError | IncompleteStream

/** What opening a WebSocket session can fail with: its upgrade refused with an HTTP error, no handshake in time, the connection, or the caller's abort. @category errors */
export type SessionOpenError = AnswerError | TimeoutError | TransportError | Aborted

/** What an open WebSocket session's events can fail with: the socket closed abnormally or a bound passed, a frame that does not decode, or the caller's abort (the socket closed by its signal). @category errors */
export type SessionError = TransportError | DecodeError | Aborted

/** What waiting for a video task (`video.wait`, `poll`, `generate`) can fail with: its queries' errors, or the task `failed` (`VideoTaskFailed`). @category errors */
export type VideoWaitError = RequestError | VideoTaskFailed

/** What checking a model against `GET /v1/models` (`models.has`) can fail with: the list request's errors, or `ModelNotAvailable`. @category errors */
export type ModelCheckError = RequestError | ModelNotAvailable

/** Everything the gateway can answer with: an `AnswerError` or a `PlatformError`. @category errors */
export type GatewayResponseError = AnswerError | PlatformError

/** Everything that can go wrong on the way. @category errors */
export type GatewayTransportError = TimeoutError | TransportError | DecodeError | IncompleteStream | Aborted

/**
 * Every failure of any gateway call (client-side validation, `InvalidRequest`, is separate): the union
 * of all the unions above. Each call's error channel names the narrower union it can really produce.
 * @category errors
 */
export type GatewayError = GatewayResponseError | GatewayTransportError | VideoTaskFailed | ModelNotAvailable
