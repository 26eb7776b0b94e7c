// mapConcurrent hands Observable calls to the adapters' one adaptive batching rule (mapAdaptive, whose
// timing is tested on the TestClock in test/adapters/AdaptiveConcurrency.test.ts); these tests check
// the projection in real time: results, rate-limit notices, errors, cancellation.
import { defer, lastValueFrom, Observable, of, throwError, timer, map, toArray } from "rxjs"
import { describe, expect, it } from "vitest"
import { RateLimited, ServerError } from "../../src/core/errors/GatewayError.js"
import { mapConcurrent } from "../../src/streams/mapConcurrent.js"

const limited = (retryAfterMs?: number) =>
  new RateLimited({
    family: "openai",
    status: 429,
    message: "slow down",
    ...(retryAfterMs === undefined ? {} : { retryAfterMs })
  })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A call that answers after `ms`, counting the calls running at once. */
const tracked = () => {
  let running = 0
  let peak = 0
  let cancelled = 0
  const call = (input: string, ms = 5) =>
    new Observable<string>((subscriber) => {
      peak = Math.max(peak, ++running)
      let answered = false
      const t = setTimeout(() => {
        answered = true
        subscriber.next(input.replace("in", "out"))
        subscriber.complete()
      }, ms)
      return () => {
        running--
        clearTimeout(t)
        if (!answered) cancelled++
      }
    })
  return { call, peak: () => peak, running: () => running, cancelled: () => cancelled }
}

describe("mapConcurrent (a projection of the adapters' adaptive batching)", () => {
  it("runs at most `concurrency` calls at once and emits each result once with its index and progress", async () => {
    const t = tracked()
    const inputs = ["in0", "in1", "in2", "in3", "in4"]
    const events = await lastValueFrom(
      mapConcurrent(inputs, (input) => t.call(input), { concurrency: 2 }).pipe(toArray())
    )
    expect(events.map((e) => e.type === "result" && [e.index, e.result]).sort()).toEqual(
      inputs.map((_, i) => [i, `out${i}`])
    )
    expect(events.map((e) => e.type === "result" && [e.done, e.total])).toEqual([1, 2, 3, 4, 5].map((d) => [d, 5]))
    expect(t.peak()).toBe(2)
  })

  it("on a RateLimited error emits a rate-limited notice, halves the concurrency and retries the same item", async () => {
    let first = true
    const call = (input: string, i: number) =>
      defer(() => {
        if (i === 1 && first) {
          first = false
          return throwError(() => limited(20))
        }
        return timer(2).pipe(map(() => input.replace("in", "out")))
      })
    const events = await lastValueFrom(
      mapConcurrent(["in0", "in1", "in2", "in3"], call, { concurrency: 4 }).pipe(toArray())
    )
    expect(events[0]).toEqual({
      type: "rate-limited",
      index: 1,
      input: "in1",
      attempt: 1,
      delayMs: 20,
      concurrency: 2,
      done: 0,
      total: 4
    })
    expect(
      events
        .filter((e) => e.type === "result")
        .map((e) => e.index)
        .sort()
    ).toEqual([0, 1, 2, 3])
    expect(events.at(-1)).toMatchObject({ type: "result", index: 1, done: 4 })
  })

  it("fails the batch with a non-429 error and cancels the calls in flight", async () => {
    const t = tracked()
    const error = new ServerError({ family: "openai", status: 500, message: "boom" })
    const call = (input: string, i: number) =>
      i === 0
        ? t.call(input, 10_000)
        : timer(5).pipe(
            map(() => {
              throw error
            })
          )
    expect(await lastValueFrom(mapConcurrent(["in0", "in1"], call, { concurrency: 2 })).catch((e: unknown) => e)).toBe(
      error
    )
    await expect.poll(() => t.cancelled()).toBe(1)
  })

  it("gives up with the RateLimited error after maxRetries", async () => {
    const error = limited(5)
    const seen: Array<string> = []
    const result = await new Promise((resolve) =>
      mapConcurrent(["in0"], () => throwError(() => error), { concurrency: 1, maxRetries: 2 }).subscribe({
        next: (e) => seen.push(e.type),
        error: resolve
      })
    )
    expect(result).toBe(error)
    expect(seen).toEqual(["rate-limited", "rate-limited"])
  })

  it("cancels every call in flight when unsubscribed", async () => {
    const t = tracked()
    const subscription = mapConcurrent(["in0", "in1", "in2"], (input) => t.call(input, 10_000), {
      concurrency: 2
    }).subscribe()
    await sleep(20)
    expect(t.running()).toBe(2)
    subscription.unsubscribe()
    await expect.poll(() => t.cancelled()).toBe(2)
    expect(t.running()).toBe(0)
  })

  it("completes at once for no inputs", async () => {
    expect(await lastValueFrom(mapConcurrent([], () => of("never"), { concurrency: 3 }).pipe(toArray()))).toEqual([])
  })
})
