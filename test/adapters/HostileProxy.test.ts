// Hostile and broken HTTP proxies, built for real on loopback (node:net and node:http peers), in front of
// the emulator: one that never answers CONNECT (the call's time limit fires and the socket to the proxy
// is closed, for HTTP and WebSockets), one that answers it in many small pieces or with a head that never
// ends (read once, bounded), one that echoes the credentials it was sent in its status line (never shown),
// one that closes mid-stream (the error names the proxy); and proxy URLs with percent-encoded
// credentials, an `@` in the password, a bad escape and an IPv6 host.
import { createServer as createHttpServer, request as httpRequest } from "node:http"
import { createServer, type AddressInfo, type Socket } from "node:net"
import { inspect } from "node:util"
import { Effect, Layer, Logger, References, Stream, Tracer } from "effect"
import { HttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import type * as HttpProxy from "../../src/adapters/http/HttpProxy.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { ProxyFailure, proxyFailureIn } from "../../src/adapters/http/ProxyFailure.js"
import { nodeSocketOpenerWith } from "../../src/adapters/socket/NodeWebSocket.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"
import { onConnectHead, type RawPeer, startRawPeer } from "../fixtures/rawPeer.js"
import { expectNoSecret } from "../support/secrets.js"
import { recordingTracer, shownBy } from "../support/tracers.js"

const USER = "umg-user"
const PASSWORD = "pr0xy-h0stile-pass"
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString("base64")
const secrets = [PASSWORD, BASIC]
const withCredentials = (port: number) => `http://${USER}:${PASSWORD}@127.0.0.1:${port}`

/** A raw peer that reads, and ends its side when the client ends its. */
const startPeer = (onConnection: (socket: Socket) => void): Promise<RawPeer> =>
  startRawPeer(onConnection, { endWithClient: true })

const proxyAuthorizationIn = (head: string): string => /proxy-authorization: ([^\r\n]*)/i.exec(head)?.[1] ?? ""

/** Waits until `predicate` holds (a socket's close reaches its peer a moment later), or `ms` passed. */
const eventually = async (predicate: () => boolean, ms = 2_000): Promise<boolean> => {
  const until = Date.now() + ms
  while (!predicate() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10))
  return predicate()
}

let emu: Emulator
let open: ForwardingProxy
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  open = await startForwardingProxy({ hosts: { "gateway.test": "127.0.0.1" } })
})
afterAll(async () => {
  await Promise.all([open.close(), emu.close()])
})

const hello = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Hi" }] }

/** A Gateway call's exit, through `proxy`, with the given settings. */
const gatewayExit = <A, E>(
  call: Effect.Effect<A, E, Gateway>,
  config: Partial<GatewayConfigInput> & Pick<GatewayConfigInput, "baseUrl">
) =>
  Effect.runPromise(
    Effect.exit(Effect.provide(call, Gateway.layer({ apiKey: emu.apiKey, maxRetries: 0, timeoutMs: 5_000, ...config })))
  )

/** A GET through umg's Node client with `proxy`, its failure (or success) as a result. */
const getThrough = (url: string, proxy: HttpProxy.ProxySetting) =>
  Effect.runPromise(
    Effect.provide(Effect.result(Effect.map(HttpClient.get(url), (r) => r.status)), NodeHttpClient.layerWith({ proxy }))
  )

