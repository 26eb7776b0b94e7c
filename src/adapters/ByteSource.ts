/**
 * A response body as callbacks: chunks, end and failure pushed to a sink, with pause, resume and
 * close. The SSE decoder reads bodies this way so that a stream costs one consumer and no fiber of
 * its own: umg's Node client hands over its socket's events directly (a body stream marked with its
 * source), and any other `HttpClient`'s body stream is drained into the sink by one fiber.
 */
import { Chunk, Effect, Option, type Scope, Stream } from "effect"
import * as LeanStream from "./LeanStream.js"

/** Where a body's bytes go. Called synchronously, in order; nothing after `end` or `fail`. @category models */
export interface ByteSink<E> {
  readonly chunk: (bytes: Uint8Array) => void
  readonly end: () => void
  readonly fail: (error: E) => void
}

/** A started body: flow control and release. @category models */
export interface ByteFlow {
  readonly pause: () => void
  readonly resume: () => void
  /** Stops reading and releases the connection (kept for reuse only when the body was read whole). */
  readonly close: () => void
  /**
   * Stops reading because the reader has all it wants (an SSE stream's final event): what is left of
   * the body is read and dropped, within a bound, so that the connection is kept for reuse when the
   * body's end follows soon; past the bound it is closed. A later `close` changes nothing. Without
   * it, `close`.
   */
  readonly finish?: () => void
}

/** A body that can be started into a sink; the flow is closed when the scope closes. @category models */
export interface ByteSource<E> {
  readonly start: (sink: ByteSink<E>) => Effect.Effect<ByteFlow, never, Scope.Scope>
  /**
   * Starts it at once, outside any scope, for a source that needs no fiber (umg's Node client): the
   * caller closes the flow. A one-shot read (a JSON answer) spares a scope's making and closing.
   */
  readonly open?: (sink: ByteSink<E>) => ByteFlow
}

const SourceTypeId: unique symbol = Symbol.for("umg/adapters/ByteSource")

/** Marks a body stream with the source it reads from. @category constructors */
export const withSource = <E>(stream: Stream.Stream<Uint8Array, E>, source: ByteSource<E>): Stream.Stream<Uint8Array, E> =>
  Object.assign(stream, { [SourceTypeId]: source })

/** The source a body stream is marked with. @category accessors */
const markedSource = <E>(stream: Stream.Stream<Uint8Array, E>): ByteSource<E> | undefined =>
  (stream as { [SourceTypeId]?: ByteSource<E> })[SourceTypeId]

/** The same source with its failures mapped. @category combinators */
export const mapError = <E, E2>(source: ByteSource<E>, f: (error: E) => E2): ByteSource<E2> => {
  const mapped = (sink: ByteSink<E2>): ByteSink<E> => ({ chunk: sink.chunk, end: sink.end, fail: (error) => sink.fail(f(error)) })
  const open = source.open
  return {
    start: (sink) => source.start(mapped(sink)),
    ...(open !== undefined ? { open: (sink: ByteSink<E2>) => open(mapped(sink)) } : {})
  }
}

/** A source that starts synchronously: `open`, and `start` as `open` with the flow closed with the scope. @category constructors */
export const fromOpen = <E>(open: (sink: ByteSink<E>) => ByteFlow): ByteSource<E> => ({
  open,
  start: (sink) => LeanStream.acquireSync(() => open(sink), (flow) => flow.close())
})

/**
 * Any body stream as a source: one fiber pulls it into the sink, waiting while paused. For streams
 * not marked with a source of their own (another `HttpClient`, a test's fake body).
 * @category constructors
 */
