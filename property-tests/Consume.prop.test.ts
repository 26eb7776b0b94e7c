// umg's streams and `runToFinal` against Effect's own (the oracle): for any chunks, a stream failing
// or not after them, and a step failing or not at some element, `Stream.runForEach` over a streaming
// call's kind of stream (`fromScopedOpen`) sees the same elements in the same order and ends with the
// same exit as over Effect's `Stream.fromArrays`, and `runToFinal` does the same as `Stream.runForEach`
// (then gives the result when nothing failed) — each with the stream's finalizer run once, with the
// same kind of exit.
import { Array as Arr, Effect, Exit, Stream } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as ByteSource from "../src/adapters/http/ByteSource.js"
import { fromScopedOpen, type ResultStream, runToFinal } from "../src/adapters/sse/Consume.js"

const scenario = fc.record({
  chunks: fc.array(fc.array(fc.integer({ min: 0, max: 99 }), { maxLength: 5 }), { maxLength: 6 }),
  streamFails: fc.boolean(),
  // The step fails at the first element whose value is this, if any.
  stepFailsAt: fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined })
})
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never

type End = (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>

/** The scenario as umg's kind of stream: its result is the count of elements it gave. */
const umgStream = (s: Scenario, end: End): ResultStream<number, string, number> =>
  fromScopedOpen(
    Effect.gen(function* () {
      yield* Effect.addFinalizer(end)
      let at = 0
      let count = 0
      const pull = Effect.suspend((): ByteSource.ChunkPull<number, string> => {
        while (at < s.chunks.length) {
          const chunk = s.chunks[at++]!
          if (Arr.isArrayNonEmpty(chunk)) {
            count += chunk.length
            return Effect.succeed(chunk)
          }
        }
        return s.streamFails ? Effect.fail("stream failed") : ByteSource.ended
      })
      return { pull, result: Effect.sync(() => count) }
    })
  )

/** The scenario as Effect's own stream. */
const effectStream = (s: Scenario, end: End): Stream.Stream<number, string> => {
  const tail: Stream.Stream<never, string> = s.streamFails ? Stream.fail("stream failed") : Stream.empty
  return Stream.fromArrays(...s.chunks).pipe(
    Stream.concat(tail),
    Stream.onExit((exit) => end(exit))
  )
}

/** Runs one consumer over one stream of the scenario: what it saw, how it ended, how the stream ended. */
const observe = async <S extends Stream.Stream<number, string>>(
  s: Scenario,
  make: (s: Scenario, end: End) => S,
  consume: (stream: S, step: (n: number) => Effect.Effect<void, string>) => Effect.Effect<unknown, string>
) => {
  const ends: Array<string> = []
  const end: End = (exit) =>
    Effect.sync(
      () => void ends.push(Exit.isSuccess(exit) ? "success" : Exit.hasInterrupts(exit) ? "interrupted" : "failure")
    )
  const seen: Array<number> = []
  const exit = await Effect.runPromiseExit(
    consume(make(s, end), (n) =>
      Effect.suspend(() => (seen.push(n), n === s.stepFailsAt ? Effect.fail("step failed") : Effect.void))
    )
  )
  const outcome = Exit.isSuccess(exit)
    ? "success"
    : (exit.cause.reasons.find((r) => r._tag === "Fail")?.error ?? "other")
  return { seen, exit: outcome, value: Exit.isSuccess(exit) ? exit.value : undefined, ends }
}

describe("umg's streams and runToFinal mean what Effect's mean", () => {
  it("Stream.runForEach over a streaming call's kind of stream agrees with Effect's own stream", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const ours = await observe(s, umgStream, (stream, step) => Stream.runForEach(stream, step))
        const effects = await observe(s, effectStream, (stream, step) => Stream.runForEach(stream, step))
        expect(ours).toEqual(effects)
      })
    )
  })

  it("runToFinal agrees with Stream.runForEach, then gives the result", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const final = await observe(s, umgStream, (stream, step) => runToFinal(stream, step))
        const each = await observe(s, umgStream, (stream, step) => Stream.runForEach(stream, step))
        expect({ ...final, value: undefined }).toEqual(each)
        if (final.exit === "success") expect(final.value).toBe(final.seen.length)
      })
    )
  })
})
