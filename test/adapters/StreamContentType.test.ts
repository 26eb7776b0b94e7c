// A stream's request answered 200 with something other than an event stream — a JSON error (as some
// gateways send a quota error), a whole completion, an HTML login page, nothing — fails saying what
// came back, on every client umg ships, instead of a stream that "ended before its first event".
import { Cause, Effect, Exit, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type ServerResponse, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { chatTextStream } from "../fixtures/TextStreams.js"

const KEY = "sk-content-type-key-0123456789"

/** What the server answers, by the path's last segment of the request URL's query-less path. */
let answer: (res: ServerResponse) => void = () => {}
let requests = 0
let server: Server
let baseUrl: string

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++
    req.resume()
    answer(res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] }
const epsilon = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 16,
  messages: [{ role: "user" as const, content: "hi" }]
}

const reply = (type: string | undefined, body: string) => (res: ServerResponse) => {
  res.writeHead(200, type === undefined ? {} : { "content-type": type })
  res.end(body)
}

const clients = [
  { name: "umg's Node client", layer: NodeHttpClient.layer },
  { name: "FetchHttpClient", layer: FetchHttpClient.layer }
]

describe.each(clients)("a stream answered with something else ($name)", ({ layer }) => {
  const run = async (f: (g: GatewayService) => Effect.Effect<unknown, unknown>) => {
    const exit = await Effect.runPromiseExit(
      Effect.flatMap(Gateway, f).pipe(
        Effect.provide(Gateway.layer({ baseUrl, apiKey: KEY, maxRetries: 0, httpClient: layer }))
      )
    )
    if (Exit.isSuccess(exit)) return { ok: true as const }
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "None") throw new Error(`not a typed failure: ${Cause.pretty(exit.cause)}`)
    return { ok: false as const, error: error.value as { _tag: string; message: string; type?: string } }
  }
  const drainChat = (g: GatewayService) => Stream.runDrain(g.chat.stream(chat))

  it("a JSON error envelope with status 200 is the gateway's typed error, its message kept", async () => {
    answer = reply(
      "application/json",
      JSON.stringify({ error: { message: "Rate limit reached for requests", type: "rate_limit_error" } })
    )
    const result = await run(drainChat)
    expect(result.ok).toBe(false)
    expect(result.ok === false && result.error).toMatchObject({
      _tag: "RateLimited",
      type: "rate_limit_error",
      message: "Rate limit reached for requests"
    })
  })

  it("a whole JSON completion, an HTML page or an empty body is a DecodeError naming what came", async () => {
    const cases = [
      [
        "application/json",
        JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", choices: [] }),
        '{"id":"chatcmpl-1"'
      ],
      ["text/html; charset=utf-8", "<html><body><h1>Sign in</h1></body></html>", "<html><body><h1>Sign in"],
      ["text/plain", "", ""]
    ] as const
    for (const [type, body, said] of cases) {
      answer = reply(type, body)
      for (const call of [drainChat, (g: GatewayService) => Stream.runDrain(g.messages.stream(epsilon))]) {
        const result = await run(call)
        expect(result.ok).toBe(false)
        if (result.ok) continue
        expect(result.error._tag).toBe("DecodeError")
        expect(result.error.message).toContain(`was answered with ${type} (HTTP 200), not text/event-stream`)
        expect(result.error.message).toContain(said)
      }
    }
  })

  it("never shows the key a page echoes", async () => {
    answer = reply("text/html", `<p>bad key ${KEY}</p>`)
    const result = await run(drainChat)
    expect(result.ok === false && result.error.message).toContain("[redacted]")
    expect(JSON.stringify(result)).not.toContain(KEY)
  })

  it("an event stream with parameters, or with no content type at all, is read as one", async () => {
    for (const type of ["text/event-stream; charset=utf-8", "Text/Event-Stream", undefined]) {
      answer = reply(type, chatTextStream)
      expect(await run(drainChat)).toEqual({ ok: true })
    }
    expect(requests).toBeGreaterThan(0)
  })
})
