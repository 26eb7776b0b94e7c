/**
 * The one place that imports the Node `ws` package: a WebSocket constructor that can send upgrade
 * headers (the gateway key). A browser build swaps in a constructor over the global `WebSocket`.
 */
import { WebSocket } from "ws"
import type { SocketLike, SocketOpener } from "./WebSocketSession.js"

/**
 * Opens a `ws` socket with the given upgrade headers. Frames arrive as text (binary frames are
 * decoded as UTF-8), so sessions see the same data in Node and browsers.
 * @category constructors
 */
export const nodeSocketOpener: SocketOpener = (url, options): SocketLike => {
  const socket = new WebSocket(url, [...(options.protocols ?? [])], {
    headers: { ...options.headers },
    // A larger message is refused by `ws` before it is read whole (an error, and a 1009 close).
    maxPayload: options.maxFrameBytes ?? 64 * 1024 * 1024
  })
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
      // An upgrade refused with an HTTP status: report the status, never the request (it holds the key).
      socket.on("unexpected-response", (_req, res) => {
        handlers.refused(res.statusCode ?? 0)
        socket.terminate()
      })
      socket.on("error", (error) => handlers.error(error))
    }
  }
}

/** The default opener on Node (what `#umg/socket` resolves to outside browsers). @category constructors */
export const defaultSocketOpener: SocketOpener = nodeSocketOpener
