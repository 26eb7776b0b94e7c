/**
 * The one place that sends a gateway or platform request. It applies the credential, extra headers,
 * JSON body, manual redirects (a credential never crosses origins), a time limit per attempt, retries
 * decided by the core's `RetryPolicy`, and every non-2xx answer mapped by the core's `toAnswerError`
 * (or, for the platform endpoints, `toPlatformAnswerError`); and each call's own options
 * (`CallOptions`: its signal, time limit, retry count, headers and `onResponse`). It runs over any
 * `effect/http` `HttpClient` (umg's Node client, `FetchHttpClient`, one the user provides) the same
 * way.
 */
import type { Scope } from "effect"
import * as Layer from "effect/Layer"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type { HttpClientError, HttpClientResponse } from "effect/http"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Headers from "effect/http/Headers"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as UrlParams from "effect/http/UrlParams"
import { redactText } from "../../core/errors/Redact.js"
import { parseJsonTree, TooDeep } from "../../core/wire/WireJson.js"
import {
  errorOfAnswerText,
  toAnswerError,
  toPlatformAnswerError,
  type ErrorAnswer
} from "../../core/wire/ErrorEnvelope.js"
import {
  type Aborted,
  type AnswerError,
  DecodeError,
  TimeoutError,
  TransportError,
  type Family,
  type GatewayResponseError,
  type PlatformRequestError,
  type RequestError
} from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import * as RetryPolicy from "../../core/gateway/RetryPolicy.js"
import * as CallOptions from "../CallOptions.js"
import * as HttpAuth from "./HttpAuth.js"
import type { GatewayConfig } from "../GatewayConfig.js"
import { proxyNote } from "./ProxyFailure.js"
import { classifyTransport, type TransportKind } from "./TransportFailure.js"
import * as ConnectProgress from "./ConnectProgress.js"
import { secretsOf } from "../internal/Secrets.js"
import * as ByteSource from "./ByteSource.js"
import * as Deadline from "../internal/Deadline.js"
import * as Telemetry from "../internal/Telemetry.js"
import * as DebugLog from "../internal/DebugLog.js"
// The platform picks the default client: package.json `imports` maps `#umg/http` to umg's
// `node:http` client in Node and to `FetchHttpClient` under the `browser` condition.
import { defaultHttpClientLayer, defaultHttpClientLayerWith } from "#umg/http"

/** One request as a group describes it. @category models */
export interface TransportRequest {
  readonly family: Family
  readonly method: "GET" | "POST"
  /** Absolute URL (the group joins base URL and path). */
  readonly url: string
  /** JSON body, already validated by a core builder. */
  readonly body?: unknown
  readonly auth: HttpAuth.Auth
  readonly headers?: Readonly<Record<string, string>>
  /** `paid-submit` is retried only when the failure proves the gateway did not act. */
  readonly kind: RetryPolicy.RequestKind
  /** Overrides the config's request time limit for this call (the call's own `options.timeoutMs` overrides both). */
  readonly timeoutMs?: number
  /** The bound on this answer's size, when it is a download (E3) rather than an ordinary answer. */
  readonly maxBytes?: number
  /**
   * `fail`: a 429 is handed to the caller at once instead of being retried here (callers that
   * pace themselves, like `embedMany`, need to see it). Default `retry`.
   */
  readonly onRateLimit?: "retry" | "fail"
  /** The call's own options (checked here, before anything is sent). */
  readonly options?: CallOptions.CallOptions | undefined
  /**
   * `event-stream`: a stream's answer (`open`) must be `text/event-stream` (or give no type); any
   * other 2xx answer (a JSON error or completion, an HTML page) is read as a failure, not a stream.
   */
  readonly expect?: "event-stream" | undefined
}

/** A 2xx answer read whole. @category models */
export interface JsonAnswer {
  readonly status: number
  readonly headers: Headers.Headers
  readonly body: unknown
  readonly requestId?: string
}

/** A 2xx binary answer read whole. @category models */
export interface BytesAnswer {
  readonly status: number
  readonly headers: Headers.Headers
  readonly bytes: Uint8Array
  readonly contentType: string
}

/**
 * What a request adds to a call's failures: `InvalidRequest` when it carries a call's options (checked
 * before anything is sent), nothing otherwise.
 * @category models
 */
export type OptionsError<R> = "options" extends keyof R ? InvalidRequest : never

/**
 * The transport the groups use. An error answer of `json`, `bytes` and `open` is mapped by
 * `toAnswerError` (never a `PlatformError`, whatever the family); `platformJson` is `json` for the
 * platform endpoints, whose error answers may also be a `PlatformError`.
 * @category models
 */
export interface HttpTransport {
  /** Sends and reads a JSON answer, with retries. */
  readonly json: <R extends TransportRequest>(request: R) => Effect.Effect<JsonAnswer, RequestError | OptionsError<R>>
  /** `json` for a platform endpoint (E4–E7): a failing platform envelope under a non-error status is a `PlatformError`. */
  readonly platformJson: <R extends TransportRequest>(
    request: R
  ) => Effect.Effect<JsonAnswer, PlatformRequestError | OptionsError<R>>
  /** Sends and reads a binary answer, with retries. */
  readonly bytes: <R extends TransportRequest>(request: R) => Effect.Effect<BytesAnswer, RequestError | OptionsError<R>>
  /**
   * Sends and waits for a 2xx answer's headers (each attempt bounded by the first-byte limit, with
   * retries), then gives its body as a byte stream; once the body flows, a failure ends the stream
   * with a `TransportError` (or `Aborted`, by the call's signal), and the stream's time limits with
   * a `TimeoutError`: the first-byte limit (the call's `timeoutMs`, else `streamFirstByteTimeoutMs`)
   * again until its first chunk, then `streamIdleTimeoutMs` between two. Ending or interrupting the
   * stream, or a limit passed, closes the connection.
   */
  readonly open: <R extends TransportRequest>(
    request: R
  ) => Effect.Effect<Stream.Stream<Uint8Array, TransportError | Aborted | TimeoutError>, RequestError | OptionsError<R>>
}

