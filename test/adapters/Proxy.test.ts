// `Gateway` calls behind an HTTP proxy, each run in a child process with a clean environment (the proxy
// variables and NODE_USE_ENV_PROXY are read at startup, and must not leak into this worker): a chat
// completion, a messages SSE stream, models.list and a realtime WebSocket, against the emulator as an
// `https://` gateway (a TLS front, through a CONNECT tunnel) and as an `http://` one (absolute form).
// The gateway is named `gateway.test`, which only the proxies resolve: a call that succeeds went
// through a proxy. NO_PROXY hosts (127.0.0.1) must go directly, and the proxy must see nothing of them.
import { createServer, type AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"
import type { ProxyClientCall, ProxyClientRequest, ProxyClientResult } from "../fixtures/proxyClient.js"
import { runProxyClient } from "../fixtures/runProxyClient.js"
import { startTlsFront, testCertificatePath, type TlsFront } from "../fixtures/tlsFront.js"
import { secretLeaks } from "../support/secrets.js"

const USER = "umg-user"
const PASSWORD = "pr0xy-s3cret-pass"
const secrets = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString("base64")]
const ALL: ReadonlyArray<ProxyClientCall> = ["chat", "stream", "models", "realtime"]

let emu: Emulator
let front: TlsFront
let open: ForwardingProxy
let guarded: ForwardingProxy
let closedPort: number
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  front = await startTlsFront(emu.port)
  const hosts = { "gateway.test": "127.0.0.1" }
  open = await startForwardingProxy({ hosts })
  guarded = await startForwardingProxy({ hosts, auth: `${USER}:${PASSWORD}` })
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })
})
afterAll(async () => {
  await Promise.all([open.close(), guarded.close(), front.close(), emu.close()])
})

const httpsGateway = () => `https://gateway.test:${front.port}`
const httpGateway = () => `http://gateway.test:${emu.port}`

/** Runs the proxy client with `env` (and the test certificate trusted); its results, one per call. */
const runClient = (
  request: Omit<ProxyClientRequest, "apiKey">,
  env: Readonly<Record<string, string>> = {}
): Promise<ReadonlyArray<ProxyClientResult>> =>
  runProxyClient({ ...request, apiKey: emu.apiKey }, { NODE_EXTRA_CA_CERTS: testCertificatePath, ...env })

const okCalls = (results: ReadonlyArray<ProxyClientResult>, baseUrl: string) =>
  results.filter((r) => r.baseUrl === baseUrl).map((r) => (r.ok ? r.call : `${r.call}: ${r.tag} ${r.message}`))

/** What a proxy saw from `from` on: kinds, targets and paths. */
const seenSince = (proxy: ForwardingProxy, from: number) =>
  proxy.records.slice(from).map((r) => `${r.kind} ${r.target}${r.path ?? ""}`)

describe("Gateway behind Node's environment proxy", () => {
  it("goes through HTTPS_PROXY and HTTP_PROXY when NODE_USE_ENV_PROXY=1, and not without it, as Node's own clients", async () => {
    const proxyEnv = { HTTPS_PROXY: open.url, HTTP_PROXY: open.url }
    const targets = [
      { baseUrl: httpsGateway(), calls: ALL },
      { baseUrl: httpGateway(), calls: ALL }
    ]
    const before = open.records.length
    const off = await runClient({ targets: [{ baseUrl: httpsGateway(), calls: ["models", "realtime"] }] }, proxyEnv)
    expect(off.map((r) => [r.ok, r.tag])).toEqual([
      [false, "TransportError"],
      [false, "TransportError"]
    ])
    expect(seenSince(open, before)).toEqual([])

    const on = await runClient({ targets }, { ...proxyEnv, NODE_USE_ENV_PROXY: "1" })
    expect(okCalls(on, httpsGateway())).toEqual(ALL)
    expect(okCalls(on, httpGateway())).toEqual(ALL)
    const seen = seenSince(open, before)
    // HTTPS: one tunnel for the keep-alive HTTP connection, one for the WebSocket.
    expect(seen.filter((s) => s.startsWith("connect"))).toEqual([
      `connect gateway.test:${front.port}`,
      `connect gateway.test:${front.port}`
    ])
    expect(seen.filter((s) => !s.startsWith("connect"))).toEqual([
      `forward gateway.test:${emu.port}/v1/chat/completions`,
      `forward gateway.test:${emu.port}/v1/messages`,
      `forward gateway.test:${emu.port}/v1/models`,
      `upgrade gateway.test:${emu.port}/v1/realtime?model=gpt-realtime`
    ])
  }, 60_000)

  it("goes directly to the hosts NO_PROXY lists, while the others go through the proxy", async () => {
    const before = open.records.length
    const results = await runClient(
      {
        targets: [
          { baseUrl: httpsGateway(), calls: ["models"] },
          { baseUrl: `https://127.0.0.1:${front.port}`, calls: ALL },
          { baseUrl: emu.url, calls: ALL }
        ]
      },
      { HTTPS_PROXY: open.url, HTTP_PROXY: open.url, NO_PROXY: "localhost, 127.0.0.1", NODE_USE_ENV_PROXY: "1" }
    )
    expect(okCalls(results, httpsGateway())).toEqual(["models"])
    expect(okCalls(results, `https://127.0.0.1:${front.port}`)).toEqual(ALL)
    expect(okCalls(results, emu.url)).toEqual(ALL)
    expect(seenSince(open, before)).toEqual([`connect gateway.test:${front.port}`])
  }, 60_000)
})

