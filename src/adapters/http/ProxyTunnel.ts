/**
 * The `CONNECT` tunnels through an HTTP proxy of umg's `https:` requests and `wss:` upgrades, opened by
 * umg's own `https.Agent` rather than by Node's `proxyEnv` one. Node 24's tunnel reads the proxy's answer
 * with no bound and adds a listener per piece of it (an answer cut in some 30 pieces takes gigabytes and
 * ends the process), puts the proxy's status line, whatever it echoes, in its error, and leaves the
 * proxy's socket open when its request is destroyed before the proxy answers. Here the answer's head is
 * bounded, a refusal is a `ProxyFailure` with its status only, and the socket of a tunnel still opening
 * is destroyed with its request (`onTunnelSocket`) or its agent. A tunnel the proxy took the connection
 * for but never opened (it closed, reset or timed out before its 200, or its answer was not one) is a
 * `refused` `ProxyFailure`: no byte of the request left, so the transport's reason is `connect`.
 */
import * as Https from "node:https"
import type * as Http from "node:http"
import * as Net from "node:net"
import type { Duplex } from "node:stream"
import * as Tls from "node:tls"
import { ProxyFailure, type ProxyProblem } from "./ProxyFailure.js"
import { errorCode } from "./TransportFailure.js"

/** Where the tunnels go: the proxy, and the `Proxy-Authorization` its URL's credentials make. @category models */
export interface ProxyEndpoint {
  /** `host:port`, as failures name the proxy. */
  readonly name: string
  /** Whether umg speaks TLS to the proxy itself (an `https://` proxy URL). */
  readonly secure: boolean
  readonly host: string
  readonly port: number
  readonly authorization: string | undefined
}

/**
 * A request option (on `https.request`'s options): called with the socket of the tunnel opened for the
 * request, so that the request, given up before the proxy answers, can destroy it (Node cannot: the
 * socket is not the request's until the tunnel is open).
 * @category symbols
 */
export const onTunnelSocket: unique symbol = Symbol("umg/ProxyTunnel/onTunnelSocket")

/** Options as an agent's `createConnection` gets them: the request's, the agent's, and the hook. */
type ConnectionOptions = Http.ClientRequestArgs &
  Tls.ConnectionOptions & { readonly [onTunnelSocket]?: (socket: Net.Socket) => void }

type Done = (error: Error | null, socket?: Duplex) => void

/** The most of a proxy's answer head read (Node's own bound on an HTTP head is 16 KiB). */
const maxHeadBytes = 16 * 1024

/** The status of an answer's head (`HTTP/1.1 200 Connection established`), if it is one. */
const statusOf = (head: string): number | undefined => {
  const match = /^HTTP\/1\.[01] ([1-5]\d\d)(?:[ \t]|$)/.exec(head)
  return match === null ? undefined : Number(match[1])
}

const connectTo = (endpoint: ProxyEndpoint): Net.Socket =>
  endpoint.secure
    ? Tls.connect({
        host: endpoint.host,
        port: endpoint.port,
        ...(Net.isIP(endpoint.host) === 0 ? { servername: endpoint.host } : {})
      })
    : Net.connect({ host: endpoint.host, port: endpoint.port })

/** The `CONNECT` request for `host:port` (an IPv6 host in brackets). */
const connectRequest = (endpoint: ProxyEndpoint, options: ConnectionOptions): string => {
  const host = options.host ?? "localhost"
  const target = `${Net.isIPv6(host) ? `[${host}]` : host}:${options.port ?? 443}`
  const authorization = endpoint.authorization === undefined ? "" : `proxy-authorization: ${endpoint.authorization}\r\n`
  return `CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n${authorization}\r\n`
}

/**
 * Opens a tunnel through `endpoint` to the request's host and port, then TLS to the host over it, and
 * gives the TLS socket (or the failure) to `done`, once. Returns the socket to the proxy at once. Until
 * the proxy's 200, nothing of the request has left: a failure once the proxy took the connection is the
 * tunnel never opened (`unopened`); one before keeps Node's error (an unreachable proxy); one after the
 * 200 is the connection lost, as a direct one's would be.
 */
