// Hostile WebSocket peers built for real: a TCP server that accepts and never answers the upgrade, and
// a `ws` server that sends oversized messages, floods, deep frames, and closes with the key in its
// reason. Each must end the session with a typed error, release the socket, and show no secret.
import { createServer, type Socket } from "node:net"
import type { AddressInfo } from "node:net"
import { Cause, Effect, Exit, Option, Stream } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { WebSocketServer, type WebSocket } from "ws"
import { Gateway } from "../../src/adapters/Gateway.js"
import { nodeSocketOpener } from "../../src/adapters/socket/NodeWebSocket.js"
import type { SocketOpener } from "../../src/adapters/socket/WebSocketSession.js"
import { expectNoSecret } from "../support/secrets.js"

const KEY = "sk-ws-hostile-0123456789abcdef"
const closers: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const close of closers) await close()
})

const failureOf = async (
  effect: Effect.Effect<unknown, unknown, Gateway>,
  baseUrl: string,
  limits: Record<string, number> = {}
): Promise<unknown> => {
  const exit = await Effect.runPromiseExit(
    Effect.provide(effect, Gateway.layer({ baseUrl, apiKey: KEY, maxRetries: 0, limits }))
  )
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`a defect, not a typed error: ${Cause.pretty(exit.cause).slice(0, 300)}`)
  return failure.value
}

const wsServer = async (onConnection: (ws: WebSocket) => void): Promise<string> => {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" })
  server.on("connection", onConnection)
  await new Promise<void>((r) => server.once("listening", () => r()))
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const c of server.clients) c.terminate()
        server.close(() => r())
      })
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const drainRealtime = Effect.scoped(
  Effect.flatMap(Gateway, (g) =>
    Effect.flatMap(g.realtime.connect({ model: "gpt-realtime" }), (s) => Stream.runDrain(s.events))
  )
)

