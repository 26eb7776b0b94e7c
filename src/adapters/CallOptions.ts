/**
 * Per-call control, the same on every call of every face. A call may carry an `AbortSignal`, time
 * limits (of an attempt, of a stream's gaps) and a retry count that override the layer's, and extra
 * headers, and may read the successful answer's meta (`onResponse`, `withResponse`: status, request
 * id, secret-free headers, parsed rate-limit headers). The rules live here once; the HTTP transport
 * and the WebSocket groups apply them.
 */
import type { Scope } from "effect"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { Aborted, type Family } from "../core/errors/GatewayError.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { redactText } from "../core/errors/Redact.js"
import { serverDelayMs } from "../core/gateway/RetryPolicy.js"
import { checkSetting, maxTimerMs, retryCount, timeLimit } from "../core/validation/Setting.js"
import { cutWhen } from "./internal/Deadline.js"
import { fromScopedOpen, openedOf, type ResultStream } from "./sse/Consume.js"

/**
 * The options every call takes as its last parameter.
 * @category models
 */
export interface CallOptions {
  /**
   * Aborting it fails the call with `Aborted`: at once, sending nothing, when it is already aborted;
   * otherwise the connection (a stream's too, a WebSocket session's socket) is closed.
   */
  readonly signal?: AbortSignal | undefined
  /**
   * Overrides the layer's time limit of one request attempt (`timeoutMs`); for a stream, of the wait
   * for the answer's headers and then for its first event, or a byte stream's (`speech.stream`,
   * `video.downloadStream`) first bytes (`streamFirstByteTimeoutMs`; the gaps after are
   * `streamIdleTimeoutMs`'s); for a WebSocket session, of its handshake. 1 to 2 147 483 647 ms.
   */
  readonly timeoutMs?: number | undefined
  /**
   * Overrides the layer's `streamIdleTimeoutMs` for this call's stream: the longest wait for the next
   * event (a byte stream's next chunk) once the first has come; past it the stream fails with a
   * `TimeoutError` (phase `idle`) and its connection is closed. Calls that are not streams ignore it.
   * 1 to 2 147 483 647 ms.
   */
  readonly streamIdleTimeoutMs?: number | undefined
  /**
   * Headers added to the request (on the gateway's own origin only, as the layer's `headers`). Names
   * the transport sets itself (`host`, `content-length`, …) or that carry a credential
   * (`authorization`, `x-api-key`, …) are refused with `InvalidRequest`; their values never reach a
   * log, a span or an error.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Overrides the layer's retries after the first attempt (`maxRetries`): 0 is one attempt. 0 to 100.
   * (A WebSocket session is never retried.)
   */
  readonly maxRetries?: number | undefined
  /**
   * Called with each successful (2xx) answer's meta: once for a call of one request, when its answer
   * is read (for a stream: when its headers arrive), and for each request of a call that makes several
   * (`embedMany`, video waits). A WebSocket session has no such answer: it is not called.
   */
  readonly onResponse?: ((info: ResponseInfo) => void) | undefined
}

/** One rate-limit window as the gateway reported it. @category models */
export interface RateLimitWindow {
  readonly limit?: number
  readonly remaining?: number
  /** How long until the window resets, in ms from the answer (read from a duration such as `6m0s` or a time). */
  readonly resetMs?: number
}

/**
 * The rate-limit headers of an answer, parsed: the OpenAI-style `x-ratelimit-{limit,remaining,reset}-
 * {requests,tokens}`, the messages-style `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-
 * {limit,remaining,reset}`, and `retry-after-ms` / `retry-after`. A window the answer did not report
 * is absent.
 * @category models
 */
export interface RateLimitInfo {
  readonly requests?: RateLimitWindow
  readonly tokens?: RateLimitWindow
  readonly inputTokens?: RateLimitWindow
  readonly outputTokens?: RateLimitWindow
  readonly retryAfterMs?: number
}

/** A successful answer's meta. @category models */
export interface ResponseInfo {
  readonly status: number
  /** The gateway's request id (`request-id`, `x-request-id`). */
  readonly requestId?: string
  /** The answer's headers, lower-case, without the ones that may hold a credential and with every configured secret redacted. */
  readonly headers: Readonly<Record<string, string>>
  readonly rateLimit: RateLimitInfo
}

