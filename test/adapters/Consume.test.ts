// umg's stream consumers mean what Effect's do: every element in order, a failure of the stream or of
// a step fails the run with that error and ends the stream, interrupting the run ends the stream, and
// the stream's finalizers have run when the run ends — for umg's own streams and any other.
import { Chunk, Deferred, Effect, Exit, Fiber, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { runForEach, runForEachChunk } from "../../src/adapters/Consume.js"
import { ended, fromScopedPull, type Pull } from "../../src/adapters/LeanStream.js"

/** Chunks as a stream that records how it ended. */
const recorded = (chunks: ReadonlyArray<ReadonlyArray<number>>, failWith?: string) => {
  const log: Array<string> = []
  const stream = Stream.fromChunks(...chunks.map((c) => Chunk.fromIterable(c))).pipe(
    Stream.concat(failWith === undefined ? Stream.empty : Stream.fail(failWith)),
    Stream.ensuringWith((exit) => Effect.sync(() => log.push(Exit.isSuccess(exit) ? "success" : Exit.isInterrupted(exit) ? "interrupted" : "failure")))
  )
  return { stream, log }
}

describe("runForEach", () => {
  it("runs the step on every element, in order, across chunks, and ends the stream", async () => {
    const { stream, log } = recorded([[1, 2], [3], [], [4, 5, 6]])
    const seen: Array<number> = []
    await Effect.runPromise(runForEach(stream, (n) => Effect.sync(() => seen.push(n))))
    expect(seen).toEqual([1, 2, 3, 4, 5, 6])
    expect(log).toEqual(["success"])
  })

  it("runs one step at a time: a step that waits holds the next element back", async () => {
    const seen: Array<string> = []
    await Effect.runPromise(
      runForEach(Stream.make(1, 2, 3), (n) => Effect.zipRight(Effect.sync(() => seen.push(`start ${n}`)), Effect.zipRight(Effect.sleep(1), Effect.sync(() => seen.push(`end ${n}`)))))
    )
    expect(seen).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"])
  })

  it("fails with the stream's own error after the elements before it", async () => {
    const { stream, log } = recorded([[1, 2]], "boom")
    const seen: Array<number> = []
    const exit = await Effect.runPromiseExit(runForEach(stream, (n) => Effect.sync(() => seen.push(n))))
    expect(exit).toEqual(Exit.fail("boom"))
    expect(seen).toEqual([1, 2])
    expect(log).toEqual(["failure"])
  })

  it("fails with a step's error, pulls nothing more and ends the stream", async () => {
    let pulls = 0
    const log: Array<string> = []
    const stream = Stream.repeatEffect(Effect.sync(() => ++pulls)).pipe(Stream.ensuringWith((exit) => Effect.sync(() => log.push(Exit.isInterrupted(exit) ? "interrupted" : "ended"))))
    const exit = await Effect.runPromiseExit(runForEach(stream, (n) => (n === 3 ? Effect.fail(`step ${n}`) : Effect.void)))
    expect(exit).toEqual(Exit.fail("step 3"))
    expect(pulls).toBe(3)
    expect(log).toHaveLength(1)
  })

  it("leaves a step's own scoped resources to the caller's scope, as Stream.runForEach does", async () => {
    for (const lean of [false, true]) {
      const log: Array<string> = []
      const source = lean
        ? fromScopedPull(Effect.succeed(((at) => Effect.suspend((): Pull<number, never> => (at.n < 2 ? Effect.succeed(Chunk.of(++at.n)) : ended)))({ n: 0 })))
        : Stream.make(1, 2)
      await Effect.runPromise(
        Effect.scoped(
          Effect.zipRight(
            runForEach(source, (n) => Effect.addFinalizer(() => Effect.sync(() => log.push(`released ${n}`)))),
            Effect.sync(() => log.push("run ended"))
          )
        )
      )
      expect(log).toEqual(["run ended", "released 2", "released 1"])
    }
  })

  it("passes a defect through as a defect", async () => {
    const exit = await Effect.runPromiseExit(runForEach(Stream.make(1), () => Effect.die(new Error("bug"))))
    expect(Exit.isFailure(exit) && exit.cause._tag === "Die").toBe(true)
  })

  it("interrupted while the stream waits: the stream ends and its finalizers have run when the fiber is done", async () => {
    const log: Array<string> = []
    const pulled = await Effect.runPromise(Deferred.make<void>())
    const stream = Stream.concat(
      Stream.make(1),
      Stream.fromEffect(Effect.zipRight(Deferred.succeed(pulled, undefined), Effect.never))
    ).pipe(Stream.ensuringWith((exit) => Effect.sync(() => log.push(Exit.isInterrupted(exit) ? "interrupted" : "other"))))
    const fiber = Effect.runFork(runForEach(stream, () => Effect.void))
    await Effect.runPromise(Deferred.await(pulled))
    const exit = await Effect.runPromise(Fiber.interrupt(fiber))
    expect(Exit.isInterrupted(exit)).toBe(true)
    expect(log).toEqual(["interrupted"])
  })

  it("closes a umg stream's own scope at its end, on a failure and when interrupted", async () => {
    const lean = (items: ReadonlyArray<number>, failWith?: string) => {
      const log: Array<string> = []
      const stream = fromScopedPull(
        Effect.gen(function* () {
          yield* Effect.addFinalizer((exit) => Effect.sync(() => log.push(Exit.isSuccess(exit) ? "success" : Exit.isInterrupted(exit) ? "interrupted" : "failure")))
          let at = 0
          return Effect.suspend((): Pull<number, string> => {
            if (at < items.length) return Effect.succeed(Chunk.of(items[at++]!))
            return failWith === undefined ? ended : Effect.fail(failWith)
          })
        })
      )
      return { stream, log }
    }
    const whole = lean([1, 2, 3])
    const seen: Array<number> = []
    await Effect.runPromise(runForEach(whole.stream, (n) => Effect.sync(() => seen.push(n))))
    expect([seen, whole.log]).toEqual([[1, 2, 3], ["success"]])

    const failing = lean([1], "cut")
    expect(await Effect.runPromiseExit(runForEach(failing.stream, () => Effect.void))).toEqual(Exit.fail("cut"))
    expect(failing.log).toEqual(["failure"])

    const stopped = lean([1, 2, 3])
    expect(await Effect.runPromiseExit(runForEach(stopped.stream, (n) => (n === 2 ? Effect.interrupt : Effect.void))).then(Exit.isInterrupted)).toBe(true)
    expect(stopped.log).toEqual(["interrupted"])
  })
})

describe("runForEachChunk", () => {
  it("hands over the chunks as the stream gives them and fails with the stream's error", async () => {
    const { stream, log } = recorded([[1, 2], [3]], "late")
    const seen: Array<ReadonlyArray<number>> = []
    const exit = await Effect.runPromiseExit(runForEachChunk(stream, (chunk) => Effect.sync(() => seen.push(Chunk.toReadonlyArray(chunk)))))
    expect(exit).toEqual(Exit.fail("late"))
    expect(seen).toEqual([[1, 2], [3]])
    expect(log).toEqual(["failure"])
  })
})
