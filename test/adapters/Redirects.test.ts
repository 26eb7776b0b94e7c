import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import * as HttpAuth from "../../src/adapters/http/HttpAuth.js"
import * as HttpTransport from "../../src/adapters/http/HttpTransport.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"

// Every client umg ships: its own Node client (the default in Node) and the fetch client (browsers).
const clients = [
  { name: "umg's Node client", layer: NodeHttpClient.layer },
  { name: "FetchHttpClient", layer: FetchHttpClient.layer }
]

const KEY = "sk-redirect-SECRET"
type Seen = { url: string; headers: IncomingHttpHeaders }

const listen = (handler: Parameters<typeof createServer>[1]) =>
  new Promise<{ server: Server; url: string }>((resolve) => {
    const server = createServer(handler)
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    )
  })

let target: { server: Server; url: string }
let origin: { server: Server; url: string }
const seenByTarget: Array<Seen> = []
const seenByOrigin: Array<Seen> = []

beforeAll(async () => {
  target = await listen((req, res) => {
    seenByTarget.push({ url: req.url ?? "", headers: req.headers })
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }))
  })
  origin = await listen((req, res) => {
    seenByOrigin.push({ url: req.url ?? "", headers: req.headers })
    if (req.url?.startsWith("/same")) return void res.writeHead(307, { location: "/final" }).end()
    if (req.url?.startsWith("/final")) return void res.writeHead(200, { "content-type": "application/json" }).end("{}")
    if (req.url?.startsWith("/see-other")) return void res.writeHead(303, { location: `${target.url}/elsewhere` }).end()
    if (req.url?.startsWith("/userinfo"))
      return void res.writeHead(302, { location: target.url.replace("//", "//mallory:hunter2-SERVER@") + "/x" }).end()
    res.writeHead(307, { location: `${target.url}/elsewhere` }).end()
  })
})
afterAll(async () => {
  await new Promise((r) => target.server.close(r))
  await new Promise((r) => origin.server.close(r))
})

describe.each(clients)("redirects with $name", ({ layer }) => {
  const send = (path: string, auth: HttpAuth.Auth) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(
          HttpTransport.fromConfig(
            GatewayConfig.make({ baseUrl: origin.url, apiKey: KEY, headers: { "x-team": "t1" }, httpClient: layer })
          ),
          (t) =>
            t.json({
              family: "openai",
              method: "POST",
              url: `${origin.url}${path}`,
              body: { a: 1 },
              auth,
              kind: "idempotent"
            })
        )
      )
    )

  it("refuse to re-send a credentialed POST body to another origin on 307", async () => {
    seenByTarget.length = 0
    const exit = await Effect.runPromiseExit(
      Effect.scoped(
        Effect.flatMap(
          HttpTransport.fromConfig(GatewayConfig.make({ baseUrl: origin.url, apiKey: KEY, httpClient: layer })),
          (t) =>
            t.json({
              family: "openai",
              method: "POST",
              url: `${origin.url}/v1/chat/completions`,
              body: { a: 1 },
              auth: HttpAuth.bearer(Redacted.make(KEY)),
              kind: "idempotent"
            })
        )
      )
    )
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("another origin")
    expect(seenByTarget).toEqual([])
  })

  it("follow a cross-origin 303 (a GET without the body) without the key, the token or the extra headers", async () => {
    for (const auth of [
      HttpAuth.bearer(Redacted.make(KEY)),
      HttpAuth.platformToken(Redacted.make(`Bearer ${KEY}`)),
      { _tag: "Header" as const, header: "x-vendor-api-key", value: Redacted.make(KEY) },
      { _tag: "Query" as const, name: "key", value: Redacted.make(KEY) }
    ]) {
      seenByTarget.length = 0
      await send("/see-other", auth)
      expect(seenByTarget.length).toBe(1)
      const seen = seenByTarget[0]!
      expect(JSON.stringify(seen)).not.toContain(KEY)
      expect(seen.headers["authorization"]).toBeUndefined()
      expect(seen.headers["x-team"]).toBeUndefined()
    }
  })

  it("keep the key on a same-origin redirect", async () => {
    seenByOrigin.length = 0
    await send("/same", HttpAuth.bearer(Redacted.make(KEY)))
    expect(seenByOrigin.map((s) => s.url)).toEqual(["/same", "/final"])
    expect(seenByOrigin[1]!.headers["authorization"]).toBe(`Bearer ${KEY}`)
  })

  it("send the platform token exactly once prefixed with Bearer", async () => {
    seenByOrigin.length = 0
    await send("/final", HttpAuth.platformToken(Redacted.make("Bearer abc")))
    await send("/final", HttpAuth.platformToken(Redacted.make("abc")))
    expect(seenByOrigin.map((s) => s.headers["authorization"])).toEqual(["Bearer abc", "Bearer abc"])
  })

  it("refuse a redirect to a URL with credentials in it: nothing is sent there, nor shown", async () => {
    seenByTarget.length = 0
    const error: unknown = await send("/userinfo", HttpAuth.bearer(Redacted.make(KEY))).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toMatchObject({ _tag: "TransportError", reason: "protocol" })
    const shown = `${String(error)} ${JSON.stringify(error)}`
    expect(shown).toContain("credentials in it")
    expect(shown).not.toContain("hunter2")
    expect(shown).not.toContain("mallory")
    expect(seenByTarget).toEqual([])
  })
})
