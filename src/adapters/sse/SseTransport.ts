/**
 * Server-sent events over an HTTP body, decoded and folded into the family's stream accumulator. The
 * path is bytes → the core's SSE parser → one Schema decode per event → the family's accumulator (one
 * folder for the whole stream, `Accumulator.folderOf`). It has a first-event and an idle time limit
 * that pings and comments do not satisfy, fails with a typed `IncompleteStream` (with everything
 * received) when the stream is cut or ends before its final event, and releases the connection as soon
 * as the final event arrives.
 */
import type { Clock, Stream } from "effect"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as ByteSource from "../http/ByteSource.js"
import { fromScopedOpen, type Opened, type ResultStream } from "./Consume.js"
import * as Deadline from "../internal/Deadline.js"
import * as DebugLog from "../internal/DebugLog.js"
import { defaultLimits } from "../internal/Limits.js"
import { type Accumulator, folderOf } from "../../core/text/Accumulator.js"
import {
  Aborted,
  DecodeError,
  IncompleteStream,
  type TimeoutError,
  TransportError,
  type Family
} from "../../core/errors/GatewayError.js"
import { platformByteText } from "#umg/bytes"
import { createSseParser, type SseCallbackParser, type SseEvent } from "../../core/wire/Sse.js"
import { redactError } from "../../core/errors/Redact.js"

/** What one family's stream needs: decoder, keep-alive test, final-event test and accumulator. @category models */
export interface SseStreamSpec<Event, Snapshot, Final> {
  readonly family: Family
  /** Decodes one SSE record (never throws). */
  readonly decode: (record: SseEvent) => Result.Result<Event, DecodeError>
  /** Keep-alive records (e.g. `event: ping`): dropped, and they do not reset the idle timer. */
  readonly isKeepAlive: (record: SseEvent) => boolean
  /** Records that end the stream but carry no event (e.g. `data: [DONE]`): reading stops, nothing is emitted. */
  readonly isTerminator?: (record: SseEvent) => boolean
  /**
   * The event after which nothing more is read (`snapshot()`, the state so far, already includes it;
   * read it only when the event alone cannot tell); `undefined`: the stream ends when the server ends it.
   */
  readonly isFinal?: (event: Event, snapshot: () => Snapshot) => boolean
  readonly accumulator: Accumulator<Event, Snapshot, Final>
}

/** The stream's time limits, and the bounds on one line or event and on the whole stream. @category models */
export interface SseTimeouts {
  /** Until the first event (after the answer's headers). */
  readonly firstEventMs: number
  /** Between two events; keep-alives do not count. */
  readonly idleMs: number
  /** The longest line and the largest pending event (`limits.maxSseEventBytes`); past it, a `DecodeError`. */
  readonly maxEventBytes?: number
  /**
   * The most event data of the whole stream (`limits.maxStreamBytes`, its default when absent), in
   * UTF-16 code units of every event's `data`, keep-alives too; past it, a `TransportError` (`too-large`).
   */
  readonly maxStreamBytes?: number
}

/**
 * What decoding an SSE body adds to its bytes' own failures `B`: a malformed event, a time limit, a
 * stream that did not complete, a stream past its bound (`TransportError`, `too-large`). (A body's
 * `TransportError` of reason `reset` after the first byte becomes an `IncompleteStream` of reason `cut`.)
 * @category models
 */
export type SseError<B> = B | DecodeError | TimeoutError | IncompleteStream | TransportError

/** Decoded events held for the consumer before the body is paused. */
const MAX_PENDING = 4096
/**
 * Bytes of event data held for the consumer before the body is paused, whatever their number (4,096
 * events of 64 KiB would be 256 MiB). One event is always taken, however large (`maxEventBytes`).
 */
const MAX_PENDING_BYTES = 64 * 1024

/** The decoded events the consumer has not taken yet, and the size of their data. */
class Backlog<A> {
  events: Array<A> = []
  /** In UTF-16 code units of the records' data: bytes, for the ASCII of JSON. */
  private bytes = 0

  push(event: A, data: string): void {
    this.events.push(event)
    this.bytes += data.length
  }

  clear(): void {
    this.events = []
    this.bytes = 0
  }

  /** Past `MAX_PENDING` events or `MAX_PENDING_BYTES` of their data: the body is paused. */
  get full(): boolean {
    return this.events.length >= MAX_PENDING || this.bytes >= MAX_PENDING_BYTES
  }
}

