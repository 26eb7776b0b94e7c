/**
 * The one place that sends a gateway or platform request: credential, extra headers, JSON body,
 * manual redirects (a credential never crosses origins), a time limit per attempt, retries decided
 * by the core's `RetryPolicy`, and every non-2xx answer mapped by the core's `toAnswerError` (or, for
 * the platform endpoints, `toPlatformAnswerError`).
 */
// Submodules, not the package's index: the index also loads the HTTP API docs UIs (megabytes of strings).
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Clock, Duration, Effect, type Layer, Option, Random, Redacted, Schedule, Stream } from "effect"
import { redactText } from "../core/errors/Redact.js"
import { parseJsonTree, TooDeep } from "../core/wire/WireJson.js"
import { toAnswerError, toPlatformAnswerError, type ErrorAnswer } from "../core/wire/ErrorEnvelope.js"
import {
  DecodeError,
  TimeoutError,
  TransportError,
  type Family,
  type GatewayResponseError,
  type PlatformRequestError,
  type RequestError
} from "../core/errors/GatewayError.js"
import * as RetryPolicy from "../core/gateway/RetryPolicy.js"
import * as HttpAuth from "./HttpAuth.js"
import type { GatewayConfig } from "./GatewayConfig.js"
import { classifyTransport, type TransportKind } from "./TransportFailure.js"
import * as ByteSource from "./ByteSource.js"
import * as Deadline from "./Deadline.js"
import * as LeanClient from "./LeanClient.js"
import * as Telemetry from "./Telemetry.js"
// The platform picks the default client: package.json `imports` maps `#umg/http` to the lean
// `node:http` client in Node and to `FetchHttpClient` under the `browser` condition.
import { defaultHttpClientLayer } from "#umg/http"

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
  /** Overrides the config's request time limit for this call. */
  readonly timeoutMs?: number
  /** The bound on this answer's size, when it is a download (E3) rather than an ordinary answer. */
  readonly maxBytes?: number
  /**
   * `fail`: a 429 is handed to the caller at once instead of being retried here (callers that
   * pace themselves, like `embedMany`, need to see it). Default `retry`.
   */
  readonly onRateLimit?: "retry" | "fail"
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
 * The transport the groups use. An error answer of `json`, `bytes` and `open` is mapped by
 * `toAnswerError` (never a `PlatformError`, whatever the family); `platformJson` is `json` for the
 * platform endpoints, whose error answers may also be a `PlatformError`.
 * @category models
 */
export interface HttpTransport {
  /** Sends and reads a JSON answer, with retries. */
  readonly json: (request: TransportRequest) => Effect.Effect<JsonAnswer, RequestError>
  /** `json` for a platform endpoint (E4–E7): a failing platform envelope under a non-error status is a `PlatformError`. */
  readonly platformJson: (request: TransportRequest) => Effect.Effect<JsonAnswer, PlatformRequestError>
  /** Sends and reads a binary answer, with retries. */
  readonly bytes: (request: TransportRequest) => Effect.Effect<BytesAnswer, RequestError>
  /**
   * Sends and waits for a 2xx answer's headers (each attempt bounded by the first-byte limit, with
   * retries), then gives its body as a byte stream; once the body flows, a failure ends the stream
   * with a `TransportError`. Ending or interrupting the stream aborts the request.
   */
  readonly open: (request: TransportRequest) => Effect.Effect<Stream.Stream<Uint8Array, TransportError>, RequestError>
}

/** The request id a gateway answer carries in its headers. @category accessors */
export const requestIdOf = (headers: Headers.Headers): string | undefined =>
  headers["request-id"] ?? headers["x-request-id"] ?? headers["x-amzn-requestid"] ?? undefined

/**
 * Every secret a request could see echoed back: the API key, the platform password, the values of
 * the configured extra headers, and the request's own credential (a platform token).
 * @category accessors
 */