const openTunnel = (endpoint: ProxyEndpoint, options: ConnectionOptions, done: Done): Net.Socket => {
  const socket = connectTo(endpoint)
  const failure = (problem: ProxyProblem, code: string | undefined, status?: number, cause?: unknown) =>
    new ProxyFailure(
      { proxy: endpoint.name, problem, status, credentials: endpoint.authorization !== undefined, code },
      cause
    )
  // A Node socket error's message holds its code and syscall only (`read ECONNRESET`): kept as the cause.
  const unopened = (code: string | undefined, cause?: unknown) => failure("refused", code, undefined, cause)
  let head: Buffer = Buffer.alloc(0)
  let secure: Tls.TLSSocket | undefined
  /** Whether the proxy took the connection (and the `CONNECT` was written). */
  let asked = false
  let settled = false
  const finish = (error: Error | null) => {
    if (settled) return
    settled = true
    detach()
    if (error === null) return done(null, secure)
    secure?.destroy()
    socket.destroy()
    done(error)
  }
  const opening = () => secure === undefined
  const onError = (error: Error) => finish(asked && opening() ? unopened(errorCode(error), error) : error)
  const onEnd = () => finish(opening() ? unopened("ECONNRESET") : failure("lost", "ECONNRESET"))
  const onTimeout = () => finish(opening() ? unopened("ETIMEDOUT") : failure("lost", "ETIMEDOUT"))
  const onReadable = () => {
    for (let chunk = socket.read() as Buffer | null; chunk !== null && secure === undefined; chunk = socket.read()) {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk])
      const end = head.indexOf("\r\n\r\n")
      if (end === -1) {
        if (head.length > maxHeadBytes) return finish(unopened("ERR_PROXY_TUNNEL"))
        continue
      }
      const status = statusOf(head.toString("latin1", 0, Math.min(end, 64)))
      if (status === undefined) return finish(unopened("ERR_PROXY_TUNNEL"))
      if (status !== 200) return finish(failure("refused", "ERR_PROXY_TUNNEL", status))
      // Nothing may come before the TLS handshake, which the client starts: nor has anything been sent.
      if (head.length > end + 4) return finish(unopened("ERR_PROXY_TUNNEL"))
      return startTls()
    }
  }
  const startTls = () => {
    socket.off("readable", onReadable).off("end", onEnd)
    secure = Tls.connect({ ...options, socket })
    secure.once("secureConnect", () => finish(null))
    secure.once("error", onError).once("close", onEnd)
  }
  const detach = () => {
    socket.off("readable", onReadable).off("error", onError).off("end", onEnd).off("close", onEnd)
    socket.off("timeout", onTimeout).setTimeout(0)
    secure?.off("error", onError).off("close", onEnd)
  }
  socket.once(endpoint.secure ? "secureConnect" : "connect", () => {
    asked = true
    socket.write(connectRequest(endpoint, options))
  })
  socket.on("readable", onReadable).on("error", onError).on("end", onEnd).on("close", onEnd)
  // As Node's tunnel does: the agent's (or the request's) timeout bounds the tunnel's opening too.
  if (typeof options.timeout === "number" && options.timeout > 0)
    socket.setTimeout(options.timeout).on("timeout", onTimeout)
  return socket
}

/**
 * An `https.Agent` whose connections to the hosts `route` names a proxy for go through a `CONNECT`
 * tunnel umg opens (TLS session reuse aside, as Node's do); the others connect directly, as Node's.
 * Destroying it destroys the tunnels still opening.
 * @category constructors
 */
export class TunnelingAgent extends Https.Agent {
  private readonly opening = new Set<Net.Socket>()

  constructor(
    options: Https.AgentOptions,
    private readonly route: (host: string, port: number) => ProxyEndpoint | undefined
  ) {
    super(options)
  }

  override createConnection(
    options: ConnectionOptions,
    callback?: (error: Error | null, socket: Duplex) => void
  ): Duplex | null | undefined {
    const endpoint = this.route(options.host ?? "localhost", Number(options.port ?? 443))
    if (endpoint === undefined || callback === undefined) return super.createConnection(options, callback)
    const socket = openTunnel(endpoint, options, (error, tunneled) => {
      this.opening.delete(socket)
      callback(error, tunneled as Duplex)
    })
    this.opening.add(socket)
    options[onTunnelSocket]?.(socket)
    return undefined
  }

  override destroy(): void {
    for (const socket of this.opening) socket.destroy()
    this.opening.clear()
    super.destroy()
  }
}
