// The lean scoped constructors: a stream set up on its first pull closes its scope however it ends —
// at its end, on a failure, when the consumer stops early, when interrupted while set up or while
// waiting — and a synchronous resource is released when its scope closes.
import { Chunk, Deferred, Effect, Exit, Fiber, Scope, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { acquireSync, End, ended, fromScopedPull, type Pull } from "../../src/adapters/LeanStream.js"

/** A stream of `items` whose setup records its scope's closing exit. */
const recorded = (items: ReadonlyArray<number>, failWith?: string) => {
  const log: Array<string> = []
  let setups = 0
  const stream = fromScopedPull(
    Effect.gen(function* () {
      setups++
      yield* Effect.addFinalizer((exit) => Effect.sync(() => log.push(Exit.isSuccess(exit) ? "closed:success" : Exit.isInterrupted(exit) ? "closed:interrupted" : "closed:failure")))
      let at = 0
      return Effect.suspend((): Pull<number, string> => {
        if (at < items.length) return Effect.succeed(Chunk.of(items[at++]!))
        return failWith === undefined ? ended : Effect.fail(failWith)
      })
    })
  )
  return { stream, log, setups: () => setups }
}

describe("fromScopedPull", () => {
  it("sets up nothing until pulled, then gives every item and closes its scope at the end", async () => {
    const { stream, log, setups } = recorded([1, 2, 3])
    expect(setups()).toBe(0)
    expect(Chunk.toReadonlyArray(await Effect.runPromise(Stream.runCollect(stream)))).toEqual([1, 2, 3])
    expect(log).toEqual(["closed:success"])
  })

  it("sets up again for each run", async () => {
    const { stream, log, setups } = recorded([1])
    await Effect.runPromise(Stream.runDrain(stream))
    await Effect.runPromise(Stream.runDrain(stream))
    expect(setups()).toBe(2)
    expect(log).toEqual(["closed:success", "closed:success"])
  })

  it("fails with the pull's error and closes its scope with the failure", async () => {
    const { stream, log } = recorded([1], "boom")
    const exit = await Effect.runPromiseExit(Stream.runCollect(stream))
    expect(exit).toEqual(Exit.fail("boom"))
    expect(log).toEqual(["closed:failure"])
  })

  it("fails with the setup's error and closes the scope the setup used", async () => {
    const log: Array<string> = []
    const stream = fromScopedPull(
      Effect.zipRight(
        Effect.addFinalizer(() => Effect.sync(() => log.push("closed"))),
        Effect.fail("refused")
      )
    )
    expect(await Effect.runPromiseExit(Stream.runDrain(stream))).toEqual(Exit.fail("refused"))
    expect(log).toEqual(["closed"])
  })

  it("closes its scope when the consumer stops early", async () => {
    const { stream, log } = recorded([1, 2, 3])
    expect(Chunk.toReadonlyArray(await Effect.runPromise(Stream.runCollect(Stream.take(stream, 1))))).toEqual([1])
    expect(log).toHaveLength(1)
  })

  it("closes its scope when interrupted during the setup", async () => {
    const log: Array<string> = []
    const started = Effect.runSync(Deferred.make<void>())
    const stream = fromScopedPull(
      Effect.gen(function* () {
        yield* Effect.addFinalizer(() => Effect.sync(() => log.push("closed")))
        yield* Deferred.succeed(started, undefined)
        yield* Effect.never
        return Effect.succeed(End)
      })
    )
    const fiber = Effect.runFork(Stream.runDrain(stream))
    await Effect.runPromise(Deferred.await(started))
    const exit = await Effect.runPromise(Fiber.interrupt(fiber))
    expect(Exit.isInterrupted(exit)).toBe(true)
    expect(log).toEqual(["closed"])
  })

  it("closes its scope when interrupted while a pull waits", async () => {
    const log: Array<string> = []
    const waiting = Effect.runSync(Deferred.make<void>())
    const stream = fromScopedPull(
      Effect.gen(function* () {
        yield* Effect.addFinalizer((exit) => Effect.sync(() => log.push(Exit.isInterrupted(exit) ? "interrupted" : "other")))
        return Effect.zipRight(Deferred.succeed(waiting, undefined), Effect.never)
      })
    )
    const fiber = Effect.runFork(Stream.runDrain(stream))
    await Effect.runPromise(Deferred.await(waiting))
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(log).toEqual(["interrupted"])
  })
})

describe("acquireSync", () => {
  it("releases the resource once, when its scope closes", async () => {
    const log: Array<string> = []
    const scope = Effect.runSync(Scope.make())
    const value = Effect.runSync(Scope.extend(acquireSync(() => (log.push("acquired"), 7), (n) => void log.push(`released ${n}`)), scope))
    expect(value).toBe(7)
    expect(log).toEqual(["acquired"])
    Effect.runSync(Scope.close(scope, Exit.void))
    Effect.runSync(Scope.close(scope, Exit.void))
    expect(log).toEqual(["acquired", "released 7"])
  })
})
