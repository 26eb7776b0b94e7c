/**
 * The browser's global `WebSocket` behind the `SocketOpener` interface. Bundlers swap it in for
 * `NodeWebSocket.ts` (package.json `imports` `#umg/socket`, `browser` condition), so a page never
 * pulls the Node `ws` package.
 */
import type { SocketLike, SocketOpener } from "./WebSocketSession.js"
import { checkSetting, type ProxySetting } from "../http/ProxySetting.js"

// A browser cannot set upgrade headers, so the key travels the two ways the gateway accepts from
// browsers: the realtime subprotocol `openai-insecure-api-key.<key>` (OpenAI's browser convention)
// and, for the native-content live socket, the `?key=` query parameter (spec: native-content auth).

const bearerKey = (headers: Readonly<Record<string, string>>): string | undefined => {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (lower === "authorization" && /^bearer\s+/i.test(value)) return value.replace(/^bearer\s+/i, "")
    if (lower === "x-vendor-api-key") return value
  }
  return undefined
}

/** The URL and subprotocols that carry what the Node socket would have sent as headers. */
const browserRequest = (
  url: string,
  headers: Readonly<Record<string, string>>,
  protocols: ReadonlyArray<string>
): { readonly url: string; readonly protocols: Array<string> } => {
  const key = bearerKey(headers)
  if (key === undefined) return { url, protocols: [...protocols] }
  if (new URL(url).pathname.endsWith("/v1/realtime")) {
    const beta = Object.entries(headers).some(([n, v]) => n.toLowerCase() === "openai-beta" && v === "realtime=v1")
    return {
      url,
      protocols: [
        ...(protocols.length > 0 ? protocols : ["realtime"]),
        `openai-insecure-api-key.${key}`,
        ...(beta ? ["openai-beta.realtime-v1"] : [])
      ]
    }
  }
  const withKey = new URL(url)
  if (!withKey.searchParams.has("key")) withKey.searchParams.set("key", key)
  return { url: withKey.toString(), protocols: [...protocols] }
}

/**
 * The close code a browser's `WebSocket.close` accepts for `code` (it throws `InvalidAccessError` for
 * any but 1000 and 3000–4999): those pass as they are; a protocol code 1001–1015 becomes 4000 plus its
 * last two digits, so its meaning stays readable (1008 policy violation → 4008, 1009 message too big →
 * 4009, 1011 → 4011); anything else becomes 1000. No code stays no code.
 * @category constructors
 */
export const browserCloseCode = (code: number | undefined): number | undefined => {
  if (code === undefined || code === 1000 || (code >= 3000 && code <= 4999)) return code
  return code >= 1001 && code <= 1015 ? 4000 + (code - 1000) : 1000
}

/**
 * Opens a socket with the global `WebSocket`. Binary frames are decoded as UTF-8 so sessions see
 * the same text as with Node's `ws`. A browser hides the status of a refused upgrade: it reports an
 * error and a 1006 close, which the session maps to a `TransportError`. A close code a browser may not
 * send is mapped by `browserCloseCode` (the session's 1008 and 1009 go out as 4008 and 4009).
 * @category constructors
 */
export const browserSocketOpener: SocketOpener = (url, options): SocketLike => {
  const request = browserRequest(url, options.headers, options.protocols ?? [])
  const socket = new globalThis.WebSocket(request.url, request.protocols)
  socket.binaryType = "arraybuffer"
  const decoder = new TextDecoder()
  return {
    send: (data) => socket.send(data),
    close: (code, reason) => socket.close(browserCloseCode(code), reason),
    isOpen: () => socket.readyState === WebSocket.OPEN,
    isClosed: () => socket.readyState === WebSocket.CLOSED || socket.readyState === WebSocket.CLOSING,
    on: (handlers) => {
      socket.addEventListener("open", () => handlers.open())
      socket.addEventListener("message", (event: MessageEvent<unknown>) => {
        const data = event.data
        // A binary frame's size is known; a text frame's is counted by the session when it matters.
        if (data instanceof ArrayBuffer) handlers.message(decoder.decode(data), data.byteLength)
        else handlers.message(typeof data === "string" ? data : String(data))
      })
      socket.addEventListener("close", (event) => handlers.close(event.code, event.reason))
      socket.addEventListener("error", () => handlers.error(new Error("WebSocket error")))
    }
  }
}

/** The default opener in browsers (what `#umg/socket` resolves to under the `browser` condition). @category constructors */
export const defaultSocketOpener: SocketOpener = browserSocketOpener

/**
 * The default opener with a proxy setting: a browser takes only `false` (see
 * `BrowserHttpClient.defaultHttpClientLayerWith`).
 * @category constructors
 */
export const defaultSocketOpenerWith = (proxy: ProxySetting): SocketOpener => {
  checkSetting(proxy, null)
  return browserSocketOpener
}