/**
 * The decoded events of an SSE body. Fails with `IncompleteStream` (`partial`: the accumulated
 * snapshot) when the connection is lost mid-way, the server ends before the final event, or the
 * accumulator rejects an event (an `error` event, events out of order); with `TimeoutError` on a
 * first-event or idle time limit; with `DecodeError` on a malformed event; with `TransportError`
 * (`too-large`) once the events' data passes `maxStreamBytes` (the connection is closed; the events
 * decoded before are handed out first); with `Aborted` when the call's signal aborts the body (no
 * event is handed out after it). Stops reading — which releases the connection — right after the
 * final event.
 *
 * The body is read as callbacks (`ByteSource`): each chunk is parsed, decoded and accumulated in one
 * synchronous step as it arrives, and the consumer takes everything decoded since its last pull at
 * once (the body is paused while it lags `MAX_PENDING` events, or `MAX_PENDING_BYTES` of their data,
 * behind). The time limits are one watchdog per stream (`Deadline.watch`) that wakes only when the
 * deadline the last event set has passed (keep-alives do not move it). Measured against a time limit
 * per read (`timeoutFail` raced two fibers on every read) and a reader fiber per stream, this costs a
 * fraction of the CPU per event when tokens arrive one per read and of the memory per open stream.
 * @category constructors
 */
export const decodeSse = <Event, Snapshot, Final, B>(
  bytes: Stream.Stream<Uint8Array, B>,
  spec: SseStreamSpec<Event, Snapshot, Final>,
  timeouts: SseTimeouts
): ResultStream<Event, SseError<B>, Final> => decodeSseOf(Effect.succeed({ bytes, timeouts }), spec)

/** An opened SSE body and the time limits of its events (the call's own, when it set a `timeoutMs`). @category models */
export interface OpenedSse<B> {
  readonly bytes: Stream.Stream<Uint8Array, B>
  readonly timeouts: SseTimeouts
  /** What the stream's failure may not show (an error event that echoes the key): taken out of it. */
  readonly secrets?: ReadonlyArray<string>
}

/**
 * `decodeSse` of the body an effect opens (sending the request, waiting for its headers) when the
 * stream starts: one stream layer for the whole call, where unwrapping the opened body into
 * `decodeSse` would add one more to every pull and to every open stream's memory. `open` runs in the
 * stream's scope (closed when the stream ends), so it may hold scoped resources such as its span.
 * @category constructors
 */
export const decodeSseOf = <Event, Snapshot, Final, B, E, R>(
  open: Effect.Effect<OpenedSse<B>, E, R>,
  spec: SseStreamSpec<Event, Snapshot, Final>
): ResultStream<Event, SseError<B> | E, Final, Exclude<R, Scope.Scope>> =>
  fromScopedOpen(
    Effect.flatMap(open, ({ bytes, timeouts, secrets }) =>
      Effect.clockWith((clock) =>
        // The debug log's line at the stream's end (its events, bytes, time and ending), when it is on.
        DebugLog.watchStream(spec.family, bytes, (body) => setup(body, spec, timeouts, clock, secrets ?? []))
      )
    )
  )

/**
 * Nothing more is read: the connection is released at once. After the final event (`clean`), what is
 * left of the body is dropped as it comes, so the connection is kept for reuse (`ByteFlow.finish`);
 * otherwise it is kept only if the body was read whole.
 */
const releaseFlow = (f: ByteSource.ByteFlow, clean: boolean): void => {
  if (clean && f.finish !== undefined) f.finish()
  else f.close()
}

/** A body's failure as the stream's: a connection reset after the first byte is an `IncompleteStream` (`cut`) with the snapshot so far. */
const cutOf = <B, Snapshot>(error: B, family: Family, started: boolean, snapshot: () => Snapshot): SseError<B> =>
  error instanceof TransportError && error.reason === "reset" && started
    ? new IncompleteStream({
        family,
        reason: "cut",
        message: `the stream was cut before its end (${error.message})`,
        partial: snapshot()
      })
    : error

/** The bound on the whole stream's event data: `limits.maxStreamBytes`, its default when the caller set none. */
const streamBound = (timeouts: SseTimeouts): number => timeouts.maxStreamBytes ?? defaultLimits.maxStreamBytes

/** The stream's event data went past its bound (`streamBound`): nothing more is read or folded. */
const streamTooLarge = (family: Family, timeouts: SseTimeouts): TransportError =>
  new TransportError({
    family,
    reason: "too-large",
    message: `the streamed answer's event data is past its bound of ${streamBound(timeouts)} (limits.maxStreamBytes, in UTF-16 code units)`
  })

/** Feeds one chunk to the parser: a line or pending event past its bound (the parser throws) is a `DecodeError`. */
const feed = (parser: SseCallbackParser, family: Family, piece: Uint8Array): DecodeError | undefined => {
  try {
    parser.feed(piece)
    return undefined
  } catch (e) {
    return new DecodeError({ family, what: "event stream", message: (e as Error).message })
  }
}