describe("a hostile WebSocket peer", () => {
  it("that accepts TCP but never answers the upgrade fails the handshake in time and releases the socket", async () => {
    const sockets: Array<Socket> = []
    let closed = 0
    const server = createServer((socket) => {
      sockets.push(socket)
      socket.on("close", () => closed++)
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
    const error = await failureOf(drainRealtime, url, { webSocketHandshakeTimeoutMs: 300 })
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "connect", timeoutMs: 300 })
    await expect.poll(() => closed, { timeout: 3_000 }).toBe(1)
    expectNoSecret(error, [KEY])
  })

  it("that sends a message past the frame bound ends the session with a typed error (and closes 1009)", async () => {
    let closeCode = 0
    const url = await wsServer((ws) => {
      ws.on("close", (code) => (closeCode = code))
      ws.send(JSON.stringify({ type: "response.text.delta", delta: "x".repeat(200_000) }))
    })
    const error = await failureOf(drainRealtime, url, { maxFrameBytes: 64 * 1024 })
    expect(error).toMatchObject({ _tag: "TransportError", reason: "too-large" })
    await expect.poll(() => closeCode, { timeout: 3_000 }).toBe(1009)
  })

  it("that sends multi-byte text past the frame bound in bytes (not in characters) is stopped too", async () => {
    // 40,000 "é" are 80,000 bytes of UTF-8 but 40,000 characters: before, the bound counted characters.
    const frame = JSON.stringify({ type: "response.text.delta", delta: "é".repeat(40_000) })
    const url = await wsServer((ws) => ws.send(frame))
    // Node's socket refuses it before reading it whole (ws's maxPayload is the bound).
    const error = await failureOf(drainRealtime, url, { maxFrameBytes: 64 * 1024 })
    expect(error).toMatchObject({ _tag: "TransportError", reason: "too-large" })
    expect((error as { message: string }).message).toContain("past the bound of 65536 bytes (limits.maxFrameBytes)")
    // Refused from the frame's header: its size is not counted from a message read whole.
    expect((error as { message: string }).message).not.toMatch(/message of \d+ bytes/)
    // A socket that reads every message whole and gives its text without its size (a browser's text
    // frames): the session counts the bytes.
    const textOnly: SocketOpener = (address, options) => {
      const socket = nodeSocketOpener(address, { headers: options.headers })
      return { ...socket, on: (handlers) => socket.on({ ...handlers, message: (data) => handlers.message(data) }) }
    }
    const exit = await Effect.runPromiseExit(
      Effect.provide(
        drainRealtime,
        Gateway.layer({
          baseUrl: url,
          apiKey: KEY,
          maxRetries: 0,
          webSocket: textOnly,
          limits: { maxFrameBytes: 64 * 1024 }
        })
      )
    )
    expect(Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined).toMatchObject({
      value: {
        _tag: "TransportError",
        reason: "too-large",
        message: expect.stringContaining(`of ${Buffer.byteLength(frame)} bytes`)
      }
    })
  })

  it("that floods messages past the rate bound ends the session (and closes 1008)", async () => {
    let closeCode = 0
    const url = await wsServer((ws) => {
      ws.on("close", (code) => (closeCode = code))
      for (let i = 0; i < 500; i++) ws.send(JSON.stringify({ type: "response.text.delta", delta: "x" }))
    })
    const error = await failureOf(drainRealtime, url, { maxFramesPerSecond: 100 })
    expect(error).toMatchObject({ _tag: "TransportError", reason: "protocol" })
    await expect.poll(() => closeCode, { timeout: 3_000 }).toBe(1008)
  })

  it("that sends a 100,000-deep frame is a DecodeError, not a stack overflow", async () => {
    const url = await wsServer((ws) => ws.send(`{"type":"x","v":${"[".repeat(100_000)}${"]".repeat(100_000)}}`))
    expect(await failureOf(drainRealtime, url)).toMatchObject({ _tag: "DecodeError" })
  })

  it("that sends a frame deeper than a lowered limits.maxJsonDepth is a DecodeError (the configured bound, not only 64)", async () => {
    const nested = (depth: number) =>
      `{"type":"response.text.delta","delta":"x","extra":${"[".repeat(depth)}${"]".repeat(depth)}}`
    const shallow = await wsServer((ws) => {
      ws.send(nested(10))
      ws.close(1000)
    })
    // Ten levels pass the default bound…
    const collect = Effect.scoped(
      Effect.flatMap(Gateway, (g) =>
        Effect.flatMap(g.realtime.connect({ model: "gpt-realtime" }), (s) => Stream.runCollect(s.events))
      )
    )
    const events = await Effect.runPromise(
      Effect.provide(collect, Gateway.layer({ baseUrl: shallow, apiKey: KEY, maxRetries: 0 }))
    )
    expect(events.map((e) => e.type)).toEqual(["response.text.delta"])
    // …and fail a bound lowered to 8.
    const deep = await wsServer((ws) => ws.send(nested(10)))
    const error = await failureOf(drainRealtime, deep, { maxJsonDepth: 8 })
    expect(error).toMatchObject({ _tag: "DecodeError", message: expect.stringContaining("8 levels") })
  })

  it("that sends a frame that is not JSON ends the session there: closed 1007, the same DecodeError on every read", async () => {
    let closeCode = 0
    const url = await wsServer((ws) => {
      ws.on("close", (code) => (closeCode = code))
      ws.send(JSON.stringify({ type: "session.created", event_id: "e1", session: {} }))
      ws.send("{not json")
      ws.send(JSON.stringify({ type: "response.output_text.delta", delta: "after" }))
    })
    const reads = await Effect.runPromise(
      Effect.provide(
        Effect.scoped(
          Effect.flatMap(Gateway, (g) =>
            Effect.flatMap(g.realtime.connect({ model: "gpt-realtime" }), (s) =>
              Effect.all([
                Effect.flip(Stream.runDrain(s.events)),
                // Every later read ends at once with the same error: no hang, no frame from after it.
                Effect.flip(Effect.timeout(s.next, "2 seconds")),
                Effect.flip(Effect.timeout(Stream.runDrain(s.events), "2 seconds"))
              ])
            )
          )
        ),
        Gateway.layer({ baseUrl: url, apiKey: KEY, maxRetries: 0 })
      )
    )
    const [drained, next, again] = reads
    expect(drained).toMatchObject({ _tag: "DecodeError" })
    // `next` ends with `Some(error)` (`None` is an orderly end): the same error object.
    expect(next).toEqual(Option.some(drained))
    expect(again).toBe(drained)
    await expect.poll(() => closeCode, { timeout: 3_000 }).toBe(1007)
  })

  it("that closes in an orderly way (1000, 1001, 1005) ends the events and reports the close code", async () => {
    for (const code of [1000, 1001, 1005]) {
      const url = await wsServer((ws) => (code === 1005 ? ws.close() : ws.close(code, "bye")))
      const closeCode = await Effect.runPromise(
        Effect.provide(
          Effect.scoped(
            Effect.flatMap(Gateway, (g) =>
              Effect.flatMap(g.realtime.connect({ model: "gpt-realtime" }), (s) =>
                Effect.andThen(Stream.runDrain(s.events), s.closeCode)
              )
            )
          ),
          Gateway.layer({ baseUrl: url, apiKey: KEY, maxRetries: 0 })
        )
      )
      expect(closeCode).toEqual(Option.some(code))
    }
  })

  it("that echoes the key in a close reason or a wrong-typed field never puts it in the error", async () => {
    const closing = await wsServer((ws) => ws.close(4000, `bad key ${KEY}`))
    const closeError = await failureOf(drainRealtime, closing)
    expect(closeError).toMatchObject({ _tag: "TransportError", reason: "closed", closeCode: 4000 })
    expectNoSecret(closeError, [KEY])
    const wrongType = await wsServer((ws) =>
      ws.send(JSON.stringify({ type: "error", error: { message: { key: KEY }, type: 5 } }))
    )
    const decodeError = await failureOf(drainRealtime, wrongType)
    expectNoSecret(decodeError, [KEY])
  })
})

