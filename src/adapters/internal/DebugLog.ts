/**
 * The debug log of what umg sends and receives, at Effect's `Debug` level. One line per request sent,
 * answer or failed attempt, body that failed after its answer, retry, stream end (SSE events or a byte
 * stream's bytes) and WebSocket open or close, its facts in log annotations. The lines go to the
 * fiber's loggers and pass its `References.MinimumLogLevel` like any other; below `Debug` (Effect's
 * default is `Info`) nothing is read, built or timed, and nothing is done per stream event or chunk.
 *
 * A line names the method, the path (never the query, where a `?key=` credential may be), the server,
 * the attempt, the status, the time taken and the gateway's request id (secrets taken out, as anything
 * the server sends may echo them). It never holds a header, a credential or a body: bodies may hold
 * what the user must keep private (prompts, files) and may be large, and an error's text is already
 * in the error the call fails with.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import type * as Headers from "effect/http/Headers"
import * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Family } from "../../core/errors/GatewayError.js"
import { hostShown, redactText } from "../../core/errors/Redact.js"
import * as ByteSource from "../http/ByteSource.js"

/** The facts of one line, by their names (OpenTelemetry's where one fits, else `umg.…`). @category models */
export type Annotations = Readonly<Record<string, string | number>>

const isOn = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  !LogLevel.isGreaterThan(fiber.getRef(References.MinimumLogLevel), "Debug")

/**
 * `f` told whether `Debug` lines pass the running fiber's minimum level: the one guard of every line,
 * a read of the level and nothing more. Off, the caller runs its effect as it was.
 * @category combinators
 */
export const withDebug = <A, E, R>(f: (on: boolean) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => f(isOn(fiber)))

/** One line (under `withDebug`: its facts are built only when it is on). */
const write = (message: string, annotations: Annotations): Effect.Effect<void> =>
  Effect.annotateLogs(Effect.logDebug(message), annotations)

/**
 * An error as a line names it: its tag, with its `reason` or `phase` when it has one
 * (`TransportError(connect)`, `TimeoutError(idle)`) — never its message, which may quote the server.
 * @category accessors
 */
export const errorType = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return typeof error
  const { _tag, reason, phase } = error as { _tag?: unknown; reason?: unknown; phase?: unknown }
  const tag = typeof _tag === "string" ? _tag : "Error"
  const detail = typeof reason === "string" ? reason : typeof phase === "string" ? phase : undefined
  return detail === undefined ? tag : `${tag}(${detail})`
}

/** How an effect that did not succeed ended: interrupted (a time limit, the call's signal, the caller), or its error. */
const causeType = <E>(cause: Cause.Cause<E>, errorOf: (e: E) => unknown): string => {
  const error = Cause.findError(cause)
  if (error._tag === "Success") return errorType(errorOf(error.success))
  return Cause.hasInterrupts(cause) ? "interrupted" : "defect"
}

/**
 * A path as a line shows it, any secret taken out: a server may write the key it echoes into a
 * redirect's path percent-encoded, which the URL parser keeps as it is — then the path is shown
 * decoded, with the key taken out of that.
 */
const pathShown = (path: string, secrets: ReadonlyArray<string>): string => {
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    // A bad escape: the path as it is.
  }
  const redacted = redactText(decoded, secrets, Number.MAX_SAFE_INTEGER)
  return redactText(redacted === decoded ? path : redacted, secrets, 300)
}

/**
 * Where a request or socket goes, as a line shows it: the path — no query, no fragment, and any
 * secret taken out (a redirect's location comes from the server) — and the server.
 */
const target = (url: string, secrets: ReadonlyArray<string>): Annotations => {
  const parsed = URL.parse(url)
  if (parsed === null) return { "url.path": "(invalid url)" }
  const secure = parsed.protocol === "https:" || parsed.protocol === "wss:"
  return {
    "url.path": pathShown(parsed.pathname, secrets),
    "server.address": hostShown(parsed.hostname.replace(/^\[|\]$/g, ""), secrets),
    "server.port": parsed.port !== "" ? Number(parsed.port) : secure ? 443 : 80
  }
}

