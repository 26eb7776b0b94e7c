import { Effect, Queue, Stream } from "effect"
import { lastValueFrom, take, toArray } from "rxjs"
import { describe, expect, it } from "vitest"
import { TransportError } from "../../src/core/errors/GatewayError.js"
import type { Runner } from "../../src/streams/Bridge.js"
import { fromScopedSession, type SessionState } from "../../src/streams/RxSession.js"

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
})
