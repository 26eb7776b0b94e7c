// A loopback HTTP proxy in front of the emulator for the provider tests: it forwards every request
// and counts what really went over the wire (requests by path with their status, connections still
// open, answers whose client went away before their end), independently of the emulator's counters.
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach } from "vitest"
import type { Layer } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

/** One request the proxy forwarded. */
export interface Forwarded {
  readonly method: string
  readonly path: string
  status: number | undefined
  /** The request body as text, once it has been read. */
  body: string
}

/** A running proxy: its URL, what it forwarded, and the connections it saw. */
export interface CountingProxy {
  readonly url: string
  readonly requests: Array<Forwarded>
  /** Client connections still open. */
  readonly open: () => number
  /** Answers whose client closed the connection before the answer ended. */
  readonly cut: () => number
  /** Resolves when the next answer is cut by its client. */
  readonly nextCut: () => Promise<void>
  readonly reset: () => void
  readonly close: () => Promise<void>
}

/** Starts a proxy to `target` (`http://127.0.0.1:PORT`). */
export const startCountingProxy = async (target: string): Promise<CountingProxy> => {
  const requests: Array<Forwarded> = []
  let open = 0
  let cut = 0
  let waiters: Array<() => void> = []
  const server: Server = createServer((req, res) => {
    const entry: Forwarded = { method: req.method ?? "GET", path: req.url ?? "/", status: undefined, body: "" }
    requests.push(entry)
    req.on("data", (chunk: Buffer) => {
      entry.body += chunk.toString("utf8")
    })
    const upstream = httpRequest(
      new URL(req.url ?? "/", target),
      { method: req.method, headers: req.headers },
      (up) => {
        entry.status = up.statusCode
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      }
    )
    upstream.on("error", () => res.destroy())
    req.pipe(upstream)
    res.on("close", () => {
      if (!res.writableFinished) {
        cut++
        for (const wake of waiters) wake()
        waiters = []
      }
      upstream.destroy()
    })
  })
  server.on("connection", (socket) => {
    open++
    socket.on("close", () => open--)
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    open: () => open,
    cut: () => cut,
    nextCut: () => new Promise<void>((r) => waiters.push(r)),
    reset: () => {
      requests.splice(0)
      cut = 0
    },
    close: () => {
      server.closeAllConnections()
      return new Promise((r) => server.close(() => r()))
    }
  }
}

/** A provider test file's fixture: the emulator, a proxy in front of it, and a provider through the proxy. */
export interface ProxiedUmg {
  emu: Emulator
  proxy: CountingProxy
  umg: UmgProvider
}

/**
 * Registers the fixture's hooks in the calling test file: made once for the file (its fields are set
 * before the first test), the proxy's counts reset before each test, all closed after the last.
 */
export const proxiedUmg = (): ProxiedUmg => {
  const env = {} as ProxiedUmg
  beforeAll(async () => {
    env.emu = await startEmulator({ fast: true })
    env.proxy = await startCountingProxy(env.emu.url)
    env.umg = createUmg({ baseURL: env.proxy.url, apiKey: env.emu.apiKey })
  })
  afterAll(async () => {
    await env.umg.dispose()
    await env.proxy.close()
    await env.emu.close()
  })
  beforeEach(() => env.proxy.reset())
  return env
}

/** The Effect side's fixture: the emulator, a proxy in front of it, and a `Gateway` layer through the proxy. */
export interface ProxiedGateway {
  emu: Emulator
  proxy: CountingProxy
  gateway: Layer.Layer<Gateway>
}

/** `proxiedUmg` for umg/ai tests: a `Gateway` layer in place of the provider. */
export const proxiedGateway = (): ProxiedGateway => {
  const env = {} as ProxiedGateway
  beforeAll(async () => {
    env.emu = await startEmulator({ fast: true })
    env.proxy = await startCountingProxy(env.emu.url)
    env.gateway = Gateway.layer({ baseUrl: env.proxy.url, apiKey: env.emu.apiKey })
  })
  afterAll(async () => {
    await env.proxy.close()
    await env.emu.close()
  })
  beforeEach(() => env.proxy.reset())
  return env
}

/** An embeddings answer without `usage`, as a gateway may give: for `emu.inject("embeddings", …)`. */
export const embeddingsWithoutUsage = {
  kind: "status",
  status: 200,
  body: {
    object: "list",
    model: "text-embedding-3-small",
    data: [{ object: "embedding", index: 0, embedding: [0.5, 0.5] }]
  }
} as const
