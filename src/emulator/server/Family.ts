/**
 * The endpoint family of a path and each family's error envelope, so that server-made errors (404,
 * 405, 413, injected statuses and in-stream errors) look like the errors of the route they stand in for.
 */
import type { AuthFamily } from "./Auth.js"
import type { SseErrorFault } from "./Context.js"
import type { SseEvent } from "./Route.js"

/** Error-shape families: the auth families plus the platform `{code, msg, data}` envelope. */
export type Family = AuthFamily | "platform"

/** The family that answers a path. */
export const familyOfPath = (path: string): Family => {
  if (path === "/v1/messages/count_tokens") return "count_tokens"
  if (path === "/v1/messages") return "messages"
  if (path.startsWith("/v1beta/") || path.startsWith("/ws/v1beta/")) return "native"
  if (path.startsWith("/prod-api/")) return "platform"
  if (path.startsWith("/v1/video/")) return "video"
  return "openai"
}

/** A native-content method asked under another API version: `@google/genai` 3 asks `/v1` by default. */
const NATIVE_UNDER_OTHER_VERSION = /^\/(?:v1|v1alpha)\/models\/[^/]+:(?:generateContent|streamGenerateContent)$/

/** The 404 message of a path no route serves; a native-content call under `/v1` is told where they are. */
export const unknownPathMessage = (method: string, path: string): string =>
  `Unknown path: ${method} ${path}` +
  (NATIVE_UNDER_OTHER_VERSION.test(path)
    ? `; native-content endpoints are under /v1beta (@google/genai 3 asks /v1 unless given httpOptions.apiVersion "v1beta")`
    : "")

/** The messages-style `error.type` of a status (the count-tokens endpoint's too, but for 400 and 401). */
const messagesType = (status: number): string => {
  switch (status) {
    case 400:
      return "invalid_request" // the contract's errors say `invalid_request` for this gateway
    case 401:
      return "authentication_error"
    case 403:
      return "permission_error"
    case 404:
      return "not_found_error"
    case 413:
      return "request_too_large"
    case 429:
      return "rate_limit_error"
    case 500:
      return "upstream_error"
    case 529:
      return "overloaded_error"
    default:
      return status >= 500 ? "api_error" : "invalid_request"
  }
}

/**
 * The count-tokens endpoint's `error.type`: `invalid_request_error` for a bad request or key (the
 * contract's invalid-key error on it), the messages-style type of any other status.
 */
const countTokensType = (status: number): string =>
  status === 400 || status === 401 ? "invalid_request_error" : messagesType(status)

/** google.rpc status names by HTTP status (the native-content errors upstream). */
export const nativeStatus = (status: number): string => {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT"
    case 401:
      return "UNAUTHENTICATED"
    case 403:
      return "PERMISSION_DENIED"
    case 404:
      return "NOT_FOUND"
    case 405:
      return "UNIMPLEMENTED"
    case 413:
      return "INVALID_ARGUMENT"
    case 429:
      return "RESOURCE_EXHAUSTED"
    case 503:
      return "UNAVAILABLE"
    case 504:
      return "DEADLINE_EXCEEDED"
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"
  }
}

const openAiTypeAndCode = (status: number): { type: string; code: string | null } => {
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" }
  if (status === 404) return { type: "invalid_request_error", code: "not_found" }
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" }
  if (status >= 500) return { type: "server_error", code: null }
  return { type: "invalid_request_error", code: null }
}

/** Options of an error body: a specific type/code, the offending parameter, the request id. */
export interface ErrorDetails {
  readonly type?: string
  readonly code?: string | null
  readonly param?: string | null
  readonly requestId?: string
}

/** The OpenAI-style error object (the envelope's `error`) a family answers `status` with. */
export const openAiErrorObject = (
  status: number,
  message: string,
  details: ErrorDetails = {}
): { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null } => {
  const d = openAiTypeAndCode(status)
  return {
    message,
    type: details.type ?? d.type,
    param: details.param ?? null,
    code: details.code === undefined ? d.code : details.code
  }
}

/** The error body a family answers `status` with. */
export const errorBody = (family: Family, status: number, message: string, details: ErrorDetails = {}): unknown => {
  switch (family) {
    case "messages":
      return {
        type: "error",
        error: { type: details.type ?? messagesType(status), message },
        ...(details.requestId === undefined ? {} : { request_id: details.requestId })
      }
    case "count_tokens":
      return { type: "error", error: { type: details.type ?? countTokensType(status), message } }
    case "native":
      return { error: { code: status, message, status: details.type ?? nativeStatus(status) } }
    case "platform":
      return { code: status, msg: message, data: null }
    case "openai":
    case "video":
      return { error: openAiErrorObject(status, message, details) }
  }
}

/** The families whose text streams carry an in-stream error. */
export type StreamFamily = "messages" | "openai" | "native"

/** Each family's overloaded error, what an `sse-error` fault sends unless told otherwise. */
const overloaded: Readonly<Record<StreamFamily, { readonly status: number; readonly message: string }>> = {
  messages: { status: 529, message: "Overloaded" },
  openai: { status: 503, message: "The server is overloaded. Please try again later." },
  native: { status: 503, message: "The model is overloaded. Please try again later." }
}

/** What an `sse-error` fault's error says in `family`: status, message and the type that overrides the status's. */
export const streamErrorOf = (
  family: StreamFamily,
  fault: SseErrorFault
): { readonly status: number; readonly message: string; readonly details: ErrorDetails } => ({
  status: fault.status ?? overloaded[family].status,
  message:
    fault.message ??
    (fault.status === undefined ? overloaded[family].message : `Injected stream error: HTTP ${fault.status}`),
  details: fault.type === undefined ? {} : { type: fault.type }
})

/**
 * The in-stream error event of `family` for an `sse-error` fault: the family's error body without a
 * request id (upstream's in-stream errors carry none) — messages-style as an `event: error`, the
 * OpenAI-style chat payload and the native-content chunk as data-only events.
 */
export const streamErrorEvent = (family: StreamFamily, fault: SseErrorFault): SseEvent => {
  const e = streamErrorOf(family, fault)
  return {
    name: family === "messages" ? "error" : undefined,
    data: JSON.stringify(errorBody(family, e.status, e.message, e.details))
  }
}
