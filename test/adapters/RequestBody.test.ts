// The transport hands a JSON body to umg's own Node client as text: Node then sends it with a
// Content-Length in bytes, not characters, and not chunked — checked on the wire with text outside
// ASCII (two-, three- and four-byte characters).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"

let server: Server
let baseUrl: string
let seen: { headers: IncomingHttpHeaders; bytes: Buffer } | undefined

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Array<Buffer> = []
    req.on("data", (b: Buffer) => parts.push(b))
    req.on("end", () => {
      seen = { headers: req.headers, bytes: Buffer.concat(parts) }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ input_tokens: 7 }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe("a JSON request body on umg's Node client", () => {
  it("arrives whole, as JSON, with its length in bytes", async () => {
    const content = "héllo — 日本語 🙂"
    const body = { model: "epsilon-sonnet-4-5-20250929", messages: [{ role: "user" as const, content }] }
    const count = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => g.messages.countTokens(body)),
        Gateway.layer({ baseUrl, apiKey: "k-body" })
      )
    )
    expect(count.input_tokens).toBe(7)
    expect(seen?.headers["content-type"]).toBe("application/json")
    expect(seen?.headers["transfer-encoding"]).toBeUndefined()
    expect(Number(seen?.headers["content-length"])).toBe(seen?.bytes.length)
    // In bytes: more than the text has characters.
    expect(seen!.bytes.length).toBe(Buffer.byteLength(JSON.stringify(body)))
    expect(seen!.bytes.length).toBeGreaterThan(JSON.stringify(body).length)
    expect(JSON.parse(seen!.bytes.toString("utf8"))).toEqual(body)
  })
})