export const fromStream = <E>(stream: Stream.Stream<Uint8Array, E>): ByteSource<E> => ({
  start: (sink) =>
    Effect.gen(function* () {
      let paused = false
      let wake: (() => void) | undefined
      const pull = yield* Stream.toPull(stream)
      const loop: Effect.Effect<void> = Effect.suspend(() => {
        if (paused)
          return Effect.zipRight(
            Effect.async<void>((resume) => {
              wake = () => resume(Effect.void)
              return Effect.sync(() => {
                wake = undefined
              })
            }),
            loop
          )
        return Effect.matchEffect(pull, {
          onFailure: (error) => Effect.sync(() => (Option.isNone(error) ? sink.end() : sink.fail(error.value))),
          onSuccess: (chunk) => {
            for (const bytes of chunk) sink.chunk(bytes)
            return loop
          }
        })
      })
      const fiber = yield* Effect.forkScoped(loop)
      return {
        pause: () => {
          paused = true
        },
        resume: () => {
          paused = false
          const w = wake
          wake = undefined
          w?.()
        },
        close: () => fiber.unsafeInterruptAsFork(fiber.id())
      }
    })
})

/** The source of a body stream: its own when marked, else `fromStream`. @category constructors */
export const of = <E>(stream: Stream.Stream<Uint8Array, E>): ByteSource<E> => markedSource(stream) ?? fromStream(stream)

/**
 * A stream's pull over state that callbacks fill: `take()` says what the consumer gets now (a chunk,
 * `LeanStream.End` or a failure) or `undefined` to wait; `wake()`, called after the state changed,
 * resumes a waiting pull when `take()` gives something. The one hand-over between a source's
 * callbacks and a stream's consumer (`toStream`, and the SSE decoder's events).
 *
 * What `wake()` takes is kept until a pull picks it up, and the waiting pull is resumed with the pull
 * itself: a pull interrupted while it waited (Effect then ignores its resume) picks up nothing, and
 * the next pull gets what was taken. That spares the wait a canceler, which costs every pull an
 * interruptible region of its own (measured ~3.6 µs of ~10 µs per pull).
 * @category constructors
 */
export const handoff = <A, E>(take: () => LeanStream.Pull<A, E> | undefined) => {
  let waiting: ((next: LeanStream.Pull<A, E>) => void) | undefined
  let taken: LeanStream.Pull<A, E> | undefined
  const wait = Effect.async<Chunk.Chunk<A> | LeanStream.End, E>((resume) => {
    waiting = resume
  })
  const pull: LeanStream.Pull<A, E> = Effect.suspend(() => {
    const next = taken
    if (next === undefined) return take() ?? wait
    taken = undefined
    return next
  })
  return {
    /** Whether a pull is waiting. */
    waiting: (): boolean => waiting !== undefined,
    wake: (): void => {
      const resume = waiting
      if (resume === undefined) return
      const next = take()
      if (next === undefined) return
      taken = next
      waiting = undefined
      resume(pull)
    },
    pull
  }
}

/** Bytes buffered for a stream's consumer before the source is paused. */
const HIGH_WATER = 64 * 1024

/**
 * A source as a stream: chunks are buffered while nobody pulls (the source is paused past 64 KiB)
 * and a pull takes every buffered chunk at once, so a consumer slower than the network pays one step
 * per pull, not one per chunk. Ending the stream early closes the source.
 * @category constructors
 */
export const toStream = <E>(source: ByteSource<E>): Stream.Stream<Uint8Array, E> =>
  LeanStream.fromScopedPull(
    Effect.gen(function* () {
      let chunks: Array<Uint8Array> = []
      let buffered = 0
      let done = false
      let failure: Option.Option<E> = Option.none()
      let flow: ByteFlow | undefined
      let paused = false

      const take = (): LeanStream.Pull<Uint8Array, E> | undefined => {
        if (chunks.length > 0) {
          const out = Chunk.unsafeFromArray(chunks)
          chunks = []
          buffered = 0
          if (paused) {
            paused = false
            flow?.resume()
          }
          return Effect.succeed(out)
        }
        if (Option.isSome(failure)) return Effect.fail(failure.value)
        if (done) return LeanStream.ended
        return undefined
      }
      const { pull, wake, waiting } = handoff(take)
      flow = yield* source.start({
        chunk: (bytes) => {
          chunks.push(bytes)
          buffered += bytes.length
          if (waiting()) wake()
          else if (buffered > HIGH_WATER && !paused) {
            paused = true
            flow?.pause()
          }
        },
        end: () => {
          done = true
          wake()
        },
        fail: (error) => {
          failure = Option.some(error)
          wake()
        }
      })
      return pull
    })
  )