/** The request id a gateway answer carries in its headers. @category accessors */
export const requestIdOf = (headers: Headers.Headers): string | undefined =>
  headers["request-id"] ?? headers["x-request-id"] ?? headers["x-amzn-requestid"] ?? undefined

/** How one error answer is mapped: `toAnswerError`, or `toPlatformAnswerError` for the platform endpoints. */
type Classify<A extends GatewayResponseError> = (answer: ErrorAnswer) => A

/** One attempt's failure; `A` is what its classifier makes of an error answer (`never`: no answer read). */
type AttemptFailure<A extends GatewayResponseError = never> =
  | { readonly _tag: "Answer"; readonly error: A; readonly status: number; readonly headers: Headers.Headers }
  | {
      readonly _tag: "Transport"
      readonly error: TransportError | TimeoutError
      readonly kind: TransportKind | "timeout"
    }
  | { readonly _tag: "Final"; readonly error: TransportError | DecodeError }

/** What every part of one transport reads: its config and its client. */
interface Env {
  readonly config: GatewayConfig
  readonly client: HttpClient.HttpClient
  /** What every request is sent with (`sendContextOf` the configured headers' names). */
  readonly sendContext: Context.Context<never>
}

const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return "(invalid url)"
  }
}

/**
 * A redirect's target, or why it is not followed: a location that cannot be parsed (a bad host, a
 * port past 65535, …) or is not http(s), or one with credentials in it (`user:pass@`), which a
 * client would send as the next hop's `Authorization` and a tracing client would record with the
 * URL. Browsers' fetch refuses the latter too.
 */
const redirectTarget = (location: string, base: string): string | "not http(s)" | "credentials" => {
  try {
    const next = new URL(location, base)
    if (next.protocol !== "http:" && next.protocol !== "https:") return "not http(s)"
    return next.username !== "" || next.password !== "" ? "credentials" : next.toString()
  } catch {
    return "not http(s)"
  }
}

const declaredLength = (headers: Headers.Headers): number | undefined => {
  const v = headers["content-length"]
  if (v === undefined || !/^\d{1,16}$/.test(v.trim())) return undefined
  return Number(v.trim())
}

const decoder = new TextDecoder()

// ---------------------------------------------------------------------------------------------
// Request building and sending
// ---------------------------------------------------------------------------------------------

// What every request accepts; on the gateway's own origin the configured extra headers follow.
const accept = { accept: "application/json, text/event-stream, */*" }

/**
 * One request, made in one go: its headers — `accept`, then on the request's own origin the
 * configured extra headers, the call's own and the credential, each overriding the one before, then
 * the body's type and length — and its JSON body as text (`HttpBody.text`: a client that can send
 * text sends it without encoding). (`HttpClientRequest.make` then `setBody` would copy the request
 * four times and its headers three.)
 */
const build = (
  config: GatewayConfig,
  request: TransportRequest,
  url: string,
  sameOrigin: boolean,
  method: "GET" | "POST",
  withBody: boolean
) => {
  const body =
    withBody && request.body !== undefined ? HttpBody.text(JSON.stringify(request.body), "application/json") : undefined
  const headers: Record<string, string> = sameOrigin
    ? { ...accept, ...config.headers, ...request.headers, ...HttpAuth.headersOf(request.auth) }
    : { ...accept }
  if (body !== undefined) {
    headers["content-type"] = body.contentType
    headers["content-length"] = String(body.contentLength)
  }
  const req = HttpClientRequest.makeWith(
    method,
    url,
    UrlParams.empty,
    Option.none(),
    Headers.fromInput(headers),
    body ?? HttpBody.empty
  )
  const query = sameOrigin ? HttpAuth.queryOf(request.auth) : undefined
  return query === undefined ? req : HttpClientRequest.setUrlParam(req, query[0], query[1])
}

/**
 * What every client is sent with: follow no redirect (the fetch client's `RequestInit`; umg's Node
 * client follows none anyway) and keep the credential headers, and the extra headers `names` (the
 * configured and the call's own, whose values count as secrets), out of any span a client makes.
 */
const sendContextOf = (names: ReadonlyArray<string>): Context.Context<never> =>
  Context.make(FetchHttpClient.RequestInit, { redirect: "manual" }).pipe(
    Context.add(Headers.CurrentRedactedNames, [...HttpAuth.secretHeaderNames, ...names.map((n) => n.toLowerCase())])
  ) as Context.Context<never>

/** The send context of one request: the transport's, or with the call's own header names added. */
const contextOf = (env: Env, request: TransportRequest): Context.Context<never> =>
  request.options?.headers === undefined
    ? env.sendContext
    : sendContextOf([...Object.keys(env.config.headers), ...Object.keys(request.options.headers)])