export const secretsOf = (config: GatewayConfig, auth?: HttpAuth.Auth): ReadonlyArray<string> => {
  const out = [Redacted.value(config.apiKey), ...Object.values(config.headers)]
  if (Option.isSome(config.platformPassword)) out.push(Redacted.value(config.platformPassword.value))
  const values =
    auth === undefined
      ? []
      : auth._tag === "Bearer"
        ? [Redacted.value(auth.token)]
        : auth._tag === "Header" || auth._tag === "Query"
          ? [Redacted.value(auth.value)]
          : auth._tag === "Headers"
            ? Object.values(Redacted.value(auth.headers))
            : []
  for (const value of values) out.push(value, value.replace(/^bearer\s+/i, ""))
  return out
}

/** How one error answer is mapped: `toAnswerError`, or `toPlatformAnswerError` for the platform endpoints. */
type Classify<A extends GatewayResponseError> = (answer: ErrorAnswer) => A

/** One attempt's failure; `A` is what its classifier makes of an error answer (`never`: no answer read). */
type AttemptFailure<A extends GatewayResponseError = never> =
  | { readonly _tag: "Answer"; readonly error: A; readonly status: number; readonly headers: Headers.Headers }
  | { readonly _tag: "Transport"; readonly error: TransportError | TimeoutError; readonly kind: TransportKind | "timeout" }
  | { readonly _tag: "Final"; readonly error: TransportError | DecodeError }

const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return "(invalid url)"
  }
}

/** A redirect's target, or `undefined` when the location cannot be parsed (a bad host, a port past 65535, …). */
const redirectTarget = (location: string, base: string): string | undefined => {
  try {
    const next = new URL(location, base)
    return next.protocol === "http:" || next.protocol === "https:" ? next.toString() : undefined
  } catch {
    return undefined
  }
}

const declaredLength = (headers: Headers.Headers): number | undefined => {
  const v = headers["content-length"]
  if (v === undefined || !/^\d{1,16}$/.test(v.trim())) return undefined
  return Number(v.trim())
}

/**
 * The transport over an `HttpClient`. `fetch` follows no redirect itself (`redirect: "manual"`):
 * this code follows up to 5, keeping the credential and extra headers only on the same origin.
 * @category constructors
 */
