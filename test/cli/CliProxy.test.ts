// The `umg` command behind an HTTP proxy, as curl, npm and gh are: `HTTPS_PROXY` (or `HTTP_PROXY`,
// either case) alone sends `umg models`, `umg chat` (a stream) and `umg realtime` (a WebSocket) through
// it, without NODE_USE_ENV_PROXY. The gateway is named `gateway.test`, which only the proxies resolve:
// a command that succeeds went through a proxy. NO_PROXY is honoured and loopback is always reached
// directly; NODE_USE_ENV_PROXY=0 opts out (and =1 is Node's own); a proxy that is not an http(s) URL is
// refused (exit 2); on a Node that cannot proxy the command warns and goes directly. The proxy's
// credentials are never printed, on stdout, stderr or in the debug log.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"
import { startTlsFront, testCertificatePath, type TlsFront } from "../fixtures/tlsFront.js"
import { secretLeaks } from "../support/secrets.js"
import { bundleUmg, runUmg, type UmgRun } from "./RunUmg.js"

const KEY = "sk-umg-cli-proxy-FAKE-61d0c7"
const USER = "umg-cli-user"
const PASSWORD = "cl1-pr0xy-s3cret"
const proxySecrets = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString("base64")]

let emu: Emulator
let front: TlsFront
let open: ForwardingProxy
let guarded: ForwardingProxy
let closedPort: number
let umg: string
const dir = mkdtempSync(join(tmpdir(), "umg-cli-proxy-"))

beforeAll(async () => {
  const hosts = { "gateway.test": "127.0.0.1" }
  ;[emu, umg, open, guarded] = await Promise.all([
    startEmulator({ fast: true, keys: { [KEY]: "full" } }),
    bundleUmg(),
    startForwardingProxy({ hosts }),
    startForwardingProxy({ hosts, auth: `${USER}:${PASSWORD}` })
  ])
  front = await startTlsFront(emu.port)
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })
}, 60_000)

afterAll(async () => {
  /* eslint-disable @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them */
  await Promise.all([open?.close(), guarded?.close(), front?.close(), emu?.close()])
  if (umg !== undefined) rmSync(umg, { force: true })
  /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  rmSync(dir, { recursive: true, force: true })
})

const httpsGateway = () => `https://gateway.test:${front.port}`
const httpGateway = () => `http://gateway.test:${emu.port}`

/**
 * The environment of one run: the gateway, the test certificate trusted, and every proxy variable
 * blank unless `proxy` sets it (the test runner's own must not leak in).
 */
const envOf = (baseUrl: string, proxy: Readonly<Record<string, string>>): Record<string, string> => ({
  UMG_BASE_URL: baseUrl,
  UMG_API_KEY: KEY,
  UMG_MAX_RETRIES: "0",
  NODE_EXTRA_CA_CERTS: testCertificatePath,
  NODE_OPTIONS: "",
  ...Object.fromEntries(
    ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "NODE_USE_ENV_PROXY"].map(
      (name) => [name, ""]
    )
  ),
  ...proxy
})

const models = ["models", "--json"]
const chat = ["chat", "-m", "gpt-4o-mini", "Say hello"]
const realtime = ["realtime", "-m", "gpt-realtime", "hello"]

/** What a proxy saw from `from` on: kinds, targets and paths. */
const seenSince = (proxy: ForwardingProxy, from: number) =>
  proxy.records.slice(from).map((r) => `${r.kind} ${r.target}${r.path ?? ""}`)

/** Each run succeeded, with no warning or failure on stderr (a chat's usage line and the like are notes). */
const expectOk = (runs: ReadonlyArray<UmgRun>) => {
  for (const run of runs) {
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/umg:|Error/) })
    expect(run.stdout.length).toBeGreaterThan(0)
  }
}

