import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Fiber, Redacted, Scope, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import * as HttpAuth from "../../src/adapters/http/HttpAuth.js"
import * as HttpTransport from "../../src/adapters/http/HttpTransport.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"

let server: Server
let url = ""
let arrived: () => void = () => {}
let closed: () => void = () => {}

beforeAll(async () => {
  server = createServer((req, res) => {
    res.on("close", () => closed())
    arrived()
    if (req.url === "/sse") {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write("data: one\n\n")
      return // and never end
    }
    // never answer
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

// Every client umg ships: its own Node client (the default in Node) and the fetch client (browsers).
const clients = [
  { name: "umg's Node client", layer: NodeHttpClient.layer },
  { name: "FetchHttpClient", layer: FetchHttpClient.layer }
]
const request = (path: string): HttpTransport.TransportRequest => ({
  family: "openai",
  method: "POST",
  url: `${url}${path}`,
  body: {},
  auth: HttpAuth.bearer(Redacted.make("k")),
  kind: "idempotent"
})
// Resolves "closed" when the server saw the connection close, "open" if it did not within 5 s.
const outcome = (gone: Promise<void>) =>
  Promise.race([gone.then(() => "closed"), new Promise((r) => setTimeout(() => r("open"), 5_000))])

const signals = () => {
  const got = new Promise<void>((r) => (arrived = r))
  const gone = new Promise<void>((r) => (closed = r))
  return { got, gone }
}

describe.each(clients)("cancellation over a real connection ($name)", ({ layer }) => {
  const transport = () =>
    Effect.runSync(
      Scope.provide(Scope.makeUnsafe())(
        HttpTransport.fromConfig(GatewayConfig.make({ baseUrl: url, apiKey: "k", httpClient: layer }))
      )
    )

  it("interrupting a call closes its connection", async () => {
    const { got, gone } = signals()
    const fiber = Effect.runFork(transport().json(request("/hang")))
    await got
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(await outcome(gone)).toBe("closed")
  })

  it("a stream the consumer stops reading closes its connection", async () => {
    const { got, gone } = signals()
    const program = Effect.flatMap(transport().open(request("/sse")), (bytes) =>
      Stream.runCollect(Stream.take(bytes, 1))
    )
    const out = await Effect.runPromise(program)
    await got
    expect(out.length).toBe(1)
    expect(await outcome(gone)).toBe("closed")
  })
})