describe("a proxy that never answers CONNECT", () => {
  it("is given up when the call's timeoutMs passes, and the socket to it is closed, not left open", async () => {
    const silent = await startPeer(() => {})
    try {
      const exit = await gatewayExit(
        Effect.flatMap(Gateway, (g) => g.models.list()),
        { baseUrl: "https://gateway.test", timeoutMs: 300, proxy: withCredentials(silent.port) }
      )
      // The call's own limit ended it, before the tunnel opened.
      expect(exit).toMatchObject({
        _tag: "Failure",
        cause: { reasons: [{ error: { _tag: "TimeoutError", phase: "connect", timeoutMs: 300 } }] }
      })
      expect(await eventually(() => silent.open() === 0)).toBe(true)

      // Umg's Node client alone, interrupted by the caller's own time limit: the same.
      const interrupted = await Effect.runPromise(
        Effect.exit(
          HttpClient.get("https://gateway.test/v1/models").pipe(
            Effect.timeout(200),
            Effect.provide(NodeHttpClient.layerWith({ proxy: withCredentials(silent.port) }))
          )
        )
      )
      expect(interrupted._tag).toBe("Failure")
      expect(await eventually(() => silent.open() === 0)).toBe(true)
    } finally {
      await silent.close()
    }
  })

  it("closes a wss:// socket's connection to it when the handshake's time limit passes", async () => {
    const silent = await startPeer(() => {})
    try {
      const exit = await gatewayExit(
        Effect.scoped(Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" }))),
        {
          baseUrl: "https://gateway.test",
          limits: { webSocketHandshakeTimeoutMs: 300 },
          proxy: withCredentials(silent.port)
        }
      )
      expect(exit).toMatchObject({ _tag: "Failure", cause: { reasons: [{ error: { _tag: "TimeoutError" } }] } })
      expect(await eventually(() => silent.open() === 0)).toBe(true)
    } finally {
      await silent.close()
    }
  })
})

describe("a proxy's CONNECT answer", () => {
  it("cut in many small pieces is read whole, once: a 407 is the proxy's refusal, with no listener piling up", async () => {
    const warnings: Array<string> = []
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`)
    process.on("warning", onWarning)
    const slow = await startPeer(
      onConnectHead((_head, socket) => {
        // The answer in pieces of 8 bytes, 2 ms apart: each a chunk of its own for the client.
        const answer = `HTTP/1.1 407 Proxy Authentication Required\r\n${"X-Pad: y\r\n".repeat(12)}\r\n`
        const next = (at: number): void => {
          if (socket.destroyed || at >= answer.length) return
          socket.write(answer.slice(at, at + 8))
          setTimeout(() => next(at + 8), 2)
        }
        next(0)
      })
    )
    try {
      const result = await getThrough("https://gateway.test/v1/models", withCredentials(slow.port))
      expect(result._tag).toBe("Failure")
      const failure = proxyFailureIn(result._tag === "Failure" ? result.failure.reason : undefined)
      expect(failure).toMatchObject({ proxy: `127.0.0.1:${slow.port}`, problem: "refused", status: 407 })
      expect(warnings.filter((w) => w.includes("readable listeners"))).toEqual([])
    } finally {
      process.off("warning", onWarning)
      await slow.close()
    }
  })

  it("whose head never ends is cut at a bound: the call fails at once, naming the proxy, not at its time limit", async () => {
    const endless = await startPeer(
      onConnectHead((_head, socket) => {
        socket.write(`HTTP/1.1 200 Connection established\r\nX-Pad: ${"a".repeat(256 * 1024)}`)
      })
    )
    try {
      const exit = await gatewayExit(
        Effect.flatMap(Gateway, (g) => g.models.list()),
        { baseUrl: "https://gateway.test", timeoutMs: 5_000, proxy: `http://127.0.0.1:${endless.port}` }
      )
      // A TransportError, not the call's TimeoutError: the bound cut it, not the time limit.
      expect(exit).toMatchObject({
        _tag: "Failure",
        cause: { reasons: [{ error: { _tag: "TransportError" } }] }
      })
      expect(String(exit)).toContain(`the proxy 127.0.0.1:${endless.port}`)
      expect(await eventually(() => endless.open() === 0)).toBe(true)
    } finally {
      await endless.close()
    }
  })

  it("echoing the Proxy-Authorization it got, in its status line and body, shows none of it in the error", async () => {
    const echo = await startPeer(
      onConnectHead((head, socket) => {
        const sent = proxyAuthorizationIn(head)
        const body = `you sent ${sent}`
        socket.end(`HTTP/1.1 407 you sent ${sent}\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
      })
    )
    try {
      const result = await getThrough("https://gateway.test/v1/models", withCredentials(echo.port))
      expect(result._tag).toBe("Failure")
      const failure = result._tag === "Failure" ? result.failure : undefined
      expect(proxyFailureIn(failure?.reason)).toMatchObject({ problem: "refused", status: 407, credentials: true })
      expectNoSecret(failure, secrets)
      expect(inspect(failure, { depth: 20, showHidden: true })).not.toContain(BASIC)

      // A Gateway call through it, traced and at Debug: no span, event, log line or error shows them.
      const { tracer, spans } = recordingTracer()
      const lines: Array<unknown> = []
      const logger = Logger.make(({ message, fiber }) =>
        lines.push([message, fiber.getRef(References.CurrentLogAnnotations)])
      )
      const exit = await Effect.runPromise(
        Effect.exit(
          Effect.flatMap(Gateway, (g) => g.chat.create(hello)).pipe(
            Effect.provide(
              Layer.merge(
                Gateway.layer({
                  baseUrl: "https://gateway.test",
                  apiKey: emu.apiKey,
                  maxRetries: 0,
                  proxy: withCredentials(echo.port)
                }),
                Layer.succeed(Tracer.Tracer, tracer)
              )
            ),
            Effect.provide(Logger.layer([logger])),
            Effect.provideService(References.MinimumLogLevel, "Debug")
          )
        )
      )
      expect(String(exit)).toContain(`the proxy 127.0.0.1:${echo.port} refused its credentials`)
      expectNoSecret(exit, secrets)
      expect(spans.length).toBeGreaterThan(0)
      expect(lines.length).toBeGreaterThan(0)
      for (const shown of [shownBy(spans), JSON.stringify(lines)])
        for (const secret of secrets) expect(shown).not.toContain(secret)
    } finally {
      await echo.close()
    }
  })

  it("refusing a wss:// tunnel (403) fails the session with a TransportError naming the proxy", async () => {
    const refusing = await startPeer(
      onConnectHead((head, socket) => {
        socket.end(`HTTP/1.1 403 Forbidden ${proxyAuthorizationIn(head)}\r\nContent-Length: 0\r\n\r\n`)
      })
    )
    try {
      const exit = await gatewayExit(
        Effect.scoped(Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" }))),
        { baseUrl: "https://gateway.test", proxy: withCredentials(refusing.port) }
      )
      expect(exit).toMatchObject({
        _tag: "Failure",
        cause: { reasons: [{ error: { _tag: "TransportError", reason: "connect" } }] }
      })
      const error = exit._tag === "Failure" ? (exit.cause.reasons[0] as { error?: unknown }).error : undefined
      expect((error as Error).message).toBe(
        `WebSocket to gateway.test failed: the proxy 127.0.0.1:${refusing.port} refused to carry the request (403)`
      )
      expectNoSecret(error, secrets)
    } finally {
      await refusing.close()
    }
  })
})

describe("a proxy that closes the connection mid-stream", () => {
  it("ends an SSE stream sent in absolute form with a TransportError naming the proxy", async () => {
    // Forwards a messages stream, then drops both connections after its first 300 bytes.
    const cutting = createHttpServer((req, res) => {
      const url = new URL(req.url ?? "/")
      const headers = { ...req.headers }
      delete headers["proxy-authorization"]
      delete headers["proxy-connection"]
      const forward = httpRequest(
        { host: "127.0.0.1", port: emu.port, method: req.method, path: url.pathname, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          let sent = 0
          answer.on("data", (chunk: Buffer) => {
            res.write(chunk)
            sent += chunk.length
            if (sent > 300) {
              res.socket?.destroy()
              forward.destroy()
            }
          })
        }
      )
      forward.on("error", () => res.destroy())
      req.pipe(forward)
    })
    await new Promise<void>((resolve) => cutting.listen(0, "127.0.0.1", resolve))
    const port = (cutting.address() as AddressInfo).port
    try {
      const exit = await gatewayExit(
        Effect.flatMap(Gateway, (g) =>
          Stream.runCollect(
            g.messages.stream({
              model: "epsilon-sonnet-4-5-20250929",
              max_tokens: 400,
              messages: [{ role: "user", content: "Tell me a long story, please, with many words in it" }]
            })
          )
        ),
        { baseUrl: `http://gateway.test:${emu.port}`, proxy: withCredentials(port) }
      )
      expect(exit).toMatchObject({ _tag: "Failure", cause: { reasons: [{ error: { _tag: "TransportError" } }] } })
      expect(String(exit)).toContain(`through the proxy 127.0.0.1:${port}`)
      expectNoSecret(exit, secrets)
    } finally {
      cutting.closeAllConnections()
      await new Promise<void>((resolve) => cutting.close(() => resolve()))
    }
  })
})

describe("proxy URLs", () => {
  it("send percent-encoded credentials, and a password holding an unencoded @, decoded as Node does", async () => {
    const cases: ReadonlyArray<readonly [credentials: string, sent: string]> = [
      ["us%40er:p%40ss%3Aw%25rd", "us@er:p@ss:w%rd"],
      ["user:p@ss@word", "user:p@ss@word"],
      ["%C3%BCser:p%C3%A4ss", "üser:päss"]
    ]
    for (const [credentials, sent] of cases) {
      const before = open.records.length
      const exit = await gatewayExit(
        Effect.flatMap(Gateway, (g) => g.models.list()),
        {
          baseUrl: `http://gateway.test:${emu.port}`,
          proxy: `http://${credentials}@127.0.0.1:${open.port}`
        }
      )
      expect(exit._tag, credentials).toBe("Success")
      const record = open.records.slice(before)[0]
      expect(Buffer.from(record?.proxyAuthorization?.slice("Basic ".length) ?? "", "base64").toString("utf8")).toBe(
        sent
      )
    }
  })

  it("refuse a password that is not valid percent-encoding as an InvalidRequest naming proxy, never a defect", () => {
    for (const password of ["50%", "p%zz-s3cret", "%E0%A4%A"]) {
      const url = `http://${USER}:${password}@127.0.0.1:${open.port}`
      let thrown: unknown
      try {
        Gateway.layer({ baseUrl: "https://gateway.test", apiKey: emu.apiKey, proxy: url })
      } catch (error) {
        thrown = error
      }
      expect(thrown, password).toMatchObject({ _tag: "InvalidRequest", field: "proxy", rule: "url" })
      expect((thrown as Error).message).toContain("percent-encoded")
      expectNoSecret(thrown, [password])
      expect(() => NodeHttpClient.layerWith({ proxy: url })).toThrow(/percent-encoded/)
      expect(() => nodeSocketOpenerWith({ proxy: url })).toThrow(/percent-encoded/)
    }
  })

  it("with an IPv6 host go through [::1] and name it so when it cannot be reached", async (context) => {
    // A proxy on ::1 (when this machine has IPv6 loopback) that answers every request itself.
    const server = createHttpServer((_req, res) => {
      res.writeHead(502, { "content-type": "text/plain" }).end("no upstream from the IPv6 proxy")
    })
    const listening = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false))
      server.listen(0, "::1", () => resolve(true))
    })
    if (!listening) return context.skip()
    const port = (server.address() as AddressInfo).port
    try {
      const reached = await gatewayExit(
        Effect.flatMap(Gateway, (g) => g.chat.create(hello)),
        {
          baseUrl: `http://gateway.test:${emu.port}`,
          proxy: `http://${USER}:${PASSWORD}@[::1]:${port}`
        }
      )
      // The proxy answered (its own 502): the request went to [::1].
      expect(reached).toMatchObject({ _tag: "Failure", cause: { reasons: [{ error: { status: 502 } }] } })
      const closed = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, "::1", () => {
          const free = (probe.address() as AddressInfo).port
          probe.close(() => resolve(free))
        })
      })
      const unreachable = await getThrough("https://gateway.test/v1/models", `http://[::1]:${closed}`)
      const failure = proxyFailureIn(unreachable._tag === "Failure" ? unreachable.failure.reason : undefined)
      expect(failure).toBeInstanceOf(ProxyFailure)
      expect(failure?.proxy).toMatch(/^\[::1\]:\d+$/)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
