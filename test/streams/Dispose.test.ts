// Disposing an Rx gateway under live subscribers, against the emulator: every call in flight is
// interrupted (HTTP request aborted, socket closed, poll stopped) and every subscriber hears of it —
// GatewayDisposed, never silence; calls made afterwards fail the same way.
import { FetchHttpClient } from "effect/http"
import { Layer } from "effect"
import { firstValueFrom, lastValueFrom, type Observable } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeSocketOpener } from "../../src/adapters/socket/NodeWebSocket.js"
import type { SocketOpener } from "../../src/adapters/socket/WebSocketSession.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, GatewayDisposed, type SessionState } from "../../src/streams/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, video: { queuedMs: 60_000, inProgressMs: 60_000 } })
})
afterAll(async () => {
  await emu.close()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const hello = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "Hello" }]
}

/** A gateway whose fetch records each request's AbortSignal and whose sockets are counted when closed. */
const instrumented = () => {
  const signals: Array<AbortSignal> = []
  let opened = 0
  let closed = 0
  const open: SocketOpener = (url, options) => {
    opened++
    const socket = nodeSocketOpener(url, options)
    return {
      ...socket,
      on: (handlers) =>
        socket.on({
          ...handlers,
          close: (code, reason) => {
            closed++
            handlers.close(code, reason)
          }
        })
    }
  }
  const gateway = createGateway({
    baseUrl: emu.url,
    apiKey: emu.apiKey,
    minPollIntervalMs: 50,
    maxRetries: 0,
    webSocket: open,
    httpClient: FetchHttpClient.layer.pipe(
      Layer.provide(
        Layer.succeed(FetchHttpClient.Fetch, ((input, init) => {
          if (init?.signal) signals.push(init.signal)
          return fetch(input, init)
        }) as typeof fetch)
      )
    )
  })
  return { gateway, signals, sockets: () => ({ opened, closed }) }
}

/** Subscribes and records how the Observable ended. */
const watch = <A>(observable: Observable<A>) => {
  const seen: { values: Array<A>; error?: unknown; completed: boolean } = { values: [], completed: false }
  observable.subscribe({
    next: (v) => seen.values.push(v),
    error: (e: unknown) => (seen.error = e),
    complete: () => (seen.completed = true)
  })
  return seen
}

describe("disposing an Rx gateway", () => {
  it("errors a stream subscriber with GatewayDisposed and aborts its HTTP request", async () => {
    const { gateway, signals } = instrumented()
    emu.inject("messages", { kind: "stall", afterEvents: 2 })
    const seen = watch(gateway.messages.stream$(hello))
    await expect.poll(() => seen.values.length, { timeout: 3_000 }).toBeGreaterThanOrEqual(1)
    await gateway.dispose()
    expect(seen.error).toBeInstanceOf(GatewayDisposed)
    expect(signals.at(-1)?.aborted).toBe(true)
  })

  it("errors a poll$ subscriber with GatewayDisposed and stops querying the task", async () => {
    const { gateway } = instrumented()
    const submitted = await firstValueFrom(
      gateway.video.submit$({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" })
    )
    const before = emu.counters.get("video.get")
    const seen = watch(gateway.video.poll$(submitted.task_id, { intervalMs: 50 }))
    // The first status has arrived and polling has gone on (a second query can start before the
    // first answer arrives when that takes longer than the interval, so both are awaited).
    await expect.poll(() => seen.values.length, { timeout: 3_000 }).toBe(1)
    await expect.poll(() => emu.counters.get("video.get") - before, { timeout: 3_000 }).toBeGreaterThanOrEqual(2)
    await gateway.dispose()
    expect(seen.values.map((t) => t.status)).toEqual(["queued"])
    expect(seen.error).toBeInstanceOf(GatewayDisposed)
    // A query sent just before the dispose may still reach the emulator (on a loaded machine, some
    // milliseconds later): counted once that has settled, then no new one may come (at a 50 ms
    // interval, 300 ms would show about six).
    await sleep(100)
    const atDispose = emu.counters.get("video.get")
    await sleep(300)
    expect(emu.counters.get("video.get")).toBe(atDispose)
  })

  it("closes an open realtime socket, ending the session and its subscribers with GatewayDisposed", async () => {
    const { gateway, sockets } = instrumented()
    const states: Array<SessionState> = []
    let eventsError: unknown
    const seen = watch(gateway.realtime.connect$("gpt-realtime"))
    await expect.poll(() => seen.values.length, { timeout: 3_000 }).toBe(1)
    const session = seen.values[0]!
    session.state$.subscribe((s) => states.push(s))
    session.events$.subscribe({ error: (e: unknown) => (eventsError = e) })
    await expect.poll(() => states.at(-1)?.status, { timeout: 3_000 }).toBe("open")
    await gateway.dispose()
    expect(seen.error).toBeInstanceOf(GatewayDisposed)
    expect(eventsError).toBeInstanceOf(GatewayDisposed)
    expect(states.at(-1)).toMatchObject({ status: "closed", by: "client" })
    await expect.poll(() => sockets(), { timeout: 3_000 }).toEqual({ opened: 1, closed: 1 })
    await expect(session.send({ type: "response.create" })).rejects.toBeDefined()
  })

  it("fails calls made afterwards with GatewayDisposed, sending nothing", async () => {
    const { gateway } = instrumented()
    await gateway.dispose()
    emu.counters.reset()
    expect(await lastValueFrom(gateway.messages.create$(hello)).catch((e: unknown) => e)).toBeInstanceOf(
      GatewayDisposed
    )
    expect(await lastValueFrom(gateway.video.poll$("video_x")).catch((e: unknown) => e)).toBeInstanceOf(GatewayDisposed)
    expect(emu.counters.snapshot()).toEqual({})
    await gateway.dispose()
  })

  it("leaves a subscriber that unsubscribed itself in peace, and one that completed completed", async () => {
    const { gateway } = instrumented()
    const done = watch(gateway.models.list$())
    await expect.poll(() => done.completed, { timeout: 3_000 }).toBe(true)
    const errors: Array<unknown> = []
    emu.inject("messages", { kind: "stall", afterEvents: 2 })
    const subscription = gateway.messages.stream$(hello).subscribe({ error: (e: unknown) => errors.push(e) })
    await sleep(50)
    subscription.unsubscribe()
    await gateway.dispose()
    expect(errors).toEqual([])
    expect(done.error).toBeUndefined()
  })
})
