/**
 * Whether, and after how long, a failed gateway request is tried again. It is a pure function of the
 * failure (HTTP status and headers, or how the connection failed), the attempt number, whether the
 * request costs money if acted on twice, the budget, an injected random number and the time now.
 * The one retry rule: the transport reads it per attempt (`decide`), and whatever retries a call's
 * typed error — `embedMany`'s adaptive concurrency, the batch slots — reads it through `decideError`
 * and `retrying`.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"

/** How a request failed: an HTTP answer, or the connection (refused before sending, reset, timed out). @category models */
export type RetryFailure =
  | {
      readonly _tag: "Status"
      readonly status: number
      readonly headers: Readonly<Record<string, string | undefined>>
      /** The gateway's error type from the body, when it gave one (`insufficient_quota`, …). */
      readonly errorType?: string | undefined
      /** The wait the server asked for, already read from the headers (a typed error's `retryAfterMs`). */
      readonly retryAfterMs?: number | undefined
    }
  | { readonly _tag: "Transport"; readonly kind: "connect" | "reset" | "timeout" }

/**
 * `idempotent`: sending twice is harmless (reads, text generation the caller pays per answer anyway).
 * `paid-submit`: a second send may pay twice (video and platform submits), so it is repeated only
 * when the failure proves the gateway did not act: connection refused, or 429.
 * @category models
 */
export type RequestKind = "idempotent" | "paid-submit"

/** The retry budget. @category models */
export interface RetryBudget {
  /** Retries after the first attempt. */
  readonly maxRetries: number
  /** Delay of the first retry; doubles each time. */
  readonly baseDelayMs: number
  /** Cap of the computed backoff. */
  readonly maxDelayMs: number
  /** Longest server-asked wait (`retry-after-ms`, `Retry-After`) honoured; longer stops retrying. */
  readonly maxRetryAfterMs: number
}

/** The default budget: 2 retries, 0.5 s → 8 s, server waits up to 60 s. @category constructors */
export const defaultRetryBudget: RetryBudget = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000
}

/** What to do. @category models */
export type RetryDecision =
  | { readonly _tag: "Retry"; readonly delayMs: number; readonly source: "backoff" | "server" }
  | { readonly _tag: "Stop"; readonly reason: StopReason }

/** Why no retry. @category models */
export type StopReason =
  | "not-retryable" //     4xx other than 408/409/429, or a permanent error type
  | "budget-exhausted" //  no retries left
  | "server-said-no" //    `x-should-retry: false`
  | "may-have-acted" //    a paid submit whose failure does not prove the gateway did nothing
  | "retry-after-too-long" // the server asked for a wait above the cap

/** The inputs of one decision. @category models */
export interface RetryInput {
  readonly failure: RetryFailure
  /** Retries already made (0 after the first failure). */
  readonly attempt: number
  readonly kind: RequestKind
  readonly budget: RetryBudget
  /** A number in [0, 1) for jitter (inject `Random.next`; tests pass fixed values). */
  readonly random: number
  /** Epoch milliseconds, for a `Retry-After` HTTP date. */
  readonly now: number
}

const header = (headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const direct = headers[name]
  if (direct !== undefined) return direct
  // Headers from a fetch Response are lower-case already; a hand-built record may not be.
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return headers[key]
  return undefined
}

/**
 * The wait the server asked for, in ms: `retry-after-ms` (milliseconds), else `Retry-After` as
 * seconds or an HTTP date (relative to `now`). `undefined` when absent or unreadable.
 * @category decisions
 */