/** The final answer from the one fold: read after `End`, when the stream ended without failing. */
const resultOf = <Final, E>(verdict: () => Result.Result<Final, E>): Effect.Effect<Final, E> =>
  Effect.suspend(() => {
    const final = verdict()
    return Result.isSuccess(final) ? Effect.succeed(final.success) : Effect.fail(final.failure)
  })

/** What a stream's opening gives: its pull, its result (as an effect and at once), its first event's time, its close hook. */
const openedOf = <Event, E, Final>(
  pull: ByteSource.ChunkPull<Event, E>,
  resultNow: () => Result.Result<Final, E>,
  firstEventAt: () => number | undefined,
  onClose: (f: (exit: Exit.Exit<unknown, unknown>) => void) => void
): Opened<Event, E, Final> => ({ pull, result: resultOf(resultNow), firstEventAt, resultNow, onClose })

/**
 * What runs once as a stream's scope closes, with its exit (`Opened.onClose`: the call's metrics): set
 * once the stream has opened (`onClose`), run by the stream's finalizer (`closed`).
 */
const closeHook = (): {
  readonly closed: (exit: Exit.Exit<unknown, unknown>) => void
  readonly onClose: (f: (exit: Exit.Exit<unknown, unknown>) => void) => void
} => {
  let hook: ((exit: Exit.Exit<unknown, unknown>) => void) | undefined
  return {
    closed: (exit) => {
      const f = hook
      hook = undefined
      f?.(exit)
    },
    onClose: (f) => void (hook = f)
  }
}

/**
 * Starts the body into the decoder's `sink` and arms its watchdog, in the stream's scope; `attach`
 * gets the body's flow, `closed` the scope's exit as it closes (`Opened.onClose`). Under the live
 * clock, with a source that starts at once (umg's Node client), the body's release, the watchdog's
 * stop and `closed` are one finalizer.
 */
const startBody = <B, A>(
  bytes: Stream.Stream<Uint8Array, B>,
  clock: Clock.Clock,
  sink: ByteSource.ByteSink<B>,
  attach: (flow: ByteSource.ByteFlow) => void,
  msLeft: () => number | undefined,
  expire: () => void,
  closed: (exit: Exit.Exit<unknown, unknown>) => void,
  opened: A
): Effect.Effect<A, never, Scope.Scope> => {
  const source = ByteSource.of(bytes)
  const open = source.open
  if (open !== undefined && Deadline.isLive(clock))
    return Effect.uninterruptible(
      Effect.flatMap(Effect.scope, (scope) =>
        Effect.suspend(() => {
          const body = open(sink)
          // A source may have ended while starting (a body already read); the final event may have come too.
          attach(body)
          const stopWatch = Deadline.watchLive(msLeft, expire)
          return Effect.as(
            Scope.addFinalizerExit(scope, (exit) =>
              Effect.sync(() => {
                stopWatch()
                body.close()
                closed(exit)
              })
            ),
            opened
          )
        })
      )
    )
  // Any other source or clock: the source's start, the watchdog and `closed` hold a finalizer each.
  return Effect.flatMap(source.start(sink), (body) => {
    attach(body)
    return Effect.andThen(
      Effect.addFinalizer((exit) => Effect.sync(() => closed(exit))),
      Effect.as(Deadline.watch(msLeft, expire), opened)
    )
  })
}

/**
 * The decoder's state over an opened body, the body started into it and its watchdog armed, in the
 * stream's own scope: its pull and its result. Under the live clock, with a source that starts at
 * once (umg's Node client), the body's release and the watchdog's stop are one finalizer.
 */