/** A call's value and the meta of its successful answer (absent only when the call sent no request). @category models */
export interface WithResponse<A> {
  readonly data: A
  readonly response?: ResponseInfo
}

// ---------------------------------------------------------------------------------------------
// Checking the options
// ---------------------------------------------------------------------------------------------

/** Headers the transport sets itself: given per call they would break the request or its framing. */
const transportHeaders: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "content-type",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "proxy-connection",
  "upgrade",
  "te",
  "trailer",
  "expect",
  // The client decodes the encodings it asks for; another would reach the decoder undecoded.
  "accept-encoding"
])

/**
 * Headers that carry a credential. The credential is the layer's: held `Redacted`, applied last, kept
 * off cross-origin redirects and redacted from echoed error bodies and spans by name. A per-call one
 * would either be overridden silently or escape all of that, so it is refused: a call with another
 * key belongs to a gateway layer made with that key.
 */
const credentialHeaders: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "x-vendor-api-key",
  "cookie"
])

/** An RFC 9110 token: what a header name may be. */
const headerName = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/
/** What every HTTP client accepts in a header value: no line break, no NUL, no other control character. */
const headerValue = /^[\t\x20-\x7e\x80-\xff]*$/

/** The bounds of the per-call options. @category constants */
export const callOptionLimits = {
  maxHeaders: 64,
  maxHeaderNameChars: 256,
  maxHeaderValueChars: 8192,
  maxRetries: retryCount.max,
  // The longest delay a host timer keeps (a longer one fires at once).
  maxTimeoutMs: maxTimerMs
} as const

const refuse = (field: string, rule: string, message: string) =>
  Result.fail(new InvalidRequest({ field, rule, message }))

/** A header refused for its name (never quoting its value). */
const checkHeaderName = (name: string): InvalidRequest | undefined => {
  const field = `options.headers.${name.slice(0, callOptionLimits.maxHeaderNameChars)}`
  const fail = (rule: string, message: string) => new InvalidRequest({ field, rule, message })
  if (name.length === 0 || name.length > callOptionLimits.maxHeaderNameChars || !headerName.test(name))
    return fail(
      "header-name",
      `${field}: not a header name (1 to ${callOptionLimits.maxHeaderNameChars} characters of letters, digits and !#$%&'*+-.^_\`|~)`
    )
  if (transportHeaders.has(name) || name.startsWith("sec-websocket-") || name.startsWith(":"))
    return fail("forbidden-header", `${field}: "${name}" is set by umg's transport and cannot be given per call`)
  if (credentialHeaders.has(name))
    return fail(
      "forbidden-header",
      `${field}: "${name}" carries a credential, which is the gateway layer's (its apiKey); make a layer with that key instead`
    )
  return undefined
}

const checkHeaders = (
  headers: Readonly<Record<string, string>>
): Result.Result<Readonly<Record<string, string>>, InvalidRequest> => {
  const entries = Object.entries(headers)
  if (entries.length > callOptionLimits.maxHeaders)
    return refuse(
      "options.headers",
      "max-items",
      `options.headers: ${entries.length} headers given, at most ${callOptionLimits.maxHeaders} are allowed`
    )
  const out: Record<string, string> = {}
  for (const [raw, value] of entries) {
    const name = raw.toLowerCase()
    const refused = checkHeaderName(name)
    if (refused !== undefined) return Result.fail(refused)
    if (typeof value !== "string" || value.length > callOptionLimits.maxHeaderValueChars || !headerValue.test(value))
      return refuse(
        `options.headers.${name}`,
        "header-value",
        `options.headers.${name}: the value must be a string of at most ${callOptionLimits.maxHeaderValueChars} characters of Latin-1 (U+0000–U+00FF: no other letter or symbol can be sent in a header) without line breaks or control characters (the value is not shown)`
      )
    out[name] = value
  }
  return Result.succeed(out)
}

/** Whether a value is an `AbortSignal` (what a JavaScript caller passed as one may not be). @category guards */
export const isSignal = (u: unknown): u is AbortSignal =>
  typeof u === "object" &&
  u !== null &&
  typeof (u as AbortSignal).aborted === "boolean" &&
  typeof (u as AbortSignal).addEventListener === "function"

/**
 * The options checked before anything is sent, header names lower-cased: a refused or malformed
 * header, a time limit or retry count outside its range, a signal or callback of the wrong kind is an
 * `InvalidRequest` naming the option (never a header's value).
 * @category validation
 */
