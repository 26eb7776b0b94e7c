import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Stream } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { Gateway } from "../../src/adapters/Gateway.js"
import { makeFake } from "./fakeHttp.js"

const task = (status: string, extra: object = {}) => ({
  status: 200,
  body: { task_id: "video_1", status, format: "mp4", ...extra }
})

const gatewayWith = (fake: ReturnType<typeof makeFake>) =>
  Gateway.layer({
    baseUrl: "http://gw.test",
    apiKey: "k",
    httpClient: Layer.succeed(HttpClient.HttpClient, fake.client)
  })

describe("video.poll", () => {
  it.effect("emits each status change once, querying every 4 s by default", () =>
    Effect.gen(function* () {
      const fake = makeFake([
        task("queued"),
        task("queued"),
        task("in_progress"),
        task("in_progress"),
        task("succeeded", { url: "https://v.test/1.mp4" })
      ])
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(Gateway, (g) => Stream.runCollect(g.video.poll("video_1"))).pipe(
          Effect.provide(gatewayWith(fake))
        )
      )
      yield* TestClock.adjust("3999 millis")
      expect(fake.requests.length).toBe(1)
      yield* TestClock.adjust("1 millis")
      expect(fake.requests.length).toBe(2)
      yield* TestClock.adjust("20 seconds")
      const out = yield* Fiber.join(fiber)
      expect(out.map((t) => t.status)).toEqual(["queued", "in_progress", "succeeded"])
      expect(fake.requests.length).toBe(5)
    })
  )

  it.effect("refuses an interval outside 3–5 s with an InvalidRequest naming intervalMs, before any query", () =>
    Effect.gen(function* () {
      const fake = makeFake([task("queued"), task("succeeded")])
      for (const intervalMs of [100, 2999, 5001]) {
        const error = yield* Effect.flatMap(Gateway, (g) =>
          Effect.flip(Stream.runDrain(g.video.poll("video_1", { intervalMs })))
        ).pipe(Effect.provide(gatewayWith(fake)))
        expect(error).toMatchObject({ _tag: "InvalidRequest", field: "intervalMs", rule: "range" })
        expect(error.message).toContain("allowed: 3000 to 5000")
      }
      expect(fake.requests.length).toBe(0)
    })
  )

  it.effect("queries every 3 s when asked for the shortest allowed interval", () =>
    Effect.gen(function* () {
      const fake = makeFake([task("queued"), task("succeeded")])
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(Gateway, (g) => Stream.runCollect(g.video.poll("video_1", { intervalMs: 3000 }))).pipe(
          Effect.provide(gatewayWith(fake))
        )
      )
      yield* TestClock.adjust("2999 millis")
      expect(fake.requests.length).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(fiber)
      expect(fake.requests.length).toBe(2)
    })
  )

  it.effect("gives up with a poll TimeoutError after the default 300 s", () =>
    Effect.gen(function* () {
      const fake = makeFake([task("in_progress")])
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(Gateway, (g) => Effect.flip(Stream.runDrain(g.video.poll("video_1")))).pipe(
          Effect.provide(gatewayWith(fake))
        )
      )
      yield* TestClock.adjust("301 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "TimeoutError", phase: "poll", timeoutMs: 300_000 })
      // Queries at 0, 4 s, …, 296 s: the one due at 300 s is the deadline.
      expect(fake.requests.length).toBe(75)
    })
  )

  it.effect("emits failed, then fails with VideoTaskFailed carrying the task's error", () =>
    Effect.gen(function* () {
      const fake = makeFake([task("failed", { error: { code: 1301, message: "rejected" } })])
      const result = yield* Effect.flatMap(Gateway, (g) =>
        g.video.poll("video_1").pipe(Stream.result, Stream.runCollect)
      ).pipe(Effect.provide(gatewayWith(fake)))
      expect(result[0]).toMatchObject({ _tag: "Success", success: { status: "failed" } })
      expect(result[1]).toMatchObject({
        _tag: "Failure",
        failure: { _tag: "VideoTaskFailed", code: 1301, taskId: "video_1" }
      })
    })
  )
})
