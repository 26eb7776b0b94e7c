// How a WebSocket session ends against real peers over loopback: the browser socket ends a session
// with a code it may send, every read after the end gets the end again, bytes waiting for a slow
// reader are bounded, a failed connect closes its socket at once, a refused upgrade keeps the
// gateway's reason, and a second live `setup` is refused before it is sent.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Cause, Duration, Effect, Exit, Option, Stream } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { WebSocketServer, type WebSocket } from "ws"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import type { LimitsInput } from "../../src/adapters/internal/Limits.js"
import { browserSocketOpener } from "../../src/adapters/socket/BrowserWebSocket.js"
import { nodeSocketOpener } from "../../src/adapters/socket/NodeWebSocket.js"
import type { SocketOpener } from "../../src/adapters/socket/WebSocketSession.js"
import { expectNoSecret } from "../support/secrets.js"

const KEY = "sk-ws-sessions-0123456789abcdef"
const LIVE = "zeta-live-2.5-flash-native-audio"
const closers: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const close of closers) await close()
})

const run = <A, E>(
  effect: Effect.Effect<A, E, Gateway>,
  baseUrl: string,
  over: Partial<GatewayConfigInput> = {}
): Promise<Exit.Exit<A, E>> =>
  Effect.runPromiseExit(Effect.provide(effect, Gateway.layer({ baseUrl, apiKey: KEY, maxRetries: 0, ...over })))

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`not a typed failure: ${Cause.pretty(exit.cause).slice(0, 300)}`)
  return failure.value
}

/** A `ws` peer that counts its open connections and records every close code and client message. */
const peer = async (onConnection: (ws: WebSocket) => void = () => {}) => {
  const seen = { connections: 0, open: 0, closes: [] as Array<number>, messages: [] as Array<string> }
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" })
  server.on("connection", (ws) => {
    seen.connections++
    seen.open++
    ws.on("close", (code) => {
      seen.open--
      seen.closes.push(code)
    })
    ws.on("message", (data) => seen.messages.push(String(data)))
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

const delta = (text: string) => JSON.stringify({ type: "response.text.delta", delta: text })

/** Polls `check` inside an Effect (so a caller's scope stays open while it waits). */
const eventually = (check: () => boolean, ms = 3_000): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    const end = Date.now() + ms
    while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
    return check()
  })

describe("the browser socket opener (Node's global WebSocket) against a hostile peer", () => {
  const drainThroughBrowser = (url: string, limits: LimitsInput) =>
    run(
      Effect.scoped(
        Effect.flatMap(Gateway, (g) =>
          Effect.flatMap(g.realtime.connect({ model: "gpt-realtime" }), (s) => Stream.runDrain(s.events))
        )
      ),
      url,
      { webSocket: browserSocketOpener, limits }
    )

  it("ends the session on a message past the frame bound, closing with 4009 (a browser may not send 1009)", async () => {
    const { url, seen } = await peer((ws) => ws.send(delta("x".repeat(100_000))))
    const error = failureOf(await drainThroughBrowser(url, { maxFrameBytes: 64 * 1024 }))
    expect(error).toMatchObject({ _tag: "TransportError", reason: "too-large" })
    await expect.poll(() => seen.closes, { timeout: 3_000 }).toEqual([4009])
  })

  it("ends the session on a flood past the rate bound, closing with 4008 (a browser may not send 1008)", async () => {
    const { url, seen } = await peer((ws) => {
      for (let i = 0; i < 300; i++) ws.send(delta("x"))
    })
    const error = failureOf(await drainThroughBrowser(url, { maxFramesPerSecond: 50 }))
    expect(error).toMatchObject({ _tag: "TransportError", reason: "protocol" })
    await expect.poll(() => seen.closes, { timeout: 3_000 }).toEqual([4008])
  })

  it("closes the socket at once when the pending bytes pass their bound, while the reader still sleeps", async () => {
    const { url, seen } = await peer((ws) => {
      for (let i = 0; i < 8; i++) ws.send(delta("y".repeat(50_000)))
    })
    let closedWhileScopeOpen: Array<number> = []
    const exit = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const session = yield* g.realtime.connect({ model: "gpt-realtime" })
          yield* eventually(() => seen.closes.length > 0)
          closedWhileScopeOpen = [...seen.closes]
          return yield* Stream.runDrain(session.events)
        })
      ),
      url,
      { webSocket: browserSocketOpener, limits: { maxPendingBytes: 120_000 } }
    )
    expect(closedWhileScopeOpen).toEqual([4008])
    expect(failureOf(exit)).toMatchObject({
      _tag: "TransportError",
      message: expect.stringContaining("limits.maxPendingBytes")
    })
  })
})