/** Every secret an answer to `request` could echo: the config's and the credential's, and the call's header values. */
const secretsFor = (config: GatewayConfig, request: TransportRequest): ReadonlyArray<string> => {
  const secrets = secretsOf(config, request.auth)
  const headers = request.options?.headers
  return headers === undefined ? secrets : [...secrets, ...Object.values(headers)]
}

/** Sends one request; a `?key=` credential would land in a span's url attribute, so such a request is sent untraced. */
const execute = (
  client: HttpClient.HttpClient,
  req: HttpClientRequest.HttpClientRequest,
  traced: boolean,
  sendContext: Context.Context<never>
) => {
  const sent = Effect.provideContext(client.execute(req), sendContext)
  return traced
    ? sent
    : sent.pipe(Effect.withTracerEnabled(false), Effect.provideService(Tracer.DisablePropagation, true))
}

const transportError = (
  family: Family,
  url: string,
  cause: unknown
): AttemptFailure & { readonly error: TransportError } => {
  const kind = classifyTransport(cause)
  const what = kind === "connect" ? "could not connect to" : "connection lost with"
  return {
    _tag: "Transport",
    kind,
    error: new TransportError({ family, reason: kind, message: `${what} ${originOf(url)}${proxyNote(cause)}` })
  }
}

const protocolError = (family: Family, message: string): Effect.Effect<never, AttemptFailure> =>
  Effect.fail({ _tag: "Final", error: new TransportError({ family, reason: "protocol", message }) })

/**
 * One hop of an attempt sent, its failure a `TransportError`; with the debug log's lines of the
 * request and its answer (`DebugLog.exchange`) when they are on.
 */
const sendHop = (
  env: Env,
  request: TransportRequest,
  url: string,
  req: HttpClientRequest.HttpClientRequest,
  sameOrigin: boolean,
  attempt: number,
  progress: ConnectProgress.Progress
): Effect.Effect<HttpClientResponse.HttpClientResponse, AttemptFailure> =>
  DebugLog.exchange(
    execute(
      env.client,
      req,
      !(sameOrigin && request.auth._tag === "Query"),
      Context.add(contextOf(env, request), ConnectProgress.ConnectProgress, progress)
    ).pipe(Effect.mapError((e: HttpClientError.HttpClientError) => transportError(request.family, url, e.cause ?? e))),
    {
      family: request.family,
      method: req.method,
      url,
      attempt,
      secrets: () => secretsFor(env.config, request),
      requestId: requestIdOf,
      errorOf: (failure) => failure.error
    }
  )

/**
 * One attempt (`attempt`, from 1): send, follow same- or cross-origin redirects by hand (up to
 * `limits.maxRedirects`, the credential and extra headers only on the request's own origin), return
 * the final 2xx answer.
 */