const elapsed = (since: number): Effect.Effect<Annotations> =>
  Effect.map(Clock.currentTimeMillis, (now) => ({ "umg.duration_ms": now - since }))

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

/** One request as its lines show it. @category models */
export interface Hop<E> {
  readonly family: Family
  readonly method: string
  /** The URL sent to (a redirect's target, for a hop after the first). */
  readonly url: string
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number
  /** Every secret the answer could echo, read only when the lines are on. */
  readonly secrets: () => ReadonlyArray<string>
  /** The gateway's request id in an answer's headers. */
  readonly requestId: (headers: Headers.Headers) => string | undefined
  /** The error a failure of the send carries. */
  readonly errorOf: (failure: E) => unknown
}

/** What an answer shows: its status and headers. */
interface Answer {
  readonly status: number
  readonly headers: Headers.Headers
}

/**
 * `send` (one request, up to its answer's headers) with its lines: `umg: request` before it, then
 * `umg: response` (status, time to the headers, request id) or `umg: request failed` (the error's
 * type, or `interrupted` by the attempt's time limit or the call's signal). Off, `send` itself.
 * @category combinators
 */
export const exchange = <A extends Answer, E, R>(send: Effect.Effect<A, E, R>, hop: Hop<E>): Effect.Effect<A, E, R> =>
  withDebug((on) => {
    if (!on) return send
    const secrets = hop.secrets()
    const where: Annotations = {
      "umg.family": hop.family,
      "http.request.method": hop.method,
      ...target(hop.url, secrets),
      "umg.attempt": hop.attempt
    }
    return Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
      write("umg: request", where).pipe(
        Effect.andThen(send),
        Effect.onExit((exit) =>
          Effect.flatMap(elapsed(startedAt), (took) => {
            if (Exit.isFailure(exit))
              return write("umg: request failed", {
                ...where,
                "error.type": causeType(exit.cause, hop.errorOf),
                ...took
              })
            const id = hop.requestId(exit.value.headers)
            return write("umg: response", {
              ...where,
              "http.response.status_code": exit.value.status,
              ...took,
              ...(id === undefined ? {} : { "umg.gateway.request_id": redactText(id, secrets, 200) })
            })
          })
        )
      )
    )
  })

/** What an attempt's lines tell: set by the attempt once its answer's 2xx headers came. @category models */
export interface AttemptMark {
  answered: boolean
}

/**
 * One attempt (`run`, given a mark to set once its 2xx answer's headers came; `undefined` when the
 * lines are off), with `umg: response failed` when it fails after that — its body lost, too large or
 * not valid, past the attempt's time limit, or interrupted — naming the error's type and the time
 * since the attempt started. A failure before the mark has its line already: `umg: request failed`,
 * or the status of `umg: response`. Written for every attempt, as `umg: request failed` is; a retry
 * then has its own line. Off, `run(undefined)` itself.
 * @category combinators
 */
export const attempt = <A, E, R>(
  run: (mark: AttemptMark | undefined) => Effect.Effect<A, E, R>,
  hop: Omit<Hop<E>, "requestId">
): Effect.Effect<A, E, R> =>
  withDebug((on) => {
    if (!on) return run(undefined)
    const mark: AttemptMark = { answered: false }
    return Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
      Effect.onExit(run(mark), (exit) =>
        Exit.isSuccess(exit) || !mark.answered
          ? Effect.void
          : Effect.flatMap(elapsed(startedAt), (took) =>
              write("umg: response failed", {
                "umg.family": hop.family,
                "http.request.method": hop.method,
                ...target(hop.url, hop.secrets()),
                "umg.attempt": hop.attempt,
                "error.type": causeType(exit.cause, hop.errorOf),
                ...took
              })
            )
      )
    )
  })

/** A retry as its line shows it. @category models */
export interface Retry {
  readonly family: Family
  readonly method: string
  readonly url: string
  /** The attempt about to be made (2 for the first retry). */
  readonly attempt: number
  readonly delayMs: number
  /** What the attempt before failed with, and its status when it was an answer. */
  readonly error: unknown
  readonly status?: number | undefined
}