describe("a session that has ended", () => {
  const readAfterEnd = (url: string) =>
    run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const session = yield* g.realtime.connect({ model: "gpt-realtime" })
          const bounded = <A, E>(effect: Effect.Effect<A, E>) =>
            Effect.timeoutOrElse(effect, {
              duration: Duration.seconds(2),
              orElse: () => Effect.die(new Error("hung after the end"))
            })
          const first = yield* bounded(Effect.exit(Stream.runCollect(session.events)))
          const next = yield* bounded(Effect.exit(session.next))
          const again = yield* bounded(Effect.exit(Stream.runCollect(session.events)))
          const nextAgain = yield* bounded(Effect.exit(session.next))
          return { first, next, again, nextAgain }
        })
      ),
      url
    )

  it("answers every later read after an orderly close with the end: None, and an empty stream", async () => {
    const { url } = await peer((ws) => {
      ws.send(JSON.stringify({ type: "response.done", response: { id: "r1", status: "completed" } }))
      ws.close(1000, "done")
    })
    const exit = await readAfterEnd(url)
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isFailure(exit)) return
    const { first, next, again, nextAgain } = exit.value
    expect(Exit.isSuccess(first) && first.value.map((e) => e.type)).toEqual(["response.done"])
    expect(failureOf(next)).toEqual(Option.none())
    expect(Exit.isSuccess(again) && again.value).toEqual([])
    expect(failureOf(nextAgain)).toEqual(Option.none())
  })

  it("answers every later read after a failure with the same error again", async () => {
    const { url } = await peer((ws) => ws.close(1011, "internal error"))
    const exit = await readAfterEnd(url)
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isFailure(exit)) return
    const { first, next, again, nextAgain } = exit.value
    const error = failureOf(first)
    expect(error).toMatchObject({ _tag: "TransportError", reason: "closed", closeCode: 1011 })
    expect(failureOf(next)).toEqual(Option.some(error))
    expect(failureOf(again)).toBe(error)
    expect(failureOf(nextAgain)).toEqual(Option.some(error))
  })
})

