// `loadOnUse`: a deferred group's module, here already (Node) or imported on the first call (browsers).
import { Cause, Effect, Exit, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { loadOnUse } from "../../src/adapters/internal/LoadOnUse.js"

/** A module to import: `resolve` or `reject` it by hand; counts the imports started. */
const deferredModule = () => {
  const started: Array<{ resolve: (m: { n: number }) => void; reject: (e: Error) => void }> = []
  return {
    started,
    load: () => new Promise<{ n: number }>((resolve, reject) => void started.push({ resolve, reject }))
  }
}

describe("loadOnUse", () => {
  it("imports nothing and makes nothing until a call runs", async () => {
    const module = deferredModule()
    let made = 0
    const group = loadOnUse(module.load, (m) => ({ ...m, made: ++made }))
    const call = group.effect((g) => Effect.succeed(g.n))
    expect(module.started.length).toBe(0)
    const running = Effect.runPromise(call)
    await Promise.resolve()
    expect(module.started.length).toBe(1)
    module.started[0]!.resolve({ n: 7 })
    expect(await running).toBe(7)
    expect(made).toBe(1)
  })

  it("shares one import among the first calls, then goes straight to the value", async () => {
    const module = deferredModule()
    let made = 0
    const group = loadOnUse(module.load, (m) => ({ ...m, made: ++made }))
    const first = Promise.all([1, 2, 3].map((k) => Effect.runPromise(group.effect((g) => Effect.succeed(g.n * k)))))
    await Promise.resolve()
    module.started[0]!.resolve({ n: 2 })
    expect(await first).toEqual([2, 4, 6])
    expect(module.started.length).toBe(1)
    // Loaded: the call is the loaded value's own effect, run at once with no wait.
    expect(Effect.runSync(group.effect((g) => Effect.succeed(g.made)))).toBe(1)
    expect(made).toBe(1)
  })

  it("makes a module that is here at the first call, synchronously, once", () => {
    let loads = 0
    let made = 0
    const group = loadOnUse(
      () => ({ n: ++loads }),
      (m) => ({ n: m.n, made: ++made })
    )
    expect(loads).toBe(0)
    expect(Effect.runSync(group.effect((g) => Effect.succeed(g.n)))).toBe(1)
    expect(Effect.runSync(Stream.runCollect(group.stream((g) => Stream.make(g.n, g.made))))).toEqual([1, 1])
    expect([loads, made]).toEqual([1, 1])
  })

  it("fails a call whose import failed as a defect, and tries again on the next call", async () => {
    const module = deferredModule()
    const group = loadOnUse(module.load, (m) => m)
    const failing = Effect.runPromiseExit(group.effect((g) => Effect.succeed(g.n)))
    await Promise.resolve()
    module.started[0]!.reject(new Error("Failed to fetch dynamically imported module: chunk-1.js"))
    const exit = await failing
    expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
    expect(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : "")).toContain("chunk-1.js")
    const again = Effect.runPromise(group.effect((g) => Effect.succeed(g.n)))
    await Promise.resolve()
    expect(module.started.length).toBe(2)
    module.started[1]!.resolve({ n: 5 })
    expect(await again).toBe(5)
  })

  it("starts a stream's import when the stream runs, and gives the loaded stream's elements and error", async () => {
    const module = deferredModule()
    const group = loadOnUse(module.load, (m) => m)
    const stream = group.stream((g) => Stream.concat(Stream.make(g.n, g.n + 1), Stream.fail("end" as const)))
    expect(module.started.length).toBe(0)
    const running = Effect.runPromise(Stream.runCollect(Stream.catch(stream, (e) => Stream.make(e))))
    await Promise.resolve()
    module.started[0]!.resolve({ n: 1 })
    expect(await running).toEqual([1, 2, "end"])
  })
})