/**
 * `umg: retrying` — the next attempt's number, the wait before it, what the last attempt failed with.
 * @category constructors
 */
export const retrying = (retry: () => Retry): Effect.Effect<void> =>
  withDebug((on) => {
    if (!on) return Effect.void
    const r = retry()
    return write("umg: retrying", {
      "umg.family": r.family,
      "http.request.method": r.method,
      "url.path": target(r.url, [])["url.path"]!,
      "umg.attempt": r.attempt,
      "umg.retry_delay_ms": Math.round(r.delayMs),
      "error.type": errorType(r.error),
      ...(r.status === undefined ? {} : { "http.response.status_code": r.status })
    })
  })

// ---------------------------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------------------------

/** What a watched stream counted, and how its reader saw it end. */
interface Tally {
  /** The events handed out; `undefined` for a byte stream, whose line has none. */
  events: number | undefined
  bytes: number
  /** `completed`, or the failure's type; `undefined` while the reader has seen neither. */
  end: string | undefined
}

/** A source whose bytes are counted as they arrive (before any decoder sees them). */
const counted = <E>(source: ByteSource.ByteSource<E>, tally: Tally): ByteSource.ByteSource<E> => {
  const sinkOf = (sink: ByteSource.ByteSink<E>): ByteSource.ByteSink<E> => ({
    chunk: (bytes) => {
      tally.bytes += bytes.length
      sink.chunk(bytes)
    },
    end: sink.end,
    fail: sink.fail
  })
  const open = source.open
  return {
    start: (sink) => source.start(sinkOf(sink)),
    ...(open === undefined ? {} : { open: (sink: ByteSource.ByteSink<E>) => open(sinkOf(sink)) })
  }
}

/**
 * How a watched stream ended: as its reader saw it (`completed`, or `failed` with the stream's error),
 * else by how its scope closed — `failed` with the error its reader failed with (a decoder's check, the
 * reader's own), `cancelled` when the reader stopped first (it had what it wanted, or was interrupted).
 */
const outcomeOf = (tally: Tally, exit: Exit.Exit<unknown, unknown>): Annotations => {
  if (tally.end === "completed") return { "umg.stream.outcome": "completed" }
  const failure = tally.end ?? (Exit.isFailure(exit) ? causeType(exit.cause, (e) => e) : "interrupted")
  return failure === "interrupted"
    ? { "umg.stream.outcome": "cancelled" }
    : { "umg.stream.outcome": "failed", "error.type": failure }
}

/**
 * The one watcher of a stream, SSE or bytes: `open` (its pull) with `umg: stream ended` when its scope
 * closes — how it ended (`outcomeOf`), the events handed out (`count` adds them), the body's bytes and
 * the time since the body opened.
 */
const watched = <A, E, O extends { readonly pull: ByteSource.ChunkPull<A, E> }>(
  family: Family,
  tally: Tally,
  count: (items: ReadonlyArray<A>) => void,
  open: Effect.Effect<O, never, Scope.Scope>
): Effect.Effect<O, never, Scope.Scope> =>
  Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
    Effect.andThen(
      Effect.addFinalizer((exit) =>
        Effect.flatMap(elapsed(startedAt), (took) =>
          write("umg: stream ended", {
            "umg.family": family,
            ...outcomeOf(tally, exit),
            ...(tally.events === undefined ? {} : { "umg.stream.events": tally.events }),
            "umg.stream.bytes": tally.bytes,
            ...took
          })
        )
      ),
      Effect.map(open, (opened) => ({
        ...opened,
        pull: opened.pull.pipe(
          Effect.map((items) => {
            count(items)
            return items
          }),
          Effect.mapError((e) => {
            tally.end ??= Cause.isDone(e) ? "completed" : errorType(e)
            return e
          })
        )
      }))
    )
  )