describe("the bytes waiting for a slow reader", () => {
  const slowDrain = (url: string, limits: LimitsInput) =>
    run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const session = yield* g.realtime.connect({ model: "gpt-realtime" })
          yield* Effect.sleep(Duration.millis(400))
          let read = 0
          const exit = yield* Effect.exit(Stream.runForEach(session.events, () => Effect.sync(() => read++)))
          return { read, exit }
        })
      ),
      url,
      { limits }
    )

  it("are bounded by limits.maxPendingBytes: past it the session fails naming the bound and closes 1008", async () => {
    const { url, seen } = await peer((ws) => {
      for (let i = 0; i < 40; i++) ws.send(delta("z".repeat(100_000)))
    })
    const exit = await slowDrain(url, { maxPendingBytes: 512 * 1024 })
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isFailure(exit)) return
    // The messages that fitted are read, then the error.
    expect(exit.value.read).toBe(5)
    expect(failureOf(exit.value.exit)).toMatchObject({
      _tag: "TransportError",
      reason: "protocol",
      message: expect.stringContaining("524288 bytes (limits.maxPendingBytes)")
    })
    // The peer hears the close a moment after the session has ended.
    await expect.poll(() => seen.closes, { timeout: 3_000 }).toEqual([1008])
  })

  it("are bounded by default to four times limits.maxFrameBytes", async () => {
    const { url, seen } = await peer((ws) => {
      for (let i = 0; i < 40; i++) ws.send(delta("z".repeat(100_000)))
    })
    const exit = await slowDrain(url, { maxFrameBytes: 128 * 1024 })
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isFailure(exit)) return
    expect(failureOf(exit.value.exit)).toMatchObject({
      _tag: "TransportError",
      message: expect.stringContaining(`${4 * 128 * 1024} bytes (limits.maxPendingBytes)`)
    })
    // The peer hears the close a moment after the session has ended.
    await expect.poll(() => seen.closes, { timeout: 3_000 }).toEqual([1008])
  })

  it("always take one message, however large, when nothing else waits", async () => {
    const { url } = await peer((ws) => {
      ws.send(delta("w".repeat(200_000)))
      ws.close(1000)
    })
    const exit = await slowDrain(url, { maxPendingBytes: 1024 })
    expect(Exit.isSuccess(exit) && Exit.isSuccess(exit.value.exit) && exit.value.read).toBe(1)
  })
})

describe("a connect that fails", () => {
  it("closes the live socket at once when no setupComplete comes in time, also across retries", async () => {
    const { url, seen } = await peer() // never confirms the setup
    let openAfterFailure = -1
    const exit = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const failed = yield* Effect.exit(
            Effect.retry(g.live.connect({ model: LIVE }, { timeoutMs: 200 }), { times: 3 })
          )
          yield* eventually(() => seen.open === 0)
          openAfterFailure = seen.open
          return failed
        })
      ),
      url
    )
    expect(Exit.isSuccess(exit) && failureOf(exit.value)).toMatchObject({ _tag: "TimeoutError", phase: "connect" })
    expect(seen.connections).toBe(4)
    expect(openAfterFailure).toBe(0)
  })

  it("closes the live socket at once when the server ends the session before setupComplete", async () => {
    const { url, seen } = await peer((ws) => ws.on("message", () => ws.send("not json")))
    let openAfterFailure = -1
    const exit = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const failed = yield* Effect.exit(g.live.connect({ model: LIVE }))
          yield* eventually(() => seen.open === 0)
          openAfterFailure = seen.open
          return failed
        })
      ),
      url
    )
    expect(Exit.isSuccess(exit) && failureOf(exit.value)).toMatchObject({ _tag: "DecodeError" })
    expect(openAfterFailure).toBe(0)
  })

  it("closes the realtime socket at once when the initial session.update cannot be sent", async () => {
    const { url, seen } = await peer()
    // A socket that reports itself closed once open: the first send fails as after a lost connection.
    const closedOnSend: SocketOpener = (address, options) => ({
      ...nodeSocketOpener(address, options),
      isOpen: () => false
    })
    let openAfterFailure = -1
    const exit = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const failed = yield* Effect.exit(
            g.realtime.connect({ model: "gpt-realtime", session: { modalities: ["text"] } })
          )
          yield* eventually(() => seen.connections === 1 && seen.open === 0)
          openAfterFailure = seen.open
          return failed
        })
      ),
      url,
      { webSocket: closedOnSend }
    )
    expect(Exit.isSuccess(exit) && failureOf(exit.value)).toMatchObject({ _tag: "TransportError", reason: "closed" })
    expect(openAfterFailure).toBe(0)
  })
})

