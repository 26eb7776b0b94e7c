// The `reason` of a failure at an HTTP proxy, which decides whether a paid submit may be sent again,
// against real node:net and node:http proxies on loopback. A `CONNECT` tunnel the proxy never opened
// (closed, reset, silent past the socket's time limit) is `connect`: no byte of the request left, so a
// video submit is tried again; one that opened and was cut after the request went stays `reset`, and
// the submit is not repeated. A proxy's own error answer to an `http://` request in absolute form is
// the proxy's (`connect`) only when its RFC 9209 `Proxy-Status` says it could not reach the gateway.
import * as Http from "node:http"
import { createServer, type AddressInfo, type Socket } from "node:net"
import { Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"
import { onConnectHead, startRawPeer } from "../fixtures/rawPeer.js"
import { startTlsFront, type TlsFront } from "../fixtures/tlsFront.js"
import { trustingClient } from "../fixtures/trustingClient.js"
import { gatewayFailure } from "../support/gatewayFailure.js"
import { expectNoSecret } from "../support/secrets.js"

const USER = "umg-user"
const PASSWORD = "pr0xy-re4son-pass"
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString("base64")
const secrets = [PASSWORD, BASIC]
const withCredentials = (port: number) => `http://${USER}:${PASSWORD}@127.0.0.1:${port}`

const submit = Effect.flatMap(Gateway, (g) => g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }))

let emu: Emulator
let front: TlsFront
let forwarding: ForwardingProxy
let closedPort: number
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  front = await startTlsFront(emu.port)
  forwarding = await startForwardingProxy({ hosts: { "gateway.test": "127.0.0.1" } })
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })
})
afterAll(async () => {
  await Promise.all([forwarding.close(), front.close(), emu.close()])
})