export const make = (config: GatewayConfig, client: HttpClient.HttpClient): HttpTransport => {
  const lean = LeanClient.isLean(client)
  const budget: RetryPolicy.RetryBudget = {
    maxRetries: config.maxRetries,
    baseDelayMs: config.retryBaseDelayMs,
    maxDelayMs: config.retryMaxDelayMs,
    maxRetryAfterMs: config.maxRetryAfterMs
  }

  // What every request accepts; on the gateway's own origin the configured extra headers follow.
  const accept = { accept: "application/json, text/event-stream, */*" }
  const sameOriginBase = { ...accept, ...config.headers }

  /**
   * One request: its headers made in one go (each `setHeader` copies them all) — `accept`, then on
   * the request's own origin the configured extra headers, the call's own and the credential, each
   * overriding the one before. The JSON body goes to umg's own client as text (written with the
   * headers in one go); any other client gets it as bytes, as `bodyUnsafeJson` makes it.
   */
  const build = (request: TransportRequest, url: string, sameOrigin: boolean, method: "GET" | "POST", withBody: boolean) => {
    let headers: Readonly<Record<string, string>> = accept
    if (sameOrigin) {
      const credential = HttpAuth.headersOf(request.auth)
      headers =
        request.headers === undefined && credential === undefined ? sameOriginBase : { ...sameOriginBase, ...request.headers, ...credential }
    }
    let req = HttpClientRequest.make(method)(url, { headers })
    const query = sameOrigin ? HttpAuth.queryOf(request.auth) : undefined
    if (query !== undefined) req = HttpClientRequest.setUrlParam(req, query[0], query[1])
    if (withBody && request.body !== undefined)
      req = lean
        ? HttpClientRequest.setBody(req, HttpBody.raw(JSON.stringify(request.body), { contentType: "application/json" }))
        : HttpClientRequest.bodyUnsafeJson(req, request.body)
    return req
  }

  const transportError = (family: Family, url: string, cause: unknown): AttemptFailure & { readonly error: TransportError } => {
    const kind = classifyTransport(cause)
    const what = kind === "connect" ? "could not connect to" : "connection lost with"
    return {
      _tag: "Transport",
      kind,
      error: new TransportError({ family, reason: kind, message: `${what} ${originOf(url)}` })
    }
  }

  // One attempt: send, follow same- or cross-origin redirects by hand, return the final 2xx answer.
  const sendOnce = <A extends GatewayResponseError>(
    request: TransportRequest,
    classify: Classify<A>
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, AttemptFailure<A>> => {
    // The request's origin, parsed only when a redirect asks (the first hop is its own URL).
    let parsedOrigin: string | undefined
    const originOfRequest = (): string => (parsedOrigin ??= originOf(request.url))
    const loop = (
      url: string,
      method: "GET" | "POST",
      withBody: boolean,
      hops: number
    ): Effect.Effect<HttpClientResponse.HttpClientResponse, AttemptFailure<A>> => {
      const sameOrigin = url === request.url || originOf(url) === originOfRequest()
      const req = build(request, url, sameOrigin, method, withBody)
      // A `?key=` credential would land in a span's url attribute: send such requests untraced.
      const traced = !(sameOrigin && request.auth._tag === "Query")
      // The platform's clients need telling not to follow redirects and which headers to keep out of
      // their spans; umg's own Node client follows none and makes no span.
      const sent = lean
        ? client.execute(req)
        : client.execute(req).pipe(
            Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
            Effect.locally(Headers.currentRedactedNames, HttpAuth.secretHeaderNames)
          )
      return sent.pipe(
        traced ? (e) => e : Effect.withTracerEnabled(false),
        Effect.mapError((e) => transportError(request.family, url, e.cause ?? e)),
        Effect.flatMap((response) => {
          const location = response.headers["location"]
          if (response.status >= 300 && response.status < 400 && location !== undefined) {
            const protocolError = (message: string) =>
              Effect.fail<AttemptFailure>({ _tag: "Final", error: new TransportError({ family: request.family, reason: "protocol", message }) })
            if (hops >= config.limits.maxRedirects) return protocolError(`more than ${config.limits.maxRedirects} redirects`)
            const next = redirectTarget(location, url)
            if (next === undefined) return protocolError(`a redirect (${response.status}) to a location that is not an http(s) URL`)
            // 307/308 repeat the method and body; 301/302/303 turn a POST into a GET without body.
            const keep = response.status === 307 || response.status === 308
            // A body (which may hold a password or be a paid submit) is never re-sent to another origin.
            if (keep && withBody && request.body !== undefined && originOf(next) !== originOfRequest())
              return protocolError(`refused to re-send a ${method} body to another origin (${originOf(next)}) on a ${response.status} redirect`)
            // The redirect's own body is read (a little) or dropped, so its connection is freed.
            return Effect.zipRight(Effect.ignore(readBounded(request.family, url, response, 64 * 1024, "redirect body", true)), loop(next, keep ? method : "GET", keep && withBody, hops + 1))
          }
          if (response.status === 0) {
            return Effect.fail<AttemptFailure>({
              _tag: "Final",
              error: new TransportError({ family: request.family, reason: "protocol", message: "a redirect this runtime cannot follow" })
            })
          }
          // The call's span (Telemetry) gets the status and the gateway's request id — never a header's value otherwise.
          const requestId = requestIdOf(response.headers)
          const annotate = Telemetry.annotate({
            "http.response.status_code": response.status,
            ...(requestId !== undefined ? { "umg.gateway.request_id": requestId.slice(0, 200) } : {})
          })
          if (response.status >= 200 && response.status < 300) return Effect.as(annotate, response)
          return Effect.zipRight(annotate, readError(request, response, classify))
        })
      )
    }
    return loop(request.url, request.method, true, 0)
  }

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
  ): Effect.Effect<Uint8Array, AttemptFailure> => {
    const tooLarge = (): AttemptFailure => ({
      _tag: "Final",
      error: new TransportError({ family, reason: "too-large", message: `the ${what} is larger than its bound of ${limit} bytes (limits in the config)` })
    })
    const declared = declaredLength(response.headers)
    if (!truncate && declared !== undefined && declared > limit) return Effect.fail(tooLarge())
    // Fast path: an uncompressed body whose declared length is within the bound cannot grow past it
    // (the HTTP parser stops at Content-Length), so it is read at once without a web stream.
    const encoding = response.headers["content-encoding"]
    if (declared !== undefined && declared <= limit && (encoding === undefined || encoding.trim().toLowerCase() === "identity"))
      return Effect.map(
        Effect.mapError(response.arrayBuffer, (e): AttemptFailure => transportError(family, url, e.cause ?? e)),
        (buffer) => new Uint8Array(buffer)
      )
    // Otherwise the body is counted as it arrives (callbacks from the body's source, no stream step
    // per chunk) and reading stops — which closes the connection — at the first byte past the bound.
    // `settle` gets the outcome once; `flow` is the started body.
    const collect = (settle: (outcome: Effect.Effect<Uint8Array, AttemptFailure>) => void, flow: () => ByteSource.ByteFlow | undefined): ByteSource.ByteSink<HttpClientError.ResponseError> => {
      let size = 0
      let over = false
      let settled = false
      const parts: Array<Uint8Array> = []
      const finish = (result: Effect.Effect<Uint8Array, AttemptFailure>): void => {
        if (settled) return
        settled = true
        settle(result)
      }
      const whole = (): Effect.Effect<Uint8Array, AttemptFailure> => {
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
        fail: (e) => finish(Effect.fail(transportError(family, url, e.cause ?? e)))
      }
    }
    const source = ByteSource.of(response.stream)
    const open = source.open
    // A source that starts at once is read without a scope: the flow is closed when the read ends
    // or is interrupted.
    if (open !== undefined)
      return Effect.async<Uint8Array, AttemptFailure>((resume) => {
        let flow: ByteSource.ByteFlow | undefined
        let outcome: Effect.Effect<Uint8Array, AttemptFailure> | undefined
        flow = open(
          collect(
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
        return Effect.sync(() => flow?.close())
      })
    return Effect.scoped(
      Effect.suspend(() => {
        let outcome: Effect.Effect<Uint8Array, AttemptFailure> | undefined
        let settle: ((outcome: Effect.Effect<Uint8Array, AttemptFailure>) => void) | undefined
        let flow: ByteSource.ByteFlow | undefined
        const sink = collect(
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
          return Effect.async<Uint8Array, AttemptFailure>((resume) => {
            if (outcome !== undefined) return resume(outcome)
            settle = resume
          })
        })
      })
    )
  }

  const decoder = new TextDecoder()

  // A non-2xx answer: read its body (bounded in size and by the attempt's time limit), redact every
  // secret the server may have echoed, and map it once, here.
  const readError = <A extends GatewayResponseError>(
    request: TransportRequest,
    response: HttpClientResponse.HttpClientResponse,
    classify: Classify<A>
  ): Effect.Effect<never, AttemptFailure<A>> =>
    Effect.zip(
      Effect.orElseSucceed(
        Effect.map(readBounded(request.family, request.url, response, config.limits.maxErrorBodyBytes, "error body", true), (b) => decoder.decode(b)),
        () => ""
      ),
      Clock.currentTimeMillis
    ).pipe(
      Effect.flatMap(([raw, now]) => {
        const family = request.family
        const text = redactText(raw, secretsOf(config, request.auth), config.limits.maxErrorBodyBytes)
        let body: unknown = text
        try {
          body = text === "" ? undefined : JSON.parse(text)
        } catch {
          // Not JSON: the mapping gets the text.
        }
        const error = classify({ family, status: response.status, headers: { ...response.headers }, body, now })
        return Effect.fail<AttemptFailure<A>>({ _tag: "Answer", error, status: response.status, headers: response.headers })
      })
    )

  const withTimeout = <R, A extends GatewayResponseError>(
    effect: Effect.Effect<R, AttemptFailure<A>>,
    family: Family,
    ms: number,
    phase: "request" | "first-byte"
  ): Effect.Effect<R, AttemptFailure<A>> =>
    Deadline.timeoutFail(
      effect,
      ms,
      (): AttemptFailure<A> => ({
        _tag: "Transport",
        kind: "timeout",
        error: new TimeoutError({ family, phase, timeoutMs: ms, message: `no ${phase === "request" ? "answer" : "first byte"} within ${ms} ms` })
      }),
      // An attempt waits on nothing but its client's requests: umg's own client ends them at the limit.
      { expiry: lean }
    )

  // The decision for the `n`-th failure (0-based), read from the pure `RetryPolicy` with the Effect
  // Random and Clock; a `Final` failure and a 429 the caller paces itself stop at once.
  const decisionFor = <A extends GatewayResponseError>(request: TransportRequest, failure: AttemptFailure<A>, n: number): Effect.Effect<RetryPolicy.RetryDecision> => {
    if (failure._tag === "Final" || (failure._tag === "Answer" && failure.status === 429 && request.onRateLimit === "fail"))
      return Effect.succeed<RetryPolicy.RetryDecision>({ _tag: "Stop", reason: "not-retryable" })
    return Effect.zipWith(Random.next, Clock.currentTimeMillis, (random, now) =>
      RetryPolicy.decide({
        failure:
          failure._tag === "Answer"
            ? { _tag: "Status", status: failure.status, headers: failure.headers, errorType: "type" in failure.error ? failure.error.type : undefined }
            : { _tag: "Transport", kind: failure.kind },
        attempt: n,
        kind: request.kind,
        budget,
        random,
        now
      })
    )
  }

  // The retry schedule, composed once per request from the policy's decisions: it recurs while the
  // policy says retry, after the delay the policy gives (Retry-After, retry-after-ms, jitter).
  const retrySchedule = <A extends GatewayResponseError>(request: TransportRequest) =>
    Schedule.identity<AttemptFailure<A>>().pipe(
      Schedule.zipWith(Schedule.count, (failure, n) => [failure, n] as const),
      Schedule.mapEffect(([failure, n]) =>
        Effect.map(decisionFor(request, failure, n), (decision) => ({ failure, n, decision }))
      ),
      Schedule.whileOutput(({ decision }) => decision._tag === "Retry"),
      Schedule.addDelay(({ decision }) => Duration.millis(decision._tag === "Retry" ? decision.delayMs : 0)),
      Schedule.tapOutput(({ decision, failure, n }) =>
        decision._tag === "Retry"
          ? Effect.logDebug(`umg: retrying ${request.family} request after ${failure.error._tag}`).pipe(
              Effect.annotateLogs({ attempt: n + 1, delayMs: Math.round(decision.delayMs) })
            )
          : Effect.void
      )
    )

  // Attempts `run` until it succeeds or the retry schedule stops; the delay runs on the Effect clock.
  // The schedule is only built once an attempt has failed: most requests succeed at once.
  const retrying = <R, A extends GatewayResponseError>(
    request: TransportRequest,
    run: Effect.Effect<R, AttemptFailure<A>>
  ): Effect.Effect<R, A | TimeoutError | TransportError | DecodeError> =>
    Effect.catchAll(run, (first) =>
      Effect.flatMap(Schedule.driver(retrySchedule<A>(request)), (driver) => {
        const again = (failure: AttemptFailure<A>): Effect.Effect<R, A | TimeoutError | TransportError | DecodeError> =>
          Effect.matchEffect(driver.next(failure), {
            onFailure: () => Effect.fail(failure.error),
            onSuccess: () => Effect.catchAll(run, again)
          })
        return again(first)
      })
    )

  const decodeFailure = (family: Family, what: string): AttemptFailure => ({
    _tag: "Final",
    error: new DecodeError({ family, what, message: `the ${what} is not valid JSON` })
  })

  const jsonWith = <A extends GatewayResponseError>(
    request: TransportRequest,
    classify: Classify<A>
  ): Effect.Effect<JsonAnswer, A | TimeoutError | TransportError | DecodeError> =>
    retrying(
      request,
      withTimeout(
        Effect.flatMap(sendOnce(request, classify), (response) =>
          readBounded(request.family, request.url, response, request.maxBytes ?? config.limits.maxResponseBytes, `${request.family} answer`).pipe(
            Effect.flatMap((bytes) => {
              const text = decoder.decode(bytes)
              try {
                // Parsed and checked once: the group's decoder then takes the tree as it is (no second walk, no copy).
                const body: unknown = text === "" ? undefined : parseJsonTree(text, config.limits.maxJsonDepth)
                if (body === TooDeep)
                  return Effect.fail<AttemptFailure<A>>({
                    _tag: "Final",
                    error: new DecodeError({
                      family: request.family,
                      what: `${request.family} response`,
                      message: `the ${request.family} response nests deeper than ${config.limits.maxJsonDepth} levels (limits.maxJsonDepth)`
                    })
                  })
                const requestId = requestIdOf(response.headers)
                return Effect.succeed<JsonAnswer>({
                  status: response.status,
                  headers: response.headers,
                  body,
                  ...(requestId !== undefined ? { requestId } : {})
                })
              } catch {
                return Effect.fail(decodeFailure(request.family, `${request.family} response`))
              }
            })
          )
        ),
        request.family,
        request.timeoutMs ?? config.timeoutMs,
        "request"
      )
    )

  const json = (request: TransportRequest): Effect.Effect<JsonAnswer, RequestError> => jsonWith(request, toAnswerError)

  const platformJson = (request: TransportRequest): Effect.Effect<JsonAnswer, PlatformRequestError> => jsonWith(request, toPlatformAnswerError)

  const bytes = (request: TransportRequest): Effect.Effect<BytesAnswer, RequestError> =>
    retrying(
      request,
      withTimeout(
        Effect.flatMap(sendOnce(request, toAnswerError), (response) =>
          readBounded(request.family, request.url, response, config.limits.maxDownloadBytes, `${request.family} download`).pipe(
            Effect.map((buffer) => ({
              status: response.status,
              headers: response.headers,
              bytes: buffer,
              contentType: response.headers["content-type"] ?? "application/octet-stream"
            }))
          )
        ),
        request.family,
        request.timeoutMs ?? config.timeoutMs,
        "request"
      )
    )

  const open = (request: TransportRequest): Effect.Effect<Stream.Stream<Uint8Array, TransportError>, RequestError> =>
    Effect.map(
      retrying(request, withTimeout(sendOnce(request, toAnswerError), request.family, config.streamFirstByteTimeoutMs, "first-byte")),
      (response) => {
        const lost = (e: HttpClientError.ResponseError) => transportError(request.family, request.url, e.cause ?? e).error
        return ByteSource.withSource(Stream.mapError(response.stream, lost), ByteSource.mapError(ByteSource.of(response.stream), lost))
      }
    )

  return { json, platformJson, bytes, open }
}

/**
 * The transport over the `HttpClient` of the context (a Node, undici or tracing client the user
 * provides, or the fetch client `Gateway.layer` provides).
 * @category constructors
 */
export const fromContext = (config: GatewayConfig): Effect.Effect<HttpTransport, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => make(config, client))

/**
 * The `HttpClient` layer `Gateway.layer` provides: the config's `httpClient` when given, else the
 * platform's default (`#umg/http`): umg's lean `node:http` client in Node, `FetchHttpClient` in browsers.
 * @category constructors
 */
export const clientLayerOf = (config: GatewayConfig): Layer.Layer<HttpClient.HttpClient> =>
  Option.getOrElse(config.httpClient, () => defaultHttpClientLayer)

/**
 * The transport over the config's HTTP client layer, or the platform's default.
 * @category constructors
 */
export const fromConfig = (config: GatewayConfig): Effect.Effect<HttpTransport> =>
  Effect.provide(fromContext(config), clientLayerOf(config))
