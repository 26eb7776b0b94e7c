// The proxy setting of umg's Node clients, in this process: the plan of an explicit setting, Node's
// NO_PROXY rules, the checks of a given proxy, and the failures at a proxy as the Node client and the
// `ws` opener report them (a real loopback proxy; an unreachable one; one answering 407). Nothing here
// touches process.env or Node's global agents: the environment convention is tested in child processes
// (Proxy.test.ts).
import { createServer as createHttpServer } from "node:http"
import { createServer, type Socket } from "node:net"
import type { AddressInfo } from "node:net"
import { Effect, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import * as HttpProxy from "../../src/adapters/http/HttpProxy.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { ProxyFailure, proxyFailureIn, proxyNote } from "../../src/adapters/http/ProxyFailure.js"
import { nodeSocketOpenerWith } from "../../src/adapters/socket/NodeWebSocket.js"
import { secretsOf } from "../../src/adapters/internal/Secrets.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"
import { expectNoSecret } from "../support/secrets.js"

const USER = "umg-user"
const PASSWORD = "pr0xy-s3cret-pass"
const secrets = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString("base64")]

let emu: Emulator
let open: ForwardingProxy
let guarded: ForwardingProxy
let closedPort: number
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  // `gateway.test` resolves only inside the proxies: reaching it proves the request went through one.
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
  await Promise.all([open.close(), guarded.close(), emu.close()])
})

const withCredentials = (proxy: ForwardingProxy, password = PASSWORD) =>
  `http://${USER}:${password}@127.0.0.1:${proxy.port}`

/** A GET through umg's Node client with `proxy`: the status, or the failure. */
const get = (url: string, proxy: HttpProxy.ProxySetting) =>
  Effect.runPromise(
    Effect.provide(
      Effect.result(Effect.map(HttpClient.get(url), (response) => response.status)),
      NodeHttpClient.layerWith({ proxy })
    )
  )

/** The `ProxyFailure` a GET through `proxy` ended with (it fails the test when there is none). */
const proxyFailureOfGet = async (url: string, proxy: HttpProxy.ProxySetting): Promise<ProxyFailure> => {
  const result = await get(url, proxy)
  expect(result._tag).toBe("Failure")
  const failure = result._tag === "Failure" ? result.failure : undefined
  expect(failure).toMatchObject({ _tag: "HttpClientError", reason: { _tag: "TransportError" } })
  expectNoSecret(failure, secrets)
  const found = proxyFailureIn(failure?.reason)
  expect(found).toBeInstanceOf(ProxyFailure)
  return found!
}

/** How a WebSocket opened through `proxy` ends its opening: open, refused with a status, or an error. */
const openSocket = (url: string, proxy: HttpProxy.ProxySetting) =>
  new Promise<
    | { readonly outcome: "open" }
    | { readonly outcome: "refused"; readonly status: number }
    | { readonly outcome: "error"; readonly error: unknown }
  >((resolve) => {
    const socket = nodeSocketOpenerWith({ proxy })(url, { headers: { authorization: `Bearer ${emu.apiKey}` } })
    socket.on({
      open: () => {
        socket.close(1000)
        resolve({ outcome: "open" })
      },
      message: () => {},
      close: () => {},
      refused: (status) => resolve({ outcome: "refused", status }),
      error: (error) => resolve({ outcome: "error", error })
    })
  })

const gatewayTest = () => `http://gateway.test:${emu.port}`