const setup = <Event, Snapshot, Final, B>(
  bytes: Stream.Stream<Uint8Array, B>,
  spec: SseStreamSpec<Event, Snapshot, Final>,
  timeouts: SseTimeouts,
  clock: Clock.Clock,
  secrets: ReadonlyArray<string>
): Effect.Effect<Opened<Event, SseError<B>, Final>, never, Scope.Scope> => {
  const acc = spec.accumulator
  // One folder for the whole stream: the snapshot is only read for the end, a failure or `isFinal`.
  const folder = folderOf(acc)
  let started = false
  // `final`: the final event or a terminator came; `ended`: nothing more will be decoded.
  let final = false
  let ended = false
  let failure: SseError<B> | undefined
  let failed = false
  let lastEventAt: number | undefined
  let firstEventAt: number | undefined // for the call's time-to-first-chunk metric
  let arrived = false
  const startedAt = clock.currentTimeMillisUnsafe()
  const pending = new Backlog<Event>()
  let flow: ByteSource.ByteFlow | undefined
  let paused = false
  // The accumulator's `finish`, once the end has asked for it.
  let verdict: Result.Result<Final, IncompleteStream> | undefined
  // The event data the stream may still bring: every event's, keep-alives too (the fold keeps what it is given).
  let streamLeft = streamBound(timeouts)

  const onRecord = (record: SseEvent): void => {
    if (final || failure !== undefined) return
    streamLeft -= record.data.length
    if (streamLeft < 0) failure = streamTooLarge(spec.family, timeouts)
    if (failure !== undefined || spec.isKeepAlive(record)) return
    if (spec.isTerminator?.(record) === true) {
      final = true
      return
    }
    const decoded = spec.decode(record)
    if (Result.isFailure(decoded)) {
      failure = decoded.failure
      return
    }
    const event = decoded.success
    const misfit = folder.push(event)
    if (misfit !== undefined) {
      failure = misfit
      return
    }
    pending.push(event, record.data)
    // The time of arrival is read once per chunk (in `chunk`), not once per event.
    arrived = true
    if (spec.isFinal?.(event, folder.snapshot) === true) final = true
  }
  const parser = createSseParser(
    { onEvent: onRecord },
    { byteText: platformByteText, maxBufferSize: timeouts.maxEventBytes }
  )

  /** The end of the bytes: the accumulator's verdict (ended early?), unless the final event ended the stream. */
  const finish = (): void => {
    if (failure === undefined && !final) parser.end()
    if (failure === undefined && !(final && spec.isFinal !== undefined)) {
      verdict = acc.finish(folder.snapshot())
      if (Result.isFailure(verdict)) failure = verdict.failure
    }
  }

  const release = (f: ByteSource.ByteFlow): void => releaseFlow(f, final && failure === undefined)
  const stop = (): void => {
    if (ended) return
    ended = true
    if (flow !== undefined) release(flow)
  }

  /** What the consumer gets now: the pending events, else the failure (once), else the end; `undefined`: wait. */
  const take = (): ByteSource.ChunkPull<Event, SseError<B>> | undefined => {
    const out = pending.events
    if (Arr.isArrayNonEmpty(out)) {
      pending.clear()
      if (paused && !ended) {
        paused = false
        flow?.resume()
      }
      return Effect.succeed(out)
    }
    if (failure !== undefined && !failed) {
      failed = true
      return Effect.fail(redactError(failure, secrets))
    }
    if (ended) return ByteSource.ended
    return undefined
  }

  const { pull, wake: notify, waiting } = ByteSource.handoff(take)
  const sink: ByteSource.ByteSink<B> = {
    chunk: (piece) => {
      if (ended) return
      started = true
      const malformed = feed(parser, spec.family, piece)
      if (failure === undefined) failure = malformed
      if (arrived) {
        arrived = false
        lastEventAt = clock.currentTimeMillisUnsafe()
        firstEventAt ??= lastEventAt
      }
      if (final || failure !== undefined) {
        if (failure === undefined) finish()
        stop()
      } else if (!paused && !waiting() && pending.full) {
        // A waiting pull takes the events at once (`notify`): the body is paused for a consumer that lags.
        paused = true
        flow?.pause()
      }
      notify()
    },
    end: () => {
      if (ended) return
      finish()
      stop()
      notify()
    },
    fail: (error) => {
      if (ended) return
      // The call's signal aborted: nothing more reaches the consumer, not even what it has not taken yet.
      if (error instanceof Aborted) {
        failure = error
        pending.clear()
      } else if (failure === undefined) failure = cutOf(error, spec.family, started, folder.snapshot)
      stop()
      notify()
    }
  }
  // The time limits of every stream (`Deadline.streamMsLeft`), on events.
  const limits: Deadline.StreamLimits = { firstMs: timeouts.firstEventMs, idleMs: timeouts.idleMs }
  const msLeft = (): number | undefined =>
    ended ? undefined : Deadline.streamMsLeft(limits, startedAt, lastEventAt, clock.currentTimeMillisUnsafe())
  const expire = (): void => {
    failure = Deadline.streamExpired(spec.family, lastEventAt === undefined, limits, "event")
    stop()
    notify()
  }
  const { closed, onClose } = closeHook()
  const resultNow = (): Result.Result<Final, IncompleteStream> => verdict ?? acc.finish(folder.snapshot())
  const opened = openedOf(pull, resultNow, () => firstEventAt, onClose)
  const attach = (body: ByteSource.ByteFlow): void => {
    flow = body
    if (ended) release(body)
  }
  return startBody(bytes, clock, sink, attach, msLeft, expire, closed, opened)
}
