// The polls of a gateway live as long as its layer: a poll started with `video.follow` (no fiber of
// its own) kept querying, through the closed layer's client, until its own timeout (300 s by default),
// keeping the process alive; a `video.wait` still running never ended either.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  // Tasks that stay queued for the whole test: a poll ends only when it is stopped.
  emu = await startEmulator({ fast: true, video: { queuedMs: 600_000, inProgressMs: 600_000 } })
})
afterAll(async () => {
  await emu.close()
})

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("closing the gateway's layer stops its video polls", () => {
  it("ends a follow (its onEnd told) and a wait, and no query is sent after", async () => {
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(
      Layer.buildWithScope(Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, minPollIntervalMs: 20 }), scope)
    )
    const g = Context.get(context, Gateway)
    const submit = Effect.map(g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }), (s) => s.task_id)
    const [first, second] = await Effect.runPromise(Effect.all([submit, submit]))
    const ends: Array<Exit.Exit<unknown, unknown>> = []
    await Effect.runPromise(g.video.follow(first!, { intervalMs: 20 }, (exit) => void ends.push(exit)))
    const waiting = Effect.runFork(g.video.wait(second!, { intervalMs: 20 }))
    while (emu.counters.get("video.get") < 6) await pause(10)

    await Effect.runPromise(Scope.close(scope, Exit.void))
    const atClose = emu.counters.get("video.get")
    expect(ends).toHaveLength(1)
    expect(Exit.isFailure(ends[0]!) && Exit.hasInterrupts(ends[0]!)).toBe(true)
    const waited = await Effect.runPromise(Fiber.await(waiting))
    expect(Exit.isFailure(waited) && Exit.hasInterrupts(waited)).toBe(true)

    // At most the two queries in flight at the close still reach the emulator; none starts after it
    // (polling on, the two polls would send one every 20 ms each).
    await pause(400)
    expect(emu.counters.get("video.get") - atClose).toBeLessThanOrEqual(2)
  })
})