const sendOnce = <A extends GatewayResponseError>(
  env: Env,
  request: TransportRequest,
  classify: Classify<A>,
  attempt: number,
  progress: ConnectProgress.Progress
): Effect.Effect<HttpClientResponse.HttpClientResponse, AttemptFailure<A>> => {
  // The request's origin, parsed only when a redirect asks (the first hop is its own URL).
  let parsedOrigin: string | undefined
  const originOfRequest = (): string => (parsedOrigin ??= originOf(request.url))
  const hop = (
    url: string,
    method: "GET" | "POST",
    withBody: boolean,
    hops: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, AttemptFailure<A>> => {
    const sameOrigin = url === request.url || originOf(url) === originOfRequest()
    const req = build(env.config, request, url, sameOrigin, method, withBody)
    return sendHop(env, request, url, req, sameOrigin, attempt, progress).pipe(
      Effect.flatMap((response) => {
        const location = response.headers["location"]
        if (response.status >= 300 && response.status < 400 && location !== undefined) {
          if (hops >= env.config.limits.maxRedirects)
            return protocolError(request.family, `more than ${env.config.limits.maxRedirects} redirects`)
          const next = redirectTarget(location, url)
          if (next === "not http(s)")
            return protocolError(
              request.family,
              `a redirect (${response.status}) to a location that is not an http(s) URL`
            )
          if (next === "credentials")
            return protocolError(
              request.family,
              `refused a redirect (${response.status}) to a URL with credentials in it (user:password@)`
            )
          // 307/308 repeat the method and body; 301/302/303 turn a POST into a GET without body.
          const keep = response.status === 307 || response.status === 308
          // A body (which may hold a password or be a paid submit) is never re-sent to another origin.
          if (keep && withBody && request.body !== undefined && originOf(next) !== originOfRequest())
            return protocolError(
              request.family,
              `refused to re-send a ${method} body to another origin (${originOf(next)}) on a ${response.status} redirect`
            )
          // The redirect's own body is read (a little) or dropped, so its connection is freed.
          return Effect.andThen(
            Effect.ignore(readBounded(request.family, url, response, 64 * 1024, "redirect body", true)),
            hop(next, keep ? method : "GET", keep && withBody, hops + 1)
          )
        }
        if (response.status === 0) return protocolError(request.family, "a redirect this runtime cannot follow")
        // The call's span (Telemetry) gets the status, the server answering and the gateway's request id —
        // never a header's value otherwise (read only when a tracer exports the span); its metrics, the
        // server answering (`url`).
        const annotate = Telemetry.annotate(() => {
          const requestId = requestIdOf(response.headers)
          return {
            "http.response.status_code": response.status,
            ...Telemetry.serverAttributes(url),
            ...(requestId !== undefined
              ? { "umg.gateway.request_id": redactText(requestId, secretsFor(env.config, request), 200) }
              : {})
          }
        }, url)
        if (response.status >= 200 && response.status < 300) return Effect.as(annotate, response)
        return Effect.andThen(annotate, readError(env.config, request, response, classify))
      })
    )
  }
  return hop(request.url, request.method, true, 0)
}

// ---------------------------------------------------------------------------------------------
// Reading answers
// ---------------------------------------------------------------------------------------------

type Outcome = Effect.Effect<Uint8Array, AttemptFailure>

/**
 * A sink that collects a body up to `limit` bytes as it arrives; at the first byte past the bound it
 * stops reading (`flow().close()`, which closes the connection) and settles: with a `too-large`
 * failure, or with the first `limit` bytes when `truncate`. `settle` gets the outcome once.
 */
const collect = (
  limit: number,
  truncate: boolean,
  tooLarge: () => AttemptFailure,
  lost: (e: HttpClientError.HttpClientError) => AttemptFailure,
  settle: (outcome: Outcome) => void,
  flow: () => ByteSource.ByteFlow | undefined
): ByteSource.ByteSink<HttpClientError.HttpClientError> => {
  let size = 0
  let over = false
  let settled = false
  const parts: Array<Uint8Array> = []
  const finish = (result: Outcome): void => {
    if (settled) return
    settled = true
    settle(result)
  }
  const whole = (): Outcome => {
    if (over && !truncate) return Effect.fail(tooLarge())
    // One part (the usual answer, read in one go) is the body itself: no copy.
    if (parts.length === 1 && parts[0]!.length === size) return Effect.succeed(parts[0]!)
    const out = new Uint8Array(size)
    let at = 0
    for (const part of parts) {
      out.set(part, at)
      at += part.length
    }
    return Effect.succeed(out)
  }
  return {
    chunk: (chunk) => {
      if (settled) return
      if (size + chunk.length > limit) {
        parts.push(chunk.subarray(0, limit - size))
        size = limit
        over = true
        flow()?.close()
        return finish(whole())
      }
      parts.push(chunk)
      size += chunk.length
    },
    end: () => finish(whole()),
    fail: (e) => finish(Effect.fail(lost(e)))
  }
}

/** Reads a source that starts at once, without a scope: the flow is closed when the read ends or is interrupted. */
const readOpened = (
  open: NonNullable<ByteSource.ByteSource<HttpClientError.HttpClientError>["open"]>,
  sinkFor: (
    settle: (o: Outcome) => void,
    flow: () => ByteSource.ByteFlow | undefined
  ) => ByteSource.ByteSink<HttpClientError.HttpClientError>
): Outcome =>
  Effect.callback<Uint8Array, AttemptFailure>((resume) => {
    let flow: ByteSource.ByteFlow | undefined
    let outcome: Outcome | undefined
    // eslint-disable-next-line prefer-const -- the sink's callbacks read it, and may run before `open` returns
    flow = open(
      sinkFor(
        (result) => {
          outcome = result
          if (flow === undefined) return
          flow.close()
          resume(result)
        },
        () => flow
      )
    )
    if (outcome !== undefined) {
      flow.close()
      return resume(outcome)
    }
    return Effect.sync(() => flow.close())
  })

/** Reads any other source in a scope of its own (its pumping fiber ends with the read). */
const readStarted = (
  source: ByteSource.ByteSource<HttpClientError.HttpClientError>,
  sinkFor: (
    settle: (o: Outcome) => void,
    flow: () => ByteSource.ByteFlow | undefined
  ) => ByteSource.ByteSink<HttpClientError.HttpClientError>
): Outcome =>
  Effect.scoped(
    Effect.suspend(() => {
      let outcome: Outcome | undefined
      let settle: ((outcome: Outcome) => void) | undefined
      let flow: ByteSource.ByteFlow | undefined
      const sink = sinkFor(
        (result) => {
          outcome = result
          settle?.(result)
        },
        () => flow
      )
      return Effect.flatMap(source.start(sink), (started) => {
        flow = started
        if (outcome !== undefined) {
          started.close()
          return outcome
        }
        return Effect.callback<Uint8Array, AttemptFailure>((resume) => {
          if (outcome !== undefined) return resume(outcome)
          settle = resume
        })
      })
    })
  )

/**
 * Reads a body whole, stopping at `limit` bytes as they arrive — after decompression, so a bomb
 * stops at the bound — and before reading when the declared length is already over it. `truncate`
 * keeps the first `limit` bytes instead of failing (error bodies).
 */
const readBounded = (
  family: Family,
  url: string,
  response: HttpClientResponse.HttpClientResponse,
  limit: number,
  what: string,
  truncate = false
): Outcome => {
  const tooLarge = (): AttemptFailure => ({
    _tag: "Final",
    error: new TransportError({
      family,
      reason: "too-large",
      message: `the ${what} is larger than its bound of ${limit} bytes (limits in the config)`
    })
  })
  const lost = (e: HttpClientError.HttpClientError): AttemptFailure => transportError(family, url, e.cause ?? e)
  const declared = declaredLength(response.headers)
  if (!truncate && declared !== undefined && declared > limit) return Effect.fail(tooLarge())
  // The body is counted as it arrives (callbacks from the body's source, no stream step per chunk)
  // and reading stops — which closes the connection — at the first byte past the bound.
  const sinkFor = (settle: (o: Outcome) => void, flow: () => ByteSource.ByteFlow | undefined) =>
    collect(limit, truncate, tooLarge, lost, settle, flow)
  // A source that starts at once (umg's Node client's, found on the response: no body stream made)
  // is read so whatever the answer's length: its chunks are kept as they come, not copied again.
  const own = (response as Partial<ByteSource.HasBodySource<HttpClientError.HttpClientError>>)[
    ByteSource.BodySourceTypeId
  ]
  if (own?.open !== undefined) return readOpened(own.open, sinkFor)
  // Another client: an uncompressed body whose declared length is within the bound cannot grow past
  // it (the HTTP parser stops at Content-Length), so it is read at once without a stream.
  const encoding = response.headers["content-encoding"]
  if (
    declared !== undefined &&
    declared <= limit &&
    (encoding === undefined || encoding.trim().toLowerCase() === "identity")
  )
    return Effect.map(Effect.mapError(response.arrayBuffer, lost), (buffer) => new Uint8Array(buffer))
  const source = own ?? ByteSource.of(response.stream)
  return source.open !== undefined ? readOpened(source.open, sinkFor) : readStarted(source, sinkFor)
}

/**
 * An answer's body read as an error's is (bounded in size and by the attempt's time limit; what
 * cannot be read is empty), every secret the server may have echoed redacted, and mapped by
 * `classify`: the error, the redacted text, and the secrets it was redacted of.
 */
const answerOf = <A extends GatewayResponseError>(
  config: GatewayConfig,
  request: TransportRequest,
  response: HttpClientResponse.HttpClientResponse,
  classify: Classify<A>,
  what: string
) =>
  Effect.map(
    Effect.zip(
      Effect.orElseSucceed(
        Effect.map(
          readBounded(request.family, request.url, response, config.limits.maxErrorBodyBytes, what, true),
          (b) => decoder.decode(b)
        ),
        () => ""
      ),
      Clock.currentTimeMillis
    ),
    ([raw, now]) => {
      const secrets = secretsFor(config, request)
      const answer = errorOfAnswerText(
        {
          family: request.family,
          status: response.status,
          headers: { ...response.headers },
          text: raw,
          secrets,
          maxChars: config.limits.maxErrorBodyBytes,
          now
        },
        classify
      )
      // The answer's body and headers, redacted, for `withResponse` and the AI SDK's `responseBody`.
      CallOptions.keepErrorAnswer(answer.error, { body: answer.text, headers: response.headers, secrets })
      return { ...answer, secrets }
    }
  )

/** A non-2xx answer, read and mapped once, here (`answerOf`). */
const readError = <A extends GatewayResponseError>(
  config: GatewayConfig,
  request: TransportRequest,
  response: HttpClientResponse.HttpClientResponse,
  classify: Classify<A>
): Effect.Effect<never, AttemptFailure<A>> =>
  Effect.flatMap(answerOf(config, request, response, classify, "error body"), ({ error }) =>
    Effect.fail<AttemptFailure<A>>({ _tag: "Answer", error, status: response.status, headers: response.headers })
  )

/** Whether an answer's `content-type` is an event stream's (parameters aside), or absent. */
const isEventStream = (contentType: string | undefined): boolean =>
  contentType === undefined || /^\s*text\/event-stream\s*(;|$)/i.test(contentType)

/**
 * A 2xx answer to a stream's request that is not an event stream, read as an error answer is
 * (`answerOf`). An error envelope the family knows (a JSON `error` with its `type`, as a gateway may
 * send with status 200) is that typed error, retried as such; anything else (a completion, an HTML
 * page, an empty body) is a `DecodeError` naming the type it came with and the start of what it
 * said, redacted — rather than a stream that ends before its first event.
 */
const notAnEventStream = (
  config: GatewayConfig,
  request: TransportRequest,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<never, AttemptFailure<AnswerError>> =>
  Effect.flatMap(
    answerOf(config, request, response, toAnswerError, "answer"),
    ({ error, text, secrets }): Effect.Effect<never, AttemptFailure<AnswerError>> => {
      if (error.type !== undefined)
        return Effect.fail({ _tag: "Answer", error, status: response.status, headers: response.headers })
      const said = text.replace(/\s+/g, " ").trim()
      const requestId = requestIdOf(response.headers)
      return Effect.fail({
        _tag: "Final",
        error: new DecodeError({
          family: request.family,
          what: `${request.family} stream`,
          message: `the ${request.family} stream was answered with ${response.headers["content-type"] ?? "no type"} (HTTP ${response.status}), not text/event-stream${said === "" ? "" : `: ${said.length > 200 ? `${said.slice(0, 200)}…` : said}`}`,
          ...(requestId !== undefined ? { requestId: redactText(requestId, secrets, 200) } : {})
        })
      })
    }
  )

/** A 2xx JSON answer: parsed and checked once (depth), so the group's decoder takes the tree as it is. */
const decodeJson = <A extends GatewayResponseError>(
  config: GatewayConfig,
  request: TransportRequest,
  response: HttpClientResponse.HttpClientResponse,
  bytes: Uint8Array
): Effect.Effect<JsonAnswer, AttemptFailure<A>> => {
  const family = request.family
  try {
    const text = decoder.decode(bytes)
    const body: unknown = text === "" ? undefined : parseJsonTree(text, config.limits.maxJsonDepth)
    if (body === TooDeep)
      return Effect.fail({
        _tag: "Final",
        error: new DecodeError({
          family,
          what: `${family} response`,
          message: `the ${family} response nests deeper than ${config.limits.maxJsonDepth} levels (limits.maxJsonDepth)`
        })
      })
    const requestId = requestIdOf(response.headers)
    return Effect.succeed({
      status: response.status,
      headers: response.headers,
      body,
      ...(requestId !== undefined ? { requestId } : {})
    })
  } catch {
    return Effect.fail({
      _tag: "Final",
      error: new DecodeError({
        family,
        what: `${family} response`,
        message: `the ${family} response is not valid JSON`
      })
    })
  }
}

// ---------------------------------------------------------------------------------------------
// Time limits and retries
// ---------------------------------------------------------------------------------------------

/**
 * One attempt bounded by `ms`; past it, a `TimeoutError` of the phase (interrupting the attempt closes
 * its connection). Passed while its client still had no connection for it (`progress`), it is of phase
 * `connect` and kind `connect`: no byte of the request left, so even a paid submit is sent again.
 */
const withTimeout = <R, A extends GatewayResponseError>(
  effect: Effect.Effect<R, AttemptFailure<A>>,
  request: TransportRequest,
  ms: number,
  phase: "request" | "first-byte",
  progress: ConnectProgress.Progress
): Effect.Effect<R, AttemptFailure<A>> =>
  Deadline.timeoutFail(effect, ms, (): AttemptFailure<A> => {
    const early = ConnectProgress.neverConnected(progress)
    const message = early
      ? `no connection to ${originOf(request.url)} within ${ms} ms${
          progress.via === undefined ? "" : ` (through the proxy ${progress.via})`
        }`
      : `no ${phase === "request" ? "answer" : "first byte"} within ${ms} ms`
    return {
      _tag: "Transport",
      kind: early ? "connect" : "timeout",
      error: new TimeoutError({ family: request.family, phase: early ? "connect" : phase, timeoutMs: ms, message })
    }
  })

/**
 * The decision for the `n`-th failure (0-based), read from the pure `RetryPolicy` with the Effect
 * Random and Clock; a `Final` failure and a 429 the caller paces itself stop at once.
 */
const decisionFor = <A extends GatewayResponseError>(
  budget: RetryPolicy.RetryBudget,
  request: TransportRequest,
  failure: AttemptFailure<A>,
  n: number
): Effect.Effect<RetryPolicy.RetryDecision> => {
  if (
    failure._tag === "Final" ||
    (failure._tag === "Answer" && failure.status === 429 && request.onRateLimit === "fail")
  )
    return Effect.succeed<RetryPolicy.RetryDecision>({ _tag: "Stop", reason: "not-retryable" })
  return Effect.zipWith(Random.next, Clock.currentTimeMillis, (random, now) =>
    RetryPolicy.decide({
      failure:
        failure._tag === "Answer"
          ? {
              _tag: "Status",
              status: failure.status,
              headers: failure.headers,
              errorType: "type" in failure.error ? failure.error.type : undefined
            }
          : { _tag: "Transport", kind: failure.kind },
      attempt: n,
      kind: request.kind,
      budget,
      random,
      now
    })
  )
}

/**
 * Attempts `run` (given the attempt's number, from 1) until it succeeds or the policy stops: after
 * each failure, the policy's delay (Retry-After, retry-after-ms, jitter) on the Effect clock, then the
 * next attempt. Each retry is a line of the debug log (`DebugLog.retrying`).
 */
const retrying = <R, A extends GatewayResponseError>(
  budget: RetryPolicy.RetryBudget,
  request: TransportRequest,
  run: (attempt: number) => Effect.Effect<R, AttemptFailure<A>>
): Effect.Effect<R, A | TimeoutError | TransportError | DecodeError> => {
  const again = (
    failure: AttemptFailure<A>,
    n: number
  ): Effect.Effect<R, A | TimeoutError | TransportError | DecodeError> =>
    Effect.flatMap(decisionFor(budget, request, failure, n), (decision) =>
      decision._tag !== "Retry"
        ? Effect.fail(failure.error)
        : DebugLog.retrying(() => ({
            family: request.family,
            method: request.method,
            url: request.url,
            attempt: n + 2,
            delayMs: decision.delayMs,
            error: failure.error,
            status: failure._tag === "Answer" ? failure.status : undefined
          })).pipe(
            Effect.andThen(Effect.sleep(Duration.millis(decision.delayMs))),
            // The call's span counts the request's resends (`http.request.resend_count`, OpenTelemetry's HTTP conventions).
            Effect.andThen(Telemetry.annotate({ "http.request.resend_count": n + 1 })),
            Effect.andThen(Effect.catch(run(n + 2), (next) => again(next, n + 1)))
          )
    )
  return Effect.catch(run(1), (first) => again(first, 0))
}

// ---------------------------------------------------------------------------------------------
// The call's own options
// ---------------------------------------------------------------------------------------------

/**
 * Runs one call under its own options: checked before anything is sent (`InvalidRequest`), the
 * call's headers joined to the request's, and the whole call — every attempt and every wait between —
 * raced against its signal (`Aborted`; interrupting the attempt closes its connection). Without
 * options, `run` itself.
 */
const withOptions = <A, E>(
  request: TransportRequest,
  run: (request: TransportRequest) => Effect.Effect<A, E>
): Effect.Effect<A, E | InvalidRequest | Aborted> => {
  const options = request.options
  if (options === undefined) return run(request)
  return Effect.flatMap(Effect.fromResult(CallOptions.check(options)), (checked) => {
    const headers = checked.headers
    const prepared: TransportRequest = {
      ...request,
      options: checked,
      ...(headers === undefined ? {} : { headers: { ...request.headers, ...headers } })
    }
    return CallOptions.abortable(run(prepared), request.family, checked.signal)
  })
}

/**
 * `effect`, its 2xx answer's meta (`status`, `headers`) handed to the call's `onResponse` when it has
 * one; `effect` itself otherwise (no step more on a call without it).
 */
const reporting = <A extends { readonly status: number; readonly headers: Headers.Headers }, E>(
  config: GatewayConfig,
  request: TransportRequest,
  effect: Effect.Effect<A, E>
): Effect.Effect<A, E> => {
  const onResponse = request.options?.onResponse
  if (onResponse === undefined) return effect
  return Effect.tap(effect, (answer) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() =>
        onResponse(
          CallOptions.responseInfo({
            status: answer.status,
            headers: answer.headers,
            requestId: requestIdOf(answer.headers),
            secrets: secretsFor(config, request),
            now
          })
        )
      )
    )
  )
}