export const check = (options: CallOptions): Result.Result<CallOptions, InvalidRequest> => {
  const { signal, timeoutMs, streamIdleTimeoutMs, maxRetries, headers, onResponse } = options
  if (signal !== undefined && !isSignal(signal))
    return refuse("options.signal", "type", "options.signal: must be an AbortSignal")
  if (timeoutMs !== undefined) {
    const checked = checkSetting("options.timeoutMs", timeoutMs, timeLimit)
    if (Result.isFailure(checked)) return Result.fail(checked.failure)
  }
  if (streamIdleTimeoutMs !== undefined) {
    const checked = checkSetting("options.streamIdleTimeoutMs", streamIdleTimeoutMs, timeLimit)
    if (Result.isFailure(checked)) return Result.fail(checked.failure)
  }
  if (maxRetries !== undefined) {
    const checked = checkSetting("options.maxRetries", maxRetries, retryCount)
    if (Result.isFailure(checked)) return Result.fail(checked.failure)
  }
  if (onResponse !== undefined && typeof onResponse !== "function")
    return refuse("options.onResponse", "type", "options.onResponse: must be a function")
  if (headers === undefined) return Result.succeed(options)
  if (typeof headers !== "object" || (headers as unknown) === null)
    return refuse("options.headers", "type", "options.headers: must be an object of header names to string values")
  return Result.map(checkHeaders(headers), (checked) => ({ ...options, headers: checked }))
}

// ---------------------------------------------------------------------------------------------
// Aborting
// ---------------------------------------------------------------------------------------------

/** The failure of a call whose signal was aborted. @category constructors */
export const abortedError = (family: Family): Aborted =>
  new Aborted({ family, message: `the ${family} call was aborted by its signal` })

/**
 * `effect`, failing with `Aborted` — at once, without running it, when `signal` is already aborted;
 * otherwise interrupting it (an HTTP request's connection closes) when the signal aborts. Itself when
 * there is no signal.
 * @category combinators
 */
export const abortable = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  family: Family,
  signal: AbortSignal | undefined
): Effect.Effect<A, E | Aborted, R> =>
  // A signal of the wrong kind is the options check's to refuse (`InvalidRequest`), not a throw here.
  signal === undefined || !isSignal(signal)
    ? effect
    : Effect.suspend(() =>
        signal.aborted
          ? Effect.fail(abortedError(family))
          : cutWhen<A, E | Aborted, R>(effect, (cut) => {
              const onAbort = () => cut(abortedError(family))
              signal.addEventListener("abort", onAbort, { once: true })
              return () => signal.removeEventListener("abort", onAbort)
            })
      )

// ---------------------------------------------------------------------------------------------
// The answer's meta
// ---------------------------------------------------------------------------------------------

/** Header names never handed out: they may carry a credential. */
const secretResponseHeaders: ReadonlySet<string> = new Set([...credentialHeaders, "set-cookie"])

// Hostile headers are cut before they are read: no rate-limit value is longer.
const maxRateLimitChars = 64

const count = (v: string | undefined): number | undefined =>
  v !== undefined && /^\s*\d{1,15}\s*$/.test(v) ? Number(v) : undefined

const units: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 1e-6
}

/** A reset given as a duration (`1s`, `6m0s`, `20ms`, `1h2m3.5s`), a number of seconds, or a time (relative to `now`). */
const resetMsOf = (v: string | undefined, now: number): number | undefined => {
  if (v === undefined || v.length > maxRateLimitChars) return undefined
  const text = v.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000
  if (/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(text)) {
    let total = 0
    for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g))
      total += Number(amount) * (units[unit!] ?? 0)
    return total
  }
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

const windowOf = (
  headers: Readonly<Record<string, string | undefined>>,
  limit: string,
  remaining: string,
  reset: string,
  now: number
): RateLimitWindow | undefined => {
  const w = {
    limit: count(headers[limit]),
    remaining: count(headers[remaining]),
    resetMs: resetMsOf(headers[reset], now)
  }
  const out: { limit?: number; remaining?: number; resetMs?: number } = {}
  if (w.limit !== undefined) out.limit = w.limit
  if (w.remaining !== undefined) out.remaining = w.remaining
  if (w.resetMs !== undefined) out.resetMs = w.resetMs
  return Object.keys(out).length === 0 ? undefined : out
}

