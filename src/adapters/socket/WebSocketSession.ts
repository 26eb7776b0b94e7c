/**
 * A scoped WebSocket session. It connects (with a time limit), gives the server's frames as a
 * `Stream` of Schema-decoded events, sends client events only after the core validated them, and
 * closes the socket when the scope ends. A close other than 1000/1001/1005 ends the stream with a
 * typed `TransportError` carrying the close code (its reason redacted); an orderly close ends it and
 * its code is reported by `closeCode`; a refused upgrade is mapped like the same HTTP error answer.
 * The call's signal closes the socket: the opening or the events then fail with `Aborted`. Once a
 * session has ended, every later read gets that ending again. Its opening and its close are lines of
 * the debug log (`DebugLog`).
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { redactText } from "../../core/errors/Redact.js"
import {
  TimeoutError,
  TransportError,
  type DecodeError,
  type Family,
  type SessionError,
  type SessionOpenError
} from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { classifyTransport } from "../http/TransportFailure.js"
import { proxyNote } from "../http/ProxyFailure.js"
import * as DebugLog from "../internal/DebugLog.js"
import * as Telemetry from "../internal/Telemetry.js"
import { abortable, abortedError, isSignal } from "../CallOptions.js"
import { defaultMaxErrorBodyBytes, type RefusedAnswer, refusedUpgradeError } from "./RefusedUpgrade.js"
import {
  backlogPast,
  frameBounds,
  isTooLarge,
  maxPendingFrames as maxPendingFramesBound,
  tooLarge,
  type Violation
} from "./SessionBounds.js"

/** What a session needs from a socket implementation (Node `ws`, or a browser `WebSocket`). @category models */
export interface SocketLike {
  readonly send: (data: string) => void
  readonly close: (code?: number, reason?: string) => void
  readonly isOpen: () => boolean
  readonly isClosed: () => boolean
  readonly on: (handlers: {
    readonly open: () => void
    /** A server message as text, and its size in UTF-8 bytes when the socket knows it (else it is counted). */
    readonly message: (data: string, bytes?: number) => void
    readonly close: (code: number, reason: string) => void
    /**
     * The upgrade was answered with an HTTP status instead; with the answer's headers and the start of
     * its body (at most `maxErrorBodyBytes`) when the socket can read them (a browser cannot).
     */
    readonly refused: (status: number, answer?: RefusedAnswer) => void
    readonly error: (error: unknown) => void
  }) => void
}

/** Opens a socket. @category models */
export type SocketOpener = (
  url: string,
  options: {
    readonly headers: Readonly<Record<string, string>>
    readonly protocols?: ReadonlyArray<string>
    /**
     * The largest message the session takes (`limits.maxFrameBytes`): a socket that can refuse a larger
     * one before reading it whole should (Node's `ws`: `maxPayload`); the session checks every message.
     */
    readonly maxFrameBytes?: number | undefined
    /** How much of a refused upgrade's body to read for its error (`limits.maxErrorBodyBytes`). */
    readonly maxErrorBodyBytes?: number | undefined
  }
) => SocketLike

/** An open session. @category models */
export interface WebSocketSession<Server, Client> {
  /** The server's events, decoded, in order. Consume it once; run again after the end, it gives the end again. */
  readonly events: Stream.Stream<Server, SessionError>
  /** The next server event; `None` when the session closed normally. After the end, every call gets the end again. */
  readonly next: Effect.Effect<Server, Option.Option<SessionError>>
  /** Validates a client event with the core and sends it; a closed session fails with `TransportError`. */
  readonly send: (event: Client) => Effect.Effect<void, TransportError | InvalidRequest>
  /** The code the socket closed with (1000, 1001, 1005 for an orderly end), `None` while it is open. */
  readonly closeCode: Effect.Effect<Option.Option<number>>
}