/** The retry budget of one request: the transport's, with the call's own `maxRetries` when given. */
const budgetOf = (budget: RetryPolicy.RetryBudget, request: TransportRequest): RetryPolicy.RetryBudget => {
  const maxRetries = request.options?.maxRetries
  return maxRetries === undefined ? budget : { ...budget, maxRetries }
}

// ---------------------------------------------------------------------------------------------
// The transport
// ---------------------------------------------------------------------------------------------

/**
 * The transport over an `HttpClient`, whichever it is. No client follows a redirect itself: this
 * code follows up to `limits.maxRedirects`, keeping the credential and extra headers only on the
 * same origin.
 * @category constructors
 */
export const make = (config: GatewayConfig, client: HttpClient.HttpClient): HttpTransport => {
  const env: Env = { config, client, sendContext: sendContextOf(Object.keys(config.headers)) }
  const budget: RetryPolicy.RetryBudget = {
    maxRetries: config.maxRetries,
    baseDelayMs: config.retryBaseDelayMs,
    maxDelayMs: config.retryMaxDelayMs,
    maxRetryAfterMs: config.maxRetryAfterMs
  }
  const limitOf = (request: TransportRequest, phase: "request" | "first-byte") =>
    request.options?.timeoutMs ??
    (phase === "request" ? (request.timeoutMs ?? config.timeoutMs) : config.streamFirstByteTimeoutMs)

  /**
   * One call, the one chain every kind of answer runs: the call's options, its answer reported,
   * attempts retried as the policy decides, each sent and `read` within the time limit of `phase`.
   * The kinds differ only in how a refusal is classified, what is read and which limit bounds it.
   */
  const call = <
    A extends GatewayResponseError,
    B extends { readonly status: number; readonly headers: Headers.Headers }
  >(
    request: TransportRequest,
    classify: Classify<A>,
    phase: "request" | "first-byte",
    read: (
      request: TransportRequest,
      response: HttpClientResponse.HttpClientResponse
    ) => Effect.Effect<B, AttemptFailure<A>>
  ) =>
    withOptions(request, (request) =>
      reporting(
        config,
        request,
        retrying(budgetOf(budget, request), request, (attempt) =>
          // With the debug log on, a failure after the answer's headers (reading its body) is a line of its own.
          DebugLog.attempt(
            (mark) => {
              const progress = ConnectProgress.make()
              return withTimeout(
                Effect.flatMap(sendOnce(env, request, classify, attempt, progress), (response) => {
                  if (mark !== undefined) mark.answered = true
                  return read(request, response)
                }),
                request,
                limitOf(request, phase),
                phase,
                progress
              )
            },
            {
              family: request.family,
              method: request.method,
              url: request.url,
              attempt,
              secrets: () => secretsFor(config, request),
              errorOf: (failure) => failure.error
            }
          )
        )
      )
    )

  const readJson =
    <A extends GatewayResponseError>() =>
    (request: TransportRequest, response: HttpClientResponse.HttpClientResponse) =>
      Effect.flatMap(
        readBounded(
          request.family,
          request.url,
          response,
          request.maxBytes ?? config.limits.maxResponseBytes,
          `${request.family} answer`
        ),
        (bytes) => decodeJson<A>(config, request, response, bytes)
      )

  const json = (request: TransportRequest): Effect.Effect<JsonAnswer, RequestError | InvalidRequest> =>
    call(request, toAnswerError, "request", readJson())

  const platformJson = (request: TransportRequest): Effect.Effect<JsonAnswer, PlatformRequestError | InvalidRequest> =>
    call(request, toPlatformAnswerError, "request", readJson())

  const bytes = (request: TransportRequest): Effect.Effect<BytesAnswer, RequestError | InvalidRequest> =>
    call(request, toAnswerError, "request", (request, response) =>
      Effect.map(
        readBounded(
          request.family,
          request.url,
          response,
          config.limits.maxDownloadBytes,
          `${request.family} download`
        ),
        (buffer): BytesAnswer => ({
          status: response.status,
          headers: response.headers,
          bytes: buffer,
          contentType: response.headers["content-type"] ?? "application/octet-stream"
        })
      )
    )

  // A stream's attempt ends at its first byte: the body is read later, by the stream's consumer.
  const open = (
    request: TransportRequest
  ): Effect.Effect<Stream.Stream<Uint8Array, TransportError | Aborted | TimeoutError>, RequestError | InvalidRequest> =>
    Effect.map(
      call(request, toAnswerError, "first-byte", (request, response) =>
        request.expect === "event-stream" && !isEventStream(response.headers["content-type"])
          ? notAnEventStream(config, request, response)
          : Effect.map(
              bodyOf(request, response, {
                firstMs: limitOf(request, "first-byte"),
                idleMs: request.options?.streamIdleTimeoutMs ?? config.streamIdleTimeoutMs
              }),
              (body) => ({ status: response.status, headers: response.headers, body })
            )
      ),
      (answer) => answer.body
    )

  // `InvalidRequest` comes only from a call's options: the types say so by the request (`OptionsError`).
  return { json, platformJson, bytes, open } as HttpTransport
}