describe("the proxy plan", () => {
  it("sends both protocols through an explicit proxy URL, and nothing through none", () => {
    const plan = HttpProxy.planFor("http://proxy.corp:3128", "https:")
    expect(plan).toMatchObject({ proxy: "proxy.corp:3128", credentials: false, bypass: [] })
    expect(plan.proxyEnv).toMatchObject({
      HTTP_PROXY: "http://proxy.corp:3128/",
      HTTPS_PROXY: "http://proxy.corp:3128/"
    })
    expect(HttpProxy.planFor(false, "http:")).toMatchObject({ proxy: undefined, proxyEnv: {} })
    const redacted = HttpProxy.planFor(
      { url: Redacted.make("https://u:p@proxy.corp"), noProxy: " .Internal, x:8080 " },
      "http:"
    )
    expect(redacted).toMatchObject({ proxy: "proxy.corp:443", credentials: true, bypass: [".internal", "x:8080"] })
  })

  it("follows Node's NO_PROXY rules: host, host:port, .suffix, *.suffix, IPv4 ranges and *", () => {
    const plan = (noProxy: string) => HttpProxy.planFor({ url: "http://p:1", noProxy }, "https:")
    const via = (noProxy: string, url: string) => HttpProxy.proxyOf(plan(noProxy), new URL(url))
    expect(via("", "https://gw.example")).toBe("p:1")
    expect(via("gw.example", "https://GW.example")).toBeUndefined()
    expect(via("gw.example:443", "https://gw.example")).toBeUndefined()
    expect(via("gw.example:8443", "https://gw.example")).toBe("p:1")
    expect(via(".example", "https://gw.example")).toBeUndefined()
    expect(via(".example", "https://example")).toBeUndefined()
    expect(via(".example", "https://notexample")).toBe("p:1")
    expect(via("*.example", "wss://a.b.example")).toBeUndefined()
    expect(via("10.0.0.1-10.0.0.9", "https://10.0.0.5")).toBeUndefined()
    expect(via("10.0.0.1-10.0.0.9", "https://10.0.0.10")).toBe("p:1")
    expect(via("::1", "http://[::1]:8080")).toBeUndefined()
    expect(via("*", "https://anything")).toBeUndefined()
  })

  it("refuses a proxy URL that is not http(s), showing it without its password", () => {
    const thrown = (setting: HttpProxy.ProxySetting) => {
      try {
        HttpProxy.checkSetting(setting)
      } catch (error) {
        return error
      }
      return undefined
    }
    const socks = thrown(`socks5://${USER}:${PASSWORD}@proxy.corp:1080`)
    expect(socks).toBeInstanceOf(InvalidRequest)
    expect(socks).toMatchObject({ field: "proxy", rule: "url" })
    expect((socks as InvalidRequest).message).toContain(`socks5://${USER}:***@proxy.corp:1080`)
    expectNoSecret(socks, secrets)
    const garbled = thrown(`http://${USER}:${PASSWORD}@proxy corp`)
    expect((garbled as InvalidRequest).message).toContain("a value that is not a URL")
    expectNoSecret(garbled, secrets)
    expect(thrown({ url: "http://p:1", noProxy: "a\nb" })).toMatchObject({ field: "proxy", rule: "no-proxy" })
    expect(() => NodeHttpClient.layerWith({ proxy: "proxy.corp:3128" })).toThrow(InvalidRequest)
    expect(() => nodeSocketOpenerWith({ proxy: "ftp://proxy.corp" })).toThrow(InvalidRequest)
  })

  it("refuses a given proxy on a Node whose http.Agent cannot use one, rather than ignore it", () => {
    expect(
      ["22.19.0", "22.20.0", "22.21.0", "23.11.1", "24.4.1", "24.5.0", "25.0.0"].map((v) =>
        HttpProxy.supportsProxyEnv(v)
      )
    ).toEqual([false, false, true, false, false, true, true])
    expect(() => HttpProxy.checkSetting("http://proxy.corp:3128", "22.19.0")).toThrow(
      /needs Node 22\.21 or later on the 22 line, or 24\.5 or later \(this is Node 22\.19\.0\)/
    )
    expect(() => HttpProxy.checkSetting(false, "22.19.0")).not.toThrow()
    expect(() => HttpProxy.checkSetting(undefined, "22.19.0")).not.toThrow()
  })

  it("is a gateway setting: checked by GatewayConfig.make, refused in a browser and when no client of umg's would use it", () => {
    const base = { baseUrl: "https://gw.example", apiKey: "sk-test" }
    const url = `http://${USER}:${PASSWORD}@proxy.corp:3128`
    expect(GatewayConfig.make({ ...base, proxy: url }).proxy).toBe(url)
    expect(GatewayConfig.make({ ...base, proxy: false }).proxy).toBe(false)
    expect("proxy" in GatewayConfig.make(base)).toBe(false)
    const refusal = (input: Partial<GatewayConfig.GatewayConfigInput>) => {
      try {
        GatewayConfig.make({ ...base, ...input })
      } catch (error) {
        return error
      }
      return undefined
    }
    const socks = refusal({ proxy: `socks5://${USER}:${PASSWORD}@proxy.corp:1080` })
    expect(socks).toMatchObject({ _tag: "InvalidRequest", field: "proxy", rule: "url" })
    expectNoSecret(socks, secrets)
    // Both clients brought: the proxy would apply to neither.
    const both = { httpClient: NodeHttpClient.layer, webSocket: nodeSocketOpenerWith() }
    expect(refusal({ ...both, proxy: url })).toMatchObject({ field: "proxy", rule: "unused" })
    expect(refusal({ ...both, proxy: false })).toBeUndefined()
    expect(refusal({ httpClient: NodeHttpClient.layer, proxy: url })).toBeUndefined()
    // Outside Node (no version to read): a browser goes through its own proxy settings.
    expect(() => HttpProxy.checkSetting(url, null)).toThrow(/a browser uses its own proxy settings/)
    expect(() => HttpProxy.checkSetting(false, null)).not.toThrow()
    // The proxy's password is one of the secrets no error may show, as written and decoded.
    const encoded = GatewayConfig.make({ ...base, proxy: { url: "http://u:p%40ss@proxy.corp:3128" } })
    expect(secretsOf(encoded)).toEqual(expect.arrayContaining(["p%40ss", "p@ss"]))
  })
})

