/**
 * A scoped WebSocket session. It connects (with a time limit), gives the server's frames as a
 * `Stream` of Schema-decoded events, sends client events only after the core validated them, and
 * closes the socket when the scope ends. A close other than 1000/1001/1005 ends the stream with a
 * typed `TransportError` carrying the close code (its reason redacted); an orderly close ends it and
 * its code is reported by `closeCode`; a refused upgrade is mapped like an HTTP error. The call's
 * signal closes the socket: the opening or the events then fail with `Aborted`.
 */
import type { Scope } from "effect"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { redactText } from "../../core/errors/Redact.js"
import { toAnswerError } from "../../core/wire/ErrorEnvelope.js"
import {
  type Aborted,
  TimeoutError,
  TransportError,
  type DecodeError,
  type Family,
  type SessionError,
  type SessionOpenError
} from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { classifyTransport } from "../http/TransportFailure.js"
import { abortable, abortedError, isSignal } from "../CallOptions.js"

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
    /** The upgrade was answered with an HTTP status instead. */
    readonly refused: (status: number) => void
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
  }
) => SocketLike

/** An open session. @category models */
export interface WebSocketSession<Server, Client> {
  /** The server's events, decoded, in order. Consume it once. */
  readonly events: Stream.Stream<Server, SessionError>
  /** The next server event; `None` when the session closed normally. */
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
  /** Secrets a close reason may echo; they are redacted before the reason reaches an error. */
  readonly secrets?: ReadonlyArray<string>
  readonly decode: (frame: string) => Effect.Effect<Server, DecodeError>
  readonly validate: (event: unknown) => Effect.Effect<unknown, InvalidRequest>
  readonly open: SocketOpener
  /** The call's signal: aborted, it closes the socket (code 1000) and the session fails with `Aborted`. */
  readonly signal?: AbortSignal | undefined
}

type Item =
  | { readonly _tag: "Frame"; readonly data: string }
  | { readonly _tag: "Closed"; readonly code: number; readonly reason: string }
  | { readonly _tag: "Failed"; readonly error: TransportError | Aborted }

/** Server frames held for a consumer that does not keep up; beyond it the session fails rather than grow without bound. */
export const maxPendingFrames = 10_000

// 1000 normal, 1001 going away, 1005 no status given: an orderly end, not a failure.
const NORMAL_CLOSE = new Set([1000, 1001, 1005])

/** What the socket's handlers and the session's reader share. */
interface SessionState {
  readonly queue: Queue.Queue<Item>
  /** Frames offered and not yet taken (the queue itself is unbounded; this count bounds it). */
  pending: number
  /** The session was ended from our side (a bound was passed). */
  ended: boolean
  closedWith: number | undefined
}

/** A close code and the error a session ends with when the server passes a bound. */
interface Violation {
  readonly code: number
  readonly error: TransportError
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return "(invalid url)"
  }
}

/** A server message past `limits.maxFrameBytes`, of `bytes` when its size is known. */
const tooLarge = (family: Family, bytes: number | undefined, max: number | undefined): TransportError =>
  new TransportError({
    family,
    reason: "too-large",
    message: `a server message${bytes === undefined ? "" : ` of ${bytes} bytes`} is past the bound of ${max ?? "?"} bytes (limits.maxFrameBytes)`
  })

/** Node's `ws` refused a message past `maxPayload` before reading it whole (and closed the socket with 1009). */
const isTooLarge = (cause: unknown): boolean =>
  typeof cause === "object" &&
  cause !== null &&
  (cause as { code?: unknown }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"

/**
 * The UTF-8 size of `data` when it may be past `max`, else `undefined` (no need to count): a UTF-16
 * code unit is 1 to 3 bytes, so only text between max / 3 and max code units is counted.
 */
const bytesPast = (data: string, max: number): number | undefined => {
  if (data.length > max) return data.length
  if (data.length * 3 <= max) return undefined
  let bytes = 0
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i)
    // A surrogate pair (4 bytes) is two code units of 2 bytes each here.
    bytes += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3
  }
  return bytes > max ? bytes : undefined
}

/**
 * The check run on each server message: the violation when it is larger than `maxFrameBytes` (in
 * UTF-8 bytes: the socket's count, or the text's) or the one past `maxFramesPerSecond` in a
 * one-second window, else `undefined`.
 */