describe("umg behind HTTPS_PROXY / HTTP_PROXY, without NODE_USE_ENV_PROXY", () => {
  it("goes through HTTPS_PROXY alone: models, a chat stream and a realtime WebSocket, in CONNECT tunnels", async () => {
    const before = open.records.length
    const env = envOf(httpsGateway(), { HTTPS_PROXY: open.url })
    const runs = await Promise.all([models, chat, realtime].map((args) => runUmg(umg, args, env)))
    expectOk(runs)
    expect(JSON.parse(runs[0]!.stdout)).toMatchObject({
      format: "openai",
      data: expect.arrayContaining([expect.objectContaining({ id: "gpt-4o-mini" })])
    })
    // One tunnel per command: models' and chat's HTTP connection, realtime's WebSocket.
    expect(seenSince(open, before)).toEqual(Array.from({ length: 3 }, () => `connect gateway.test:${front.port}`))
  }, 60_000)

  it("goes through http_proxy (lower case) for an http:// gateway, in absolute form", async () => {
    const before = open.records.length
    const env = envOf(httpGateway(), { http_proxy: open.url })
    const runs = await Promise.all([models, chat].map((args) => runUmg(umg, args, env)))
    expectOk(runs)
    expect(seenSince(open, before).sort()).toEqual([
      `forward gateway.test:${emu.port}/v1/chat/completions`,
      `forward gateway.test:${emu.port}/v1/models`
    ])
  }, 60_000)

  it("takes a proxy without a scheme as an http:// one, as curl does", async () => {
    const before = open.records.length
    const run = await runUmg(umg, models, envOf(httpsGateway(), { HTTPS_PROXY: `127.0.0.1:${open.port}` }))
    expectOk([run])
    expect(seenSince(open, before)).toEqual([`connect gateway.test:${front.port}`])
  }, 60_000)

  it("goes directly to the hosts NO_PROXY lists, and always to loopback", async () => {
    const before = open.records.length
    const [other, listed, loopback] = await Promise.all([
      runUmg(umg, models, envOf(httpsGateway(), { HTTPS_PROXY: open.url, NO_PROXY: "example.org" })),
      runUmg(umg, models, envOf(httpsGateway(), { HTTPS_PROXY: open.url, no_proxy: "example.org, .test" })),
      // A proxy that cannot be reached: loopback never goes to it, NO_PROXY or not.
      runUmg(umg, chat, envOf(emu.url, { HTTP_PROXY: `http://127.0.0.1:${closedPort}` }))
    ])
    expectOk([other, loopback])
    // gateway.test, reached directly, does not resolve.
    expect(listed.code).toBe(1)
    expect(listed.stderr).toContain(`could not connect to ${httpsGateway()}`)
    expect(listed.stderr).not.toContain("proxy")
    expect(seenSince(open, before)).toEqual([`connect gateway.test:${front.port}`])
  }, 60_000)

  it("leaves it to Node when NODE_USE_ENV_PROXY is set: 0 goes directly, 1 through the proxy", async () => {
    const before = open.records.length
    const [off, on] = await Promise.all([
      runUmg(umg, models, envOf(httpsGateway(), { HTTPS_PROXY: open.url, NODE_USE_ENV_PROXY: "0" })),
      runUmg(umg, models, envOf(httpsGateway(), { HTTPS_PROXY: open.url, NODE_USE_ENV_PROXY: "1" }))
    ])
    expect(off.code).toBe(1)
    expect(off.stderr).toContain(`could not connect to ${httpsGateway()}`)
    expectOk([on])
    expect(seenSince(open, before)).toEqual([`connect gateway.test:${front.port}`])
  }, 60_000)

  it("sends the proxy's credentials to the proxy and prints them nowhere, whether it takes them or not", async () => {
    const before = guarded.records.length
    const right = `http://${USER}:${PASSWORD}@127.0.0.1:${guarded.port}`
    const wrong = `http://${USER}:${PASSWORD}-wrong@127.0.0.1:${guarded.port}`
    const runs = await Promise.all([
      runUmg(umg, chat, envOf(httpsGateway(), { HTTPS_PROXY: right, UMG_LOG: "debug" })),
      runUmg(umg, models, envOf(httpsGateway(), { HTTPS_PROXY: wrong, UMG_LOG: "debug" })),
      runUmg(umg, [...models], envOf(httpGateway(), { HTTP_PROXY: wrong }))
    ])
    expect(runs.map((r) => r.code)).toEqual([0, 1, 1])
    expect(runs[0]!.stderr).toContain('message="umg: response"')
    expect(guarded.records.slice(before).find((r) => r.proxyAuthorization === `Basic ${proxySecrets[1]}`)).toBeDefined()
    const refused = `the proxy 127.0.0.1:${guarded.port} refused its credentials (407 Proxy Authentication Required)`
    expect(runs[1]!.stderr).toContain(`could not connect to ${httpsGateway()}: ${refused}`)
    expect(runs[2]!.stderr).toContain(`could not connect to ${httpGateway()}: ${refused}`)
    for (const run of runs) expect(secretLeaks(run.stdout + run.stderr, [...proxySecrets, KEY])).toEqual([])
  }, 60_000)

  it("refuses a proxy that is not an http(s) URL (exit 2), naming the variable and never its password", async () => {
    const runs = await Promise.all([
      runUmg(umg, ["models"], envOf(httpsGateway(), { HTTPS_PROXY: `socks5://${USER}:${PASSWORD}@127.0.0.1:1080` })),
      runUmg(umg, ["models"], envOf(httpsGateway(), { http_proxy: `http://${USER}:${PASSWORD}@[not-a-host` })),
      runUmg(umg, ["models", "--json"], envOf(httpsGateway(), { HTTPS_PROXY: "http://" }))
    ])
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2])
    expect(runs[0]!.stderr).toContain(
      `HTTPS_PROXY: "socks5://${USER}:***@127.0.0.1:1080" is not an http(s) proxy URL; allowed: http://host:port or https://host:port`
    )
    expect(runs[1]!.stderr).toContain("http_proxy: a value that is not a URL is not an http(s) proxy URL")
    expect(JSON.parse(runs[2]!.stderr)).toMatchObject({ error: { type: "InvalidRequest", field: "HTTPS_PROXY" } })
    for (const run of runs) {
      expect(run.stdout).toBe("")
      expect(secretLeaks(run.stderr, proxySecrets)).toEqual([])
    }
  }, 60_000)
})

