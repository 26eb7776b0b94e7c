// The debug log against a hostile gateway on loopback (node:http, reached as `gw.test` through a
// forwarding proxy that resolves every name it redirects to): redirects whose Location holds the key in
// its path (as written and percent-encoded), its query or its host (which the URL parser lower-cases),
// and request ids that are long or hold the key. No line shows the key in any form a reader could
// take it back from, and every value the server chose is bounded.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Logger, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"

// Upper case on purpose: a host name is lower-cased by the URL parser.
const KEY = "sk-DebugLog-HOSTILE-Key-5e1b"
/** The key with its first letter percent-encoded, as a server may write it in a Location. */
const ENCODED_KEY = `%${KEY.charCodeAt(0).toString(16)}${KEY.slice(1)}`

let server: Server
let port = 0
let proxy: ForwardingProxy
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    const json = { "content-type": "application/json" }
    switch (req.url) {
      case "/v1/models":
        return void res.writeHead(302, { location: `/in-path/${KEY}/then/${ENCODED_KEY}?key=${KEY}` }).end()
      case `/in-path/${KEY}/then/${ENCODED_KEY}?key=${KEY}`:
        return void res.writeHead(302, { location: `http://${KEY}.test:${port}/v1/models-final` }).end()
      case "/v1/models-final":
        return void res.writeHead(200, json).end(JSON.stringify({ object: "list", data: [] }))
      case "/v1/chat/completions":
        // A request id far longer than any gateway's, holding the key.
        return void res.writeHead(200, { ...json, "x-request-id": `req-${"x".repeat(12_000)}-${KEY}` }).end(
          JSON.stringify({
            id: "chatcmpl-1",
            object: "chat.completion",
            created: 1,
            model: "gpt-4o-mini",
            choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }]
          })
        )
      default:
        return void res.writeHead(404, json).end("{}")
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  proxy = await startForwardingProxy({
    hosts: { "gw.test": "127.0.0.1", [`${KEY.toLowerCase()}.test`]: "127.0.0.1" }
  })
})
afterAll(async () => {
  server.closeAllConnections()
  await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), proxy.close()])
})

interface Line {
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
}

/** umg's debug lines of `effect`, run against the hostile gateway through the proxy. */
const linesOf = async <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<ReadonlyArray<Line>> => {
  const lines: Array<Line> = []
  const logger = Logger.make(({ message, fiber }) => {
    const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
    lines.push({ message: String(parts[0]), annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
  })
  await Effect.runPromise(
    effect.pipe(
      Effect.provide(
        Gateway.layer({ baseUrl: `http://gw.test:${port}`, apiKey: KEY, maxRetries: 0, proxy: proxy.url })
      ),
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "Debug")
    )
  )
  return lines.filter((line) => line.message.startsWith("umg:"))
}

/** Every form of the key a reader could take back: as written, lower-cased, percent-encoded. */
const keyForms = [KEY, KEY.toLowerCase(), ENCODED_KEY, ENCODED_KEY.toLowerCase()]

const shownIn = (lines: ReadonlyArray<Line>): Array<string> => {
  const text = JSON.stringify(lines)
  return keyForms.filter((form) => text.includes(form))
}

describe("the debug log against a hostile gateway", () => {
  it("shows no form of the key a redirect put in its Location's path, query or host", async () => {
    const lines = await linesOf(Effect.flatMap(Gateway, (g) => g.models.list()))
    // The call followed both redirects, through the proxy, to the host holding the key.
    expect(proxy.records.at(-1)?.target).toBe(`${KEY.toLowerCase()}.test:${port}`)
    expect(lines.map((l) => [l.message, l.annotations["url.path"]])).toEqual([
      ["umg: request", "/v1/models"],
      ["umg: response", "/v1/models"],
      ["umg: request", expect.stringMatching(/^\/in-path\//)],
      ["umg: response", expect.stringMatching(/^\/in-path\//)],
      ["umg: request", "/v1/models-final"],
      ["umg: response", "/v1/models-final"]
    ])
    expect(shownIn(lines)).toEqual([])
  })

  it("bounds a request id far longer than any gateway's, and takes the key out of it", async () => {
    const lines = await linesOf(
      Effect.flatMap(Gateway, (g) =>
        g.chat.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })
      )
    )
    const response = lines.find((l) => l.message === "umg: response")
    const id = String(response?.annotations["umg.gateway.request_id"])
    expect(id.length).toBeLessThanOrEqual(201)
    expect(id.startsWith("req-xxx")).toBe(true)
    expect(shownIn(lines)).toEqual([])
  })
})
