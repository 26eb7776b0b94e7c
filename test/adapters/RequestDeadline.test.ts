// The request time limit with umg's own Node client, against real servers over loopback: a server
// that never answers, one that stalls mid-body and one that never sends a stream's first byte each
// give a TimeoutError of the right phase within the limit, and the server sees its socket closed; an
// answer in time is unaffected, on the same kept-alive connection.
import { Effect, Result, Stream } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"

const servers: Array<Server> = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A server whose handler decides what each request gets; it counts open and closed sockets. */
const serve = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
  const sockets = { opened: 0, closed: 0 }
  const server = createServer((req, res) => {
    req.resume()
    handler(req, res)
  })
  server.on("connection", (socket) => {
    sockets.opened++
    socket.on("close", () => sockets.closed++)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets }
}

const run = <A, E>(
  baseUrl: string,
  f: (g: GatewayService) => Effect.Effect<A, E>,
  settings: { timeoutMs?: number; streamFirstByteTimeoutMs?: number } = {}
) =>
  Effect.runPromise(
    Effect.result(Effect.flatMap(Gateway, f)).pipe(
      Effect.provide(Gateway.layer({ baseUrl, apiKey: "sk-deadline", maxRetries: 0, ...settings }))
    )
  )

const until = async (check: () => boolean, ms = 3_000) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
  return check()
}

const completion = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
})
const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] }

describe("the request time limit (umg's Node client)", () => {
  it("fails a request the server never answers with a request TimeoutError, and closes its socket", async () => {
    const { url, sockets } = await serve(() => {})
    const result = await run(url, (g) => g.chat.create(chat), { timeoutMs: 300 })
    expect(Result.isFailure(result) && result.failure).toMatchObject({
      _tag: "TimeoutError",
      phase: "request",
      timeoutMs: 300
    })
    expect(await until(() => sockets.opened === 1 && sockets.closed === 1)).toBe(true)
  })

  it("fails a request whose body stalls after the headers, and closes its socket", async () => {
    const { url, sockets } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.write(completion.slice(0, 20))
    })
    const result = await run(url, (g) => g.chat.create(chat), { timeoutMs: 300 })
    expect(Result.isFailure(result) && result.failure).toMatchObject({ _tag: "TimeoutError", phase: "request" })
    expect(await until(() => sockets.closed === 1)).toBe(true)
  })

  it("fails a stream whose answer never comes with a first-byte TimeoutError, and closes its socket", async () => {
    const { url, sockets } = await serve(() => {})
    const result = await run(url, (g) => Stream.runDrain(g.chat.stream(chat)), { streamFirstByteTimeoutMs: 300 })
    expect(Result.isFailure(result) && result.failure).toMatchObject({
      _tag: "TimeoutError",
      phase: "first-byte",
      timeoutMs: 300
    })
    expect(await until(() => sockets.closed === 1)).toBe(true)
  })

  it("leaves an answer in time alone, and keeps its connection for the next call", async () => {
    const { url, sockets } = await serve((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(completion)
      }, 50)
    })
    const result = await run(url, (g) => Effect.zip(g.chat.create(chat), g.chat.create(chat)), { timeoutMs: 2_000 })
    expect(Result.isSuccess(result)).toBe(true)
    expect(sockets.opened).toBe(1)
  })
})
