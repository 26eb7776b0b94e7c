/**
 * umg's typed failures as the AI SDK's errors. A request the gateway or the way there failed is an
 * `APICallError` with `isRetryable: false` (umg has already retried what it retries, so the AI SDK's
 * own retries never stack on them), a request refused before sending an `InvalidArgumentError`, and
 * an aborted call the signal's own reason, as `fetch` rejects.
 */
import { APICallError, InvalidArgumentError } from "@ai-sdk/provider"
import { errorAnswerOf } from "../adapters/CallOptions.js"

/** Where a call went, for the error: the endpoint's URL and the body sent. @category models */
export interface CallSite {
  readonly url: string
  readonly requestBody: unknown
  readonly signal?: AbortSignal | undefined
}

interface Tagged {
  readonly _tag: string
  readonly message: string
  readonly family?: string
  readonly status?: number
  readonly type?: string
  readonly requestId?: string
  readonly retryAfterMs?: number
  readonly field?: string
  readonly path?: string
}

const isTagged = (u: unknown): u is Tagged =>
  typeof u === "object" &&
  u !== null &&
  typeof (u as { readonly _tag?: unknown })._tag === "string" &&
  typeof (u as { readonly message?: unknown }).message === "string"

/** The error an aborted call rejects with: the signal's reason, else an `AbortError` as `fetch` gives. */
const abortReason = (signal: AbortSignal | undefined): unknown =>
  signal?.reason ?? new DOMException("The operation was aborted.", "AbortError")

/**
 * The AI SDK error of a umg failure (anything else is given back as it is). An `APICallError` keeps
 * the gateway's status, message, error `type`, request id and `Retry-After` (in `data.umg`), the umg
 * error itself as its `cause`, and, for an error answer, its body (redacted) and headers (without the
 * ones that may carry a credential) as `responseBody` and `responseHeaders`.
 * @category errors
 */
export const toSdkError = (error: unknown, site: CallSite): unknown => {
  if (!isTagged(error)) return error
  switch (error._tag) {
    case "Aborted":
      return abortReason(site.signal)
    case "InvalidRequest":
      return new InvalidArgumentError({ argument: error.field ?? "request", message: error.message, cause: error })
    case "SchemaNotExpressible":
      return new InvalidArgumentError({ argument: "responseFormat.schema", message: error.message, cause: error })
    case "AuthenticationError":
    case "PermissionDenied":
    case "NotFound":
    case "RateLimited":
    case "BadRequest":
    case "UpstreamError":
    case "ServerError":
    case "TimeoutError":
    case "TransportError":
    case "DecodeError":
    case "IncompleteStream": {
      const answer = errorAnswerOf(error)
      return new APICallError({
        message: error.message,
        url: site.url,
        requestBodyValues: site.requestBody,
        ...(error.status === undefined ? {} : { statusCode: error.status }),
        ...(answer === undefined ? {} : { responseHeaders: { ...answer.headers }, responseBody: answer.body }),
        isRetryable: false,
        cause: error,
        data: {
          umg: {
            error: error._tag,
            ...(error.family === undefined ? {} : { family: error.family }),
            ...(error.type === undefined ? {} : { type: error.type }),
            ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
            ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs })
          }
        }
      })
    }
    default:
      return error
  }
}
