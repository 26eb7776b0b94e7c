import type { Observable } from "rxjs"
import { TestScheduler } from "rxjs/testing"
import { describe, expect, it } from "vitest"
import { NotFound, TimeoutError, VideoTaskFailed } from "../../src/core/errors/GatewayError.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { PollClock } from "../../src/streams/PollClock.js"
import { pollTask$, type PollableTask, type PollUpdate } from "../../src/streams/pollTask.js"

const task = (status: string, extra: Partial<PollableTask> = {}): PollableTask => ({ task_id: "vid_1", status, ...extra })
const T = {
  q: task("queued"),
  p: task("in_progress"),
  s: task("succeeded"),
  f: task("failed", { error: { code: 500, message: "upstream exploded" } })
}

const makeScheduler = () => {
  const ts = new TestScheduler((actual, expected) => expect(actual).toEqual(expected))
  // Outside \`run\`, flush stops at 750 frames by default; poll times are thousands of ms.
  ts.maxFrames = Number.POSITIVE_INFINITY
  return ts
}

/** A fetch answering with the given cold observables in turn (the last one repeats). */
const answers = (colds: ReadonlyArray<Observable<PollableTask>>) => {
  let i = 0
  return () => colds[Math.min(i++, colds.length - 1)]!
}

const update = (t: PollableTask, polls: number, elapsedMs: number): PollUpdate<PollableTask> => ({ task: t, polls, elapsedMs })