/** How to open one kind of session. @category models */
export interface SessionOptions<Server> {
  readonly family: Family
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** Time limit of the opening handshake (`limits.webSocketHandshakeTimeoutMs`). */
  readonly connectTimeoutMs: number
  /** The largest message and the most messages a second accepted (`limits`); past either the session ends. */
  readonly maxFrameBytes?: number
  readonly maxFramesPerSecond?: number
  /**
   * The most bytes of server messages waiting for a reader that does not keep up
   * (`limits.maxPendingBytes`); past it the session ends. One message is always taken when none waits.
   */
  readonly maxPendingBytes?: number
  /** How much of a refused upgrade's body is read for its error (`limits.maxErrorBodyBytes`; default 64 KiB). */
  readonly maxErrorBodyBytes?: number
  /** Secrets a close reason or a refused upgrade's body may echo; they are redacted before the text reaches an error. */
  readonly secrets?: ReadonlyArray<string>
  readonly decode: (frame: string) => Effect.Effect<Server, DecodeError>
  readonly validate: (event: unknown) => Effect.Effect<unknown, InvalidRequest>
  readonly open: SocketOpener
  /** The call's signal: aborted, it closes the socket (code 1000) and the session fails with `Aborted`. */
  readonly signal?: AbortSignal | undefined
}

/** Server messages held for a consumer that does not keep up; beyond it the session fails rather than grow without bound. @category constants */
export const maxPendingFrames = maxPendingFramesBound

/** A server message waiting for the reader, and its size as counted against `maxPendingBytes`. */
interface Frame {
  readonly data: string
  readonly bytes: number
}

// 1000 normal, 1001 going away, 1005 no status given: an orderly end, not a failure.
const NORMAL_CLOSE = new Set([1000, 1001, 1005])

/**
 * What the socket's handlers and the session's reader share. The queue holds the frames, then the
 * ending: `Done` for an orderly close, else the error. The first ending wins, the frames before it are
 * read first, and every read after it gets it again (a finished queue answers each take with it).
 */
interface SessionState {
  readonly queue: Queue.Queue<Frame, SessionError | Cause.Done>
  /** Frames offered and not yet taken, and their bytes (the queue itself is unbounded; these bound it). */
  pending: number
  pendingBytes: number
  /** The session was ended from our side (a bound was passed, or the call's signal aborted). */
  ended: boolean
  closedWith: number | undefined
}

/** Ends the reading: after the frames already queued, every read gets `ending` (`Done`: the end of the stream). */
const finish = (state: SessionState, ending: SessionError | Cause.Done): void => {
  Queue.failCauseUnsafe(state.queue, Cause.fail(ending))
}

/**
 * Closes the socket without throwing: a socket that refuses the code (a browser takes only 1000 and
 * 3000–4999) or is already closing is closed without one, and the caller's ending still happens.
 */
const closeSocket = (socket: SocketLike, code?: number, reason?: string): void => {
  try {
    socket.close(code, reason)
  } catch {
    try {
      socket.close()
    } catch {
      // Already closing or closed.
    }
  }
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return "(invalid url)"
  }
}

/**
 * Ends the session from our side: the server gets the violation's code, the consumer its error, at
 * once. The socket is closed first: ending the queue may resume the reader, and its scope's release
 * (a 1000 close) at once, before this returns.
 */
const endWith = (
  state: SessionState,
  socket: SocketLike,
  { code, error }: Violation | { readonly code: 1007; readonly error: DecodeError }
): void => {
  if (state.ended) return
  state.ended = true
  closeSocket(
    socket,
    code,
    code === 1009 ? "message too big" : code === 1007 ? "not a valid server event" : "policy violation"
  )
  finish(state, error)
}

/** The handler of the server's messages: queues each one within the bounds, else ends the session. */
const receiveFrames = <Server>(
  options: SessionOptions<Server>,
  state: SessionState,
  socket: SocketLike
): ((data: string, bytes?: number) => void) => {
  const violationOf = frameBounds(options)
  return (data, bytes) => {
    if (state.ended) return
    // Counted in UTF-8 bytes when the socket knows them, else in UTF-16 code units (no pass over the text).
    const size = bytes ?? data.length
    const violation =
      violationOf(data, bytes) ?? backlogPast(options, { frames: state.pending, bytes: state.pendingBytes }, size)
    if (violation !== undefined) return endWith(state, socket, violation)
    state.pending++
    state.pendingBytes += size
    Queue.offerUnsafe(state.queue, { data, bytes: size })
  }
}

