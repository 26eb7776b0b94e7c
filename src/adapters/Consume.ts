/**
 * Running a stream to its end with a step per element or per chunk: what `Stream.runForEach` and
 * `Stream.runForEachChunk` mean, for a fraction of their cost. Effect 3 runs those through a sink:
 * it forks a fiber per run, pipes every chunk through three channel layers (`pipeToOrFail`'s reader
 * and writer around the sink) and copies each chunk into an array. In memory
 * (`bench/effect-stream.bench.ts`), starting and ending a stream that way cost ~3× what a
 * `Stream.toPull` loop costs, and a pull ~1.7×. These pull the stream in the caller's own fiber
 * instead: a stream of umg's (`LeanStream.fromScopedOpen`, what every streaming call gives) without
 * its channel at all (`LeanStream.forEachPulled`), any other through `Stream.toPull`. umg/rx and the
 * CLI consume streams with them; users may too (`import { runForEach } from "umg"`). `runToFinal`
 * also gives a streaming call's final answer, from the one fold the transport made of its events.
 *
 * Same meaning as Effect's: the elements in order, one step at a time; a failure of the stream or of
 * a step fails the run (with that error) and ends the stream; interrupting the run interrupts the
 * pull and ends the stream; either way the stream's finalizers have run when the run ends.
 */
import { Chunk, Effect, Option, Stream } from "effect"
import { dual } from "effect/Function"
import * as LeanStream from "./LeanStream.js"

/**
 * Runs `f` on each chunk of `stream`, in order, until the stream ends: `Stream.runForEachChunk`
 * without the sink.
 * @category destructors
 */
export const runForEachChunk: {
  <A, E2, R2>(f: (chunk: Chunk.Chunk<A>) => Effect.Effect<unknown, E2, R2>): <E, R>(stream: Stream.Stream<A, E, R>) => Effect.Effect<void, E | E2, R | R2>
  <A, E, R, E2, R2>(stream: Stream.Stream<A, E, R>, f: (chunk: Chunk.Chunk<A>) => Effect.Effect<unknown, E2, R2>): Effect.Effect<void, E | E2, R | R2>
} = dual(
  2,
  <A, E, R, E2, R2>(
    stream: Stream.Stream<A, E, R>,
    f: (chunk: Chunk.Chunk<A>) => Effect.Effect<unknown, E2, R2>
  ): Effect.Effect<void, E | E2, R | R2> =>
    LeanStream.forEachPulled(stream, f) ??
    LeanStream.withOwnScope(Stream.toPull(stream), (pull) => {
      const loop: Effect.Effect<void, E | E2, R | R2> = Effect.matchEffect(pull, {
        onFailure: (error) => (Option.isNone(error) ? Effect.void : Effect.fail(error.value)),
        onSuccess: (chunk) => Effect.flatMap(f(chunk), () => loop)
      })
      return loop
    })
)

/**
 * Runs `f` on each element of `stream`, in order, one after another, until the stream ends:
 * `Stream.runForEach` without the sink. Data-first or, in a pipe, data-last.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Gateway, runForEach } from "umg"
 *
 * const program = Effect.flatMap(Gateway, (gateway) =>
 *   runForEach(gateway.messages.stream({ model: "epsilon-sonnet-4-5", max_tokens: 256, messages: [{ role: "user", content: "Hi" }] }), (event) =>
 *     Effect.sync(() => console.log(event.type))
 *   )
 * )
 * ```
 * @category destructors
 */
export const runForEach: {
  <A, E2, R2>(f: (a: A) => Effect.Effect<unknown, E2, R2>): <E, R>(stream: Stream.Stream<A, E, R>) => Effect.Effect<void, E | E2, R | R2>
  <A, E, R, E2, R2>(stream: Stream.Stream<A, E, R>, f: (a: A) => Effect.Effect<unknown, E2, R2>): Effect.Effect<void, E | E2, R | R2>
} = dual(
  2,
  <A, E, R, E2, R2>(stream: Stream.Stream<A, E, R>, f: (a: A) => Effect.Effect<unknown, E2, R2>): Effect.Effect<void, E | E2, R | R2> =>
    runForEachChunk(stream, eachOf(f))
)

/** `f` on each element of a chunk, one after another. */
const eachOf =
  <A, E2, R2>(f: (a: A) => Effect.Effect<unknown, E2, R2>) =>
  (chunk: Chunk.Chunk<A>): Effect.Effect<unknown, E2, R2> => {
    // An array-backed chunk (what umg's streams give) is read in place; any other is made one once.
    const items = Chunk.toReadonlyArray(chunk)
    if (items.length === 1) return f(items[0]!)
    let i = 0
    const next = (): Effect.Effect<unknown, E2, R2> => (i < items.length ? Effect.flatMap(f(items[i++]!), next) : Effect.void)
    return next()
  }

/**
 * Runs `f` on each event of a streaming call, in order, as `runForEach` does, and then gives the
 * call's final answer — the `Message`, `ChatCompletion`, `GenerateContentResponse` or
 * `ResponsesResponse` — folded once, by the transport, as the events went by: no second fold of the
 * same events. The stream must be the call's own (`gateway.messages.stream(…)` and its siblings);
 * a transformed stream has no final answer, and the types say so. Its failures are the stream's
 * (an `IncompleteStream` carries the partial answer) and the step's.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Gateway, runToFinal, tokenText } from "umg"
 *
 * const program = Effect.flatMap(Gateway, (gateway) =>
 *   runToFinal(gateway.messages.stream({ model: "epsilon-sonnet-4-5", max_tokens: 256, messages: [{ role: "user", content: "Hi" }] }), (event) =>
 *     Effect.sync(() => tokenText(event).forEach((text) => process.stdout.write(text)))
 *   )
 * ) // Effect<Message, StreamError | InvalidRequest, Gateway>
 * ```
 * @category destructors
 */
export const runToFinal: {
  <A, E2, R2>(f: (a: A) => Effect.Effect<unknown, E2, R2>): <E, Z, R>(stream: LeanStream.ResultStream<A, E, Z, R>) => Effect.Effect<Z, E | E2, R | R2>
  <A, E, Z, R, E2, R2>(stream: LeanStream.ResultStream<A, E, Z, R>, f: (a: A) => Effect.Effect<unknown, E2, R2>): Effect.Effect<Z, E | E2, R | R2>
} = dual(
  2,
  <A, E, Z, R, E2, R2>(stream: LeanStream.ResultStream<A, E, Z, R>, f: (a: A) => Effect.Effect<unknown, E2, R2>): Effect.Effect<Z, E | E2, R | R2> =>
    LeanStream.runToResult(stream, eachOf(f))
)