/**
 * A body's source under a stream's time limits, the rule the SSE decoder applies to events
 * (`Deadline.streamMsLeft`) applied to chunks: `firstMs` until the first chunk, then `idleMs` between
 * two — not counted while the reader has paused the body (its own lag, not the server's), the wait
 * starting again at the resume. Past a limit the flow is closed, which closes the connection, and the
 * body fails with a `TimeoutError` (`first-byte` or `idle`). One watchdog per body (`Deadline.watch`,
 * stopped with the body's scope) and one clock read per chunk.
 */
const timed = <E>(
  source: ByteSource.ByteSource<E>,
  family: Family,
  limits: Deadline.StreamLimits
): ByteSource.ByteSource<E | TimeoutError> => ({
  start: (sink) =>
    Effect.clockWith((clock) => {
      const startedAt = clock.currentTimeMillisUnsafe()
      let lastAt: number | undefined
      let paused = false
      let over = false
      let flow: ByteSource.ByteFlow | undefined
      const inner: ByteSource.ByteSink<E> = {
        chunk: (bytes) => {
          if (over) return
          lastAt = clock.currentTimeMillisUnsafe()
          sink.chunk(bytes)
        },
        end: () => {
          if (over) return
          over = true
          sink.end()
        },
        fail: (error) => {
          if (over) return
          over = true
          sink.fail(error)
        }
      }
      const msLeft = (): number | undefined => {
        if (over) return undefined
        // Paused, nothing can arrive: the watchdog looks again later, the resume restarts the wait.
        if (paused) return limits.idleMs
        return Deadline.streamMsLeft(limits, startedAt, lastAt, clock.currentTimeMillisUnsafe())
      }
      const expire = (): void => {
        over = true
        flow?.close()
        sink.fail(Deadline.streamExpired(family, lastAt === undefined, limits, "data"))
      }
      return Effect.flatMap(source.start(inner), (started) => {
        flow = started
        // No `finish`: a stream's reader stops by closing (`toStream`), and the watchdog stops with it.
        const timedFlow: ByteSource.ByteFlow = {
          pause: () => {
            paused = true
            started.pause()
          },
          resume: () => {
            paused = false
            lastAt = clock.currentTimeMillisUnsafe()
            started.resume()
          },
          close: () => {
            over = true
            started.close()
          }
        }
        return Effect.as(Deadline.watch(msLeft, expire), timedFlow)
      })
    })
})