/** The error of a close that is not orderly, its reason redacted. */
const closedError = <Server>(options: SessionOptions<Server>, code: number, reason: string): TransportError =>
  new TransportError({
    family: options.family,
    reason: "closed",
    closeCode: code,
    message: `the server closed the session with ${code}${reason ? `: ${redactText(reason, options.secrets ?? [], 200)}` : ""}`
  })

/** The session's end when the server closed the socket: `Done` for an orderly close, else the error. */
const closeEnding = <Server>(
  options: SessionOptions<Server>,
  code: number,
  reason: string
): SessionError | Cause.Done => (NORMAL_CLOSE.has(code) ? Cause.Done() : closedError(options, code, reason))

/**
 * Opens the socket and waits for the handshake, within `connectTimeoutMs`; from then on the socket's
 * messages, close and errors go to `state.queue`. Interrupted while connecting, it drops the socket.
 */
const handshake = <Server>(
  options: SessionOptions<Server>,
  state: SessionState
): Effect.Effect<SocketLike, SessionOpenError> => {
  const origin = hostOf(options.url)
  const { family } = options
  const maxErrorBodyBytes = options.maxErrorBodyBytes ?? defaultMaxErrorBodyBytes
  return Effect.callback<SocketLike, SessionOpenError>((resume) => {
    let opened = false
    let socket: SocketLike
    try {
      socket = options.open(options.url, {
        headers: options.headers,
        maxFrameBytes: options.maxFrameBytes,
        maxErrorBodyBytes
      })
    } catch {
      const message = `cannot open a WebSocket to ${origin}`
      resume(Effect.fail(new TransportError({ family, reason: "protocol", message })))
      return
    }
    socket.on({
      open: () => {
        opened = true
        resume(Effect.succeed(socket))
      },
      message: receiveFrames(options, state, socket),
      close: (code, reason) => {
        state.closedWith = code
        if (!opened) {
          const message = `closed before opening (${code})`
          resume(Effect.fail(new TransportError({ family, reason: "closed", closeCode: code, message })))
        }
        finish(state, closeEnding(options, code, reason))
      },
      refused: (status, answer) => {
        if (opened) return
        const secrets = options.secrets ?? []
        resume(
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.fail(refusedUpgradeError({ family, status, answer, secrets, maxChars: maxErrorBodyBytes, now }))
          )
        )
      },
      error: (cause) => {
        const error = isTooLarge(cause)
          ? tooLarge(family, undefined, options.maxFrameBytes)
          : new TransportError({
              family,
              reason: classifyTransport(cause),
              message: `WebSocket to ${origin} failed${proxyNote(cause)}`
            })
        if (!opened) resume(Effect.fail(error))
        else finish(state, error)
      }
    })
    // Interrupted while connecting: drop the half-open socket.
    return Effect.sync(() => closeSocket(socket))
  }).pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(options.connectTimeoutMs),
      orElse: () =>
        Effect.fail(
          new TimeoutError({
            family,
            phase: "connect",
            timeoutMs: options.connectTimeoutMs,
            message: `no WebSocket connection within ${options.connectTimeoutMs} ms`
          })
        )
    })
  )
}

/**
 * Closes an open session when the call's signal aborts: the consumer gets `Aborted` after the
 * frames already received, the server a normal close. The listener goes when the scope closes.
 */
const closeOnAbort = <Server>(
  options: SessionOptions<Server>,
  state: SessionState,
  socket: SocketLike
): Effect.Effect<void, never, Scope.Scope> => {
  const signal = options.signal
  if (signal === undefined || !isSignal(signal)) return Effect.void
  const abort = () => {
    if (state.ended) return
    state.ended = true
    // Closed first, as in `endWith`.
    closeSocket(socket, 1000, "aborted")
    finish(state, abortedError(options.family))
  }
  return Effect.asVoid(
    Effect.acquireRelease(
      Effect.sync(() => {
        if (signal.aborted) return abort()
        signal.addEventListener("abort", abort, { once: true })
      }),
      () => Effect.sync(() => signal.removeEventListener("abort", abort))
    )
  )
}

