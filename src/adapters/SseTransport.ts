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
 * Fails with a `TimeoutError` when the first element takes longer than `firstMs`, or a later one
 * longer than `idleMs` after the previous. Each pull is timed, so an upstream that only sends
 * (filtered) keep-alives still times out.
 * @category combinators
 */
export const withEventTimeouts = <A>(
  stream: Stream.Stream<A, GatewayError>,
  family: Family,
  timeouts: SseTimeouts
): Stream.Stream<A, GatewayError> =>
  Stream.unwrapScoped(
    Effect.map(Stream.toPull(stream), (pull) => {
      let first = true
      // An empty chunk (everything filtered) is no progress: keep pulling under the same limit.
      const nonEmpty = Effect.repeat(pull, { until: (chunk) => Chunk.isNonEmpty(chunk) })
      const pullTimed = Effect.suspend(() => {
        const ms = first ? timeouts.firstEventMs : timeouts.idleMs
        const phase = first ? "first-byte" : "idle"
        return Effect.timeoutFail(nonEmpty, {
          duration: Duration.millis(ms),
          onTimeout: () =>
            Option.some<GatewayError>(
              new TimeoutError({
                family,
                phase,
                timeoutMs: ms,
                message: first ? `no event within ${ms} ms` : `no event for ${ms} ms`
              })
            )
        }).pipe(Effect.tap(() => Effect.sync(() => (first = false))))
      })
      return Stream.repeatEffectChunkOption(pullTimed)
    })
  )

/**
 * The raw SSE records of a byte stream (the core parser; a line past its buffer limit is a
 * `DecodeError`).
 * @category constructors
 */
export const sseRecords = (
  bytes: Stream.Stream<Uint8Array, GatewayError>,
  family: Family,
  maxEventBytes?: number
): Stream.Stream<SseEvent, GatewayError> =>
  Stream.suspend(() => {
    const parser = makeSseParser(maxEventBytes === undefined ? {} : { maxBufferSize: maxEventBytes })
    return bytes.pipe(
      Stream.mapEffect((chunk) =>
        Effect.mapError(parser.pushEffect(chunk), (e) => new DecodeError({ family, what: "event stream", message: e.message }))
      ),
      Stream.concat(Stream.sync(() => parser.end())),
      Stream.flattenIterables
    )
  })

/**
 * The decoded events of an SSE body. Fails with `IncompleteStream` (`partial`: the accumulated
 * snapshot) when the connection is lost mid-way, the server ends before the final event, or the
 * accumulator rejects an event (an `error` event, events out of order); with `TimeoutError` on a
 * first-event or idle time limit; with `DecodeError` on a malformed event. Stops reading — which
 * aborts the request — right after the final event.
 * @category constructors
 */
export const decodeSse = <Event, Snapshot, Final>(
  bytes: Stream.Stream<Uint8Array, GatewayError>,
  spec: SseStreamSpec<Event, Snapshot, Final>,
  timeouts: SseTimeouts
): Stream.Stream<Event, GatewayError> =>
  Stream.suspend(() => {
    const acc = spec.accumulator
    let snapshot = acc.initial
    let done = false
    let started = false
    const records = sseRecords(
      Stream.tap(bytes, () => Effect.sync(() => (started = true))),
      spec.family,
      timeouts.maxEventBytes
    ).pipe(Stream.filter((r) => !spec.isKeepAlive(r)))
    const terminated = spec.isTerminator
      ? Stream.takeUntil(records, (r) => {
          const t = spec.isTerminator!(r)
          if (t) done = true
          return t
        }).pipe(Stream.filter((r) => !spec.isTerminator!(r)))
      : records
    const events = withEventTimeouts(terminated, spec.family, timeouts).pipe(
      Stream.mapEffect((record) =>
        Either.match(spec.decode(record), {
          onLeft: (e) => Effect.fail<GatewayError>(e),
          onRight: (event) =>
            Either.match(acc.step(snapshot, event), {
              onLeft: (e) => Effect.fail<GatewayError>(e),
              onRight: (next) => {
                snapshot = next
                return Effect.succeed(event)
              }
            })
        })
      ),
      Stream.takeUntil((event) => {
        const final = spec.isFinal?.(event, snapshot) ?? false
        if (final) done = true
        return final
      })
    )
    const ending = Stream.suspend(() => {
      if (done && spec.isFinal !== undefined) return Stream.empty
      return Either.match(acc.finish(snapshot), {
        onLeft: (e) => Stream.fail<GatewayError>(e),
        onRight: () => Stream.empty
      })
    })
    return Stream.concat(events, ending).pipe(
      Stream.catchAll((error): Stream.Stream<never, GatewayError> => {
        if (error._tag === "TransportError" && error.reason === "reset" && started) {
          return Stream.fail(
            new IncompleteStream({
              family: spec.family,
              reason: "cut",
              message: `the stream was cut before its end (${error.message})`,
              partial: snapshot
            })
          )
        }
        return Stream.fail(error)
      })
    )
  })

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
