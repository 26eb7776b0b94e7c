import { Effect, Queue, Stream } from "effect"
import { lastValueFrom, take, toArray, type Observable } from "rxjs"
import { describe, expect, it } from "vitest"
import { TransportError } from "../../src/core/errors/GatewayError.js"
import type { Runner } from "../../src/streams/Bridge.js"
import { fromScopedSession, type SessionState } from "../../src/streams/RxSession.js"
import { recordUnhandledRejections } from "../fixtures/unhandled.js"

const run: Runner<never> = (effect) => Effect.runFork(effect)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A fake socket: server events from a queue, sends recorded, the release noted. */
const fakeSession = () => {
  const sent: Array<string> = []
  let released = 0
  const queue = Effect.runSync(Queue.unbounded<string>())
  const connect = Effect.acquireRelease(
    Effect.delay(
      Effect.succeed({
        events: Stream.fromQueue(queue),
        send: (event: string) => Effect.sync(() => void sent.push(event))
      }),
      "10 millis"
    ),
    () => Effect.sync(() => void released++)
  )
  return { connect, queue, sent, released: () => released }
}

/** A socket that never opens: connecting fails with `error` after 10 ms. */
const failingConnect = (error: Error) =>
  Effect.delay(Effect.fail(error), "10 millis") as Effect.Effect<
    { events: Stream.Stream<string>; send: (event: string) => Effect.Effect<void> },
    Error
  >

const unhandled = recordUnhandledRejections()

describe("fromScopedSession", () => {
  it("emits the session at once while connecting, and unsubscribing then still closes the socket", async () => {
    const fake = fakeSession()
    const states: Array<SessionState> = []
    const [session] = await lastValueFrom(fromScopedSession(run, "realtime", fake.connect).pipe(take(1), toArray()))
    session!.state$.subscribe((s) => states.push(s))
    await sleep(30)
    expect(states).toEqual([{ status: "connecting" }, { status: "closed", by: "client", code: 1000 }])
    expect(fake.released()).toBe(1)
  })

  it("sends an event queued while connecting once the session is open, and delivers server events", async () => {
    const fake = fakeSession()
    const states: Array<string> = []
    const seen: Array<string> = []
    const sub = fromScopedSession(run, "realtime", fake.connect).subscribe((session) => {
      session.state$.subscribe((s) => states.push(s.status))
      session.events$.subscribe((e) => seen.push(e))
      void session.send("hello")
    })
    await sleep(30)
    expect(fake.sent).toEqual(["hello"])
    Queue.offerUnsafe(fake.queue, "server-1")
    await sleep(10)
    expect(seen).toEqual(["server-1"])
    sub.unsubscribe()
    await sleep(10)
    expect(states).toEqual(["connecting", "open", "closed"])
    expect(fake.released()).toBe(1)
  })

  it("rejects a send after the session closed with TransportError", async () => {
    const fake = fakeSession()
    let send: ((e: string) => Promise<void>) | undefined
    const sub = fromScopedSession(run, "live", fake.connect).subscribe((s) => (send = s.send))
    await sleep(20)
    sub.unsubscribe()
    await sleep(10)
    await expect(send!("late")).rejects.toBeInstanceOf(TransportError)
    expect(fake.sent).toEqual([])
  })

  it("never leaves a fire-and-forget send as an unhandled rejection when the session fails to open", async () => {
    const refused = new Error("Invalid API key.")
    const errors: Array<unknown> = []
    fromScopedSession(run, "realtime", failingConnect(refused)).subscribe({
      next: (session) => {
        void session.send("queued-1")
        void session.send("queued-2")
      },
      error: (error) => errors.push(error)
    })
    await sleep(30)
    await new Promise((r) => setImmediate(r))
    expect(errors).toEqual([refused])
    expect(unhandled.seen()).toEqual([])
  })

  it("rejects an awaited send with why the session failed to open, queued or sent after the failure", async () => {
    const refused = new Error("Invalid API key.")
    let send: ((e: string) => Promise<void>) | undefined
    fromScopedSession(run, "live", failingConnect(refused)).subscribe({ next: (s) => (send = s.send), error: () => {} })
    const queued = send!("queued")
    await expect(queued).rejects.toBe(refused)
    await expect(send!("late")).rejects.toBe(refused)
    await sleep(0)
    expect(unhandled.seen()).toEqual([])
  })

  it("still rejects a send after a session that was open closed with TransportError, marked handled", async () => {
    const fake = fakeSession()
    let send: ((e: string) => Promise<void>) | undefined
    const sub = fromScopedSession(run, "realtime", fake.connect).subscribe((s) => (send = s.send))
    await sleep(20)
    sub.unsubscribe()
    await sleep(10)
    void send!("ignored")
    await sleep(0)
    await new Promise((r) => setImmediate(r))
    expect(unhandled.seen()).toEqual([])
    await expect(send!("late")).rejects.toMatchObject({ _tag: "TransportError", reason: "closed" })
  })

  it("replays the final closed state, then completes, to a state$ subscriber that comes after the end", async () => {
    const lateSeen = async (end: "client" | "failure") => {
      const fake = fakeSession()
      const refused = new Error("refused")
      let session: { state$: Observable<SessionState> } | undefined
      const sub = fromScopedSession(
        run,
        "realtime",
        end === "client" ? fake.connect : failingConnect(refused)
      ).subscribe({ next: (s) => (session = s), error: () => {} })
      await sleep(20)
      if (end === "client") sub.unsubscribe()
      await sleep(10)
      const seen: Array<SessionState | "complete"> = []
      session!.state$.subscribe({ next: (s) => seen.push(s), complete: () => seen.push("complete") })
      return seen
    }
    expect(await lateSeen("client")).toEqual([{ status: "closed", by: "client", code: 1000 }, "complete"])
    expect(await lateSeen("failure")).toEqual([
      { status: "closed", by: "server", error: new Error("refused") },
      "complete"
    ])
  })
})