/** A `node:http` proxy answering every request itself with `answer`; how many requests it got. */
const startAnsweringProxy = async (answer: (req: Http.IncomingMessage, res: Http.ServerResponse) => void) => {
  let requests = 0
  const server = Http.createServer((req, res) => {
    requests++
    req.resume()
    answer(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}

/** What the proxy echoes of the credentials it got (a hostile proxy's error page). */
const echoOf = (req: Http.IncomingMessage): string => `you sent ${req.headers["proxy-authorization"] ?? ""}`

/** The error a Gateway call fails with (it must fail), with fast retries unless told. */
const failureOf = <A, E>(
  call: Effect.Effect<A, E, Gateway>,
  config: Partial<GatewayConfigInput> & Pick<GatewayConfigInput, "baseUrl">,
  client?: Layer.Layer<HttpClient.HttpClient>
): Promise<E> => gatewayFailure(call, { apiKey: emu.apiKey, ...config }, client)

describe("a CONNECT tunnel the proxy never opened", () => {
  const cases: ReadonlyArray<readonly [string, (socket: Socket) => void]> = [
    ["closes the connection once it has read the CONNECT", onConnectHead((_head, socket) => socket.end())],
    ["resets the connection once it has read the CONNECT", onConnectHead((_head, socket) => socket.resetAndDestroy())],
    ["closes the connection it accepted at once", (socket) => socket.end()],
    [
      "answers with a head that is not HTTP",
      onConnectHead((_head, socket) => socket.end("SSH-2.0-OpenSSH_9.6\r\n\r\n"))
    ]
  ]
  for (const [what, behaviour] of cases)
    it(`that ${what} fails with reason connect, and a paid video submit is tried again`, async () => {
      const proxy = await startRawPeer(behaviour)
      try {
        const error = await failureOf(submit, { baseUrl: "https://gateway.test", proxy: withCredentials(proxy.port) })
        expect(error).toMatchObject({ _tag: "TransportError", reason: "connect" })
        expect((error as Error).message).toContain(`the proxy 127.0.0.1:${proxy.port}`)
        // The first attempt and both retries: each a tunnel asked for.
        expect(proxy.accepted()).toBe(3)
        expectNoSecret(error, secrets)
      } finally {
        await proxy.close()
      }
    })

  it("that stays silent past the socket's time limit fails with reason connect, and the submit is tried again", async () => {
    const silent = await startRawPeer((socket) => socket.resume())
    try {
      const proxy = withCredentials(silent.port)
      const error = await failureOf(
        submit,
        { baseUrl: "https://gateway.test", proxy, timeoutMs: 10_000 },
        // The agent's timeout (the idle-socket one) bounds a tunnel's opening, as Node's own tunnel does.
        NodeHttpClient.layerWith({ proxy, idleSocketTimeoutMs: 150 })
      )
      expect(error).toMatchObject({ _tag: "TransportError", reason: "connect" })
      expect((error as Error).message).toContain(`the proxy 127.0.0.1:${silent.port}`)
      expect((error as Error).message).toContain("ETIMEDOUT")
      // Each attempt ended by the agent's limit, not the call's (which would be a TimeoutError).
      expect(silent.accepted()).toBe(3)
    } finally {
      await silent.close()
    }
  })
})

describe("a CONNECT tunnel that opened", () => {
  it("cut by the gateway after the request was sent stays reset: the paid submit is not repeated", async () => {
    const before = emu.counters.get("video.submit.rejected")
    emu.inject("video.submit", { kind: "drop-before" }, 5)
    try {
      const error = await failureOf(
        submit,
        { baseUrl: `https://gateway.test:${front.port}`, proxy: forwarding.url },
        trustingClient(forwarding.url)
      )
      expect(error).toMatchObject({ _tag: "TransportError", reason: "reset" })
      expect(emu.counters.get("video.submit.rejected") - before).toBe(1)
    } finally {
      emu.reset()
    }
  })

  it("carries the gateway's own answer, Proxy-Status and all, as the gateway's", async () => {
    emu.inject("video.submit", {
      kind: "status",
      status: 502,
      headers: { "proxy-status": "edge; error=connection_refused" }
    })
    try {
      const error = await failureOf(
        submit,
        { baseUrl: `https://gateway.test:${front.port}`, proxy: forwarding.url, maxRetries: 0 },
        trustingClient(forwarding.url)
      )
      expect(error).toMatchObject({ _tag: "ServerError", status: 502 })
    } finally {
      emu.reset()
    }
  })
})

describe("a proxy's own error answer to an http:// request sent in absolute form", () => {
  it("that could not connect to the gateway (Proxy-Status error=connection_refused) is the proxy's: reason connect, retried", async () => {
    // A forwarding proxy whose upstream refuses: it answers 502 itself, as RFC 9209 says, echoing credentials.
    const proxy = await startAnsweringProxy((req, res) => {
      const url = new URL(req.url ?? "/")
      const upstream = Http.request({ host: "127.0.0.1", port: url.port, method: req.method, path: url.pathname })
      upstream.on("error", (cause: NodeJS.ErrnoException) => {
        const body = `${echoOf(req)}: ${cause.code}`
        res
          .writeHead(502, `Bad Gateway ${echoOf(req)}`, {
            "proxy-status": `umg-test-proxy; error=connection_refused; details="${echoOf(req)}"`,
            via: "1.1 umg-test-proxy",
            "content-type": "text/plain",
            "content-length": body.length
          })
          .end(body)
      })
      upstream.end()
    })
    try {
      const error = await failureOf(submit, {
        baseUrl: `http://gateway.test:${closedPort}`,
        proxy: withCredentials(proxy.port)
      })
      expect(error).toMatchObject({ _tag: "TransportError", reason: "connect" })
      expect((error as Error).message).toBe(
        `could not connect to http://gateway.test:${closedPort}: the proxy 127.0.0.1:${proxy.port} could not reach ` +
          "the gateway (502, Proxy-Status error=connection_refused)"
      )
      expect(proxy.requests()).toBe(3)
      expectNoSecret(error, secrets)
    } finally {
      await proxy.close()
    }
  })

  it("is the proxy's for every Proxy-Status error that says it could not connect", async () => {
    let proxyStatus = ""
    const proxy = await startAnsweringProxy((_req, res) => {
      res.writeHead(503, { "proxy-status": proxyStatus, "content-length": 0 }).end()
    })
    try {
      for (const status of [
        "squid; error=destination_unavailable",
        'proxy.corp; error=dns_error; rcode="NXDOMAIN"',
        "proxy.corp;error=connection_timeout",
        '"proxy, corp"; error=destination_not_found',
        // Our proxy is the last one named: the first one's answer went through it.
        "origin-edge, proxy.corp; error=connection_refused"
      ]) {
        proxyStatus = status
        const error = await failureOf(
          Effect.flatMap(Gateway, (g) => g.models.list()),
          { baseUrl: "http://gateway.test", proxy: withCredentials(proxy.port), maxRetries: 0 }
        )
        expect(error, status).toMatchObject({ _tag: "TransportError", reason: "connect" })
        expect((error as Error).message, status).toContain(`the proxy 127.0.0.1:${proxy.port} could not reach`)
      }
    } finally {
      await proxy.close()
    }
  })

  it("stays the gateway's answer when nothing reliably says the proxy could not connect", async () => {
    let headers: Http.OutgoingHttpHeaders = {}
    let status = 502
    const proxy = await startAnsweringProxy((req, res) => {
      const body = echoOf(req)
      res.writeHead(status, { ...headers, "content-length": body.length }).end(body)
    })
    const cases: ReadonlyArray<readonly [number, Http.OutgoingHttpHeaders]> = [
      // Neither Via nor a body tells a proxy's answer from one it carried.
      [502, { via: "1.1 squid" }],
      // The proxy reached the gateway, which may have acted.
      [504, { "proxy-status": "squid; error=http_response_timeout" }],
      [502, { "proxy-status": "squid; error=connection_terminated" }],
      // A proxy past ours could not connect; ours (the last named) carried that answer.
      [502, { "proxy-status": "edge; error=connection_refused, squid" }],
      // Not RFC 9209's: no error parameter, a malformed field, a status that is no error.
      [502, { "proxy-status": "squid; received-status=502" }],
      [502, { "proxy-status": 'squid; error=connection_refused; details="unterminated' }],
      [502, { "proxy-status": "squid; error=connection_refused;;" }],
      // RFC 9209's error is a token, not a string.
      [502, { "proxy-status": 'squid; error="connection_refused"' }],
      [409, { "proxy-status": "squid; error=connection_refused" }]
    ]
    try {
      for (const [answered, sent] of cases) {
        ;[status, headers] = [answered, sent]
        const before = proxy.requests()
        const error = await failureOf(submit, {
          baseUrl: "http://gateway.test",
          proxy: withCredentials(proxy.port)
        })
        const label = JSON.stringify(sent)
        expect(error, label).toMatchObject({ status: answered })
        expectNoSecret(error, secrets)
        // A paid submit the gateway may have acted on is not repeated.
        expect(proxy.requests() - before, label).toBe(1)
      }
    } finally {
      await proxy.close()
    }
  })
})
