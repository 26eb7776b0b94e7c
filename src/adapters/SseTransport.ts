/**
 * Server-sent events over an HTTP body: bytes → the core's SSE parser → one Schema decode per
 * event → the family's pure accumulator, with a first-event and an idle time limit that pings and
 * comments do not satisfy, a typed `IncompleteStream` (with everything received) when the stream is
 * cut or ends before its final event, and the connection released as soon as the final event arrives.
 */
import { Chunk, Duration, Effect, Either, Option, Stream } from "effect"
import type { Accumulator } from "../core/text/Accumulator.js"
import { DecodeError, IncompleteStream, TimeoutError, type Family, type GatewayError } from "../core/errors/GatewayError.js"
import { makeSseParser, type SseEvent } from "../core/wire/Sse.js"

/** What one family's stream needs: decoder, keep-alive test, final-event test and accumulator. @category models */
export interface SseStreamSpec<Event, Snapshot, Final> {
  readonly family: Family
  /** Decodes one SSE record (never throws). */
  readonly decode: (record: SseEvent) => Either.Either<Event, DecodeError>
  /** Keep-alive records (e.g. `event: ping`): dropped, and they do not reset the idle timer. */
  readonly isKeepAlive: (record: SseEvent) => boolean
  /** Records that end the stream but carry no event (e.g. `data: [DONE]`): reading stops, nothing is emitted. */
  readonly isTerminator?: (record: SseEvent) => boolean
  /**
   * The event after which nothing more is read (`snapshot` already includes it); `undefined`: the
   * stream ends when the server ends it.
   */
  readonly isFinal?: (event: Event, snapshot: Snapshot) => boolean
  readonly accumulator: Accumulator<Event, Snapshot, Final>
}

/** The stream's time limits, and the bound on one line or event. @category models */
export interface SseTimeouts {
  /** Until the first event (after the answer's headers). */
  readonly firstEventMs: number
  /** Between two events; keep-alives do not count. */
  readonly idleMs: number
  /** The longest line and the largest pending event (`limits.maxSseEventBytes`); past it, a `DecodeError`. */
  readonly maxEventBytes?: number
}

/**
 * The decoded events of an SSE body. Fails with `IncompleteStream` (`partial`: the accumulated
 * snapshot) when the connection is lost mid-way, the server ends before the final event, or the
 * accumulator rejects an event (an `error` event, events out of order); with `TimeoutError` on a
 * first-event or idle time limit; with `DecodeError` on a malformed event. Stops reading — which
 * aborts the request — right after the final event.
 *
 * Each chunk of bytes is parsed, decoded and accumulated in one synchronous step that emits the
 * chunk's events together. The time limits bound each read by the time left until the deadline the
 * last event set (keep-alives do not move it): measured against a watchdog fiber merged into the
 * stream, this holds less memory per open stream (281 vs 306 KiB at 10,000 streams) and interrupts
 * faster (10 vs 16 s), for the same CPU per event.
 * @category constructors
 */