/**
 * A streamed answer's body decoded by `decode` into a pull of events, with `umg: stream ended` when
 * its scope closes: the events handed out, the body's bytes, the time since the body opened, and how
 * it ended — `completed`, `failed` (with the error's type: the stream's, or its reader's) or
 * `cancelled` (its reader stopped first). Off, `decode(bytes)` itself: nothing is counted.
 * @category combinators
 */
export const watchStream = <B, O extends { readonly pull: ByteSource.ChunkPull<unknown, unknown> }>(
  family: Family,
  bytes: Stream.Stream<Uint8Array, B>,
  decode: (bytes: Stream.Stream<Uint8Array, B>) => Effect.Effect<O, never, Scope.Scope>
): Effect.Effect<O, never, Scope.Scope> =>
  withDebug((on) => {
    if (!on) return decode(bytes)
    const tally: Tally = { events: 0, bytes: 0, end: undefined }
    const source = counted(ByteSource.of(bytes), tally)
    return watched(
      family,
      tally,
      (events) => {
        tally.events! += events.length
      },
      decode(ByteSource.withSource(ByteSource.toStream(source), source))
    )
  })

/**
 * A body read as a byte stream (`speech.stream`, a video download) with the same `umg: stream ended`
 * line, its bytes counted as its reader takes them (no events). Read when the body opens; off, the
 * stream itself: nothing is counted, nothing added to a pull.
 * @category combinators
 */
export const watchBytes = <E>(
  family: Family,
  bytes: Stream.Stream<Uint8Array, E>
): Effect.Effect<Stream.Stream<Uint8Array, E>> =>
  withDebug((on) => {
    if (!on) return Effect.succeed(bytes)
    const tally: Tally = { events: undefined, bytes: 0, end: undefined }
    const count = (chunks: ReadonlyArray<Uint8Array>): void => {
      for (const chunk of chunks) tally.bytes += chunk.length
    }
    const open = Effect.map(Stream.toPull(bytes), (pull) => ({ pull }))
    return Effect.succeed(
      ByteSource.fromScopedPull(Effect.map(watched(family, tally, count, open), (opened) => opened.pull))
    )
  })

// ---------------------------------------------------------------------------------------------
// WebSockets
// ---------------------------------------------------------------------------------------------

/** The lines of one WebSocket session: its opening, and its close. @category models */
export interface SocketLines {
  /** `open` with `umg: websocket opened` (the handshake's time) or `umg: websocket not opened` (the error's type). */
  readonly opening: <A, E, R>(open: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** `umg: websocket closed`: the close code when known, who closed first, the time since it opened. */
  readonly closed: (
    close: () => { readonly code: number | undefined; readonly by: "server" | "umg" }
  ) => Effect.Effect<void>
}

/** The lines of a session to `url` (`secrets`: what its path may not show). @category constructors */
export const socketLines = (family: Family, url: string, secrets: ReadonlyArray<string>): SocketLines => {
  let openedAt: number | undefined
  const where = (): Annotations => ({ "umg.family": family, ...target(url, secrets) })
  return {
    opening: (open) =>
      withDebug((on) =>
        !on
          ? open
          : Effect.flatMap(Clock.currentTimeMillis, (startedAt) =>
              Effect.onExit(open, (exit) =>
                Effect.flatMap(elapsed(startedAt), (took) => {
                  if (Exit.isFailure(exit))
                    return write("umg: websocket not opened", {
                      ...where(),
                      "error.type": causeType(exit.cause, (e) => e),
                      ...took
                    })
                  openedAt = startedAt + Number(took["umg.duration_ms"])
                  return write("umg: websocket opened", { ...where(), ...took })
                })
              )
            )
      ),
    closed: (close) =>
      withDebug((on) => {
        if (!on) return Effect.void
        const { code, by } = close()
        return Effect.flatMap(elapsed(openedAt ?? 0), (took) =>
          write("umg: websocket closed", {
            ...where(),
            ...(code === undefined ? {} : { "websocket.close_code": code }),
            "umg.closed_by": by,
            ...(openedAt === undefined ? {} : took)
          })
        )
      })
  }
}
