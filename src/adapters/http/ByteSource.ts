/**
 * A response body as callbacks: chunks, end and failure pushed to a sink, with pause, resume and
 * close. The SSE decoder reads bodies this way so that a stream costs one consumer and no fiber of
 * its own: umg's Node client hands over its socket's events directly (a body stream marked with its
 * source), and any other `HttpClient`'s body stream is drained into the sink by one fiber.
 */
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

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

/** One pull of a stream: the next non-empty chunk, `Cause.Done` at the end, or the stream's failure. @category models */
export type ChunkPull<A, E> = Pull.Pull<Arr.NonEmptyReadonlyArray<A>, E>

const SourceTypeId: unique symbol = Symbol.for("umg/adapters/ByteSource")

/** Marks a body stream with the source it reads from. @category constructors */
export const withSource = <E>(
  stream: Stream.Stream<Uint8Array, E>,
  source: ByteSource<E>
): Stream.Stream<Uint8Array, E> => Object.assign(stream, { [SourceTypeId]: source })

/** The source a body stream is marked with. */
const markedSource = <E>(stream: Stream.Stream<Uint8Array, E>): ByteSource<E> | undefined =>
  (stream as { [SourceTypeId]?: ByteSource<E> })[SourceTypeId]

/** The same source with its failures mapped. @category combinators */
export const mapError = <E, E2>(source: ByteSource<E>, f: (error: E) => E2): ByteSource<E2> => {
  const mapped = (sink: ByteSink<E2>): ByteSink<E> => ({
    chunk: sink.chunk,
    end: sink.end,
    fail: (error) => sink.fail(f(error))
  })
  const open = source.open
  return {
    start: (sink) => source.start(mapped(sink)),
    ...(open !== undefined ? { open: (sink: ByteSink<E2>) => open(mapped(sink)) } : {})
  }
}

/**
 * The same source, failing with `onAbort()` — its flow closed, which closes the connection — when
 * `signal` aborts (at once if it already has when the source starts). The listener is removed when
 * the body ends, fails or is closed, and, once started, when its scope closes.
 * @category combinators
 */
export const abortable = <E, E2>(source: ByteSource<E>, signal: AbortSignal, onAbort: () => E2): ByteSource<E | E2> => {
  const guard = (sink: ByteSink<E | E2>) => {
    let over = false
    let flow: ByteFlow | undefined
    const abort = (): void => {
      if (over) return
      over = true
      flow?.close()
      sink.fail(onAbort())
    }
    const stop = (): void => signal.removeEventListener("abort", abort)
    const settle = (): boolean => {
      if (over) return false
      over = true
      stop()
      return true
    }
    const inner: ByteSink<E> = {
      chunk: (bytes) => {
        if (!over) sink.chunk(bytes)
      },
      end: () => {
        if (settle()) sink.end()
      },
      fail: (error) => {
        if (settle()) sink.fail(error)
      }
    }
    const attach = (started: ByteFlow): ByteFlow => {
      flow = started
      if (signal.aborted) abort()
      else if (!over) signal.addEventListener("abort", abort, { once: true })
      const finish = started.finish
      return {
        pause: started.pause,
        resume: started.resume,
        close: () => {
          stop()
          started.close()
        },
        ...(finish !== undefined
          ? {
              finish: () => {
                stop()
                finish()
              }
            }
          : {})
      }
    }
    // When the scope closes, the source's own finalizer closes its flow, not the one `attach` returns.
    const release = (): void => {
      over = true
      stop()
    }
    return { inner, attach, release }
  }
  const open = source.open
  return {
    start: (sink) => {
      const { inner, attach, release } = guard(sink)
      return Effect.andThen(
        Effect.addFinalizer(() => Effect.sync(release)),
        Effect.map(source.start(inner), attach)
      )
    },
    ...(open !== undefined
      ? {
          open: (sink: ByteSink<E | E2>) => {
            const { inner, attach } = guard(sink)
            return attach(open(inner))
          }
        }
      : {})
  }
}

/**
 * A resource acquired synchronously and released synchronously when the scope closes; nothing can
 * interrupt between the two.
 * @category constructors
 */
export const acquireSync = <A>(acquire: () => A, release: (a: A) => void): Effect.Effect<A, never, Scope.Scope> =>
  // `acquireRelease` without its context capture and mask: the acquire is synchronous, its release
  // needs nothing from the context. Uninterruptible: a fiber yielding between the acquire and the
  // finalizer's adding must not be interrupted there.
  Effect.uninterruptible(
    Effect.flatMap(Effect.scope, (scope) =>
      Effect.suspend(() => {
        const a = acquire()
        return Effect.as(
          Scope.addFinalizer(
            scope,
            Effect.sync(() => release(a))
          ),
          a
        )
      })
    )
  )