describe("pollTask$", () => {
  it("queries at once, then every intervalMs from each query's start, and completes after succeeded", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const q1 = cold("-a|", { a: T.q })
      const q2 = cold("-a|", { a: T.p })
      const q3 = cold("-a|", { a: T.s })
      const clock = new PollClock(ts, 1)
      const polled = pollTask$(answers([q1, q2, q3]), { intervalMs: 3000, clock })
      expectObservable(polled).toBe("-a 2999ms b 2999ms (c|)", {
        a: update(T.q, 1, 1),
        b: update(T.p, 2, 3001),
        c: update(T.s, 3, 6001)
      })
      expectSubscriptions(q1.subscriptions).toBe("^!")
      expectSubscriptions(q2.subscriptions).toBe("3000ms ^!")
      expectSubscriptions(q3.subscriptions).toBe("6000ms ^!")
    })
  })

  it("emits each status once however many times it is reported", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable }) => {
      const q = cold("a|", { a: T.q })
      const s = cold("a|", { a: T.s })
      const polled = pollTask$(answers([q, q, q, s]), { intervalMs: 5000, clock: new PollClock(ts, 1) })
      expectObservable(polled).toBe("a 14999ms (b|)", { a: update(T.q, 1, 0), b: update(T.s, 4, 15000) })
    })
  })

  it("emits the failed status, then errors with VideoTaskFailed carrying the task's error", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable }) => {
      const polled = pollTask$(answers([cold("a|", { a: T.q }), cold("a|", { a: T.f })]), { intervalMs: 4000, clock: new PollClock(ts, 1) })
      const error = new VideoTaskFailed({ family: "video", taskId: "vid_1", code: 500, message: "upstream exploded" })
      expectObservable(polled).toBe("a 3999ms (b#)", { a: update(T.q, 1, 0), b: update(T.f, 2, 4000) }, error)
    })
  })

  it("errors with a poll TimeoutError at timeoutMs and queries no more", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const q = cold("a|", { a: T.q })
      const clock = new PollClock(ts, 1)
      const polled = pollTask$(answers([q]), { intervalMs: 3000, timeoutMs: 10_000, clock })
      const error = new TimeoutError({ family: "video", phase: "poll", timeoutMs: 10_000, message: "task vid_1 did not finish within 10000 ms" })
      expectObservable(polled).toBe("a 9999ms #", { a: update(T.q, 1, 0) }, error)
      expectSubscriptions(q.subscriptions).toBe(["(^!)", "3000ms (^!)", "6000ms (^!)", "9000ms (^!)"])
      ts.schedule(() => expect(clock.pending).toBe(0), 20_000)
    })
  })

  it("times out a query still in flight at the deadline and cancels it", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold("20s a|", { a: T.q })
      const polled = pollTask$(() => slow, { intervalMs: 3000, timeoutMs: 5000, clock: new PollClock(ts, 1) })
      const error = new TimeoutError({ family: "video", phase: "poll", timeoutMs: 5000, message: "the task did not finish within 5000 ms" })
      expectObservable(polled).toBe("5s #", undefined, error)
      expectSubscriptions(slow.subscriptions).toBe("^ 4999ms !")
    })
  })

  it("cancels the query in flight and stops polling when unsubscribed", () => {
    const ts = makeScheduler()
    const clock = new PollClock(ts, 1)
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const q1 = cold("-a|", { a: T.q })
      const q2 = cold("500ms a|", { a: T.q })
      const polled = pollTask$(answers([q1, q2]), { intervalMs: 3000, clock })
      expectObservable(polled, "^ 3199ms !").toBe("-a", { a: update(T.q, 1, 1) })
      expectSubscriptions(q1.subscriptions).toBe("^!")
      expectSubscriptions(q2.subscriptions).toBe("3000ms ^ 199ms !")
    })
    expect(clock.pending).toBe(0)
    expect(clock.timers).toBe(0)
  })

  it("never starts a query while one is in flight: a slow answer delays the next query", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectSubscriptions, expectObservable }) => {
      const slow = cold("4s a|", { a: T.q })
      const done = cold("a|", { a: T.s })
      const polled = pollTask$(answers([slow, done]), { intervalMs: 3000, clock: new PollClock(ts, 1) })
      expectObservable(polled).toBe("4s (ab|)", { a: update(T.q, 1, 4000), b: update(T.s, 2, 4000) })
      expectSubscriptions(slow.subscriptions).toBe("^ 3999ms !")
      expectSubscriptions(done.subscriptions).toBe("4s (^!)")
    })
  })

  it("ends with the query's own typed error when a query fails", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable }) => {
      const error = new NotFound({ family: "video", status: 404, message: "no such task" })
      const polled = pollTask$(answers([cold("a|", { a: T.q }), cold("-#", undefined, error)]), { intervalMs: 3000, clock: new PollClock(ts, 1) })
      expectObservable(polled).toBe("a 3000ms #", { a: update(T.q, 1, 0) }, error)
    })
  })

  it("refuses an interval outside the spec's 3–5 s with InvalidRequest naming intervalMs", () => {
    for (const intervalMs of [2999, 5001, Number.NaN]) {
      let error: unknown
      pollTask$(() => {
        throw new Error("must not query")
      }, { intervalMs }).subscribe({ error: (e: unknown) => (error = e) })
      expect(error).toBeInstanceOf(InvalidRequest)
      expect((error as InvalidRequest).field).toBe("intervalMs")
      expect((error as InvalidRequest).rule).toBe("range")
    }
  })

  it("accepts a shorter interval only when minIntervalMs is lowered (emulator timings)", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectObservable }) => {
      const polled = pollTask$(answers([cold("a|", { a: T.q }), cold("a|", { a: T.s })]), {
        intervalMs: 50,
        minIntervalMs: 10,
        clock: new PollClock(ts, 1)
      })
      expectObservable(polled).toBe("a 49ms (b|)", { a: update(T.q, 1, 0), b: update(T.s, 2, 50) })
    })
  })

  it("keeps the cadence within one grid step of the interval on a coarse shared clock", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectSubscriptions, expectObservable }) => {
      // Subscribed at 30 ms: the next query's window [3030, 5030] holds grid point 3100.
      const q = cold("a|", { a: T.q })
      const s = cold("a|", { a: T.s })
      const polled = pollTask$(answers([q, s]), { intervalMs: 3000, clock: new PollClock(ts, 100) })
      expectObservable(polled, "30ms ^").toBe("30ms a 3069ms (b|)", { a: update(T.q, 1, 0), b: update(T.s, 2, 3070) })
      expectSubscriptions(q.subscriptions).toBe("30ms (^!)")
      expectSubscriptions(s.subscriptions).toBe("3100ms (^!)")
    })
  })
})

