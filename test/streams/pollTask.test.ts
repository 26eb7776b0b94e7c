// pollTask$ is a projection of the adapters' one poll loop (VideoPoller, whose cadence is tested with
// the TestClock in test/adapters/VideoPoller.test.ts): these tests check what the projection adds —
// values, errors, completion and unsubscription — in real time with emulator-short intervals.
import { defer, lastValueFrom, NEVER, Observable, of, throwError, toArray } from "rxjs"
import { describe, expect, it } from "vitest"
import { NotFound, TimeoutError, VideoTaskFailed } from "../../src/core/errors/GatewayError.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
// From the entry point, as a user imports them (`umg/rx`).
import { makePoller, pollTask$, type PollableTask } from "../../src/streams/index.js"

const task = (status: string): PollableTask =>
  status === "failed"
    ? { task_id: "vid_1", status, error: { code: 500, message: "upstream exploded" } }
    : { task_id: "vid_1", status }
const fast = { intervalMs: 20, minIntervalMs: 10 }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A query answering the statuses in turn (the last repeats), counting queries. */
const answers = (statuses: ReadonlyArray<string>) => {
  let n = 0
  const fetch = () => defer(() => of(task(statuses[Math.min(n++, statuses.length - 1)]!)))
  return { fetch, queries: () => n }
}

describe("pollTask$ (a projection of the adapters' poll loop)", () => {
  it("emits each status change once with its poll count, and completes after succeeded", async () => {
    const q = answers(["queued", "queued", "in_progress", "in_progress", "succeeded"])
    const updates = await lastValueFrom(pollTask$(q.fetch, fast).pipe(toArray()))
    expect(updates.map((u) => [u.task.status, u.polls])).toEqual([
      ["queued", 1],
      ["in_progress", 3],
      ["succeeded", 5]
    ])
    expect(q.queries()).toBe(5)
  })

  it("emits the failed status, then errors with VideoTaskFailed carrying the task's error", async () => {
    const seen: Array<string> = []
    const error = await new Promise((resolve) =>
      pollTask$(answers(["queued", "failed"]).fetch, fast).subscribe({
        next: (u) => seen.push(u.task.status),
        error: resolve
      })
    )
    expect(seen).toEqual(["queued", "failed"])
    expect(error).toBeInstanceOf(VideoTaskFailed)
    expect(error).toMatchObject({ taskId: "vid_1", code: 500, message: "upstream exploded" })
  })

  it("ends with the query's own typed error when a query fails", async () => {
    const error = new NotFound({ family: "video", status: 404, message: "no such task" })
    let n = 0
    const failing = () => (n++ === 0 ? of(task("queued")) : throwError(() => error))
    expect(await lastValueFrom(pollTask$(failing, fast)).catch((e: unknown) => e)).toBe(error)
  })

  it("errors with a poll TimeoutError at timeoutMs, cancelling the query in flight", async () => {
    let cancelled = 0
    const hanging = () => new Observable<PollableTask>(() => () => void cancelled++)
    const error = await lastValueFrom(pollTask$(hanging, { ...fast, timeoutMs: 60 })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toMatchObject({ phase: "poll", timeoutMs: 60 })
    expect(cancelled).toBe(1)
  })

  it("cancels the query in flight and queries no more when unsubscribed", async () => {
    let started = 0
    let cancelled = 0
    const slow = () =>
      new Observable<PollableTask>((subscriber) => {
        started++
        const timer = setTimeout(() => subscriber.next(task("queued")), started === 1 ? 0 : 10_000)
        return () => {
          clearTimeout(timer)
          cancelled++
        }
      })
    const subscription = pollTask$(slow, fast).subscribe()
    for (let i = 0; i < 100 && started < 2; i++) await sleep(10)
    subscription.unsubscribe()
    expect(started).toBe(2)
    await expect.poll(() => cancelled).toBe(2)
    await sleep(100)
    expect(started).toBe(2)
  })

  it("refuses an interval outside the allowed 3–5 s with InvalidRequest naming intervalMs, before any query", () => {
    for (const intervalMs of [2999, 5001, Number.NaN]) {
      let error: unknown
      pollTask$(
        () => {
          throw new Error("must not query")
        },
        { intervalMs }
      ).subscribe({ error: (e: unknown) => (error = e) })
      expect(error).toBeInstanceOf(InvalidRequest)
      expect((error as InvalidRequest).field).toBe("intervalMs")
      expect((error as InvalidRequest).rule).toBe("range")
    }
  })

  it("shares a poller's bound on queries in flight between the polls given it", async () => {
    const poller = makePoller({ maxInFlight: 1 })
    let running = 0
    let peak = 0
    const query = () =>
      new Observable<PollableTask>((subscriber) => {
        peak = Math.max(peak, ++running)
        const timer = setTimeout(() => subscriber.next(task("succeeded")), 10)
        return () => {
          clearTimeout(timer)
          running--
        }
      })
    const all = await Promise.all([0, 1, 2, 3].map(() => lastValueFrom(pollTask$(query, { ...fast, poller }))))
    expect(all.map((u) => u.task.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"])
    expect(peak).toBe(1)
    expect(poller.stats()).toEqual({ polls: 0, running: 0, waiting: 0, slots: 0 })
  })

  it("is cold: nothing is queried until subscribed", async () => {
    let queried = 0
    pollTask$(() => {
      queried++
      return NEVER
    }, fast)
    await sleep(30)
    expect(queried).toBe(0)
  })
})
