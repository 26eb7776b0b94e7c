import fc from "fast-check"
import { defer, finalize, map, mergeMap, type Observable, throwError, timer, toArray } from "rxjs"
import { TestScheduler } from "rxjs/testing"
import { describe, expect, it } from "vitest"
import { RateLimited, ServerError } from "../../src/core/errors/GatewayError.js"
import { mapConcurrent, type MapConcurrentEvent } from "../../src/streams/mapConcurrent.js"

const makeScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected))
const limited = (retryAfterMs?: number) =>
  new RateLimited({ family: "openai", status: 429, message: "slow down", ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })

type Ev = MapConcurrentEvent<string, string>
const result = (index: number, done: number, total: number): Ev => ({ type: "result", index, input: `in${index}`, result: `out${index}`, done, total })

describe("mapConcurrent", () => {
  it("runs at most `concurrency` calls at once and emits each result with its index and progress", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const inputs = ["in0", "in1", "in2", "in3", "in4"]
      const calls = inputs.map((_, i) => cold("--r|", { r: `out${i}` }))
      const batch = mapConcurrent(inputs, (_, i) => calls[i]!, { concurrency: 2 })
      expectObservable(batch.pipe(map((e) => [ts.now(), e]), toArray())).toBe("------(a|)", {
        a: [
          [2, result(0, 1, 5)],
          [2, result(1, 2, 5)],
          [4, result(2, 3, 5)],
          [4, result(3, 4, 5)],
          [6, result(4, 5, 5)]
        ]
      })
      expectSubscriptions(calls[0]!.subscriptions).toBe("^-!")
      expectSubscriptions(calls[1]!.subscriptions).toBe("^-!")
      expectSubscriptions(calls[2]!.subscriptions).toBe("--^-!")
      expectSubscriptions(calls[4]!.subscriptions).toBe("----^-!")
    })
  })

  it("on a 429 pauses for retryAfterMs, halves the concurrency and retries that same item", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const inputs = ["in0", "in1", "in2", "in3"]
      const rejected = cold("-#", undefined, limited(100))
      const retried = cold("--r|", { r: "out1" })
      let firstTry = true
      const call = (_: string, i: number): Observable<string> => {
        if (i !== 1) return cold("--r|", { r: `out${i}` })
        if (!firstTry) return retried
        firstTry = false
        return rejected
      }
      const batch = mapConcurrent(inputs, call, { concurrency: 4 })
      expectObservable(batch.pipe(map((e) => [ts.now(), e]), toArray())).toBe("103ms (a|)", {
        a: [
          [1, { type: "rate-limited", index: 1, input: "in1", attempt: 1, delayMs: 100, concurrency: 2, done: 0, total: 4 }],
          [2, result(0, 1, 4)],
          [2, result(2, 2, 4)],
          [2, result(3, 3, 4)],
          [103, result(1, 4, 4)]
        ]
      })
      expectSubscriptions(retried.subscriptions).toBe("101ms ^-!")
    })
  })

  it("backs off 0.5 s, then 1 s when a 429 says nothing of when to come back", () => {
    makeScheduler().run(({ cold, expectObservable }) => {
      let tries = 0
      const call = () => (tries++ < 2 ? cold("#", undefined, limited()) : cold("r|", { r: "out0" }))
      const batch = mapConcurrent(["in0"], call, { concurrency: 1 }).pipe(map((e) => (e.type === "result" ? "r" : e.delayMs)))
      expectObservable(batch).toBe("a 499ms b 999ms (r|)", { a: 500, b: 1000, r: "r" })
    })
  })

  it("fails the batch with a non-429 error and cancels the calls in flight", () => {
    makeScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const error = new ServerError({ family: "openai", status: 500, message: "boom" })
      const slow = cold("----r|", { r: "out0" })
      const failing = cold("-#", undefined, error)
      const batch = mapConcurrent(["in0", "in1"], (_, i) => (i === 0 ? slow : failing), { concurrency: 2 })
      expectObservable(batch).toBe("-#", undefined, error)
      expectSubscriptions(slow.subscriptions).toBe("^!")
    })
  })

  it("gives up with the RateLimited error after maxRetries", () => {
    makeScheduler().run(({ cold, expectObservable }) => {
      const error = limited(10)
      const batch = mapConcurrent(["in0"], () => cold("#", undefined, error), { concurrency: 1, maxRetries: 2 }).pipe(
        map((e) => e.type)
      )
      expectObservable(batch).toBe("a 9ms a 9ms #", { a: "rate-limited" }, error)
    })
  })

  it("cancels every call in flight when unsubscribed", () => {
    makeScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const calls = [cold("-----r|"), cold("-----r|")]
      const batch = mapConcurrent(["in0", "in1", "in2"], (_, i) => calls[i % 2]!, { concurrency: 2 })
      expectObservable(batch, "^--!").toBe("---")
      expectSubscriptions(calls[0]!.subscriptions).toBe("^--!")
      expectSubscriptions(calls[1]!.subscriptions).toBe("^--!")
    })
  })

  it("completes at once for no inputs", () => {
    makeScheduler().run(({ expectObservable }) => {
      expectObservable(mapConcurrent([], () => throwError(() => new Error("never called")), { concurrency: 3 })).toBe("|")
    })
  })

  it("answers every input exactly once, within the concurrency, whatever the 429s and latencies", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(20), fc.nat(3), fc.nat(50)), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        (plan, concurrency) => {
          const seen: Array<number> = []
          let inFlight = 0
          let peak = 0
          const tries = new Map<number, number>()
          makeScheduler().run(() => {
            const call = (input: number, index: number) =>
              defer(() => {
                inFlight++
                peak = Math.max(peak, inFlight)
                const attempt = tries.get(index) ?? 0
                tries.set(index, attempt + 1)
                const [latency, failures, retryAfter] = plan[index]!
                return timer(latency).pipe(
                  mergeMap(() => (attempt < failures ? throwError(() => limited(retryAfter)) : [input * 2])),
                  finalize(() => inFlight--)
                )
              })
            mapConcurrent(
              plan.map((_, i) => i),
              call,
              { concurrency }
            ).subscribe((e) => {
              if (e.type === "result") {
                expect(e.result).toBe(e.index * 2)
                seen.push(e.index)
              }
            })
          })
          expect([...seen].sort((a, b) => a - b)).toEqual(plan.map((_, i) => i))
          expect(peak).toBeLessThanOrEqual(concurrency)
        }
      )
    )
  })
})
