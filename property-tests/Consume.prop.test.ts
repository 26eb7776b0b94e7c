// umg's stream consumers against Effect's own (the oracle): for any chunks, a stream failing or not
// after them, and a step failing or not at some element, `runForEach` and `runForEachChunk` see the
// same elements (or chunks) in the same order and end with the same exit as `Stream.runForEach` and
// `Stream.runForEachChunk`, and the stream's finalizer has run once with the same kind of exit — for
// any stream (pulled through `Stream.toPull`) and for umg's own (`fromScopedPull`, run without its
// channel by `forEachPulled`).
import { Chunk, Effect, Exit, Stream } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { runForEach, runForEachChunk } from "../src/adapters/Consume.js"
import { ended, fromScopedPull, type Pull } from "../src/adapters/LeanStream.js"

const scenario = fc.record({
  chunks: fc.array(fc.array(fc.integer({ min: 0, max: 99 }), { maxLength: 5 }), { maxLength: 6 }),
  streamFails: fc.boolean(),
  // Made by umg's `fromScopedPull` (its chunks pulled one by one), or by Effect's `Stream.fromChunks`.
  lean: fc.boolean(),
  // The step fails at the first element (or chunk) whose value is this, if any.
  stepFailsAt: fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined })
})
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never

/** Runs one consumer over the scenario's stream: what it saw, how it ended, how the stream ended. */
const observe = async <I>(
  s: Scenario,
  consume: (stream: Stream.Stream<number, string>, step: (item: I) => Effect.Effect<void, string>) => Effect.Effect<void, string>,
  key: (item: I) => unknown,
  fails: (item: I) => boolean
) => {
  const ends: Array<string> = []
  const end = (exit: Exit.Exit<unknown, unknown>) => Effect.sync(() => ends.push(Exit.isSuccess(exit) ? "success" : Exit.isInterrupted(exit) ? "interrupted" : "failure"))
  const stream: Stream.Stream<number, string> = s.lean
    ? fromScopedPull<number, string, never, never>(
        Effect.gen(function* () {
          yield* Effect.addFinalizer(end)
          let at = 0
          return Effect.suspend((): Pull<number, string> => {
            if (at < s.chunks.length) return Effect.succeed(Chunk.fromIterable(s.chunks[at++]!))
            return s.streamFails ? Effect.fail("stream failed") : ended
          })
        })
      )
    : Stream.fromChunks(...s.chunks.map((c) => Chunk.fromIterable(c))).pipe(
        Stream.concat(s.streamFails ? Stream.fail("stream failed") : Stream.empty),
        Stream.ensuringWith((exit: Exit.Exit<unknown, string>) => end(exit))
      )
  const seen: Array<unknown> = []
  const exit = await Effect.runPromiseExit(
    consume(stream, (item) => Effect.suspend(() => (seen.push(key(item)), fails(item) ? Effect.fail("step failed") : Effect.void)))
  )
  return { seen, exit: Exit.isSuccess(exit) ? "success" : Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : "other", ends }
}

describe("umg's consumers mean what Effect's mean", () => {
  it("runForEach agrees with Stream.runForEach", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const fails = (n: number) => n === s.stepFailsAt
        const ours = await observe<number>(s, (stream, step) => runForEach(stream, step), (n) => n, fails)
        const effects = await observe<number>(s, (stream, step) => Stream.runForEach(stream, step), (n) => n, fails)
        expect(ours).toEqual(effects)
      })
    )
  })

  it("runForEachChunk agrees with Stream.runForEachChunk", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const fails = (c: Chunk.Chunk<number>) => s.stepFailsAt !== undefined && Chunk.toReadonlyArray(c).includes(s.stepFailsAt)
        const key = (c: Chunk.Chunk<number>) => Chunk.toReadonlyArray(c)
        const ours = await observe<Chunk.Chunk<number>>(s, (stream, step) => runForEachChunk(stream, step), key, fails)
        const effects = await observe<Chunk.Chunk<number>>(s, (stream, step) => Stream.runForEachChunk(stream, step), key, fails)
        expect(ours).toEqual(effects)
      })
    )
  })
})