/** The OpenAI-style window of `kind` (`requests`, `tokens`), else the messages-style one of `vendorKind`. */
const windowOfEither = (
  headers: Readonly<Record<string, string | undefined>>,
  kind: string | undefined,
  vendorKind: string,
  now: number
): RateLimitWindow | undefined =>
  (kind === undefined
    ? undefined
    : windowOf(
        headers,
        `x-ratelimit-limit-${kind}`,
        `x-ratelimit-remaining-${kind}`,
        `x-ratelimit-reset-${kind}`,
        now
      )) ??
  windowOf(
    headers,
    `anthropic-ratelimit-${vendorKind}-limit`,
    `anthropic-ratelimit-${vendorKind}-remaining`,
    `anthropic-ratelimit-${vendorKind}-reset`,
    now
  )

/**
 * The rate-limit headers of an answer (lower-case names), parsed; what is absent or unreadable is left
 * out. `now` (epoch ms) turns a reset time into a delay.
 * @category constructors
 */
export const rateLimitOf = (headers: Readonly<Record<string, string | undefined>>, now: number): RateLimitInfo => {
  const out: {
    requests?: RateLimitWindow
    tokens?: RateLimitWindow
    inputTokens?: RateLimitWindow
    outputTokens?: RateLimitWindow
    retryAfterMs?: number
  } = {}
  const requests = windowOfEither(headers, "requests", "requests", now)
  const tokens = windowOfEither(headers, "tokens", "tokens", now)
  const input = windowOfEither(headers, undefined, "input-tokens", now)
  const output = windowOfEither(headers, undefined, "output-tokens", now)
  if (requests !== undefined) out.requests = requests
  if (tokens !== undefined) out.tokens = tokens
  if (input !== undefined) out.inputTokens = input
  if (output !== undefined) out.outputTokens = output
  const retry = headers["retry-after-ms"] ?? headers["retry-after"]
  const retryAfterMs =
    retry !== undefined && retry.length <= maxRateLimitChars ? serverDelayMs(headers, now) : undefined
  if (retryAfterMs !== undefined) out.retryAfterMs = retryAfterMs
  return out
}

/** An answer's headers without the credential-bearing ones and with `secrets` redacted. */
const secretFreeHeaders = (
  answer: Readonly<Record<string, string | undefined>>,
  secrets: ReadonlyArray<string>
): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer)) {
    if (value === undefined || secretResponseHeaders.has(name)) continue
    headers[name] = redactText(value, secrets)
  }
  return headers
}

/**
 * A successful answer's meta: its headers without the credential-bearing ones and with `secrets`
 * redacted, its request id and its rate limits.
 * @category constructors
 */
export const responseInfo = (answer: {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly requestId: string | undefined
  readonly secrets: ReadonlyArray<string>
  readonly now: number
}): ResponseInfo => {
  const headers = secretFreeHeaders(answer.headers, answer.secrets)
  return {
    status: answer.status,
    ...(answer.requestId !== undefined ? { requestId: redactText(answer.requestId, answer.secrets, 200) } : {}),
    headers,
    rateLimit: rateLimitOf(headers, answer.now)
  }
}

/**
 * What an HTTP error answer held, for the frameworks' errors (the AI SDK's `APICallError` gives an
 * answer's body and headers): its body redacted as the error's message is, its headers secret-free.
 * @category models
 */