describe("umg's Node client through a given proxy", () => {
  it("sends a plain http request to the proxy in absolute form, with the proxy's credentials", async () => {
    const before = guarded.records.length
    expect(await get(`${gatewayTest()}/v1/models`, withCredentials(guarded))).toMatchObject({ _tag: "Success" })
    expect(guarded.records.slice(before)).toEqual([
      {
        kind: "forward",
        target: `gateway.test:${emu.port}`,
        path: "/v1/models",
        proxyAuthorization: `Basic ${secrets[1]}`
      }
    ])
  })

  it("goes through the proxy except to the hosts its noProxy lists", async () => {
    const before = open.records.length
    const proxy = { url: open.url, noProxy: "localhost,127.0.0.1" }
    expect(await get(`${gatewayTest()}/v1/models`, proxy)).toMatchObject({ _tag: "Success" })
    expect(await get(`${emu.url}/v1/models`, proxy)).toMatchObject({ _tag: "Success" })
    expect(open.records.slice(before).map((r) => r.target)).toEqual([`gateway.test:${emu.port}`])
  })

  it("names an unreachable proxy, for http and https gateways, without its credentials", async () => {
    const proxy = `http://${USER}:${PASSWORD}@127.0.0.1:${closedPort}`
    for (const url of [`${gatewayTest()}/v1/models`, "https://gateway.test/v1/models"]) {
      const failure = await proxyFailureOfGet(url, proxy)
      expect(failure).toMatchObject({ proxy: `127.0.0.1:${closedPort}`, problem: "unreachable" })
      expect(failure.message).toBe(`the proxy 127.0.0.1:${closedPort} could not be reached (ECONNREFUSED)`)
      expect(proxyNote({ cause: failure })).toBe(`: ${failure.message}`)
      expectNoSecret(failure, secrets)
    }
  })

  it("reports a proxy's 407 as the proxy's refusal, not as the gateway's answer", async () => {
    for (const url of [`${gatewayTest()}/v1/models`, "https://gateway.test/v1/models"]) {
      const without = await proxyFailureOfGet(url, guarded.url)
      expect(without).toMatchObject({ proxy: `127.0.0.1:${guarded.port}`, problem: "refused", status: 407 })
      expect(without.message).toMatch(/asks for credentials \(407 Proxy Authentication Required\)/)
      const wrong = await proxyFailureOfGet(url, withCredentials(guarded, "not-the-pass"))
      expect(wrong.message).toBe(
        `the proxy 127.0.0.1:${guarded.port} refused its credentials (407 Proxy Authentication Required)`
      )
      expectNoSecret(wrong, ["not-the-pass"])
    }
  })
})

describe("umg's ws opener through a given proxy", () => {
  it("sends a ws:// upgrade through the proxy with its credentials", async () => {
    const before = guarded.records.length
    const url = `ws://gateway.test:${emu.port}/v1/realtime?model=gpt-realtime`
    expect(await openSocket(url, withCredentials(guarded))).toEqual({ outcome: "open" })
    expect(guarded.records.slice(before)).toMatchObject([
      { kind: "upgrade", target: `gateway.test:${emu.port}`, proxyAuthorization: `Basic ${secrets[1]}` }
    ])
  })

  it("names an unreachable proxy, and a proxy's 407, for ws:// and wss://", async () => {
    for (const url of [`ws://gateway.test:${emu.port}/v1/realtime`, "wss://gateway.test/v1/realtime"]) {
      const unreachable = await openSocket(url, `http://${USER}:${PASSWORD}@127.0.0.1:${closedPort}`)
      expect(unreachable.outcome).toBe("error")
      const lost = proxyFailureIn(unreachable.outcome === "error" ? unreachable.error : undefined)
      expect(lost).toMatchObject({ proxy: `127.0.0.1:${closedPort}`, problem: "unreachable" })
      expectNoSecret(lost, secrets)
      const refused = await openSocket(url, guarded.url)
      expect(refused.outcome).toBe("error")
      const failure = proxyFailureIn(refused.outcome === "error" ? refused.error : undefined)
      expect(failure).toMatchObject({ proxy: `127.0.0.1:${guarded.port}`, problem: "refused", status: 407 })
    }
  })

  it("names a proxy whose own 502 to a ws:// upgrade says, by Proxy-Status, that it could not reach the gateway", async () => {
    const answer = (status: string, proxyStatus: string) =>
      `HTTP/1.1 ${status}\r\nProxy-Status: corp-proxy; ${proxyStatus}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`
    let reply = answer("502 Bad Gateway", "error=connection_refused")
    const proxy = createHttpServer().on("upgrade", (_request, socket: Socket) => void socket.end(reply))
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    try {
      const refused = await openSocket(`ws://gateway.test:${emu.port}/v1/realtime`, proxyUrl)
      const failure = proxyFailureIn(refused.outcome === "error" ? refused.error : undefined)
      expect(failure).toMatchObject({ problem: "refused", status: 502, proxyStatus: "connection_refused" })
      // Another error type (the gateway may have got the request): the gateway's answer, as it was.
      reply = answer("502 Bad Gateway", "error=http_response_timeout")
      expect(await openSocket(`ws://gateway.test:${emu.port}/v1/realtime`, proxyUrl)).toEqual({
        outcome: "refused",
        status: 502
      })
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
    }
  })
})