export const serverDelayMs = (
  headers: Readonly<Record<string, string | undefined>>,
  now: number
): number | undefined => {
  const ms = header(headers, "retry-after-ms")
  if (ms !== undefined && ms.trim() !== "") {
    const v = Number(ms)
    if (Number.isFinite(v) && v >= 0) return v
  }
  const ra = header(headers, "retry-after")
  if (ra === undefined || ra.trim() === "") return undefined
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Number(ra) * 1000
  const date = Date.parse(ra)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

/**
 * Error types that no wait will fix, whatever their status: a 429 `insufficient_quota` means the
 * account is out of quota, not that it is sending too fast.
 * @category decisions
 */
export const permanentErrorTypes: ReadonlySet<string> = new Set(["insufficient_quota"])

/** Whether a status is transient: 408, 409, 429 and every 5xx. @category decisions */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 409 || status === 429 || status >= 500

/**
 * The computed backoff of retry number `attempt` (0-based): `base · 2^attempt` capped at `max`, minus
 * up to 25 % jitter, so it lies in [0.75 · d, d].
 * @category decisions
 */
export const backoffMs = (attempt: number, budget: RetryBudget, random: number): number => {
  const d = Math.min(budget.baseDelayMs * Math.pow(2, Math.max(0, attempt)), budget.maxDelayMs)
  const r = Math.min(Math.max(random, 0), 1)
  return Math.max(0, d * (1 - 0.25 * r))
}

/**
 * Whether a failure proves the gateway did not act on the request: the connection was refused
 * before a byte was sent, or the gateway answered 429 (it rejected the request before doing work).
 * @category decisions
 */
export const provesNotActed = (failure: RetryFailure): boolean =>
  failure._tag === "Transport" ? failure.kind === "connect" : failure.status === 429

/**
 * The same proof read from the typed error a call ended with (after its own retries): a connection
 * never made, or an answer with status 429. Batches use it to give such a line back instead of
 * counting it as submitted.
 * @category decisions
 */
export const errorProvesNotActed = (error: ErrorLike): boolean => {
  const failure = failureOfError(error)
  return failure !== undefined && provesNotActed(failure)
}

const stop = (reason: StopReason): RetryDecision => ({ _tag: "Stop", reason })

/**
 * The retry decision. Order: budget; a paid submit only on a proof the gateway did not act
 * (`may-have-acted` unless the gateway refused it with a 4xx other than 408/409/429); `x-should-retry`
 * overrides the status rule; otherwise 408/409/429/5xx (but a permanent error type) and connection
 * failures retry; the delay is the server's (when given, up to the cap: a longer one stops) or the
 * jittered backoff.
 * @category decisions
 */
export const decide = (input: RetryInput): RetryDecision => {
  const { attempt, budget, failure, kind } = input
  if (attempt >= budget.maxRetries) return stop("budget-exhausted")
  if (failure._tag === "Transport") {
    if (kind === "paid-submit" && !provesNotActed(failure)) return stop("may-have-acted")
    return { _tag: "Retry", delayMs: backoffMs(attempt, budget, input.random), source: "backoff" }
  }
  const should = header(failure.headers, "x-should-retry")?.trim().toLowerCase()
  // A 4xx refusal (not 408/409/429) says the gateway turned the request down as sent: not acted on.
  const refused = should !== "true" && !isRetryableStatus(failure.status)
  if (kind === "paid-submit" && !refused && !provesNotActed(failure)) return stop("may-have-acted")
  if (should === "false") return stop("server-said-no")
  if (refused) return stop("not-retryable")
  if (should !== "true" && failure.errorType !== undefined && permanentErrorTypes.has(failure.errorType))
    return stop("not-retryable")
  const server = failure.retryAfterMs ?? serverDelayMs(failure.headers, input.now)
  if (server !== undefined) {
    if (server > budget.maxRetryAfterMs) return stop("retry-after-too-long")
    return { _tag: "Retry", delayMs: server, source: "server" }
  }
  return { _tag: "Retry", delayMs: backoffMs(attempt, budget, input.random), source: "backoff" }
}

// ---------------------------------------------------------------------------------------------
// The same rule, read from the typed error a call ended with
// ---------------------------------------------------------------------------------------------

/**
 * What the decision reads of a call's typed error (`GatewayError`'s classes, `InvalidRequest`, …):
 * its tag, and where it has them the connection failure's `reason`, the timeout's `phase`, the
 * HTTP `status`, the gateway's error `type` and the `retryAfterMs` it asked for.
 * @category models
 */
export interface ErrorLike {
  readonly _tag: string
  readonly reason?: string
  readonly phase?: string
  readonly status?: number
  readonly type?: string
  readonly retryAfterMs?: number
}

/**
 * A typed error as the failure `decide` reads, or `undefined` when it is not one a wait can change:
 * a connection refused or lost (`connect`; `reset`, `closed`), a time limit of a request (any phase
 * but a task's `poll` deadline; phase `connect`, no connection made within it, reads as a connection
 * refused), an HTTP answer (its status, type and asked wait). Cancelled by us
 * (`aborted`), an answer past its bound or breaking the protocol, an answer that does not decode, a
 * failed task, a refusal before sending: `undefined`. `headers` are the answer's, when the caller
 * kept them (`x-should-retry` is read from them); a typed error alone carries none.
 * @category decisions
 */
export const failureOfError = (
  error: ErrorLike,
  headers: Readonly<Record<string, string | undefined>> = {}
): RetryFailure | undefined => {
  switch (error._tag) {
    case "TransportError":
      return error.reason === "connect"
        ? { _tag: "Transport", kind: "connect" }
        : error.reason === "reset" || error.reason === "closed"
          ? { _tag: "Transport", kind: "reset" }
          : undefined
    case "TimeoutError":
      // `connect`: no connection was made within the limit, so nothing was sent.
      return error.phase === "poll"
        ? undefined
        : { _tag: "Transport", kind: error.phase === "connect" ? "connect" : "timeout" }
    default:
      return error.status === undefined
        ? undefined
        : { _tag: "Status", status: error.status, headers, errorType: error.type, retryAfterMs: error.retryAfterMs }
  }
}

/**
 * Whether a typed error leaves open that the gateway received the request — the failures after
 * which a paid submit "may have been sent": everything `failureOfError` reads except a proof it was
 * not (connection refused, 429) and an answer refusing the request (a status `decide` does not retry),
 * plus an answer we could not use (cancelled by us, cut at its bound, not decodable). A call the
 * caller aborted (`Aborted`) counts even when the signal fired before a byte left: nothing tells the
 * two apart afterwards, and for a paid submit "unknown" is the safe answer.
 */
const mayHaveReached = (error: ErrorLike): boolean =>
  error._tag === "DecodeError" ||
  error._tag === "Aborted" ||
  (error._tag === "TransportError" && error.reason !== "connect")

/** The inputs of one decision about a typed error. @category models */
export interface ErrorRetryInput extends Omit<RetryInput, "failure"> {
  readonly error: ErrorLike
  /** The headers of the answer `error` was made of, when known: `x-should-retry` is read from them. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * `decide` for the typed error a call ended with. An error `failureOfError` cannot read is never
 * retried: `may-have-acted` for a paid submit whose request reached the gateway (its answer was
 * lost, cut or unreadable), `not-retryable` otherwise.
 * @category decisions
 */
export const decideError = (input: ErrorRetryInput): RetryDecision => {
  const failure = failureOfError(input.error, input.headers)
  if (failure !== undefined) return decide({ ...input, failure })
  return stop(input.kind === "paid-submit" && mayHaveReached(input.error) ? "may-have-acted" : "not-retryable")
}

/**
 * Whether a typed error is transient — one an idempotent request is tried again after (the budget
 * and the server's wait aside): a connection failure, a request's timeout, 408/409/429/5xx but a
 * permanent error type.
 * @category decisions
 */
export const isTransientError = (error: ErrorLike): boolean =>
  decideError({
    error,
    attempt: 0,
    kind: "idempotent",
    budget: { ...defaultRetryBudget, maxRetries: 1, maxRetryAfterMs: Infinity },
    random: 0,
    now: 0
  })._tag === "Retry"

/**
 * Runs `self` again while `decideError` says so, sleeping each decision's delay on the Effect clock
 * (jitter from the Effect `Random`); the last error when it stops. `headersOf` gives the headers of
 * the answer an error was made of, when the caller keeps them.
 * @category combinators
 */
export const retrying = <A, E extends ErrorLike, R>(
  self: Effect.Effect<A, E, R>,
  options: {
    readonly kind: RequestKind
    readonly budget: RetryBudget
    readonly headersOf?: ((error: E) => Readonly<Record<string, string | undefined>> | undefined) | undefined
  }
): Effect.Effect<A, E, R> => {
  const attempt = (n: number): Effect.Effect<A, E, R> =>
    Effect.catch(self, (error) =>
      Effect.flatMap(
        Effect.zipWith(Random.next, Clock.currentTimeMillis, (random, now) =>
          decideError({
            error,
            headers: options.headersOf?.(error),
            attempt: n,
            kind: options.kind,
            budget: options.budget,
            random,
            now
          })
        ),
        (decision) =>
          decision._tag === "Retry"
            ? Effect.andThen(Effect.sleep(Duration.millis(decision.delayMs)), attempt(n + 1))
            : Effect.fail(error)
      )
    )
  return attempt(0)
}
