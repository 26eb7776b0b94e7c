import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { NotFound } from "../../src/core/errors/GatewayError.js"
import * as VideoPoller from "../../src/adapters/polling/VideoPoller.js"
import type { PollableTask } from "../../src/adapters/polling/VideoPoller.js"

const task = (status: string, id = "vid_1"): PollableTask => ({
  task_id: id,
  status,
  ...(status === "failed" ? { error: { code: 500, message: "upstream exploded" } } : {})
})

/** A query answering the given statuses in turn (the last repeats) after `latencyMs`, recording each start time. */
const scripted = (statuses: ReadonlyArray<string>, latencyMs = 0, id = "vid_1") => {
  const starts: Array<number> = []
  let running = 0
  let peak = 0
  const query = Effect.gen(function* () {
    starts.push(yield* Clock.currentTimeMillis)
    running++
    peak = Math.max(peak, running)
    yield* Effect.sleep(latencyMs)
    return task(statuses[Math.min(starts.length - 1, statuses.length - 1)]!, id)
  }).pipe(Effect.ensuring(Effect.sync(() => running--)))
  return { query, starts, peak: () => peak, running: () => running }
}

describe("the video poller (TestClock)", () => {
  it.effect("starts each query intervalMs after the previous one started, however long the answer took", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const q = scripted(["queued", "in_progress", "in_progress", "succeeded"], 1_000)
      const fiber = yield* Effect.forkChild(poller.watch({ query: q.query, intervalMs: 4_000, timeoutMs: 60_000 }))
      yield* TestClock.adjust("30 seconds")
      const last = yield* Fiber.join(fiber)
      expect(q.starts).toEqual([0, 4_000, 8_000, 12_000])
      expect(last).toMatchObject({ task: { status: "succeeded" }, polls: 4, elapsedMs: 13_000 })
    })
  )

  it.effect("schedules the next query on time when an answer comes back at once (synchronously)", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const starts: Array<number> = []
      const query = Effect.map(Clock.currentTimeMillis, (t) => {
        starts.push(t)
        return task(starts.length < 3 ? "queued" : "succeeded")
      })
      const fiber = yield* Effect.forkChild(poller.watch({ query, intervalMs: 3_000, timeoutMs: 60_000 }))
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(fiber)
      expect(starts).toEqual([0, 3_000, 6_000])
    })
  )

  it.effect("reports each answer, saying whether its status changed (the first always does)", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const q = scripted(["queued", "queued", "in_progress", "succeeded"])
      const seen: Array<string> = []
      const fiber = yield* Effect.forkChild(
        poller.watch({
          query: q.query,
          intervalMs: 3_000,
          timeoutMs: 60_000,
          onQuery: (u, changed) => seen.push(`${u.polls}:${u.task.status}:${changed}`)
        })
      )
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(fiber)
      expect(seen).toEqual(["1:queued:true", "2:queued:false", "3:in_progress:true", "4:succeeded:true"])
    })
  )

  it.effect("aims a 5 s interval 250 ms early, so that a late timer still keeps the gap within 5 s", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const q = scripted(["queued", "queued", "succeeded"])
      const fiber = yield* Effect.forkChild(poller.watch({ query: q.query, intervalMs: 5_000, timeoutMs: 60_000 }))
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(fiber)
      expect(q.starts).toEqual([0, 4_750, 9_500])
    })
  )

  it.effect(
    "never runs two queries of one task at once: an answer slower than the interval delays the next query",
    () =>
      Effect.gen(function* () {
        const poller = VideoPoller.make()
        const q = scripted(["queued", "succeeded"], 4_500)
        const fiber = yield* Effect.forkChild(poller.watch({ query: q.query, intervalMs: 3_000, timeoutMs: 60_000 }))
        yield* TestClock.adjust("20 seconds")
        yield* Fiber.join(fiber)
        expect(q.starts).toEqual([0, 4_500])
        expect(q.peak()).toBe(1)
      })
  )

  it.effect("fails with VideoTaskFailed after reporting the failed status", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const q = scripted(["queued", "failed"])
      const seen: Array<string> = []
      const fiber = yield* Effect.forkChild(
        poller.watch({ query: q.query, intervalMs: 3_000, timeoutMs: 60_000, onQuery: (u) => seen.push(u.task.status) })
      )
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(seen).toEqual(["queued", "failed"])
      expect(error).toMatchObject({ _tag: "VideoTaskFailed", taskId: "vid_1", code: 500, message: "upstream exploded" })
    })
  )

  it.effect("times out at timeoutMs, interrupting the query in flight, and queries no more", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const q = scripted(["queued"], 2_500)
      const fiber = yield* Effect.forkChild(
        poller.watch({ query: q.query, intervalMs: 3_000, timeoutMs: 10_000, taskId: "vid_1" })
      )
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({
        _tag: "TimeoutError",
        phase: "poll",
        timeoutMs: 10_000,
        message: "task vid_1 did not finish within 10000 ms",
        taskId: "vid_1"
      })
      // Queries at 0, 3, 6 and 9 s; the one started at 9 s was still running at 10 s.
      expect(q.starts).toEqual([0, 3_000, 6_000, 9_000])
      yield* TestClock.adjust("1 minute")
      expect(q.starts.length).toBe(4)
      expect(q.running()).toBe(0)
      expect(poller.stats()).toEqual({ polls: 0, running: 0, waiting: 0, slots: 0 })
    })
  )

  it.effect("ends with a query's own typed error", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const error = new NotFound({ family: "video", status: 404, message: "no such task" })
      const fiber = yield* Effect.forkChild(
        poller.watch({ query: Effect.fail(error), intervalMs: 3_000, timeoutMs: 60_000 })
      )
      yield* TestClock.adjust("1 second")
      expect(yield* Effect.flip(Fiber.join(fiber))).toBe(error)
    })
  )

  it.effect("stops at once when interrupted: the query in flight is interrupted and nothing stays armed", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make()
      const q = scripted(["queued"], 1_000)
      const fiber = yield* Effect.forkChild(poller.watch({ query: q.query, intervalMs: 3_000, timeoutMs: 60_000 }))
      yield* TestClock.adjust("3500 millis")
      expect(q.running()).toBe(1)
      yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust("1 millis")
      expect(q.running()).toBe(0)
      expect(poller.stats()).toEqual({ polls: 0, running: 0, waiting: 0, slots: 0 })
      yield* TestClock.adjust("1 minute")
      expect(q.starts).toEqual([0, 3_000])
    })
  )

  it.effect("runs at most maxInFlight queries of all its polls at once; the others wait their turn in order", () =>
    Effect.gen(function* () {
      const poller = VideoPoller.make({ maxInFlight: 2 })
      const queries = [0, 1, 2, 3, 4].map((i) => scripted(["succeeded"], 100, `vid_${i}`))
      let running = 0
      let peak = 0
      const fibers = yield* Effect.forEach(queries, (q) =>
        Effect.forkChild(
          poller.watch({
            query: Effect.acquireUseRelease(
              Effect.sync(() => (peak = Math.max(peak, ++running))),
              () => q.query,
              () => Effect.sync(() => running--)
            ),
            intervalMs: 3_000,
            timeoutMs: 60_000
          })
        )
      )
      yield* TestClock.adjust("1 second")
      yield* Fiber.joinAll(fibers)
      expect(peak).toBe(2)
      expect(queries.map((q) => q.starts[0])).toEqual([0, 0, 100, 100, 200])
    })
  )

  it.effect(
    "lets 10,000 polls spread over an interval share a few hundred wake-ups, and frees them all when interrupted",
    () =>
      Effect.gen(function* () {
        const poller = VideoPoller.make({ maxInFlight: 10_000 })
        let queries = 0
        const query = Effect.sync(() => {
          queries++
          return task("queued")
        })
        const fibers: Array<Fiber.Fiber<unknown, unknown>> = []
        for (let i = 0; i < 10_000; i++) {
          fibers.push(yield* Effect.forkChild(poller.watch({ query, intervalMs: 4_000, timeoutMs: 300_000 })))
          if (i % 100 === 99) yield* TestClock.adjust("40 millis")
        }
        yield* TestClock.adjust("10 seconds")
        expect(poller.stats().polls).toBe(10_000)
        // Next queries of 10,000 polls on a 25 ms grid over 4 s, plus their deadlines: a few hundred slots.
        expect(poller.stats().slots).toBeLessThanOrEqual(400)
        const atStop = queries
        expect(atStop).toBeGreaterThanOrEqual(30_000)
        yield* Fiber.interruptAll(fibers)
        expect(poller.stats()).toEqual({ polls: 0, running: 0, waiting: 0, slots: 0 })
        yield* TestClock.adjust("1 minute")
        expect(queries).toBe(atStop)
      })
  )

  it.effect("is not process-global: two pollers keep their own bounds", () =>
    Effect.gen(function* () {
      const a = VideoPoller.make({ maxInFlight: 1 })
      const b = VideoPoller.make({ maxInFlight: 1 })
      const qa = scripted(["succeeded"], 500)
      const qb = scripted(["succeeded"], 500)
      const fa = yield* Effect.forkChild(a.watch({ query: qa.query, intervalMs: 3_000, timeoutMs: 60_000 }))
      const fb = yield* Effect.forkChild(b.watch({ query: qb.query, intervalMs: 3_000, timeoutMs: 60_000 }))
      yield* TestClock.adjust("1 second")
      expect(Exit.isSuccess(yield* Fiber.await(fa))).toBe(true)
      expect(Exit.isSuccess(yield* Fiber.await(fb))).toBe(true)
      expect([qa.starts, qb.starts]).toEqual([[0], [0]])
    })
  )
})
