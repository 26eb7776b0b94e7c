/**
 * Every endpoint family's error envelope as a Schema, and the one pure mapping from an HTTP error
 * answer (status, headers, body) to the typed gateway errors, shared by all families.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaParser from "effect/SchemaParser"
import {
  AuthenticationError,
  BadRequest,
  type Family,
  type AnswerError,
  type GatewayErrorInfo,
  type GatewayResponseError,
  NotFound,
  PermissionDenied,
  PlatformError,
  RateLimited,
  ServerError,
  UpstreamError
} from "../errors/GatewayError.js"
import { redactError, redactText } from "../errors/Redact.js"
import { serverDelayMs } from "../gateway/RetryPolicy.js"
import { isRecord, sanitize } from "../validation/Rules.js"

const Extra = Schema.Record(Schema.String, Schema.Unknown)
// A v3 `Struct(fields, Extra)`: the fields, and any other key kept as it is.
const Open = <F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), [Extra])

/** Messages-style (epsilon): `{type: "error", error: {type, message}, request_id?}`. @category schemas */
export const MessagesErrorEnvelope = Open({
  type: Schema.Literal("error"),
  error: Open({ type: Schema.String, message: Schema.String }),
  request_id: Schema.optional(Schema.NullOr(Schema.String))
})

/** Count tokens, invalid key: `{error: {message: "Invalid token", type: "invalid_request_error"}}`. @category schemas */
export const CountTokensInvalidToken = Schema.Struct({
  error: Open({ message: Schema.Literal("Invalid token"), type: Schema.Literal("invalid_request_error") })
})

/** Count tokens: the messages-style envelope (missing parameter) or the invalid-key shape. @category schemas */
export const CountTokensErrorEnvelope = Schema.Union([MessagesErrorEnvelope, CountTokensInvalidToken])

/** Native-content (zeta): `{error: {code, message, status, details?}}`. @category schemas */
export const NativeErrorEnvelope = Schema.Struct({
  error: Open({
    code: Schema.Number,
    message: Schema.String,
    status: Schema.String,
    details: Schema.optional(Schema.Array(Schema.Unknown))
  })
})

/** OpenAI-style (chat, responses, embeddings, rerank, speech, images, models, video submit): `{error: {message, type, param, code}}`. @category schemas */
export const OpenAiErrorEnvelope = Schema.Struct({
  error: Open({
    message: Schema.String,
    type: Schema.optional(Schema.NullOr(Schema.String)),
    param: Schema.optional(Schema.NullOr(Schema.String)),
    code: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Number])))
  })
})

/** Video submit errors use the OpenAI-style envelope. @category schemas */
export const VideoErrorEnvelope = OpenAiErrorEnvelope

/** Platform: `{code, msg, data}` with `code` other than 200. @category schemas */
export const PlatformErrorEnvelope = Schema.Struct({
  code: Schema.Int.check(Schema.makeFilter((c) => c !== 200 || "code 200 is success")),
  msg: Schema.optional(Schema.NullOr(Schema.String)),
  data: Schema.optional(Schema.Unknown)
})
/** @category models */
export type PlatformErrorEnvelope = typeof PlatformErrorEnvelope.Type

/** How long a message taken from an answer may be; longer bodies (HTML pages, dumps) are cut. @category models */
export const maxErrorMessageLength = 500

const cap = (text: string): string => {
  const clean = text.replace(/\s+/g, " ").trim()
  return clean.length > maxErrorMessageLength ? `${clean.slice(0, maxErrorMessageLength - 1)}…` : clean
}

const is = <S extends Schema.ConstraintDecoder<unknown>>(schema: S) => {
  const decode = SchemaParser.decodeUnknownResult(schema)
  return (u: unknown): S["Type"] | undefined => {
    const r = decode(u)
    return Result.isSuccess(r) ? r.success : undefined
  }
}
const asMessages = is(MessagesErrorEnvelope)
const asNative = is(NativeErrorEnvelope)
const asOpenAi = is(OpenAiErrorEnvelope)
const asPlatform = is(PlatformErrorEnvelope)
const asInvalidToken = is(CountTokensInvalidToken)
const asCountTokensError = is(CountTokensErrorEnvelope)

/** What an error body said, whatever its envelope. */
interface Said {
  readonly type?: string
  readonly message?: string
  readonly requestId?: string
  readonly platformCode?: number
  /** native `RetryInfo.retryDelay`, in ms */
  readonly retryDelayMs?: number
}

