/**
 * The `Reply` a route writes with: JSON, bytes and SSE over a `ServerResponse`, applying the fault
 * injected for this request (drop mid-body, SSE cut / error / no final / malformed / stall / only pings).
 */
import type { ServerResponse } from "node:http"
import { streamOnly, type TakenFault } from "./Faults.js"
import { streamErrorEvent } from "./Family.js"
import type { Reply, SseOptions, SseWriter } from "./Route.js"

type Headers = Readonly<Record<string, string>>

/** Writes a chunk and resolves once the socket took it (backpressure), or at once when closed. */
const write = (res: ServerResponse, chunk: string | Uint8Array): Promise<void> =>
  new Promise((resolve) => {
    if (res.destroyed || res.writableEnded) return resolve()
    if (res.write(chunk)) resolve()
    else {
      const done = () => {
        res.off("drain", done)
        res.off("close", done)
        resolve()
      }
      res.once("drain", done)
      res.once("close", done)
    }
  })

/** Ends the response by destroying its socket once `chunk` is flushed: the client sees a broken body. */
const writeThenDrop = (res: ServerResponse, chunk: Uint8Array | string): void => {
  res.write(chunk, () => res.destroy())
}

const sseFrame = (name: string | undefined, data: string, le: string): string => {
  const dataLines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}${le}`)
    .join("")
  return `${name === undefined ? "" : `event: ${name}${le}`}${dataLines}${le}`
}

/** A `Reply` for `res`, with the headers every response carries (CORS, request id). */
export const makeReply = (res: ServerResponse, taken: TakenFault | undefined, base: Headers): Reply => {
  const fault = taken?.fault
  let used = false
  const claim = (): boolean => {
    if (used || res.headersSent) return false
    used = true
    return true
  }

  const body = (status: number, contentType: string, payload: Uint8Array, headers: Headers = {}): void => {
    if (!claim()) return
    // An event-stream fault a request answered whole cannot apply: it waits for one that streams.
    if (fault !== undefined && streamOnly(fault.kind)) taken?.giveBack()
    res.writeHead(status, {
      ...base,
      "content-type": contentType,
      "content-length": String(payload.byteLength),
      ...headers
    })
    if (fault?.kind === "drop-mid")
      return writeThenDrop(res, payload.subarray(0, Math.min(fault.afterBytes, payload.byteLength - 1)))
    if (fault?.kind === "stall") {
      // Headers promise a body that never comes; the socket stays open until the client or close() ends it.
      res.flushHeaders()
      return
    }
    res.end(payload)
  }

  const sse = (headers: Headers = {}, options: SseOptions = {}): SseWriter => {
    const le = options.lineEnd ?? "\n"
    const open = claim()
    if (open) {
      res.writeHead(200, {
        ...base,
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
        ...headers
      })
      res.flushHeaders()
    }
    let events = 0
    let bytes = 0
    let finalMode = false
    let stalled = fault?.kind === "stall" && (fault.afterEvents ?? 0) === 0
    let cut = false
    const pinging = fault?.kind === "sse-only-pings"
    if (open && pinging) {
      const timer = setInterval(() => void write(res, `: ping${le}${le}`), Math.max(1, fault.everyMs))
      res.once("close", () => clearInterval(timer))
    }
    const isClosed = (): boolean => !open || cut || res.destroyed || res.writableEnded

    const send = (text: string): Promise<void> => {
      if (fault?.kind === "drop-mid") {
        const buf = Buffer.from(text)
        if (bytes + buf.byteLength > fault.afterBytes) {
          cut = true
          writeThenDrop(res, buf.subarray(0, Math.max(0, fault.afterBytes - bytes)))
          return Promise.resolve()
        }
        bytes += buf.byteLength
      }
      return write(res, text)
    }

    return {
      event: (name, data) => {
        if (isClosed() || stalled || pinging) return Promise.resolve()
        if (finalMode && fault?.kind === "sse-no-final") return Promise.resolve()
        const index = events++
        const payload = fault?.kind === "sse-malformed" && index === fault.atEvent ? `{"malformed":${data}` : data
        const frame = sseFrame(name, payload, le)
        if (fault?.kind === "sse-cut" && index === fault.afterEvents) {
          cut = true
          writeThenDrop(res, frame.slice(0, Math.max(1, Math.floor(frame.length / 2))))
          return Promise.resolve()
        }
        if (fault?.kind === "sse-error" && index === fault.afterEvents) {
          // Upstream's in-stream error ends the stream in place of the rest: the family's error event, then the end.
          cut = true
          const error = options.errorEvent?.(fault) ?? streamErrorEvent("openai", fault)
          res.end(sseFrame(error.name, error.data, le))
          return Promise.resolve()
        }
        if (fault?.kind === "stall" && events >= (fault.afterEvents ?? 0)) stalled = true
        return send(frame)
      },
      comment: (text) => (isClosed() || stalled ? Promise.resolve() : send(`: ${text}${le}${le}`)),
      final: () => {
        finalMode = true
      },
      end: () => {
        // A stalled or ping-only stream is left open on purpose: the client must time out on it.
        if (isClosed() || stalled || pinging) return
        res.end()
      },
      get closed() {
        return isClosed()
      }
    }
  }

  return {
    json: (status, value, headers) => body(status, "application/json", Buffer.from(JSON.stringify(value)), headers),
    bytes: (status, contentType, payload, headers) => body(status, contentType, payload, headers),
    sse,
    fault
  }
}
