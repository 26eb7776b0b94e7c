// A proxy that answers a request sent to it in absolute form (`http://` calls, `ws://` upgrades) itself,
// with an error page echoing the `Proxy-Authorization` it was sent and the password it decodes to: the
// error the call fails with shows neither the password nor the base64 `user:password` Node sends —
// for a proxy given to umg (in this process) and for Node's environment proxy (NODE_USE_ENV_PROXY, in
// a child process: the variables are read at startup).
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { inspect } from "node:util"
import { Effect, type Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { proxySecretsOf } from "../../src/adapters/http/ProxySetting.js"
import type { ProxyClientRequest, ProxyClientResult } from "../fixtures/proxyClient.js"
import { runProxyClient } from "../fixtures/runProxyClient.js"
import { secretLeaks } from "../support/secrets.js"

const USER = "umg-user"
const PASSWORD = "pr0xy-echoed-p@ss"
const ENCODED = encodeURIComponent(PASSWORD)
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString("base64")
const secrets = [PASSWORD, ENCODED, BASIC]

/** What the proxy echoes: the header it got, and what its credentials decode to. */
const echoOf = (req: IncomingMessage): string => {
  const sent = req.headers["proxy-authorization"] ?? ""
  const decoded = Buffer.from(sent.replace(/^Basic /, ""), "base64").toString("utf8")
  return `denied: you sent ${sent} (${decoded})`
}

let proxy: Server
let port = 0
beforeAll(async () => {
  proxy = createServer((req, res) => {
    req.resume()
    res.writeHead(502, { "content-type": "text/plain" }).end(echoOf(req))
  })
  proxy.on("upgrade", (req: IncomingMessage, socket: Socket) => {
    const body = echoOf(req)
    socket.end(
      `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
    )
  })
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  port = (proxy.address() as AddressInfo).port
})
afterAll(async () => {
  proxy.closeAllConnections()
  await new Promise<void>((resolve) => proxy.close(() => resolve()))
})

const printed = (value: unknown): string => inspect(value, { depth: 20, showHidden: true })

describe("the forms of a proxy's credentials to take out of what it echoes", () => {
  it("are its password as written and decoded, and the Basic credentials Node sends; of the environment when none is given", () => {
    const url = `http://${USER}:${ENCODED}@proxy.corp:3128`
    expect(proxySecretsOf(url)).toEqual([ENCODED, PASSWORD, BASIC])
    expect(proxySecretsOf({ url, noProxy: "localhost" })).toEqual([ENCODED, PASSWORD, BASIC])
    expect(proxySecretsOf("http://proxy.corp:3128")).toEqual([])
    expect(proxySecretsOf(false)).toEqual([])
    const saved = process.env.HTTPS_PROXY
    process.env.HTTPS_PROXY = url
    try {
      expect(proxySecretsOf(undefined)).toEqual(expect.arrayContaining([ENCODED, PASSWORD, BASIC]))
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY
      else process.env.HTTPS_PROXY = saved
    }
  })
})

describe("a proxy given to umg that echoes its credentials in its own error answer", () => {
  const run = <A, E>(call: Effect.Effect<A, E, Gateway | Scope.Scope>) =>
    Effect.runPromise(
      Effect.exit(
        Effect.provide(
          Effect.scoped(call),
          Gateway.layer({
            baseUrl: "http://gateway.test",
            apiKey: "sk-echo-test-key-0001",
            maxRetries: 0,
            proxy: `http://${USER}:${ENCODED}@127.0.0.1:${port}`
          })
        )
      )
    )

  it("shows neither the password nor the Basic credentials in an HTTP call's error", async () => {
    const exit = await run(Effect.flatMap(Gateway, (g) => g.models.list()))
    expect(exit).toMatchObject({ _tag: "Failure", cause: { reasons: [{ error: { status: 502 } }] } })
    expect(secretLeaks(exit, secrets)).toEqual([])
    expect(printed(exit)).not.toContain(BASIC)
  })

  it("shows neither in a refused ws:// upgrade's error", async () => {
    const exit = await run(Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" })))
    expect(exit).toMatchObject({ _tag: "Failure", cause: { reasons: [{ error: { status: 403 } }] } })
    expect(secretLeaks(exit, secrets)).toEqual([])
    expect(printed(exit)).not.toContain(BASIC)
  })
})

/** Runs the proxy client with `env`; its results, one per call. */
const runClient = (
  request: Omit<ProxyClientRequest, "apiKey">,
  env: Readonly<Record<string, string>>
): Promise<ReadonlyArray<ProxyClientResult>> => runProxyClient({ ...request, apiKey: "sk-echo-test-key-0002" }, env)

describe("Node's environment proxy that echoes its credentials in its own error answer", () => {
  it("shows neither the password nor the Basic credentials in any call's error", async () => {
    const results = await runClient(
      { targets: [{ baseUrl: "http://gateway.test", calls: ["models", "realtime"] }] },
      { HTTP_PROXY: `http://${USER}:${ENCODED}@127.0.0.1:${port}`, NODE_USE_ENV_PROXY: "1" }
    )
    expect(results.map((r) => [r.call, r.ok, r.tag])).toEqual([
      ["models", false, "ServerError"],
      ["realtime", false, "PermissionDenied"]
    ])
    for (const result of results) expect(secretLeaks(result.printed, secrets), result.call).toEqual([])
  }, 60_000)
})
