/**
 * A scoped WebSocket session: connects (with a time limit), gives the server's frames as a
 * `Stream` of Schema-decoded events, sends client events only after the core validated them, and
 * closes the socket when the scope ends. A close other than 1000/1001/1005 ends the stream with a
 * typed `TransportError` carrying the close code (its reason redacted); an orderly close ends it and
 * its code is reported by `closeCode`; a refused upgrade is mapped like an HTTP error.
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
  TimeoutError,
  TransportError,
  type DecodeError,
  type Family,
  type SessionError,
  type SessionOpenError
} from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { classifyTransport } from "../http/TransportFailure.js"

/** What a session needs from a socket implementation (Node `ws`, or a browser `WebSocket`). @category models */
export interface SocketLike {
  readonly send: (data: string) => void
  readonly close: (code?: number, reason?: string) => void
  readonly isOpen: () => boolean
  readonly isClosed: () => boolean
  readonly on: (handlers: {
    readonly open: () => void
    readonly message: (data: string) => void
    readonly close: (code: number, reason: string) => void
    /** The upgrade was answered with an HTTP status instead. */
    readonly refused: (status: number) => void
    readonly error: (error: unknown) => void
  }) => void
}

/** Opens a socket. @category models */
export type SocketOpener = (
  url: string,
  options: { readonly headers: Readonly<Record<string, string>>; readonly protocols?: ReadonlyArray<string> }
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
}

type Item =
  | { readonly _tag: "Frame"; readonly data: string }
  | { readonly _tag: "Closed"; readonly code: number; readonly reason: string }
  | { readonly _tag: "Failed"; readonly error: TransportError }

/** Server frames held for a consumer that does not keep up; beyond it the session fails rather than grow without bound. */
export const maxPendingFrames = 10_000

// 1000 normal, 1001 going away, 1005 no status given: an orderly end, not a failure.
const NORMAL_CLOSE = new Set([1000, 1001, 1005])

/**
 * Connects and returns the session; the socket closes when the scope closes.
 * @category constructors
 */
export const connect = <Server, Client>(
  options: SessionOptions<Server>
): Effect.Effect<WebSocketSession<Server, Client>, SessionOpenError, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Item>()
    // Frames offered and not yet taken (the queue itself is unbounded; this count bounds it).
    let pending = 0
    const origin = (() => {
      try {
        return new URL(options.url).host
      } catch {
        return "(invalid url)"
      }
    })()
    const maxFrameBytes = options.maxFrameBytes ?? Infinity
    const maxFramesPerSecond = options.maxFramesPerSecond ?? Infinity
    let windowStart = 0
    let framesInWindow = 0
    let ended = false
    let closedWith: number | undefined
    // Ends the session from our side: the consumer gets `error`, the server gets `code`.
    const endWith = (socket: SocketLike, code: number, error: TransportError) => {
      if (ended) return
      ended = true
      Queue.offerUnsafe(queue, { _tag: "Failed", error })
      socket.close(code, code === 1009 ? "message too big" : "policy violation")
    }
    const socket = yield* Effect.acquireRelease(
      // `acquireRelease` runs its acquire uninterruptibly; the handshake must stay interruptible, or
      // neither its time limit nor the caller's interruption could ever stop a server that never answers.
      Effect.interruptible(
        Effect.callback<SocketLike, SessionOpenError>((resume) => {
          let opened = false
          let socket: SocketLike
          try {
            socket = options.open(options.url, { headers: options.headers })
          } catch {
            resume(
              Effect.fail(
                new TransportError({
                  family: options.family,
                  reason: "protocol",
                  message: `cannot open a WebSocket to ${origin}`
                })
              )
            )
            return
          }
          socket.on({
            open: () => {
              opened = true
              resume(Effect.succeed(socket))
            },
            message: (data) => {
              if (ended) return
              if (data.length > maxFrameBytes) {
                return endWith(
                  socket,
                  1009,
                  new TransportError({
                    family: options.family,
                    reason: "too-large",
                    message: `a server message of ${data.length} bytes is past the bound of ${maxFrameBytes} (limits.maxFrameBytes)`
                  })
                )
              }
              const now = performance.now()
              if (now - windowStart >= 1000) {
                windowStart = now
                framesInWindow = 0
              }
              if (++framesInWindow > maxFramesPerSecond) {
                return endWith(
                  socket,
                  1008,
                  new TransportError({
                    family: options.family,
                    reason: "protocol",
                    message: `the server sent more than ${maxFramesPerSecond} messages in a second (limits.maxFramesPerSecond)`
                  })
                )
              }
              if (pending >= maxPendingFrames) {
                if (pending === maxPendingFrames) {
                  pending++
                  Queue.offerUnsafe(queue, {
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
              pending++
              Queue.offerUnsafe(queue, { _tag: "Frame", data })
            },
            close: (code, reason) => {
              closedWith = code
              if (!opened) {
                resume(
                  Effect.fail(
                    new TransportError({
                      family: options.family,
                      reason: "closed",
                      closeCode: code,
                      message: `closed before opening (${code})`
                    })
                  )
                )
              }
              Queue.offerUnsafe(queue, { _tag: "Closed", code, reason })
            },
            refused: (status) => {
              if (!opened) resume(Effect.fail(toAnswerError({ family: options.family, status })))
            },
            error: (cause) => {
              const reason = classifyTransport(cause)
              const error = new TransportError({
                family: options.family,
                reason,
                message: `WebSocket to ${origin} failed`
              })
              if (!opened) resume(Effect.fail(error))
              else Queue.offerUnsafe(queue, { _tag: "Failed", error })
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
                  family: options.family,
                  phase: "connect",
                  timeoutMs: options.connectTimeoutMs,
                  message: `no WebSocket connection within ${options.connectTimeoutMs} ms`
                })
              )
          })
        )
      ),
      (socket) =>
        Effect.sync(() => {
          if (!socket.isClosed()) socket.close(1000, "done")
        }).pipe(Effect.andThen(Queue.shutdown(queue)))
    )

    const next = Effect.flatMap(Queue.take(queue), (item): Effect.Effect<Server, Option.Option<SessionError>> => {
      switch (item._tag) {
        case "Frame":
          pending--
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

    const closeCode = Effect.sync(() => Option.fromNullishOr(closedWith))

    return { events, next, send, closeCode }
  })
