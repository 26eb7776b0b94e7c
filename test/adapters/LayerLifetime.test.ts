import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer as createTcpServer, connect, type Server, type Socket } from "node:net"
import { Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { listenLoopback, type Loopback } from "../fixtures/loopback.js"

// The gateway layer's HTTP client lives as long as the layer: it was released as soon as the service
// was made, so a brought client's own resources were gone before the first call, and the default
// client's idle keep-alive connections outlived the layer.

const MODELS = JSON.stringify({ object: "list", data: [{ id: "gpt-4o", object: "model", created: 0, owned_by: "x" }] })

let origin: Loopback
// A TCP relay in front of the origin: it sees each client connection and when the client closes it.
let relay: Server
let relayUrl: string
const open = new Set<Socket>()
let closedByClient = 0
beforeAll(async () => {
  origin = await listenLoopback((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(MODELS)
  })
  relay = createTcpServer((client) => {
    open.add(client)
    const upstream = connect(Number(new URL(origin.url).port), "127.0.0.1")
    client.pipe(upstream).pipe(client)
    client.on("end", () => closedByClient++)
    client.on("close", () => {
      open.delete(client)
      upstream.destroy()
    })
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
  })
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", () => resolve()))
  relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`
})
afterAll(async () => {
  for (const socket of open) socket.destroy()
  await new Promise<void>((resolve) => relay.close(() => resolve()))
  await origin.close()
})

const listModels = Effect.flatMap(Gateway, (gateway) => gateway.models.list())

describe("Gateway.layer keeps its HTTP client for the layer's lifetime", () => {
  it("releases a brought client's resources when the layer ends, not when the service is made", async () => {
    const events: Array<string> = []
    const client = Layer.effect(
      HttpClient.HttpClient,
      Effect.gen(function* () {
        yield* Effect.addFinalizer(() => Effect.sync(() => events.push("client released")))
        return yield* HttpClient.HttpClient
      })
    ).pipe(Layer.provide(NodeHttpClient.layer))
    const program = Effect.gen(function* () {
      events.push("program starts")
      const models = yield* listModels
      events.push(`listed ${models.length}`)
    })
    await Effect.runPromise(
      Effect.provide(program, Gateway.layer({ baseUrl: origin.url, apiKey: "k", httpClient: client, maxRetries: 0 }))
    )
    expect(events).toEqual(["program starts", "listed 1", "client released"])
  })

  it("closes the default client's idle keep-alive connection when the layer ends", async () => {
    const before = closedByClient
    await Effect.runPromise(
      Effect.provide(listModels, Gateway.layer({ baseUrl: relayUrl, apiKey: "k", maxRetries: 0 }))
    )
    const deadline = Date.now() + 3_000
    while (open.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(open.size).toBe(0)
    expect(closedByClient).toBeGreaterThan(before)
  })
})
