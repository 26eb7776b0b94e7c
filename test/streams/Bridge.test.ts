import { Data, Deferred, Effect, Stream } from "effect"
import { firstValueFrom, lastValueFrom, take, toArray } from "rxjs"
import { describe, expect, it } from "vitest"
import { fromEffect, fromStream, fromStreamOf } from "../../src/streams/Bridge.js"
import type { Runner } from "../../src/streams/Bridge.js"

class Boom extends Data.TaggedError("Boom")<{ readonly reason: string }> {}

const run: Runner<never> = (effect) => Effect.runFork(effect)

describe("fromEffect", () => {
  it("emits the value once and completes", async () => {
    const values = await lastValueFrom(fromEffect(run, Effect.succeed(42)).pipe(toArray()))
    expect(values).toEqual([42])
  })

  it("does nothing until subscribed (cold)", async () => {
    let started = 0
    const obs = fromEffect(
      run,
      Effect.sync(() => ++started)
    )
    expect(started).toBe(0)
    await firstValueFrom(obs)
    await firstValueFrom(obs)
    expect(started).toBe(2)
  })

  it("errors with the same typed error instance the effect fails with", async () => {
    const error = await firstValueFrom(fromEffect(run, Effect.fail(new Boom({ reason: "x" })))).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Boom)
    expect((error as Boom).reason).toBe("x")
  })

  it("interrupts the fiber when unsubscribed before it finishes", async () => {
    const interrupted = Effect.runSync(Deferred.make<void>())
    const obs = fromEffect(run, Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))))
    const sub = obs.subscribe()
    await new Promise((r) => setTimeout(r, 5))
    sub.unsubscribe()
    await Effect.runPromise(Deferred.await(interrupted))
    expect(Effect.runSync(Deferred.isDone(interrupted))).toBe(true)
  })

  it("does not report an interruption it caused as an error", async () => {
    const errors: Array<unknown> = []
    const sub = fromEffect(run, Effect.never).subscribe({ error: (e) => errors.push(e) })
    sub.unsubscribe()
    await new Promise((r) => setTimeout(r, 5))
    expect(errors).toEqual([])
  })
})

describe("fromStream", () => {
  it("emits every element in order and completes", async () => {
    const values = await lastValueFrom(fromStream(run, Stream.make(1, 2, 3)).pipe(toArray()))
    expect(values).toEqual([1, 2, 3])
  })

  it("delivers elements before a typed failure", async () => {
    const seen: Array<number> = []
    const error = await new Promise((resolve) =>
      fromStream(run, Stream.concat(Stream.make(1, 2), Stream.fail(new Boom({ reason: "cut" })))).subscribe({
        next: (n) => seen.push(n),
        error: resolve
      })
    )
    expect(seen).toEqual([1, 2])
    expect(error).toBeInstanceOf(Boom)
  })

  it("stops the stream's producer when the subscriber takes what it needs", async () => {
    let pulled = 0
    const endless = Stream.fromEffectRepeat(Effect.sync(() => ++pulled))
    const values = await lastValueFrom(fromStream(run, endless).pipe(take(3), toArray()))
    expect(values).toEqual([1, 2, 3])
    const after = pulled
    await new Promise((r) => setTimeout(r, 20))
    expect(pulled).toBe(after)
  })
})

describe("fromStreamOf", () => {
  it("runs the effect on subscribe (cold), then emits its stream's elements and completes", async () => {
    let made = 0
    const obs = fromStreamOf(
      run,
      Effect.sync(() => (++made, Stream.make(1, 2, 3)))
    )
    expect(made).toBe(0)
    expect(await lastValueFrom(obs.pipe(toArray()))).toEqual([1, 2, 3])
    expect(await lastValueFrom(obs.pipe(toArray()))).toEqual([1, 2, 3])
    expect(made).toBe(2)
  })

  it("errors with the effect's own typed failure, before any stream exists", async () => {
    const seen: Array<number> = []
    const error = await new Promise((resolve) =>
      fromStreamOf(
        run,
        Effect.fail(new Boom({ reason: "refused" })) as Effect.Effect<Stream.Stream<number>, Boom>
      ).subscribe({
        next: (n) => seen.push(n),
        error: resolve
      })
    )
    expect(seen).toEqual([])
    expect(error).toBeInstanceOf(Boom)
    expect((error as Boom).reason).toBe("refused")
  })

  it("delivers elements before the stream's typed failure", async () => {
    const seen: Array<number> = []
    const error = await new Promise((resolve) =>
      fromStreamOf(
        run,
        Effect.succeed(Stream.concat(Stream.make(1, 2), Stream.fail(new Boom({ reason: "cut" }))))
      ).subscribe({
        next: (n) => seen.push(n),
        error: resolve
      })
    )
    expect(seen).toEqual([1, 2])
    expect((error as Boom).reason).toBe("cut")
  })

  it("interrupts the stream when unsubscribed (its finalizer runs)", async () => {
    const closed = Effect.runSync(Deferred.make<void>())
    const stream = Stream.concat(Stream.make(1), Stream.never).pipe(
      Stream.ensuring(Deferred.succeed(closed, undefined))
    )
    const values = await lastValueFrom(fromStreamOf(run, Effect.succeed(stream)).pipe(take(1), toArray()))
    expect(values).toEqual([1])
    await Effect.runPromise(Deferred.await(closed))
    expect(Effect.runSync(Deferred.isDone(closed))).toBe(true)
  })
})