/** A source that starts synchronously: `open`, and `start` as `open` with the flow closed with the scope. @category constructors */
export const fromOpen = <E>(open: (sink: ByteSink<E>) => ByteFlow): ByteSource<E> => ({
  open,
  start: (sink) =>
    acquireSync(
      () => open(sink),
      (flow) => flow.close()
    )
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
          return Effect.andThen(
            Effect.callback<void>((resume) => {
              wake = () => resume(Effect.void)
              return Effect.sync(() => {
                wake = undefined
              })
            }),
            loop
          )
        return Pull.matchEffect(pull, {
          onSuccess: (chunk) => {
            for (const bytes of chunk) sink.chunk(bytes)
            return loop
          },
          onFailure: (cause) => {
            const failure = Cause.findErrorOption(cause)
            // A defect or an interruption is the pulling fiber's own end, not the body's failure.
            return Option.isSome(failure) ? Effect.sync(() => sink.fail(failure.value)) : Effect.void
          },
          onDone: () => Effect.sync(() => sink.end())
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
        close: () => void fiber.interruptUnsafe()
      }
    })
})

/** The source of a body stream: its own when marked, else `fromStream`. @category constructors */
export const of = <E>(stream: Stream.Stream<Uint8Array, E>): ByteSource<E> => markedSource(stream) ?? fromStream(stream)

/**
 * Where a response keeps the source of its body (umg's Node client's responses): read through it, a
 * body's `stream` — a stream made for every call, never run when the body is read as callbacks — is
 * not made at all.
 * @category symbols
 */
export const BodySourceTypeId: unique symbol = Symbol.for("umg/adapters/ByteSource/BodySource")

/** A response whose body has a source of its own. @category models */
export interface HasBodySource<E> {
  readonly [BodySourceTypeId]: ByteSource<E>
}

/**
 * The source of a response's body: its own when it has one, else its body stream's (`of`).
 * @category constructors
 */
export const ofBody = <E>(response: { readonly stream: Stream.Stream<Uint8Array, E> }): ByteSource<E> =>
  (response as Partial<HasBodySource<E>>)[BodySourceTypeId] ?? of(response.stream)

/**
 * The stream of what `pull` gives, `pull` being made by `setup` when the stream is first pulled, in a
 * scope of its own that closes (with the stream's exit) when the stream ends, fails or is
 * interrupted — during `setup` too. `pull` gives a chunk, or `Cause.Done` to end.
 * @category constructors
 */
export const fromScopedPull = <A, E, E2, R>(
  setup: Effect.Effect<ChunkPull<A, E>, E2, R>
): Stream.Stream<A, E | E2, Exclude<R, Scope.Scope>> =>
  // `Channel.fromTransformBracket` without its generator: the stream's own scope, forked from the
  // run's, closed by the setup's or a pull's failure (the end included), or with the run's scope.
  Stream.fromChannel(
    Channel.fromTransform((_upstream, scope) => {
      const own = Scope.forkUnsafe(scope)
      const onCause = (cause: Cause.Cause<unknown>) => Scope.close(own, Pull.doneExitFromCause(cause))
      return Effect.onError(
        Effect.map(Scope.provide(setup, own), (pull) => Effect.onError(pull, onCause)),
        onCause
      )
    })
  )

/** A pull that ends the stream. @category constants */
export const ended: Effect.Effect<never, Cause.Done> = Cause.done()

/**
 * A stream's pull over state that callbacks fill: `take()` says what the consumer gets now (a chunk,
 * `ended` or a failure) or `undefined` to wait; `wake()`, called after the state changed, resumes a
 * waiting pull when `take()` gives something. The one hand-over between a source's callbacks and a
 * stream's consumer (`toStream`, and the SSE decoder's events).
 *
 * What `wake()` takes is kept until a pull picks it up, and the waiting pull is resumed with the pull
 * itself: a pull interrupted while it waited (Effect then ignores its resume) picks up nothing, and
 * the next pull gets what was taken.
 * @category constructors
 */
export const handoff = <A, E>(take: () => ChunkPull<A, E> | undefined) => {
  let waiting: ((next: ChunkPull<A, E>) => void) | undefined
  let taken: ChunkPull<A, E> | undefined
  const wait: ChunkPull<A, E> = Effect.callback<Arr.NonEmptyReadonlyArray<A>, E | Cause.Done>((resume) => {
    waiting = resume
    return Effect.sync(() => {
      if (waiting === resume) waiting = undefined
    })
  })
  const pull: ChunkPull<A, E> = Effect.suspend(() => {
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
  fromScopedPull(
    Effect.gen(function* () {
      let chunks: Array<Uint8Array> = []
      let buffered = 0
      let done = false
      let failure: Option.Option<E> = Option.none()
      let flow: ByteFlow | undefined
      let paused = false
      const isPaused = (): boolean => paused

      const take = (): ChunkPull<Uint8Array, E> | undefined => {
        const out = chunks
        if (Arr.isArrayNonEmpty(out)) {
          chunks = []
          buffered = 0
          if (paused) {
            paused = false
            flow?.resume()
          }
          return Effect.succeed(out)
        }
        if (Option.isSome(failure)) return Effect.fail(failure.value)
        if (done) return ended
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
      // Chunks past the mark that came while the source was starting asked for a pause before the
      // flow existed: it is made now (read through a call: the callbacks above may have set it).
      if (isPaused()) flow.pause()
      return pull
    })
  )