export interface ErrorAnswerInfo {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

// Kept beside the error, not in it: the typed errors stay as they are, printed and compared alike.
const errorAnswers = new WeakMap<object, ErrorAnswerInfo>()

/**
 * Keeps what the error answer `error` was made of: `body`, already redacted, and its headers, made
 * secret-free here (as `responseInfo` makes them).
 * @category constructors
 */
export const keepErrorAnswer = (
  error: object,
  answer: {
    readonly body: string
    readonly headers: Readonly<Record<string, string | undefined>>
    readonly secrets: ReadonlyArray<string>
  }
): void => {
  errorAnswers.set(error, { body: answer.body, headers: secretFreeHeaders(answer.headers, answer.secrets) })
}

/** The error answer a gateway error was made of (`keepErrorAnswer`), or `undefined`. @category getters */
export const errorAnswerOf = (error: unknown): ErrorAnswerInfo | undefined =>
  typeof error === "object" && error !== null ? errorAnswers.get(error) : undefined

// ---------------------------------------------------------------------------------------------
// withResponse
// ---------------------------------------------------------------------------------------------

/** The options with `onResponse` also keeping the meta; `arrived` waits until it came. */
const recording = (options: CallOptions | undefined) => {
  let response: ResponseInfo | undefined
  let wake: (() => void) | undefined
  const withRecord: CallOptions = {
    ...options,
    onResponse: (info) => {
      response = info
      options?.onResponse?.(info)
      wake?.()
    }
  }
  const arrived = Effect.callback<void>((resume) => {
    if (response !== undefined) return resume(Effect.void)
    wake = () => resume(Effect.void)
    return Effect.sync(() => {
      wake = undefined
    })
  })
  return { options: withRecord, arrived, response: () => response }
}

const withMeta = <A>(data: A, response: ResponseInfo | undefined): WithResponse<A> =>
  response === undefined ? { data } : { data, response }

/**
 * A stream, opened in the scope until its answer's headers arrived: its pull's first result is the
 * one already under way.
 */
const openStream = <A, E, R>(
  stream: Stream.Stream<A, E, R>,
  arrived: Effect.Effect<void>
): Effect.Effect<Stream.Stream<A, E>, E, R | Scope.Scope> =>
  Effect.gen(function* () {
    const pull = yield* Stream.toPull(stream)
    const first = yield* Effect.forkScoped(pull)
    // Headers first; a first pull that ends before them (an error answer) settles the call.
    yield* Effect.raceFirst(arrived, Effect.asVoid(Fiber.await(first)))
    const ended = first.pollUnsafe()
    if (ended !== undefined && Exit.isFailure(ended) && !Pull.isDoneCause(ended.cause))
      return yield* Effect.failCause(ended.cause as Cause.Cause<E>)
    let taken = false
    return Stream.fromPull(
      Effect.succeed(
        Effect.suspend(() => {
          if (taken) return pull
          taken = true
          return Fiber.join(first)
        })
      )
    ) as Stream.Stream<A, E>
  })

/**
 * Runs a call with an `onResponse` and gives its value with the meta of its successful answer, as the
 * SDKs' `withResponse()` does — no second request. `call` gets the options to pass on (`options`
 * plus the recording `onResponse`; the caller's own `onResponse` is still called).
 *
 * For an Effect call: its value and the meta. For a stream: the stream opened in the scope (the
 * request sent and its headers arrived) and the meta; the events are read by running `data` within
 * the scope, and a streaming call's own stream keeps its final answer (`runToFinal(data, …)`). An
 * error answer fails the effect itself.
 *
 * ```ts
 * const { data, response } = yield* withResponse((options) => gateway.chat.create(body, options))
 * response?.requestId // "req_…"
 * ```
 * @category combinators
 */
export const withResponse: {
  <A, E, Z, R>(
    call: (options: CallOptions) => ResultStream<A, E, Z, R>,
    options?: CallOptions
  ): Effect.Effect<WithResponse<ResultStream<A, E, Z>>, E, R | Scope.Scope>
  <A, E, R>(
    call: (options: CallOptions) => Stream.Stream<A, E, R>,
    options?: CallOptions
  ): Effect.Effect<WithResponse<Stream.Stream<A, E>>, E, R | Scope.Scope>
  <A, E, R>(
    call: (options: CallOptions) => Effect.Effect<A, E, R>,
    options?: CallOptions
  ): Effect.Effect<WithResponse<A>, E, R>
} = (<A, E, R>(
  call: (options: CallOptions) => Effect.Effect<A, E, R> | Stream.Stream<A, E, R>,
  options?: CallOptions
): Effect.Effect<WithResponse<unknown>, E, R | Scope.Scope> =>
  Effect.suspend((): Effect.Effect<WithResponse<unknown>, E, R | Scope.Scope> => {
    const record = recording(options)
    const made = call(record.options)
    if (!Stream.isStream(made)) return Effect.map(made, (data) => withMeta(data, record.response()))
    const open = openedOf(made)
    // A streaming call's own stream: opening it sends the request and waits for the headers.
    if (open !== undefined)
      return Effect.map(open, (opened) => withMeta(fromScopedOpen(Effect.succeed(opened)), record.response()))
    return Effect.map(openStream(made, record.arrived), (data) => withMeta(data, record.response()))
  })) as never