export const decodeSse = <Event, Snapshot, Final>(
  bytes: Stream.Stream<Uint8Array, GatewayError>,
  spec: SseStreamSpec<Event, Snapshot, Final>,
  timeouts: SseTimeouts
): Stream.Stream<Event, GatewayError> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const clock = yield* Effect.clock
      const pull = yield* Stream.toPull(bytes)
      const acc = spec.accumulator
      const parser = makeSseParser(timeouts.maxEventBytes === undefined ? {} : { maxBufferSize: timeouts.maxEventBytes })
      let snapshot = acc.initial
      let started = false
      // `final`: the final event or a terminator came; `ended`: nothing more is emitted.
      let final = false
      let ended = false
      let failure: GatewayError | undefined
      let lastEventAt: number | undefined
      const startedAt = clock.unsafeCurrentTimeMillis()

      /** Steps the records of one chunk; stops at a failure or at the end of the stream. */
      const step = (records: ReadonlyArray<SseEvent>, out: Array<Event>): void => {
        for (const record of records) {
          if (spec.isKeepAlive(record)) continue
          if (spec.isTerminator?.(record) === true) {
            final = true
            return
          }
          const decoded = spec.decode(record)
          if (Either.isLeft(decoded)) {
            failure = decoded.left
            return
          }
          const next = acc.step(snapshot, decoded.right)
          if (Either.isLeft(next)) {
            failure = next.left
            return
          }
          snapshot = next.right
          out.push(decoded.right)
          lastEventAt = clock.unsafeCurrentTimeMillis()
          if (spec.isFinal?.(decoded.right, snapshot) === true) {
            final = true
            return
          }
        }
      }

      const parse = (f: () => ReadonlyArray<SseEvent>): ReadonlyArray<SseEvent> => {
        try {
          return f()
        } catch (e) {
          failure = new DecodeError({ family: spec.family, what: "event stream", message: (e as Error).message })
          return []
        }
      }

      /**
       * The end: after the last byte, the parser's last record; then the accumulator's verdict
       * (ended early?), unless the family's final event ended the stream.
       */
      const finish = (): Chunk.Chunk<Event> => {
        const out: Array<Event> = []
        if (!final && failure === undefined) step(parse(() => parser.end()), out)
        if (failure === undefined && !(final && spec.isFinal !== undefined)) {
          const verdict = acc.finish(snapshot)
          if (Either.isLeft(verdict)) failure = verdict.left
        }
        ended = true
        return Chunk.unsafeFromArray(out)
      }

      const cut = (error: GatewayError): GatewayError =>
        error._tag === "TransportError" && error.reason === "reset" && started
          ? new IncompleteStream({ family: spec.family, reason: "cut", message: `the stream was cut before its end (${error.message})`, partial: snapshot })
          : error

      const next: Effect.Effect<Chunk.Chunk<Event>, Option.Option<GatewayError>> = Effect.suspend(() => {
        if (failure !== undefined) {
          const error = failure
          failure = undefined
          ended = true
          return Effect.fail(Option.some(error))
        }
        if (ended) return Effect.fail(Option.none())
        // The final event or a terminator came: nothing more is read (the request is released).
        if (final) return Effect.sync(finish)
        const now = clock.unsafeCurrentTimeMillis()
        const first = lastEventAt === undefined
        const ms = first ? timeouts.firstEventMs : timeouts.idleMs
        const left = Math.max(0, (first ? startedAt : lastEventAt!) + ms - now)
        const timedPull = Effect.timeoutFail(pull, {
          duration: Duration.millis(left),
          onTimeout: () => Option.some<GatewayError>(new TimeoutError({ family: spec.family, phase: first ? "first-byte" : "idle", timeoutMs: ms, message: first ? `no event within ${ms} ms` : `no event for ${ms} ms` }))
        })
        return Effect.matchEffect(timedPull, {
          onFailure: (error) =>
            Option.isNone(error) ? Effect.succeed(finish()) : Effect.fail(Option.some(cut(error.value))),
          onSuccess: (chunk) =>
            Effect.sync(() => {
              started = true
              const out: Array<Event> = []
              for (const piece of chunk) {
                step(parse(() => parser.push(piece)), out)
                if (final || failure !== undefined) break
              }
              return Chunk.unsafeFromArray(out)
            })
        })
      })

      return Stream.repeatEffectChunkOption(next)
    })
  )

/**
 * Runs an SSE body to its final value (the accumulator's `finish`), failing as `decodeSse` does.
 * @category constructors
 */
export const foldSse = <Event, Snapshot, Final>(
  bytes: Stream.Stream<Uint8Array, GatewayError>,
  spec: SseStreamSpec<Event, Snapshot, Final>,
  timeouts: SseTimeouts
): Effect.Effect<Final, GatewayError> =>
  Effect.suspend(() => {
    let snapshot = spec.accumulator.initial
    return Stream.runForEach(decodeSse(bytes, spec, timeouts), (event) =>
      Effect.sync(() => {
        snapshot = Either.getOrElse(spec.accumulator.step(snapshot, event), () => snapshot)
      })
    ).pipe(Effect.flatMap(() => spec.accumulator.finish(snapshot)))
  })