const frameBounds = <Server>(
  options: SessionOptions<Server>
): ((data: string, bytes: number | undefined) => Violation | undefined) => {
  const maxFrameBytes = options.maxFrameBytes ?? Infinity
  const maxFramesPerSecond = options.maxFramesPerSecond ?? Infinity
  let windowStart = 0
  let framesInWindow = 0
  return (data, bytes) => {
    const past = bytes === undefined ? bytesPast(data, maxFrameBytes) : bytes > maxFrameBytes ? bytes : undefined
    if (past !== undefined) return { code: 1009, error: tooLarge(options.family, past, maxFrameBytes) }
    const now = performance.now()
    if (now - windowStart >= 1000) {
      windowStart = now
      framesInWindow = 0
    }
    if (++framesInWindow > maxFramesPerSecond) {
      const message = `the server sent more than ${maxFramesPerSecond} messages in a second (limits.maxFramesPerSecond)`
      return { code: 1008, error: new TransportError({ family: options.family, reason: "protocol", message }) }
    }
    return undefined
  }
}

/** Ends the session from our side: the consumer gets the violation's error, the server its code. */
const endWith = (state: SessionState, socket: SocketLike, { code, error }: Violation): void => {
  if (state.ended) return
  state.ended = true
  Queue.offerUnsafe(state.queue, { _tag: "Failed", error })
  socket.close(code, code === 1009 ? "message too big" : "policy violation")
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
    const violation = violationOf(data, bytes)
    if (violation !== undefined) return endWith(state, socket, violation)
    if (state.pending >= maxPendingFrames) {
      if (state.pending === maxPendingFrames) {
        state.pending++
        Queue.offerUnsafe(state.queue, {
          _tag: "Failed",
          error: new TransportError({
            family: options.family,
            reason: "protocol",
            message: `more than ${maxPendingFrames} events waiting: the consumer does not keep up`
          })
        })
        socket.close(1008, "client buffer full")
      }
      return
    }
    state.pending++
    Queue.offerUnsafe(state.queue, { _tag: "Frame", data })
  }
}

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
  return Effect.callback<SocketLike, SessionOpenError>((resume) => {
    let opened = false
    let socket: SocketLike
    try {
      socket = options.open(options.url, { headers: options.headers, maxFrameBytes: options.maxFrameBytes })
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
        Queue.offerUnsafe(state.queue, { _tag: "Closed", code, reason })
      },
      refused: (status) => {
        if (!opened) resume(Effect.fail(toAnswerError({ family, status })))
      },
      error: (cause) => {
        const error = isTooLarge(cause)
          ? tooLarge(family, undefined, options.maxFrameBytes)
          : new TransportError({ family, reason: classifyTransport(cause), message: `WebSocket to ${origin} failed` })
        if (!opened) resume(Effect.fail(error))
        else Queue.offerUnsafe(state.queue, { _tag: "Failed", error })
      }
    })
    // Interrupted while connecting: drop the half-open socket.
    return Effect.sync(() => socket.close())
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
    Queue.offerUnsafe(state.queue, { _tag: "Failed", error: abortedError(options.family) })
    socket.close(1000, "aborted")
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

/** The next server event from the queue; `None` once the server closed the session in order. */
const readNext = <Server>(
  options: SessionOptions<Server>,
  state: SessionState
): Effect.Effect<Server, Option.Option<SessionError>> =>
  Effect.flatMap(Queue.take(state.queue), (item): Effect.Effect<Server, Option.Option<SessionError>> => {
    switch (item._tag) {
      case "Frame":
        state.pending--
        return Effect.mapError(options.decode(item.data), Option.some)
      case "Failed":
        return Effect.fail(Option.some(item.error))
      case "Closed":
        return NORMAL_CLOSE.has(item.code)
          ? Effect.fail(Option.none())
          : Effect.fail(
              Option.some(
                new TransportError({
                  family: options.family,
                  reason: "closed",
                  closeCode: item.code,
                  message: `the server closed the session with ${item.code}${item.reason ? `: ${redactText(item.reason, options.secrets ?? [], 200)}` : ""}`
                })
              )
            )
    }
  })

/**
 * Connects and returns the session; the socket closes when the scope closes.
 * @category constructors
 */
export const connect = <Server, Client>(
  options: SessionOptions<Server>
): Effect.Effect<WebSocketSession<Server, Client>, SessionOpenError, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Item>()
    const state: SessionState = { queue, pending: 0, ended: false, closedWith: undefined }
    const socket = yield* Effect.acquireRelease(
      // `acquireRelease` runs its acquire uninterruptibly; the handshake must stay interruptible, or
      // neither its time limit nor the caller's interruption could ever stop a server that never answers.
      Effect.interruptible(abortable(handshake(options, state), options.family, options.signal)),
      (socket) =>
        Effect.sync(() => {
          if (!socket.isClosed()) socket.close(1000, "done")
        }).pipe(Effect.andThen(Queue.shutdown(queue)))
    )
    yield* closeOnAbort(options, state, socket)

    const next = readNext(options, state)
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