/**
 * The next server event from the queue; once the frames before the session's end are read, every
 * read gets the end: `None` after an orderly close, else the same error. A frame that is not a valid
 * server event ends the session there (closed with 1007, the frames after it dropped): its
 * `DecodeError` is that read's and every later one's.
 */
const readNext = <Server>(
  options: SessionOptions<Server>,
  state: SessionState,
  socket: SocketLike
): Effect.Effect<Server, Option.Option<SessionError>> =>
  Effect.flatMap(
    Effect.mapError(Queue.take(state.queue), (ending) => (Cause.isDone(ending) ? Option.none() : Option.some(ending))),
    (frame) => {
      state.pending--
      state.pendingBytes -= frame.bytes
      return Effect.catch(options.decode(frame.data), (error) =>
        Effect.ignore(Queue.clear(state.queue)).pipe(
          Effect.andThen(Effect.sync(() => endWith(state, socket, { code: 1007, error }))),
          Effect.andThen(Effect.fail(Option.some<SessionError>(error)))
        )
      )
    }
  )

/**
 * Connects and returns the session; the socket closes when the scope closes.
 * @category constructors
 */
export const connect = <Server, Client>(
  options: SessionOptions<Server>
): Effect.Effect<WebSocketSession<Server, Client>, SessionOpenError, Scope.Scope> =>
  Effect.gen(function* () {
    // The call's span and metrics name the server the session goes to, as an HTTP call's do.
    yield* Telemetry.annotate(() => Telemetry.serverAttributes(options.url), options.url)
    const queue = yield* Queue.unbounded<Frame, SessionError | Cause.Done>()
    const state: SessionState = { queue, pending: 0, pendingBytes: 0, ended: false, closedWith: undefined }
    // The debug log's lines of the opening and the close, when they are on.
    const lines = DebugLog.socketLines(options.family, options.url, options.secrets ?? [])
    const socket = yield* Effect.acquireRelease(
      // `acquireRelease` runs its acquire uninterruptibly; the handshake must stay interruptible, or
      // neither its time limit nor the caller's interruption could ever stop a server that never answers.
      Effect.interruptible(lines.opening(abortable(handshake(options, state), options.family, options.signal))),
      (socket) =>
        Effect.suspend(() => {
          const closedBefore = socket.isClosed()
          if (!closedBefore) closeSocket(socket, 1000, "done")
          return Effect.andThen(
            Queue.shutdown(queue),
            lines.closed(() => ({
              code: state.closedWith ?? (closedBefore ? undefined : 1000),
              by: closedBefore && !state.ended ? "server" : "umg"
            }))
          )
        })
    )
    yield* closeOnAbort(options, state, socket)

    const next = readNext(options, state, socket)
    // An orderly close (`None`) is the end of the stream.
    const events: Stream.Stream<Server, SessionError> = Stream.fromEffectRepeat(
      Effect.mapError(next, (end) => (Option.isSome(end) ? end.value : Cause.Done()))
    )

    const send = (event: Client) =>
      Effect.flatMap(options.validate(event), (valid) =>
        socket.isOpen()
          ? Effect.sync(() => socket.send(JSON.stringify(valid)))
          : Effect.fail(
              new TransportError({ family: options.family, reason: "closed", message: "the session is closed" })
            )
      )

    const closeCode = Effect.sync(() => Option.fromNullishOr(state.closedWith))

    return { events, next, send, closeCode }
  })

/**
 * Connects and runs `start` on the new session (a first message, the wait for the server's
 * confirmation) in a scope of its own, kept in the caller's scope on success. When the opening or
 * `start` fails or is interrupted, that scope closes at once, and with it the socket: a failed or
 * retried connect never leaves a socket open until the caller's scope ends.
 * @category constructors
 */
export const connectWith = <Server, Client, A, E, R>(
  options: SessionOptions<Server>,
  start: (session: WebSocketSession<Server, Client>) => Effect.Effect<A, E, R>
): Effect.Effect<A, SessionOpenError | E, Scope.Scope | R> =>
  Effect.flatMap(Effect.flatMap(Scope.Scope, Scope.fork), (scope) =>
    Effect.flatMap(connect<Server, Client>(options), start).pipe(
      Scope.provide(scope),
      Effect.onExit((exit) => (Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void))
    )
  )