const retryInfoMs = (details: ReadonlyArray<unknown> | undefined): number | undefined => {
  for (const d of details ?? []) {
    if (
      isRecord(d) &&
      typeof d["@type"] === "string" &&
      d["@type"].endsWith("google.rpc.RetryInfo") &&
      typeof d.retryDelay === "string"
    ) {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay)
      if (m) return Math.round(Number(m[1]) * 1000)
    }
  }
  return undefined
}

// Try the family's own envelope first, then the others: a gateway layer (auth, proxy) may answer
// in another family's shape.
const read = (family: Family, body: unknown): Said => {
  const messages = (): Said | undefined => {
    const e = asMessages(body)
    return (
      e && {
        type: e.error.type,
        message: e.error.message,
        ...(typeof e.request_id === "string" ? { requestId: e.request_id } : {})
      }
    )
  }
  const native = (): Said | undefined => {
    const e = asNative(body)
    if (!e) return undefined
    const delay = retryInfoMs(e.error.details)
    return { type: e.error.status, message: e.error.message, ...(delay !== undefined ? { retryDelayMs: delay } : {}) }
  }
  const openai = (): Said | undefined => {
    const e = asOpenAi(body)
    return e && { message: e.error.message, ...(typeof e.error.type === "string" ? { type: e.error.type } : {}) }
  }
  const platform = (): Said | undefined => {
    const e = asPlatform(body)
    return e && { type: String(e.code), platformCode: e.code, ...(typeof e.msg === "string" ? { message: e.msg } : {}) }
  }
  const order =
    family === "native" || family === "live"
      ? [native, messages, openai, platform]
      : family === "platform"
        ? [platform, openai, messages, native]
        : family === "messages" || family === "count_tokens"
          ? [messages, openai, native, platform]
          : [openai, messages, native, platform]
  for (const attempt of order) {
    const said = attempt()
    if (said) return said
  }
  return {}
}

/** Only the string-valued headers, names lower-cased (`__proto__`-style names dropped): untrusted input is never read further. */
const cleanHeaders = (headers: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  if (!isRecord(headers)) return out
  for (const key of Object.keys(headers)) {
    const v = headers[key]
    const name = key.toLowerCase()
    if (typeof v === "string" && name !== "__proto__" && name !== "constructor" && name !== "prototype") out[name] = v
  }
  return out
}

/**
 * Milliseconds to wait, read by the retry policy's own rule (`RetryPolicy.serverDelayMs`: `retry-after-ms`,
 * else `retry-after` as seconds or an HTTP date measured from `now`), so the error and the retry
 * decision never disagree. Without `now` a date is ignored, keeping this pure.
 * @category accessors
 */
export const retryAfterMs = (headers: Readonly<Record<string, string>>, now?: number): number | undefined => {
  const wait = serverDelayMs(cleanHeaders(headers), now !== undefined && Number.isFinite(now) ? now : Number.NaN)
  return wait === undefined || !Number.isFinite(wait) ? undefined : Math.round(wait)
}

// A readable fallback when the body says nothing usable: the status, and a short non-JSON body text.
const statusText: Readonly<Record<number, string>> = {
  400: "bad request",
  401: "unauthorized",
  403: "forbidden",
  404: "not found",
  409: "conflict",
  413: "request too large",
  422: "unprocessable entity",
  429: "rate limited",
  500: "internal server error",
  502: "bad gateway",
  503: "service unavailable",
  504: "gateway timeout"
}

const fallbackMessage = (status: number | undefined, rawText: string | undefined): string => {
  const head =
    status === undefined
      ? "the gateway answered with an error"
      : `HTTP ${status}${statusText[status] ? ` ${statusText[status]}` : ""}`
  const text = rawText === undefined ? "" : cap(rawText)
  return text === "" ? head : cap(`${head}: ${text}`)
}

// Body types that name the error when the status does not (a missing or non-error status).
const byType: Readonly<Record<string, "auth" | "permission" | "notFound" | "rate" | "bad" | "upstream" | "server">> = {
  authentication_error: "auth",
  UNAUTHENTICATED: "auth",
  permission_error: "permission",
  PERMISSION_DENIED: "permission",
  not_found_error: "notFound",
  NOT_FOUND: "notFound",
  rate_limit_error: "rate",
  RESOURCE_EXHAUSTED: "rate",
  invalid_request_error: "bad",
  invalid_request: "bad",
  INVALID_ARGUMENT: "bad",
  FAILED_PRECONDITION: "bad",
  upstream_error: "upstream",
  api_error: "server",
  overloaded_error: "server",
  svc_api_error: "server",
  INTERNAL: "server",
  UNAVAILABLE: "server"
}

