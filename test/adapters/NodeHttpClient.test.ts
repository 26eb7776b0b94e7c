import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import { HttpClient, HttpClientRequest } from "effect/http"
import { Effect, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { closeCountingServers, countingServer } from "../support/countingServer.js"

// umg's Node client against a real node:http server on loopback that counts its connections.
afterEach(closeCountingServers)

const serve = countingServer

const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) =>
  Effect.runPromise(Effect.provide(effect, NodeHttpClient.layerWith()))

describe("NodeHttpClient", () => {
  it("is an effect/http HttpClient, and one a client's own transformations apply to", async () => {
    let seen: string | undefined
    const server = await serve((req, res) => {
      seen = req.headers["x-extra"] as string | undefined
      res.end("{}")
    })
    const answer = await run(
      Effect.flatMap(HttpClient.HttpClient, (client) => {
        expect(HttpClient.isHttpClient(client)).toBe(true)
        return Effect.flatMap(
          HttpClient.mapRequest(client, HttpClientRequest.setHeader("x-extra", "1")).get(server.url),
          (r) => r.json
        )
      })
    )
    expect([answer, seen]).toEqual([{}, "1"])
  })

  it("reuses one keep-alive connection for requests made one after another", async () => {
    const server = await serve((_req, res) => res.end(JSON.stringify({ ok: true })))
    const bodies = await run(
      Effect.forEach(Array.from({ length: 20 }), () => Effect.flatMap(HttpClient.get(`${server.url}/x`), (r) => r.json))
    )
    expect(bodies).toEqual(Array.from({ length: 20 }, () => ({ ok: true })))
    expect(server.connections()).toBe(1)
  })

  it("drops an idle connection a second before the server's Keep-Alive timeout, so none is reused as the server closes it", async () => {
    // A server that announces `Keep-Alive: timeout=3` but keeps idle connections for a minute: a
    // connection closed within seconds was closed by the client, reading the announced timeout.
    let open = 0
    let connections = 0
    const server = createServer((_req, res) => {
      res.setHeader("keep-alive", "timeout=3")
      res.end("{}")
    })
    server.keepAliveTimeout = 60_000
    server.on("connection", (socket) => {
      connections++
      open++
      socket.on("close", () => open--)
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`
    try {
      const closedAfter = await run(
        Effect.gen(function* () {
          yield* Effect.flatMap(HttpClient.get(url), (r) => r.json)
          yield* Effect.flatMap(HttpClient.get(url), (r) => r.json)
          expect([connections, open]).toEqual([1, 1])
          // The client lets it go at about 2 s; the server would at 3 s.
          const start = Date.now()
          while (open > 0 && Date.now() - start < 10_000) yield* Effect.sleep("50 millis")
          const waited = Date.now() - start
          yield* Effect.flatMap(HttpClient.get(url), (r) => r.json)
          return waited
        })
      )
      expect(closedAfter).toBeGreaterThanOrEqual(1_500)
      expect(closedAfter).toBeLessThan(10_000)
      expect(connections).toBe(2)
    } finally {
      await new Promise((r) => server.close(r))
    }
  })

  it("inflates an answer a server compressed although it was not asked to", async () => {
    const body = JSON.stringify({ text: "hello ".repeat(1000) })
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
      res.end(gzipSync(body))
    })
    const answer = await run(Effect.flatMap(HttpClient.get(server.url), (r) => r.text))
    expect(answer).toBe(body)
  })

  it("sends the request body and headers as given", async () => {
    let seen: { method?: string | undefined; type?: string | undefined; body: string } = { body: "" }
    const server = await serve((req, res) => {
      let body = ""
      req.on("data", (c: Buffer) => (body += c.toString()))
      req.on("end", () => {
        seen = { method: req.method, type: req.headers["content-type"], body }
        res.end("{}")
      })
    })
    await run(
      Effect.flatMap(
        HttpClient.execute(HttpClientRequest.bodyJsonUnsafe(HttpClientRequest.post(server.url), { a: 1 })),
        (r) => r.json
      )
    )
    expect(seen).toEqual({ method: "POST", type: "application/json", body: '{"a":1}' })
  })

  it("closes the connection of a body abandoned mid-way, and keeps none open after the layer ends", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write("data: 1\n\n")
      // never ends
    })
    const first = await run(Effect.flatMap(HttpClient.get(server.url), (r) => Stream.runHead(r.stream)))
    expect(first._tag).toBe("Some")
    for (let i = 0; i < 50 && server.open() > 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(server.open()).toBe(0)
  })

  it("fails with a TransportError, not a defect, when nothing listens", async () => {
    const server = await serve((_req, res) => res.end())
    const url = server.url
    await closeCountingServers()
    const exit = await Effect.runPromiseExit(Effect.provide(HttpClient.get(url), NodeHttpClient.layerWith()))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("TransportError")
  })
})
