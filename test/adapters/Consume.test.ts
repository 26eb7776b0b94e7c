// A streaming call's stream (made by `fromScopedOpen`) is a plain Effect `Stream`: Effect's own
// `Stream.runForEach` closes its scope at its end, on a failure and when interrupted, and leaves a
// step's scoped resources to the caller's scope. `runToFinal` means what `Stream.runForEach` means —
// every element in order, one step at a time; a failure of the stream or of a step fails the run
// with that error and ends the stream; interrupting the run ends it; the stream's scope is closed
// when the run ends — and then gives the stream's result, which a transformed stream has not.
import { Array as Arr, Deferred, Effect, Exit, Fiber, Stream } from "effect"
import { describe, expect, it } from "vitest"
import * as ByteSource from "../../src/adapters/http/ByteSource.js"
import { fromScopedOpen, runToFinal } from "../../src/adapters/sse/Consume.js"

/** A result stream of `chunks` (its result: their sum) that records how its scope closed. */
const summed = (chunks: ReadonlyArray<ReadonlyArray<number>>, failWith?: string) => {
  const log: Array<string> = []
  const stream = fromScopedOpen(
    Effect.gen(function* () {
      yield* Effect.addFinalizer((exit) =>
        Effect.sync(() =>
          log.push(Exit.isSuccess(exit) ? "success" : Exit.hasInterrupts(exit) ? "interrupted" : "failure")
        )
      )
      let at = 0
      let sum = 0
      const pull = Effect.suspend((): ByteSource.ChunkPull<number, string> => {
        while (at < chunks.length) {
          const chunk = chunks[at++]!
          if (Arr.isReadonlyArrayNonEmpty(chunk)) {
            for (const n of chunk) sum += n
            return Effect.succeed(chunk)
          }
        }
        return failWith === undefined ? ByteSource.ended : Effect.fail(failWith)
      })
      return { pull, result: Effect.sync(() => sum) }
    })
  )
  return { stream, log }
}

describe("a streaming call's stream under Stream.runForEach", () => {
  it("closes its own scope at its end, on a failure and when interrupted", async () => {
    const whole = summed([[1, 2], [3]])
    const seen: Array<number> = []
    await Effect.runPromise(Stream.runForEach(whole.stream, (n) => Effect.sync(() => seen.push(n))))
    expect([seen, whole.log]).toEqual([[1, 2, 3], ["success"]])

    const failing = summed([[1]], "cut")
    expect(await Effect.runPromiseExit(Stream.runForEach(failing.stream, () => Effect.void))).toEqual(Exit.fail("cut"))
    expect(failing.log).toEqual(["failure"])

    const stopped = summed([[1], [2], [3]])
    expect(
      Exit.hasInterrupts(
        await Effect.runPromiseExit(
          Stream.runForEach(stopped.stream, (n) => (n === 2 ? Effect.interrupt : Effect.void))
        )
      )
    ).toBe(true)
    expect(stopped.log).toEqual(["interrupted"])
  })

  it("leaves a step's own scoped resources to the caller's scope", async () => {
    const log: Array<string> = []
    await Effect.runPromise(
      Effect.scoped(
        Effect.andThen(
          Stream.runForEach(summed([[1], [2]]).stream, (n) =>
            Effect.addFinalizer(() => Effect.sync(() => log.push(`released ${n}`)))
          ),
          Effect.sync(() => log.push("run ended"))
        )
      )
    )
    expect(log).toEqual(["run ended", "released 2", "released 1"])
  })
})

describe("runToFinal", () => {
  it("runs the step on every element, in order, across chunks, then gives the result and closes the scope", async () => {
    const { stream, log } = summed([[1, 2], [3], [], [4, 5, 6]])
    const seen: Array<number> = []
    expect(await Effect.runPromise(runToFinal(stream, (n) => Effect.sync(() => seen.push(n))))).toBe(21)
    expect(seen).toEqual([1, 2, 3, 4, 5, 6])
    expect(log).toEqual(["success"])
  })

  it("runs one step at a time: a step that waits holds the next element back", async () => {
    const seen: Array<string> = []
    await Effect.runPromise(
      runToFinal(summed([[1, 2, 3]]).stream, (n) =>
        Effect.andThen(
          Effect.sync(() => seen.push(`start ${n}`)),
          Effect.andThen(
            Effect.sleep(1),
            Effect.sync(() => seen.push(`end ${n}`))
          )
        )
      )
    )
    expect(seen).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"])
  })

  it("fails with the stream's own error after the elements before it", async () => {
    const { stream, log } = summed([[1, 2]], "boom")
    const seen: Array<number> = []
    expect(await Effect.runPromiseExit(runToFinal(stream, (n) => Effect.sync(() => seen.push(n))))).toEqual(
      Exit.fail("boom")
    )
    expect(seen).toEqual([1, 2])
    expect(log).toEqual(["failure"])
  })

  it("fails with a step's error, pulls nothing more and closes the stream's scope", async () => {
    const { stream, log } = summed([[1], [2], [3], [4]])
    const seen: Array<number> = []
    const exit = await Effect.runPromiseExit(
      runToFinal(stream, (n) => (seen.push(n), n === 2 ? Effect.fail(`step ${n}`) : Effect.void))
    )
    expect(exit).toEqual(Exit.fail("step 2"))
    expect(seen).toEqual([1, 2])
    expect(log).toEqual(["failure"])
  })

  it("passes a defect through as a defect", async () => {
    const exit = await Effect.runPromiseExit(runToFinal(summed([[1]]).stream, () => Effect.die(new Error("bug"))))
    expect(Exit.isFailure(exit) && !Exit.hasInterrupts(exit) && exit.cause.reasons.some((r) => r._tag === "Die")).toBe(
      true
    )
  })

  it("leaves a step's own scoped resources to the caller's scope, as Stream.runForEach does", async () => {
    const log: Array<string> = []
    await Effect.runPromise(
      Effect.scoped(
        Effect.andThen(
          runToFinal(summed([[1], [2]]).stream, (n) =>
            Effect.addFinalizer(() => Effect.sync(() => log.push(`released ${n}`)))
          ),
          Effect.sync(() => log.push("run ended"))
        )
      )
    )
    expect(log).toEqual(["run ended", "released 2", "released 1"])
  })

  it("interrupted while the stream waits: the stream's scope is closed when the fiber is done", async () => {
    const log: Array<string> = []
    const pulled = Effect.runSync(Deferred.make<void>())
    const stream = fromScopedOpen(
      Effect.gen(function* () {
        yield* Effect.addFinalizer((exit) =>
          Effect.sync(() => log.push(Exit.hasInterrupts(exit) ? "interrupted" : "other"))
        )
        return { pull: Effect.andThen(Deferred.succeed(pulled, undefined), Effect.never), result: Effect.succeed(0) }
      })
    )
    const fiber = Effect.runFork(runToFinal(stream, () => Effect.void))
    await Effect.runPromise(Deferred.await(pulled))
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(Exit.hasInterrupts(await Effect.runPromise(Fiber.await(fiber)))).toBe(true)
    expect(log).toEqual(["interrupted"])
  })

  it("dies, saying why, on a stream without a result (a transformed one)", async () => {
    const mapped = Stream.map(summed([[1]]).stream, (n) => n)
    // @ts-expect-error a transformed stream has no final answer
    const exit = await Effect.runPromiseExit(runToFinal(mapped, () => Effect.void) as Effect.Effect<unknown>)
    expect(
      Exit.isFailure(exit) &&
        exit.cause.reasons.some((r) => r._tag === "Die" && String(r.defect).includes("no final answer"))
    ).toBe(true)
  })
})