const families: ReadonlyArray<Family> = [
  "messages",
  "count_tokens",
  "native",
  "openai",
  "video",
  "platform",
  "realtime",
  "live"
]

/** One HTTP error answer, as the adapter received it. Header names lower-cased. @category models */
export interface ErrorAnswer {
  readonly family: Family
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  /** The body: a parsed JSON value, or the raw text or bytes (parsed here when they are JSON). */
  readonly body?: unknown
  /** Epoch ms, only to read a `retry-after` HTTP date. */
  readonly now?: number
}

// The one mapping behind `toAnswerError` and `toPlatformAnswerError`: `onPlatformCode` is how a
// platform envelope's failing `code` under a non-error status is told; without it such a body is
// mapped by its type like any other, so the result type says whether a `PlatformError` can come out.
const classify = <P = never>(
  answer: ErrorAnswer,
  onPlatformCode?: (info: GatewayErrorInfo, code: number) => P
): AnswerError | P => {
  const input: Partial<ErrorAnswer> = isRecord(answer) ? answer : {}
  const family: Family = (families as ReadonlyArray<unknown>).includes(input.family)
    ? (input.family as Family)
    : "openai"
  const status = typeof input.status === "number" && Number.isInteger(input.status) ? input.status : undefined
  const headers = cleanHeaders(input.headers)
  let body: unknown = input.body
  let rawText: string | undefined
  // Bytes are read as UTF-8 (malformed sequences replaced), so a caller may hand over the raw body.
  if (body instanceof Uint8Array) body = new TextDecoder().decode(body)
  if (typeof body === "string") {
    rawText = body
    try {
      body = JSON.parse(body)
    } catch {
      body = undefined
    }
  }
  // JSON.parse makes own `__proto__` keys; drop them before any Schema copies the body.
  const clean = sanitize(body)
  const said = read(family, clean)
  const requestId = headers["request-id"] ?? headers["x-request-id"] ?? said.requestId
  const message =
    said.message !== undefined && said.message.trim() !== ""
      ? cap(said.message)
      : fallbackMessage(status, said.type === undefined ? rawText : undefined)
  const info: GatewayErrorInfo = {
    family,
    message,
    ...(status !== undefined ? { status } : {}),
    ...(said.type !== undefined ? { type: cap(said.type) } : {}),
    ...(requestId !== undefined ? { requestId: cap(requestId) } : {})
  }
  const rate = (): RateLimited => {
    const wait = retryAfterMs(headers, typeof input.now === "number" ? input.now : undefined) ?? said.retryDelayMs
    return new RateLimited({ ...info, ...(wait !== undefined ? { retryAfterMs: wait } : {}) })
  }
  if (family === "count_tokens" && asInvalidToken(clean) !== undefined) return new AuthenticationError(info)
  if (status !== undefined && status >= 400 && status <= 599) {
    if (status === 401) return new AuthenticationError(info)
    if (status === 403) return new PermissionDenied(info)
    if (status === 404) return new NotFound(info)
    if (status === 429) return rate()
    if (status < 500) return new BadRequest(info)
    return said.type === "upstream_error" ? new UpstreamError(info) : new ServerError(info)
  }
  if (said.platformCode !== undefined && onPlatformCode !== undefined) return onPlatformCode(info, said.platformCode)
  switch (said.type !== undefined && Object.hasOwn(byType, said.type) ? byType[said.type] : undefined) {
    case "auth":
      return new AuthenticationError(info)
    case "permission":
      return new PermissionDenied(info)
    case "notFound":
      return new NotFound(info)
    case "rate":
      return rate()
    case "bad":
      return new BadRequest(info)
    case "upstream":
      return new UpstreamError(info)
    default:
      return new ServerError(info)
  }
}

