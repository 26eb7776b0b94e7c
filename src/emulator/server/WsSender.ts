/** Sends a WebSocket route's JSON messages, counting them so an injected `ws-close` fault closes at the right one. */
import type { WebSocket } from "ws"
import type { Fault } from "./Faults.js"

/** The `ws-close` fault the server took for a socket when it accepted the upgrade, until its sender reads it. */
const closeFaults = new WeakMap<WebSocket, Extract<Fault, { readonly kind: "ws-close" }>>()

/** Hands the fault taken for an accepted upgrade to the socket's sender (only `ws-close` applies after the upgrade). */
export const attachWsFault = (ws: WebSocket, fault: Fault | undefined): void => {
  if (fault?.kind === "ws-close") closeFaults.set(ws, fault)
}

/** A close reason cut to the 123 bytes a close frame allows (cut on a character boundary). */
const closeReason = (reason: string): string => {
  let out = reason
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1)
  return out
}

/**
 * Bytes the emulator lets wait in one socket's send buffer: a client that never reads while asking for
 * large answers gets its socket closed (1008) rather than the emulator holding its answers in memory.
 */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024

/** Sends JSON messages on one socket; `send` returns false once the socket is (being) closed. */
export interface WsSender {
  send(message: unknown): boolean
  /** Closes with `code`/`reason` unless already closing. */
  close(code: number, reason: string): void
  readonly open: boolean
}

/**
 * A sender for `ws` that applies the `ws-close` fault the server took for it when it accepted the
 * upgrade: after `afterMessages` messages (default 0) the socket closes with the fault's code.
 */
export const makeWsSender = (ws: WebSocket): WsSender => {
  const fault = closeFaults.get(ws)
  closeFaults.delete(ws)
  let sent = 0
  let closing = false
  const isOpen = (): boolean => !closing && ws.readyState === ws.OPEN
  const close = (code: number, reason: string): void => {
    if (closing) return
    closing = true
    // 1006 cannot be sent: a fault asking for it ends the socket abruptly, which the client sees as 1006.
    if (code === 1006) ws.terminate()
    else ws.close(code, closeReason(reason))
  }
  const applyFault = (): boolean => {
    if (fault !== undefined && sent >= (fault.afterMessages ?? 0)) {
      close(fault.code, fault.reason ?? "injected fault")
      return true
    }
    return false
  }
  queueMicrotask(() => void applyFault())
  return {
    send: (message) => {
      if (!isOpen() || applyFault()) return false
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        close(1008, "client is not reading: send buffer full")
        return false
      }
      ws.send(JSON.stringify(message))
      sent++
      return true
    },
    close,
    get open() {
      return isOpen()
    }
  }
}