describe("umg/rx against an orderly close", () => {
  it("completes the session and reports who closed it with which code", async () => {
    const { createGateway } = await import("../../src/streams/createGateway.js")
    const url = await wsServer((ws) => ws.close(1001, "going away"))
    const gateway = createGateway({ baseUrl: url, apiKey: KEY })
    const states: Array<unknown> = []
    let completed = false
    gateway.realtime.connect$("gpt-realtime").subscribe({
      next: (session) => session.state$.subscribe((s) => states.push(s)),
      complete: () => (completed = true)
    })
    await expect.poll(() => completed, { timeout: 3_000 }).toBe(true)
    expect(states.at(-1)).toEqual({ status: "closed", by: "server", code: 1001 })
    await gateway.dispose()
  })
})

describe("umg/rx against a server that never answers the upgrade", () => {
  it("closes the half-open socket at once when the subscriber unsubscribes", async () => {
    const { createGateway } = await import("../../src/streams/createGateway.js")
    const sockets: Array<Socket> = []
    let closed = 0
    const server = createServer((socket) => {
      sockets.push(socket)
      socket.on("close", () => closed++)
      socket.on("data", () => undefined)
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    closers.push(
      () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy()
          server.close(() => r())
        })
    )
    const gateway = createGateway({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: KEY
    })
    const subscription = gateway.realtime.connect$("gpt-realtime").subscribe({ error: () => undefined })
    await expect.poll(() => sockets.length, { timeout: 3_000 }).toBe(1)
    subscription.unsubscribe()
    await expect.poll(() => closed, { timeout: 3_000 }).toBe(1)
    await gateway.dispose()
  })
})