/**
 * A streamed answer's body, its failures as `TransportError`s, marked with its source (read as
 * callbacks by the SSE decoder, which bounds the waits for its events itself and writes its own
 * `umg: stream ended`); with the call's signal, a body that fails with `Aborted` and closes its
 * connection when the signal aborts. Read as a stream (`speech.stream`, a video download), its chunks
 * are under the stream's time limits (`timed`), and its end is a line of the debug log when it is on
 * (`DebugLog.watchBytes`).
 */
const bodyOf = (
  request: TransportRequest,
  response: HttpClientResponse.HttpClientResponse,
  limits: Deadline.StreamLimits
): Effect.Effect<Stream.Stream<Uint8Array, TransportError | Aborted | TimeoutError>> => {
  const lost = (e: HttpClientError.HttpClientError) => transportError(request.family, request.url, e.cause ?? e).error
  const source = ByteSource.mapError(ByteSource.ofBody(response), lost)
  const signal = request.options?.signal
  const guarded =
    signal === undefined ? source : ByteSource.abortable(source, signal, () => CallOptions.abortedError(request.family))
  // The stream, started only when run, is for the readers other than the SSE decoder.
  return Effect.map(
    DebugLog.watchBytes(request.family, ByteSource.toStream(timed(guarded, request.family, limits))),
    (stream) => ByteSource.withSource(stream, guarded)
  )
}

