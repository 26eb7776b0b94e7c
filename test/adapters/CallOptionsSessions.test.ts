// Per-call options on the WebSocket sessions, against real peers over loopback: the call's headers go
// with the upgrade request (the credential still the layer's), its `timeoutMs` bounds the handshake,
// and its signal fails the opening at once when already aborted, and closes an open socket — the
// server sees it close — failing the session's events with `Aborted`.
import { createServer, type Socket } from "node:net"
import type { AddressInfo } from "node:net"
import type { IncomingMessage } from "node:http"
import { Cause, Effect, Exit, Option, Stream } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { WebSocketServer, type WebSocket } from "ws"
import { Gateway } from "../../src/adapters/Gateway.js"

const KEY = "sk-ws-options-0123456789"
const closers: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const close of closers) await close()
})

const exitOf = <A, E>(effect: Effect.Effect<A, E, Gateway>, baseUrl: string) =>
  Effect.runPromiseExit(Effect.provide(effect, Gateway.layer({ baseUrl, apiKey: KEY, maxRetries: 0 })))

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`not a typed failure: ${Cause.pretty(exit.cause).slice(0, 300)}`)
  return failure.value
}

const until = async (check: () => boolean, ms = 3_000) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
  return check()
}

/** A `ws` peer that records each upgrade's headers and each socket's close code. */
const peer = async (onConnection: (ws: WebSocket) => void = () => {}) => {
  const seen = { upgrades: [] as Array<IncomingMessage["headers"]>, closes: [] as Array<number> }
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" })
  server.on("connection", (ws, req) => {
    seen.upgrades.push(req.headers)
    ws.on("close", (code) => seen.closes.push(code))
    onConnection(ws)
  })
  await new Promise<void>((r) => server.once("listening", () => r()))
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const c of server.clients) c.terminate()
        server.close(() => r())
      })
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

describe("a WebSocket session's call options", () => {
  it("the layer's headers go with the upgrade of realtime and live, the call's over them, the credential the layer's", async () => {
    const { url, seen } = await peer((ws) =>
      ws.send(JSON.stringify({ type: "session.created", event_id: "e1", session: {} }))
    )
    const layer = Gateway.layer({
      baseUrl: url,
      apiKey: KEY,
      maxRetries: 0,
      headers: { "x-team": "layer", "x-trace": "layer" },
      limits: { webSocketHandshakeTimeoutMs: 2_000 }
    })
    const open = (g: Gateway["Service"]) =>
      Effect.all([
        Effect.scoped(g.realtime.connect({ model: "gpt-realtime" }, { headers: { "x-trace": "call" } })),
        // Live waits for setupComplete, which this peer never sends: only its upgrade matters here.
        Effect.exit(Effect.scoped(g.live.connect({ model: "zeta-live-2.5-flash-native-audio" }, { timeoutMs: 300 })))
      ])
    await Effect.runPromise(Effect.provide(Effect.flatMap(Gateway, open), layer))
    expect(seen.upgrades[0]).toMatchObject({ "x-team": "layer", "x-trace": "call", authorization: `Bearer ${KEY}` })
    expect(seen.upgrades[1]).toMatchObject({ "x-team": "layer", "x-trace": "layer", authorization: `Bearer ${KEY}` })
  })

  it("an already aborted signal fails realtime.connect with Aborted, opening nothing", async () => {
    const { url, seen } = await peer()
    const exit = await exitOf(
      Effect.scoped(
        Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" }, { signal: AbortSignal.abort() }))
      ),
      url
    )
    expect(failureOf(exit)).toMatchObject({ _tag: "Aborted", family: "realtime" })
    await new Promise((r) => setTimeout(r, 50))
    expect(seen.upgrades).toHaveLength(0)
  })

  it("the signal closes an open realtime session: its events fail with Aborted, the server sees 1000", async () => {
    const { url, seen } = await peer((ws) =>
      ws.send(JSON.stringify({ type: "session.created", event_id: "e1", session: {} }))
    )
    const controller = new AbortController()
    const events: Array<string> = []
    const exit = await exitOf(
      Effect.scoped(
        Effect.flatMap(Gateway, (g) =>
          Effect.flatMap(
            g.realtime.connect(
              { model: "gpt-realtime" },
              { signal: controller.signal, headers: { "x-trace": "t-ws" } }
            ),
            (session) =>
              Stream.runForEach(session.events, (event) =>
                Effect.sync(() => {
                  events.push(event.type)
                  controller.abort()
                })
              )
          )
        )
      ),
      url
    )
    expect(failureOf(exit)).toMatchObject({ _tag: "Aborted", family: "realtime" })
    expect(events).toEqual(["session.created"])
    expect(await until(() => seen.closes.length === 1)).toBe(true)
    expect(seen.closes).toEqual([1000])
    expect(seen.upgrades[0]).toMatchObject({ "x-trace": "t-ws", authorization: `Bearer ${KEY}` })
  })

  it("the signal fails live.connect with Aborted while it waits for setupComplete, and closes the socket", async () => {
    const { url, seen } = await peer() // never confirms the setup
    const controller = new AbortController()
    const started = Date.now()
    const pending = exitOf(
      Effect.scoped(
        Effect.flatMap(Gateway, (g) =>
          g.live.connect({ model: "zeta-live-2.5-flash-native-audio" }, { signal: controller.signal })
        )
      ),
      url
    )
    expect(await until(() => seen.upgrades.length === 1)).toBe(true)
    controller.abort()
    expect(failureOf(await pending)).toMatchObject({ _tag: "Aborted", family: "live" })
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(await until(() => seen.closes.length === 1)).toBe(true)
  })

  it("timeoutMs bounds the handshake; a refused header is an InvalidRequest before connecting", async () => {
    const sockets: Array<Socket> = []
    const server = createServer((socket) => {
      sockets.push(socket)
      socket.on("data", () => undefined) // read the upgrade request, answer nothing
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    closers.push(
      () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy()
          server.close(() => r())
        })
    )
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const exit = await exitOf(
      Effect.scoped(Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" }, { timeoutMs: 150 }))),
      url
    )
    expect(failureOf(exit)).toMatchObject({ _tag: "TimeoutError", phase: "connect", timeoutMs: 150 })
    const before = sockets.length
    const refused = await exitOf(
      Effect.scoped(
        Effect.flatMap(Gateway, (g) =>
          g.realtime.connect({ model: "gpt-realtime" }, { headers: { "Sec-WebSocket-Protocol": "x" } })
        )
      ),
      url
    )
    expect(failureOf(refused)).toMatchObject({
      _tag: "InvalidRequest",
      field: "options.headers.sec-websocket-protocol"
    })
    expect(sockets.length).toBe(before)
  })
})