describe("a refused upgrade", () => {
  /** A server that refuses every upgrade, and answers every HTTP request, with the same error answer. */
  const refusing = async (status: number, headers: Record<string, string>, body: string) => {
    const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(status, { "content-type": "application/json", ...headers })
      res.end(body)
    })
    server.on("upgrade", (_req, socket) => {
      // The client drops the connection once it has read the answer.
      socket.on("error", () => socket.destroy())
      const head = Object.entries({ "content-type": "application/json", ...headers })
        .map(([n, v]) => `${n}: ${v}\r\n`)
        .join("")
      socket.end(
        `HTTP/1.1 ${status} Refused\r\n${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
      )
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    closers.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections()
          server.close(() => r())
        })
    )
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  const realtimeFailure = async (url: string, over: Partial<GatewayConfigInput> = {}) =>
    failureOf(
      await run(Effect.scoped(Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" }))), url, over)
    )

  it("keeps the gateway's message, type and request id, as the same answer over HTTP does, without the key", async () => {
    const body = JSON.stringify({
      error: {
        message: `model not found: gpt-realtime is not a realtime model (key ${KEY})`,
        type: "invalid_request_error",
        param: "model",
        code: "model_not_found"
      }
    })
    const url = await refusing(400, { "x-request-id": "req_ws_123" }, body)
    const overSocket = await realtimeFailure(url)
    const overHttp = failureOf(
      await run(
        Effect.flatMap(Gateway, (g) => g.chat.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })),
        url
      )
    )
    expect(overSocket).toMatchObject({
      _tag: "BadRequest",
      family: "realtime",
      status: 400,
      type: "invalid_request_error",
      requestId: "req_ws_123",
      message: expect.stringContaining("model not found: gpt-realtime is not a realtime model")
    })
    const { family: _a, ...socketFields } = overSocket as unknown as Record<string, unknown>
    const { family: _b, ...httpFields } = overHttp as unknown as Record<string, unknown>
    expect(socketFields).toEqual(httpFields)
    expectNoSecret(overSocket, [KEY])
  })

  it("keeps Retry-After on a 429 and the native envelope of a refused live upgrade", async () => {
    const limited = await refusing(
      429,
      { "retry-after": "7" },
      JSON.stringify({ error: { message: "slow down", type: "rate_limit_error" } })
    )
    expect(await realtimeFailure(limited)).toMatchObject({
      _tag: "RateLimited",
      retryAfterMs: 7_000,
      message: "slow down"
    })
    const notFound = await refusing(
      404,
      {},
      JSON.stringify({ error: { code: 404, message: "models/x is not found", status: "NOT_FOUND" } })
    )
    const error = failureOf(
      await run(Effect.scoped(Effect.flatMap(Gateway, (g) => g.live.connect({ model: LIVE }))), notFound)
    )
    expect(error).toMatchObject({
      _tag: "NotFound",
      family: "live",
      type: "NOT_FOUND",
      message: "models/x is not found"
    })
  })

  it("reads no more than limits.maxErrorBodyBytes of the body", async () => {
    const url = await refusing(400, {}, `{"error":{"message":"${"m".repeat(300_000)}"}}`)
    const error = await realtimeFailure(url, { limits: { maxErrorBodyBytes: 1024 } })
    expect(error).toMatchObject({ _tag: "BadRequest", status: 400 })
    expect((error as { message: string }).message.length).toBeLessThan(1_100)
  })
})

describe("a live session after its setup", () => {
  it("refuses a second setup naming the kinds allowed, sending nothing", async () => {
    const { url, seen } = await peer((ws) => ws.on("message", () => ws.send(JSON.stringify({ setupComplete: {} }))))
    const exit = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const session = yield* g.live.connect({ model: LIVE })
          return yield* Effect.flip(session.send({ setup: { model: `models/${LIVE}` } }))
        })
      ),
      url
    )
    expect(Exit.isSuccess(exit) && exit.value).toMatchObject({
      _tag: "InvalidRequest",
      field: "setup",
      message: expect.stringMatching(/clientContent.*realtimeInput.*toolResponse/)
    })
    expect(seen.messages).toHaveLength(1)
  })
})
