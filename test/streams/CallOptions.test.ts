// Per-call options on the Rx face: the same options as the Effect calls, as their last argument; an
// aborted signal errors the Observable with the typed `Aborted` (not `GatewayDisposed`, not silence),
// closing the connection the server sees; `onResponse` gives the answer's meta.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { firstValueFrom, lastValueFrom, tap, toArray } from "rxjs"
import { afterEach, describe, expect, it } from "vitest"
import type { ResponseInfo } from "../../src/adapters/CallOptions.js"
import { Aborted } from "../../src/core/errors/GatewayError.js"
import { createGateway, type RxGateway } from "../../src/streams/createGateway.js"
import { WebSocketServer } from "ws"
import { chatTextStream } from "../fixtures/TextStreams.js"

const servers: Array<Server> = []
const gateways: Array<RxGateway> = []
afterEach(async () => {
  for (const gw of gateways.splice(0)) await gw.dispose()
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

const serve = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
  const seen = { requests: 0, opened: 0, closed: 0 }
  const server = createServer((req, res) => {
    seen.requests++
    req.resume()
    handler(req, res)
  })
  server.on("connection", (socket) => {
    seen.opened++
    socket.on("close", () => seen.closed++)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const gw = createGateway({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: "sk-rx-options",
    maxRetries: 0,
    minPollIntervalMs: 0
  })
  gateways.push(gw)
  return { gw, seen }
}

const until = async (check: () => boolean, ms = 3_000) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
  return check()
}

/** The error an Observable ended with (`undefined` when it completed). */
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error
  )

const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] }
const completion = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }]
})

describe("umg/rx: the call's options", () => {
  it("an already aborted signal errors the Observable with Aborted, sending nothing", async () => {
    const { gw, seen } = await serve(() => {})
    const error = await errorOf(firstValueFrom(gw.chat.create$(chat, { signal: AbortSignal.abort() })))
    expect(error).toBeInstanceOf(Aborted)
    const polled = await errorOf(
      lastValueFrom(gw.video.poll$("t1", { intervalMs: 3_000 }, { signal: AbortSignal.abort() }))
    )
    expect(polled).toBeInstanceOf(Aborted)
    const embedded = await errorOf(
      lastValueFrom(
        gw.embeddings.embedMany$(["a", "b"], { model: "text-embedding-3-small" }, { signal: AbortSignal.abort() })
      )
    )
    expect(embedded).toBeInstanceOf(Aborted)
    expect(seen.requests).toBe(0)
  })

  it("an abort mid-request errors the Observable with Aborted and closes the connection", async () => {
    const { gw, seen } = await serve(() => {})
    const controller = new AbortController()
    const pending = errorOf(firstValueFrom(gw.chat.create$(chat, { signal: controller.signal })))
    expect(await until(() => seen.requests === 1)).toBe(true)
    controller.abort()
    expect(await pending).toMatchObject({ _tag: "Aborted", family: "openai" })
    expect(await until(() => seen.opened > 0 && seen.closed === seen.opened)).toBe(true)
  })

  it("an abort mid-stream errors stream$ with Aborted after the events already read", async () => {
    const { gw, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(chatTextStream.split("\n\n").slice(0, 2).join("\n\n") + "\n\n")
    })
    const controller = new AbortController()
    const events: Array<string> = []
    const error = await errorOf(
      lastValueFrom(
        gw.chat.stream$(chat, { signal: controller.signal }).pipe(
          tap((event) => {
            events.push(event.type)
            if (events.length === 2) controller.abort()
          }),
          toArray()
        )
      )
    )
    expect(error).toBeInstanceOf(Aborted)
    expect(events).toEqual(["chunk", "chunk"])
    expect(await until(() => seen.opened > 0 && seen.closed === seen.opened)).toBe(true)
  })

  it("a video poll$ errors with Aborted when its signal aborts between queries", async () => {
    const { gw, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ task_id: "t1", status: "queued" }))
    })
    const controller = new AbortController()
    const pending = errorOf(lastValueFrom(gw.video.poll$("t1", { intervalMs: 3_000 }, { signal: controller.signal })))
    expect(await until(() => seen.requests === 1)).toBe(true)
    controller.abort()
    expect(await pending).toMatchObject({ _tag: "Aborted", family: "video" })
  })

  it("onResponse gives the request id and headers, and the call's headers are sent", async () => {
    let trace: string | undefined
    const { gw } = await serve((req, res) => {
      trace = req.headers["x-trace"] as string | undefined
      res.writeHead(200, {
        "content-type": "application/json",
        "x-request-id": "req_rx_1",
        "x-ratelimit-remaining-requests": "9"
      })
      res.end(completion)
    })
    const infos: Array<ResponseInfo> = []
    const answer = await firstValueFrom(
      gw.chat.create$(chat, { headers: { "x-trace": "t-1" }, onResponse: (info) => infos.push(info) })
    )
    expect(answer.choices[0]?.message.content).toBe("hi")
    expect(trace).toBe("t-1")
    expect(infos).toMatchObject([{ status: 200, requestId: "req_rx_1", rateLimit: { requests: { remaining: 9 } } }])
  })

  it("realtime.connect$ errors with Aborted when its signal closes the socket", async () => {
    const closes: Array<number> = []
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" })
    wss.on("connection", (ws) => ws.on("close", (code) => closes.push(code)))
    await new Promise<void>((r) => wss.once("listening", () => r()))
    const gw = createGateway({ baseUrl: `http://127.0.0.1:${(wss.address() as AddressInfo).port}`, apiKey: "sk-rx" })
    gateways.push(gw)
    try {
      const controller = new AbortController()
      // Subscribed until it ends (a `firstValueFrom` would unsubscribe, closing the socket itself).
      let outer: unknown
      let ended: Promise<unknown> | undefined
      let open = false
      const subscription = gw.realtime.connect$("gpt-realtime", { signal: controller.signal }).subscribe({
        next: (session) => {
          ended = errorOf(lastValueFrom(session.events$))
          session.state$.subscribe((state) => {
            if (state.status === "open") open = true
          })
        },
        error: (error: unknown) => (outer = error)
      })
      // Aborted once the session is open (its state says so; the session itself is emitted at once,
      // while connecting). The server sees the connection before the client's handshake ends, and an
      // abort while connecting drops the socket (1006) instead of closing it.
      expect(await until(() => open && wss.clients.size === 1)).toBe(true)
      controller.abort()
      expect(await ended).toBeInstanceOf(Aborted)
      expect(outer).toBeInstanceOf(Aborted)
      expect(subscription.closed).toBe(true)
      expect(await until(() => closes.length === 1)).toBe(true)
      expect(closes).toEqual([1000])
    } finally {
      for (const c of wss.clients) c.terminate()
      await new Promise((r) => wss.close(r))
    }
  })
})