/**
 * The transport over the `HttpClient` of the context (umg's Node client, `FetchHttpClient`, or one
 * the user provides).
 * @category constructors
 */
export const fromContext = (config: GatewayConfig): Effect.Effect<HttpTransport, never, HttpClient.HttpClient> =>
  Effect.map(Effect.service(HttpClient.HttpClient), (client) => make(config, client))

/**
 * The `HttpClient` layer `Gateway.layer` provides: the config's `httpClient` when given, else the
 * platform's default (`#umg/http`): umg's `node:http` client in Node (through `config.proxy` when
 * given), `FetchHttpClient` in browsers.
 * @category constructors
 */
export const clientLayerOf = (config: GatewayConfig): Layer.Layer<HttpClient.HttpClient> =>
  Option.getOrElse(config.httpClient, () =>
    config.proxy === undefined ? defaultHttpClientLayer : defaultHttpClientLayerWith(config.proxy)
  )

/**
 * The transport over the config's HTTP client layer, or the platform's default; the client lives as
 * long as the scope.
 * @category constructors
 */
export const fromConfig = (config: GatewayConfig): Effect.Effect<HttpTransport, never, Scope.Scope> =>
  Effect.flatMap(Layer.build(clientLayerOf(config)), (context) => Effect.provideContext(fromContext(config), context))
