/**
 * How far one attempt's connection got, as its HTTP client reports it. The transport hands each
 * attempt a fresh `Progress` in the send context, and a client that can tell (umg's Node client) marks
 * it `connecting` when the request starts and `connected` once it has a connected socket. A time limit
 * passed while still `connecting` means no byte of the request left umg (DNS, the TCP connection or a
 * proxy's `CONNECT` tunnel never finished), so even a paid submit may be sent again. A client that
 * reports nothing (`fetch`) leaves it `unknown`, read as "may have reached the gateway".
 */
import * as Context from "effect/Context"

/** One attempt's connection, as far as its client has said. @category models */
export interface Progress {
  /**
   * `unknown`: no client said; `connecting`: sent to a client, no connected socket yet (resolving,
   * connecting, a tunnel opening); `connected`: a socket was connected for it (kept once reached, also
   * across the attempt's redirects).
   */
  state: "unknown" | "connecting" | "connected"
  /** The proxy (`host:port`) the connection goes through, when the client says so. */
  via?: string | undefined
}

/** The attempt's `Progress`, in the context a client's `execute` runs in. @category tags */
export const ConnectProgress = Context.Service<Progress>("umg/adapters/http/ConnectProgress")

/** A fresh progress, for one attempt. @category constructors */
export const make = (): Progress => ({ state: "unknown" })

/** Whether a time limit that passes now passes before any byte of the request left. @category predicates */
export const neverConnected = (progress: Progress): boolean => progress.state === "connecting"

/**
 * For a client over `node:http`: `progress` is `connecting` from now until the request's socket is
 * connected (at once for a pooled one, at its `connect` event for a new one; a tunnel's socket is
 * handed over only once the tunnel is open), through the proxy `via` when there is one. A progress
 * already `connected` stays so.
 * @category constructors
 */
export const trackNodeRequest = (
  progress: Progress,
  via: string | undefined,
  request: {
    once(
      event: "socket",
      listener: (socket: { readonly connecting: boolean; once(e: "connect", f: () => void): unknown }) => void
    ): unknown
  }
): void => {
  if (progress.state === "connected") return
  progress.state = "connecting"
  progress.via = via
  request.once("socket", (socket) => {
    if (!socket.connecting) progress.state = "connected"
    else socket.once("connect", () => void (progress.state = "connected"))
  })
}
