// A proxy reached over TLS (an `https://` proxy URL: a TLS front on loopback before the recording
// forwarding proxy), in a child process that trusts the test certificate (NODE_EXTRA_CA_CERTS is read
// at startup): umg's own CONNECT tunnels speak TLS to the proxy, then TLS to the gateway inside the
// tunnel, for HTTP calls, SSE streams and WebSockets; `http://` calls go in absolute form over TLS.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"
import type { ProxyClientCall, ProxyClientRequest, ProxyClientResult } from "../fixtures/proxyClient.js"
import { runProxyClient } from "../fixtures/runProxyClient.js"
import { startTlsFront, testCertificatePath, type TlsFront } from "../fixtures/tlsFront.js"
import { secretLeaks } from "../support/secrets.js"

const USER = "umg-user"
const PASSWORD = "tls-pr0xy-pass"
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString("base64")
const ALL: ReadonlyArray<ProxyClientCall> = ["chat", "stream", "models", "realtime"]

let emu: Emulator
let gatewayFront: TlsFront
let proxy: ForwardingProxy
let proxyFront: TlsFront
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  gatewayFront = await startTlsFront(emu.port)
  proxy = await startForwardingProxy({ hosts: { "gateway.test": "127.0.0.1" }, auth: `${USER}:${PASSWORD}` })
  proxyFront = await startTlsFront(proxy.port)
})
afterAll(async () => {
  await Promise.all([proxyFront.close(), proxy.close(), gatewayFront.close(), emu.close()])
})

/** Runs the proxy client trusting the test certificate; its results, one per call. */
const runClient = (request: Omit<ProxyClientRequest, "apiKey">): Promise<ReadonlyArray<ProxyClientResult>> =>
  runProxyClient({ ...request, apiKey: emu.apiKey }, { NODE_EXTRA_CA_CERTS: testCertificatePath })

describe("Gateway through a proxy reached over TLS", () => {
  it("tunnels https:// and wss:// through it and sends http:// in absolute form, with its credentials", async () => {
    const httpsGateway = `https://gateway.test:${gatewayFront.port}`
    const httpGateway = `http://gateway.test:${emu.port}`
    const url = `https://${USER}:${PASSWORD}@127.0.0.1:${proxyFront.port}`
    const before = proxy.records.length
    const results = await runClient({
      targets: [
        { baseUrl: httpsGateway, calls: ALL, proxy: url },
        { baseUrl: httpGateway, calls: ALL, proxy: url }
      ]
    })
    expect(results.map((r) => (r.ok ? `${r.call} ok` : `${r.call}: ${r.message}`))).toEqual([
      ...ALL.map((call) => `${call} ok`),
      ...ALL.map((call) => `${call} ok`)
    ])
    const seen = proxy.records.slice(before)
    expect(seen.filter((r) => r.kind === "connect").map((r) => r.target)).toEqual([
      `gateway.test:${gatewayFront.port}`,
      `gateway.test:${gatewayFront.port}`
    ])
    expect(seen.every((r) => r.proxyAuthorization === `Basic ${BASIC}`)).toBe(true)

    // Wrong credentials: the proxy's 407, over TLS, named, never showing them.
    const refused = await runClient({
      targets: [
        {
          baseUrl: httpsGateway,
          calls: ["models", "realtime"],
          proxy: `https://${USER}:wrong-pass@127.0.0.1:${proxyFront.port}`
        }
      ]
    })
    expect(refused.map((r) => r.message)).toEqual([
      `could not connect to ${httpsGateway}: the proxy 127.0.0.1:${proxyFront.port} refused its credentials (407 Proxy Authentication Required)`,
      `WebSocket to gateway.test:${gatewayFront.port} failed: the proxy 127.0.0.1:${proxyFront.port} refused its credentials (407 Proxy Authentication Required)`
    ])
    for (const r of refused) expect(secretLeaks(r.printed, ["wrong-pass"])).toEqual([])
  }, 60_000)
})