describe("umg's proxy on other Node versions", () => {
  /** A module `--import`ed before umg: `source`, run first. */
  const preload = (name: string, source: string): string => {
    const file = join(dir, `${name}.mjs`)
    writeFileSync(file, source)
    return `--import=${pathToFileURL(file).href}`
  }

  it("without http.setGlobalProxyFromEnv (Node 22.21+, 24.5–24.13), gives Node's global agents the proxy itself", async () => {
    const options = preload(
      "no-set-global",
      [
        'import { createRequire, syncBuiltinESMExports } from "node:module"',
        'delete createRequire(import.meta.url)("node:http").setGlobalProxyFromEnv',
        "syncBuiltinESMExports()"
      ].join("\n")
    )
    const before = open.records.length
    const env = { ...envOf(httpsGateway(), { HTTPS_PROXY: open.url }), NODE_OPTIONS: options }
    const runs = await Promise.all([models, realtime].map((args) => runUmg(umg, args, env)))
    expectOk(runs)
    expect(seenSince(open, before)).toEqual([
      `connect gateway.test:${front.port}`,
      `connect gateway.test:${front.port}`
    ])
  }, 60_000)

  it("on a Node that cannot proxy, warns once and goes directly (loopback works; NODE_USE_ENV_PROXY=0 silences it)", async () => {
    const options = preload("node-22-20", "Object.defineProperty(process.versions, 'node', { value: '22.20.0' })")
    const proxy = { HTTPS_PROXY: open.url, HTTP_PROXY: open.url }
    const before = open.records.length
    const [warned, quiet] = await Promise.all([
      runUmg(umg, models, { ...envOf(emu.url, proxy), NODE_OPTIONS: options }),
      runUmg(umg, models, { ...envOf(emu.url, { ...proxy, NODE_USE_ENV_PROXY: "0" }), NODE_OPTIONS: options })
    ])
    expect(warned.code).toBe(0)
    expect(warned.stderr).toBe(
      "umg: HTTPS_PROXY is set, but Node 22.20.0 cannot go through a proxy (Node 22.21+ or 24.5+ can): connecting directly; NODE_USE_ENV_PROXY=0 goes directly without this warning\n"
    )
    expect(warned.stdout).toBe(quiet.stdout)
    expectOk([quiet])
    expect(seenSince(open, before)).toEqual([])
  }, 60_000)
})
