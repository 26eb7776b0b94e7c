/**
 * umg's typed failures as Effect AI's `AiError`. Each failure gets its reason (rate limit with its
 * `Retry-After`, authentication, invalid request, provider, network, response), with the gateway's
 * request id, error type, family and status kept in the reason's `metadata.umg` (a `NetworkError`,
 * which has no metadata, keeps the umg error as its `cause`).
 */
import * as AiError from "effect/ai/AiError"
import * as Duration from "effect/Duration"
import type { GatewayError } from "../core/errors/GatewayError.js"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import type { SchemaNotExpressible } from "../core/structured/StructuredErrors.js"

/** What umg's calls made by the providers fail with. @category models */
export type UmgFailure = GatewayError | InvalidRequest | SchemaNotExpressible

type Json = string | number | boolean | null

/** `metadata.umg` of a reason: what the gateway said about the failure. */
const metadataOf = (error: UmgFailure): { readonly umg: Readonly<Record<string, Json>> } => {
  const fields: Record<string, Json> = { error: error._tag }
  const info = error as {
    readonly family?: string
    readonly status?: number
    readonly type?: string
    readonly requestId?: string
    readonly retryAfterMs?: number
  }
  if (info.family !== undefined) fields["family"] = info.family
  if (info.status !== undefined) fields["status"] = info.status
  if (info.type !== undefined) fields["type"] = info.type
  if (info.requestId !== undefined) fields["requestId"] = info.requestId
  if (info.retryAfterMs !== undefined) fields["retryAfterMs"] = info.retryAfterMs
  return { umg: fields }
}

const httpOf = (error: UmgFailure) => {
  const status = (error as { readonly status?: number }).status
  return status === undefined ? {} : { http: { response: { status, headers: {} } } }
}

/**
 * A failure of the way to the gateway (a time limit, the connection, a stream cut mid-way) as a
 * `NetworkError`; it has no `metadata`, so the umg error itself is its `cause` (umg's messages carry
 * no key: they are redacted where they are made).
 */
const networkError = (error: UmgFailure, url: string): AiError.NetworkError =>
  new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description: error.message, cause: error })

/**
 * The reason of a umg failure: a time limit, a failed connection or a stream cut mid-way is a
 * `NetworkError` (the umg error its `cause`); a stream that ended early, carried an error event or
 * came out of order, or an answer that does not decode, an `InvalidResponseError`.
 * @category errors
 */
export const reasonOf = (error: UmgFailure, url: string): AiError.AiErrorReason => {
  const metadata = metadataOf(error)
  const description = error.message
  switch (error._tag) {
    case "RateLimited":
      return new AiError.RateLimitError({
        ...(error.retryAfterMs === undefined ? {} : { retryAfter: Duration.millis(error.retryAfterMs) }),
        metadata,
        ...httpOf(error)
      })
    case "AuthenticationError":
      return new AiError.AuthenticationError({ kind: "InvalidKey", description, metadata, ...httpOf(error) })
    case "PermissionDenied":
      return new AiError.AuthenticationError({
        kind: "InsufficientPermissions",
        description,
        metadata,
        ...httpOf(error)
      })
    case "BadRequest":
    case "NotFound":
      return new AiError.InvalidRequestError({ description, metadata, ...httpOf(error) })
    case "InvalidRequest":
      return new AiError.InvalidRequestError({
        parameter: error.field,
        constraint: error.rule,
        description,
        metadata
      })
    case "SchemaNotExpressible":
      return new AiError.UnsupportedSchemaError({ description, metadata })
    case "UpstreamError":
    case "ServerError":
      return new AiError.InternalProviderError({ description, metadata, ...httpOf(error) })
    case "TimeoutError":
    case "TransportError":
      return networkError(error, url)
    case "IncompleteStream":
      return error.reason === "cut"
        ? networkError(error, url)
        : new AiError.InvalidResponseError({ description, metadata })
    case "DecodeError":
      return new AiError.InvalidResponseError({ description, metadata })
    default:
      return new AiError.UnknownError({ description, metadata, ...httpOf(error) })
  }
}

/** The `AiError` of a umg failure in `module.method` (`UmgLanguageModel.generateText`, …). @category errors */
export const toAiError = (error: UmgFailure, module: string, method: string, url: string): AiError.AiError =>
  AiError.make({ module, method, reason: reasonOf(error, url) })
