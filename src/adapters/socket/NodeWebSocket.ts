/**
 * The one place that imports the Node `ws` package: a WebSocket constructor that can send upgrade
 * headers (the gateway key). A browser build swaps in a constructor over the global `WebSocket`.
 * It goes through an HTTP proxy as Node's own clients do (`HttpProxy.ts`), or through the one given
 * to `nodeSocketOpenerWith`: umg's agent opens a `CONNECT` tunnel for `wss://` (`ProxyTunnel`) and a
 * Node agent with `proxyEnv` sends a `ws://` upgrade to the proxy in absolute form.
 */
import * as Http from "node:http"
import type { IncomingMessage } from "node:http"
import { WebSocket } from "ws"
import * as HttpProxy from "../http/HttpProxy.js"
import { defaultMaxErrorBodyBytes, type RefusedAnswer } from "./RefusedUpgrade.js"
import type { SocketLike, SocketOpener } from "./WebSocketSession.js"

/** The answer's string headers, names lower-cased (Node's already are); a repeated one joined with `, `. */
const headersOf = (res: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(res.headers)) {
    if (typeof value === "string") out[name] = value
    else if (Array.isArray(value)) out[name] = value.join(", ")
  }
  return out
}

/**
 * Reads a refused upgrade's answer, at most `limit` bytes of its body (the rest is not read), and
 * gives it once: at its end, at the bound, or when the connection fails or is dropped (what was read).
 */
const readRefusal = (res: IncomingMessage, limit: number, done: (answer: RefusedAnswer) => void): void => {
  const parts: Array<Buffer> = []
  let size = 0
  let settled = false
  const settle = () => {
    if (settled) return
    settled = true
    done({ headers: headersOf(res), body: Buffer.concat(parts, size).toString("utf8") })
  }
  res.on("data", (chunk: Buffer) => {
    if (settled) return
    const taken = chunk.length > limit - size ? chunk.subarray(0, limit - size) : chunk
    parts.push(taken)
    size += taken.length
    if (size >= limit) settle()
  })
  // The listeners stay: after `settle` the socket is dropped, and the answer's late error is ignored here.
  res.on("end", settle).on("close", settle).on("error", settle)
}

/** Settings of `nodeSocketOpenerWith`. @category models */
export interface NodeSocketOptions {
  /** The HTTP proxy, as `NodeHttpClientOptions.proxy` takes it (not given: as Node's own clients). */
  readonly proxy?: HttpProxy.ProxySetting | undefined
}

/** The socket's URL and the proxy plan of its protocol; an agent only when a proxy may be used. */
const routeOf = (url: string, setting: HttpProxy.ProxySetting | undefined) => {
  const parsed = new URL(url)
  const secure = parsed.protocol === "wss:" || parsed.protocol === "https:"
  const plan = HttpProxy.planFor(setting, secure ? "https:" : "http:")
  // One agent per socket: an upgraded connection leaves its agent's pool at once, so none is shared.
  const agent =
    plan.proxy === undefined
      ? undefined
      : secure
        ? HttpProxy.httpsAgent(plan)
        : new Http.Agent({ proxyEnv: plan.proxyEnv })
  return { parsed, plan, agent }
}

/**
 * Opens `ws` sockets with the given upgrade headers, through `options.proxy` (checked here: throws
 * `InvalidRequest` as `NodeHttpClient.layerWith` does). Frames arrive as text (binary frames are
 * decoded as UTF-8), so sessions see the same data in Node and browsers. A refused upgrade is reported
 * with its headers and the start of its body (up to `maxErrorBodyBytes`), then the socket is dropped;
 * a failure at the proxy (unreachable, a 407, a refused tunnel) is an error whose cause is a
 * `ProxyFailure` naming the proxy.
 * @category constructors
 */
export const nodeSocketOpenerWith = (settings: NodeSocketOptions = {}): SocketOpener => {
  HttpProxy.checkSetting(settings.proxy)
  return (url, options) => openSocket(url, options, settings.proxy)
}

const openSocket = (
  url: string,
  options: Parameters<SocketOpener>[1],
  setting: HttpProxy.ProxySetting | undefined
): SocketLike => {
  const route = routeOf(url, setting)
  const socket = new WebSocket(url, [...(options.protocols ?? [])], {
    headers: { ...options.headers },
    // A larger message is refused by `ws` before it is read whole (an error, and a 1009 close).
    maxPayload: options.maxFrameBytes ?? 64 * 1024 * 1024,
    ...(route.agent !== undefined ? { agent: route.agent } : {})
  })
  // The socket's own agent goes with it: a tunnel still opening when the socket is closed (its
  // handshake's time limit, the caller) is not the upgrade request's, which `ws` destroys.
  if (route.agent !== undefined) socket.once("close", () => route.agent?.destroy())
  return {
    send: (data) => socket.send(data),
    close: (code, reason) => socket.close(code, reason),
    isOpen: () => socket.readyState === WebSocket.OPEN,
    isClosed: () => socket.readyState === WebSocket.CLOSED || socket.readyState === WebSocket.CLOSING,
    on: (handlers) => {
      socket.on("open", () => handlers.open())
      socket.on("message", (data) => {
        const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)
        handlers.message(buf.toString("utf8"), buf.length)
      })
      socket.on("close", (code, reason) => handlers.close(code, reason.toString("utf8")))
      // An upgrade refused with an HTTP status: report the answer (never the request: it holds the key).
      // Closing the socket meanwhile (the handshake's time limit) drops the answer, which settles the read.
      socket.on("unexpected-response", (_req, res) => {
        // A 407 to a `ws://` upgrade sent to the proxy is the proxy's answer, not the gateway's; so is a
        // 5xx whose Proxy-Status says the proxy could not connect to the gateway.
        const refused = HttpProxy.refusalOf(route.plan, route.parsed, res.statusCode ?? 0, res.headers)
        if (refused !== undefined) {
          handlers.error(refused)
          return void socket.terminate()
        }
        readRefusal(res, options.maxErrorBodyBytes ?? defaultMaxErrorBodyBytes, (answer) => {
          handlers.refused(res.statusCode ?? 0, answer)
          socket.terminate()
        })
      })
      socket.on("error", (error) => handlers.error(HttpProxy.failureOf(route.plan, route.parsed, error)))
    }
  }
}

/**
 * The opener with Node's own proxy setting (the environment proxy when Node has it on).
 * @category constructors
 */
export const nodeSocketOpener: SocketOpener = nodeSocketOpenerWith()

/** The default opener on Node (what `#umg/socket` resolves to outside browsers). @category constructors */
export const defaultSocketOpener: SocketOpener = nodeSocketOpener

/** The default opener through the given proxy (`GatewayConfigInput.proxy`, checked there). @category constructors */
export const defaultSocketOpenerWith = (proxy: HttpProxy.ProxySetting): SocketOpener => nodeSocketOpenerWith({ proxy })