/**
 * Maps an error answer of a gateway endpoint (every family but `platform`) to its typed error, the
 * same way for every family. By status: 401 → `AuthenticationError` (so is count-tokens' `Invalid
 * token`, whatever the status), 403 → `PermissionDenied`, 404 → `NotFound`, 429 → `RateLimited`
 * (with `retryAfterMs`), other 4xx → `BadRequest`, 5xx → `ServerError`, or `UpstreamError` when the
 * body's type is `upstream_error`. Any other status (or none) is mapped by the body's type, else
 * `ServerError`; a platform-style `{code, msg}` body is not a `PlatformError` here (only platform
 * endpoints answer with that envelope). `type` and `message` come from the envelope (`message` capped
 * at 500 characters, with a fallback when the body is not an envelope); `requestId` from the
 * `request-id` / `x-request-id` header or a `request_id` body field. No other header value is ever
 * copied. Total: never throws.
 * @category errors
 */
export const toAnswerError = (answer: ErrorAnswer): AnswerError => classify(answer)

/**
 * `toAnswerError` for a platform endpoint (E4–E7): also a platform envelope with a non-200 `code`
 * under a non-error status is a `PlatformError`.
 * @category errors
 */
export const toPlatformAnswerError = (answer: ErrorAnswer): GatewayResponseError =>
  classify(answer, (info, code) => new PlatformError({ ...info, code }))

/**
 * Maps an error answer to its typed error: `toPlatformAnswerError` for the `platform` family,
 * `toAnswerError` for every other, so only a platform answer can be a `PlatformError` (and the
 * result type says so when the family is known).
 * @category errors
 */
export function toGatewayError(answer: ErrorAnswer & { readonly family: "platform" }): GatewayResponseError
export function toGatewayError(answer: ErrorAnswer & { readonly family: Exclude<Family, "platform"> }): AnswerError
export function toGatewayError(answer: ErrorAnswer): GatewayResponseError
export function toGatewayError(answer: ErrorAnswer): GatewayResponseError {
  return isRecord(answer) && answer.family === "platform" ? toPlatformAnswerError(answer) : toAnswerError(answer)
}

/**
 * The typed error of a platform envelope whose `code` is not 200 (the platform may answer HTTP 200
 * with a failure code). `undefined` when the envelope says success or is not an envelope.
 * @category errors
 */
export const platformEnvelopeError = (envelope: unknown, requestId?: string): PlatformError | undefined => {
  const e = asPlatform(sanitize(envelope))
  if (e === undefined) return undefined
  const msg = typeof e.msg === "string" && e.msg.trim() !== "" ? cap(e.msg) : `the platform answered code ${e.code}`
  return new PlatformError({
    family: "platform",
    code: e.code,
    type: String(e.code),
    message: msg,
    ...(requestId !== undefined ? { requestId } : {})
  })
}

/**
 * The typed error of a count-tokens error envelope (`CountTokensErrorEnvelope`) in an answer whose
 * status is not an error: the contract does not give the status these envelopes come with, so one
 * under a 2xx is the error `toAnswerError` makes of it (`Invalid token` an `AuthenticationError`,
 * else by the envelope's type: `invalid_request_error` a `BadRequest`). `undefined` when the body is
 * not such an envelope.
 * @category errors
 */
export const countTokensEnvelopeError = (answer: Omit<ErrorAnswer, "family">): AnswerError | undefined =>
  asCountTokensError(sanitize(answer.body)) !== undefined
    ? toAnswerError({ ...answer, family: "count_tokens" })
    : undefined

/**
 * An error answer's text (an HTTP error body, a refused WebSocket upgrade's) as its typed error and
 * the text safe to show: redacted of `secrets` and cut to `maxChars`, parsed once when it is JSON,
 * mapped by `classify` (`toAnswerError` or `toPlatformAnswerError`), then redacted again — a secret
 * written with JSON escapes is only whole once parsed (the shown text is then written again from the
 * parse), and the request id comes from a header.
 * @category errors
 */
export const errorOfAnswerText = <A>(
  answer: Omit<ErrorAnswer, "body"> & {
    readonly text: string
    readonly secrets: ReadonlyArray<string>
    readonly maxChars: number
  },
  classify: (answer: ErrorAnswer) => A
): { readonly error: A; readonly text: string } => {
  const { text: raw, secrets, maxChars, ...rest } = answer
  const text = redactText(raw, secrets, maxChars)
  if (text === "") return { error: redactError(classify({ ...rest, body: undefined }), secrets), text }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    // Not JSON: the mapping gets the text.
    return { error: redactError(classify({ ...rest, body: text }), secrets), text }
  }
  return {
    error: redactError(classify({ ...rest, body }), secrets),
    text: text.includes("\\") ? redactText(JSON.stringify(body), secrets, maxChars) : text
  }
}