describe("PollClock", () => {
  it("runs at most maxInFlight queries of its polls at once; the others wait their turn in order", () => {
    const ts = makeScheduler()
    ts.run(({ cold, expectSubscriptions, expectObservable }) => {
      const clock = new PollClock(ts, 1, 1)
      const slow = [0, 1, 2].map(() => cold("--a|", { a: T.s }))
      const polls = slow.map((q) => pollTask$(() => q, { intervalMs: 3000, clock }))
      const expected = ["2ms (a|)", "4ms (a|)", "6ms (a|)"]
      polls.forEach((p, i) => expectObservable(p).toBe(expected[i]!, { a: update(T.s, 1, 2 * (i + 1)) }))
      expectSubscriptions(slow[0]!.subscriptions).toBe("^-!")
      expectSubscriptions(slow[1]!.subscriptions).toBe("--^-!")
      expectSubscriptions(slow[2]!.subscriptions).toBe("----^-!")
    })
  })

  it("gives up a waiting turn when the poll is unsubscribed", () => {
    const ts = makeScheduler()
    const clock = new PollClock(ts, 1, 1)
    const started: Array<string> = []
    const first = clock.acquire(() => started.push("first"))
    const second = clock.acquire(() => started.push("second"))
    const third = clock.acquire(() => started.push("third"))
    expect(clock.queries).toEqual({ running: 1, waiting: 2 })
    second.unsubscribe()
    first.unsubscribe()
    expect(started).toEqual(["first", "third"])
    third.unsubscribe()
    expect(clock.queries).toEqual({ running: 0, waiting: 0 })
  })

  it("gives callbacks due in the same grid step one shared timer, and drops it when the last is cancelled", () => {
    const ts = makeScheduler()
    const clock = new PollClock(ts, 100)
    const ran: Array<string> = []
    const a = clock.schedule(() => ran.push("a"), 3010, 3200)
    clock.schedule(() => ran.push("b"), 3050, 3200)
    clock.schedule(() => ran.push("c"), 3000)
    expect(clock.pending).toBe(3)
    expect(clock.timers).toBe(2)
    a.unsubscribe()
    expect(clock.timers).toBe(2)
    ts.flush()
    expect(ran).toEqual(["c", "b"])
    expect(ts.now()).toBe(3100)
    expect(clock.timers).toBe(0)
  })

  it("runs a callback exactly at its earliest time when its window holds no grid point", () => {
    const ts = makeScheduler()
    const clock = new PollClock(ts, 100)
    let at = -1
    clock.schedule(() => (at = ts.now()), 3010, 3020)
    ts.flush()
    expect(at).toBe(3010)
  })
})

describe("pollTask$ at scale", () => {
  it("lets 10,000 polls spread over one interval share a few hundred timers, and frees them all on unsubscribe", () => {
    const ts = makeScheduler()
    const clock = new PollClock(ts, 50)
    const subscriptions: Array<{ unsubscribe(): void }> = []
    let queries = 0
    let atStop = -1
    ts.run(({ cold }) => {
      const queued = cold("-a|", { a: T.q })
      for (let i = 0; i < 10_000; i++) {
        ts.schedule(() => {
          subscriptions.push(
            pollTask$(
              () => {
                queries++
                return queued
              },
              { intervalMs: 3000, clock }
            ).subscribe()
          )
        }, Math.floor((i * 3000) / 10_000))
      }
      ts.schedule(() => {
        // Each poll holds two callbacks (its next query and its deadline)…
        expect(clock.pending).toBe(20_000)
        // …on one timer per 50 ms slot: 60 slots of next queries and 60 of deadlines at most.
        expect(clock.timers).toBeLessThanOrEqual(122)
        for (const s of subscriptions) s.unsubscribe()
        expect(clock.pending).toBe(0)
        expect(clock.timers).toBe(0)
        atStop = queries
      }, 4_000)
      // Let virtual time run on: no query after the unsubscription.
      ts.schedule(() => undefined, 20_000)
    })
    expect(atStop).toBeGreaterThan(10_000)
    expect(queries).toBe(atStop)
  })
})