describe("Gateway with a given proxy", () => {
  it("goes through the proxy it is given, with the proxy's credentials, and not through Node's; directly with false", async () => {
    const before = [open.records.length, guarded.records.length] as const
    const proxy = { url: `http://${USER}:${PASSWORD}@127.0.0.1:${guarded.port}`, noProxy: "127.0.0.1" }
    const results = await runClient(
      {
        targets: [
          { baseUrl: httpsGateway(), calls: ALL, proxy },
          { baseUrl: httpGateway(), calls: ALL, proxy },
          { baseUrl: emu.url, calls: ["models", "realtime"], proxy },
          { baseUrl: `https://127.0.0.1:${front.port}`, calls: ["models", "realtime"], proxy: false }
        ]
      },
      { HTTPS_PROXY: open.url, HTTP_PROXY: open.url, NODE_USE_ENV_PROXY: "1" }
    )
    expect(okCalls(results, httpsGateway())).toEqual(ALL)
    expect(okCalls(results, httpGateway())).toEqual(ALL)
    expect(okCalls(results, emu.url)).toEqual(["models", "realtime"])
    expect(okCalls(results, `https://127.0.0.1:${front.port}`)).toEqual(["models", "realtime"])
    expect(seenSince(open, before[0])).toEqual([])
    const seen = guarded.records.slice(before[1])
    expect(seen.length).toBe(6)
    expect(seen.every((r) => r.proxyAuthorization === `Basic ${secrets[1]}`)).toBe(true)
  }, 60_000)

  it("fails with a TransportError, never showing the proxy's credentials, when the proxy is unreachable or answers 407", async () => {
    const targets = (proxy: string) =>
      [httpsGateway(), httpGateway()].map((baseUrl) => ({ baseUrl, calls: ["chat", "realtime"] as const, proxy }))
    const unreachable = await runClient({ targets: targets(`http://${USER}:${PASSWORD}@127.0.0.1:${closedPort}`) })
    const before = guarded.records.length
    const refused = await runClient({ targets: targets(`http://${USER}:wrong-pr0xy-pass@127.0.0.1:${guarded.port}`) })
    for (const results of [unreachable, refused]) {
      expect(results.map((r) => [r.ok, r.tag])).toEqual(Array.from({ length: 4 }, () => [false, "TransportError"]))
      for (const r of results) expect(secretLeaks(r.printed, [...secrets, "wrong-pr0xy-pass"])).toEqual([])
    }
    expect(unreachable.map((r) => [r.reason, r.message])).toEqual([
      [
        "connect",
        `could not connect to ${httpsGateway()}: the proxy 127.0.0.1:${closedPort} could not be reached (ECONNREFUSED)`
      ],
      [
        "connect",
        `WebSocket to gateway.test:${front.port} failed: the proxy 127.0.0.1:${closedPort} could not be reached (ECONNREFUSED)`
      ],
      [
        "connect",
        `could not connect to ${httpGateway()}: the proxy 127.0.0.1:${closedPort} could not be reached (ECONNREFUSED)`
      ],
      [
        "connect",
        `WebSocket to gateway.test:${emu.port} failed: the proxy 127.0.0.1:${closedPort} could not be reached (ECONNREFUSED)`
      ]
    ])
    const rejected = `the proxy 127.0.0.1:${guarded.port} refused its credentials (407 Proxy Authentication Required)`
    expect(refused.map((r) => [r.reason, r.message])).toEqual([
      ["connect", `could not connect to ${httpsGateway()}: ${rejected}`],
      ["connect", `WebSocket to gateway.test:${front.port} failed: ${rejected}`],
      ["connect", `could not connect to ${httpGateway()}: ${rejected}`],
      ["connect", `WebSocket to gateway.test:${emu.port} failed: ${rejected}`]
    ])
    // The proxy turned down each request (a tunnel or a forward), none reached the gateway.
    expect(seenSince(guarded, before)).toEqual([
      `connect gateway.test:${front.port}`,
      `connect gateway.test:${front.port}`,
      `forward gateway.test:${emu.port}/v1/chat/completions`,
      `upgrade gateway.test:${emu.port}/v1/realtime?model=gpt-realtime`
    ])
  }, 60_000)
})
