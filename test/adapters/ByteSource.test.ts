// The hand-over between a body's callbacks and a stream's consumer: a pull interrupted while it
// waits (a timeout around one pull) takes nothing, so what arrives next is there for the next pull.
import { Cause, Deferred, Effect, Exit, Fiber, Option, type Pull, Scope, Stream } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { describe, expect, it } from "vitest"
import * as ByteSource from "../../src/adapters/http/ByteSource.js"

/** A source the test feeds by hand. */
const manual = () => {
  let sink: ByteSource.ByteSink<string> | undefined
  const source = ByteSource.fromOpen<string>((s) => {
    sink = s
    return { pause: () => {}, resume: () => {}, close: () => {} }
  })
  return { source, sink: () => sink! }
}

const bytes = (...xs: Array<number>) => new Uint8Array(xs)

/** Runs `use` with the pull of `toStream(source)`, in a scope closed at its end. */
const withPull = <A>(
  source: ByteSource.ByteSource<string>,
  use: (pull: Pull.Pull<NonEmptyReadonlyArray<Uint8Array>, string>) => Effect.Effect<A, string | Cause.Done>
): Promise<A> => Effect.runPromise(Effect.scoped(Effect.flatMap(Stream.toPull(ByteSource.toStream(source)), use)))

describe("ByteSource.toStream", () => {
  it("loses nothing when a waiting pull is interrupted: the next pull gets what arrived after", async () => {
    const { source, sink } = manual()
    const got = await withPull(source, (pull) =>
      Effect.gen(function* () {
        // Nothing has arrived: the pull waits, and the timeout interrupts it.
        const first = yield* Effect.timeoutOption(pull, "20 millis")
        expect(Option.isNone(first)).toBe(true)
        // Arrives while no pull waits (the interrupted one must not take it).
        sink().chunk(bytes(1, 2))
        const second = yield* pull
        sink().chunk(bytes(3))
        sink().end()
        const third = yield* pull
        const end = yield* Effect.result(pull)
        return { second, third, ended: end._tag === "Failure" && Cause.isDone(end.failure) }
      })
    )
    expect(got.second).toEqual([bytes(1, 2)])
    expect(got.third).toEqual([bytes(3)])
    expect(got.ended).toBe(true)
  })

  it("pauses a source that delivers more than its mark while starting, and resumes it when the chunks are taken", async () => {
    const calls: Array<string> = []
    const big = new Uint8Array(48 * 1024)
    const source = ByteSource.fromOpen<string>((sink) => {
      // Delivered before the flow is handed back: 96 KiB, past the 64 KiB mark.
      sink.chunk(big)
      sink.chunk(big)
      return { pause: () => void calls.push("pause"), resume: () => void calls.push("resume"), close: () => {} }
    })
    const got = await withPull(source, (pull) =>
      Effect.sync(() => [...calls]).pipe(Effect.flatMap((before) => Effect.map(pull, (chunks) => ({ before, chunks }))))
    )
    expect(got.before).toEqual(["pause"])
    expect(got.chunks).toEqual([big, big])
    expect(calls).toEqual(["pause", "resume"])
  })

  it("resumes a waiting pull when a chunk arrives later", async () => {
    const { source, sink } = manual()
    const got = await withPull(source, (pull) =>
      Effect.sync(() => setTimeout(() => sink().chunk(bytes(7)), 5)).pipe(Effect.andThen(pull))
    )
    expect(got).toEqual([bytes(7)])
  })
})

// The scoped constructor every umg stream is made by (ported from the deleted LeanStream's tests): a
// stream set up on its first pull closes its scope however it ends — at its end, on a failure, when
// the consumer stops early, when interrupted while set up or while waiting — and a synchronous
// resource is released when its scope closes.

/** A stream of `items` whose setup records its scope's closing exit. */
const recorded = (items: ReadonlyArray<number>, failWith?: string) => {
  const log: Array<string> = []
  let setups = 0
  const stream = ByteSource.fromScopedPull(
    Effect.gen(function* () {
      setups++
      yield* Effect.addFinalizer((exit) =>
        Effect.sync(() =>
          log.push(
            Exit.isSuccess(exit) ? "closed:success" : Exit.hasInterrupts(exit) ? "closed:interrupted" : "closed:failure"
          )
        )
      )
      let at = 0
      return Effect.suspend((): ByteSource.ChunkPull<number, string> => {
        if (at < items.length) return Effect.succeed([items[at++]!] as const)
        return failWith === undefined ? ByteSource.ended : Effect.fail(failWith)
      })
    })
  )
  return { stream, log, setups: () => setups }
}

describe("ByteSource.fromScopedPull", () => {
  it("sets up nothing until pulled, then gives every item and closes its scope at the end", async () => {
    const { stream, log, setups } = recorded([1, 2, 3])
    expect(setups()).toBe(0)
    expect(await Effect.runPromise(Stream.runCollect(stream))).toEqual([1, 2, 3])
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
    const stream = ByteSource.fromScopedPull(
      Effect.andThen(
        Effect.addFinalizer(() => Effect.sync(() => log.push("closed"))),
        Effect.fail("refused")
      )
    )
    expect(await Effect.runPromiseExit(Stream.runDrain(stream))).toEqual(Exit.fail("refused"))
    expect(log).toEqual(["closed"])
  })

  it("closes its scope when the consumer stops early", async () => {
    const { stream, log } = recorded([1, 2, 3])
    expect(await Effect.runPromise(Stream.runCollect(Stream.take(stream, 1)))).toEqual([1])
    expect(log).toHaveLength(1)
  })

  it("closes its scope when interrupted during the setup", async () => {
    const log: Array<string> = []
    const started = Effect.runSync(Deferred.make<void>())
    const stream = ByteSource.fromScopedPull(
      Effect.gen(function* () {
        yield* Effect.addFinalizer(() => Effect.sync(() => log.push("closed")))
        yield* Deferred.succeed(started, undefined)
        yield* Effect.never
        return ByteSource.ended
      })
    )
    const fiber = Effect.runFork(Stream.runDrain(stream))
    await Effect.runPromise(Deferred.await(started))
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(Exit.hasInterrupts(await Effect.runPromise(Fiber.await(fiber)))).toBe(true)
    expect(log).toEqual(["closed"])
  })

  it("closes its scope when interrupted while a pull waits", async () => {
    const log: Array<string> = []
    const waiting = Effect.runSync(Deferred.make<void>())
    const stream = ByteSource.fromScopedPull(
      Effect.gen(function* () {
        yield* Effect.addFinalizer((exit) =>
          Effect.sync(() => log.push(Exit.hasInterrupts(exit) ? "interrupted" : "other"))
        )
        return Effect.andThen(Deferred.succeed(waiting, undefined), Effect.never)
      })
    )
    const fiber = Effect.runFork(Stream.runDrain(stream))
    await Effect.runPromise(Deferred.await(waiting))
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(log).toEqual(["interrupted"])
  })
})

describe("ByteSource.acquireSync", () => {
  it("releases the resource once, when its scope closes", async () => {
    const log: Array<string> = []
    const scope = Effect.runSync(Scope.make())
    const value = Effect.runSync(
      Scope.provide(
        ByteSource.acquireSync(
          () => (log.push("acquired"), 7),
          (n) => void log.push(`released ${n}`)
        ),
        scope
      )
    )
    expect(value).toBe(7)
    expect(log).toEqual(["acquired"])
    Effect.runSync(Scope.close(scope, Exit.void))
    Effect.runSync(Scope.close(scope, Exit.void))
    expect(log).toEqual(["acquired", "released 7"])
  })
})
