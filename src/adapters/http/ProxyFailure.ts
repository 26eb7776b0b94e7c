/**
 * A request that failed at the HTTP proxy rather than at the gateway: the proxy could not be reached,
 * did not carry the request (`ProxyProblem`), or lost the connection. It names the proxy by host and
 * port only, never its credentials, and rides in the `cause` of the transport failure so an error can
 * say where it failed. Pure (no Node module), so the transport and the WebSocket session can read it in
 * any build.
 */

/**
 * What went wrong at the proxy. `unreachable`: no connection to it. `refused`: it did not carry the
 * request, so the gateway never saw it (the transport's reason `connect`): it refused it (`status`), it
 * never opened the `CONNECT` tunnel (no `status`: it closed, reset or timed out first, or its answer was
 * not one), or it answered itself that it could not reach the gateway (`proxyStatus`). `lost`: the
 * connection through it failed, maybe after the request was sent.
 * @category models
 */
export type ProxyProblem = "unreachable" | "refused" | "lost"

/** The fields of a `ProxyFailure`. @category models */
export interface ProxyFailureInfo {
  /** `host:port` of the proxy (never its credentials). */
  readonly proxy: string
  readonly problem: ProxyProblem
  /** The proxy's status for `refused` (407: it wants credentials, or refused the ones it got). */
  readonly status?: number | undefined
  /** Whether the proxy URL carried credentials (a 407 then means they were refused). */
  readonly credentials: boolean
  /** The Node error's `code`, when there was one (`ECONNREFUSED`, `ENOTFOUND`, `ERR_PROXY_TUNNEL`, …). */
  readonly code?: string | undefined
  /**
   * The RFC 9209 error type (`connection_refused`, `dns_error`, …) of a proxy's own answer (`status`)
   * saying it could not connect to the gateway: one of a fixed set, never the header's other text.
   */
  readonly proxyStatus?: string | undefined
}

const statusText = (status: number): string => (status === 407 ? "407 Proxy Authentication Required" : `${status}`)

/** The sentence a `ProxyFailure` says, from its fields. */
const describe = (info: ProxyFailureInfo): string => {
  switch (info.problem) {
    case "unreachable":
      return `the proxy ${info.proxy} could not be reached${info.code !== undefined ? ` (${info.code})` : ""}`
    case "refused":
      if (info.status === 407)
        return info.credentials
          ? `the proxy ${info.proxy} refused its credentials (${statusText(407)})`
          : `the proxy ${info.proxy} asks for credentials (${statusText(407)}): give them in the proxy URL, http://user:password@host:port`
      if (info.proxyStatus !== undefined)
        return `the proxy ${info.proxy} could not reach the gateway (${info.status ?? 0}, Proxy-Status error=${info.proxyStatus})`
      if (info.status === undefined)
        return `the proxy ${info.proxy} did not open the tunnel${info.code === "ETIMEDOUT" ? " in time" : ""}${info.code !== undefined ? ` (${info.code})` : ""}`
      return `the proxy ${info.proxy} refused to carry the request (${statusText(info.status)})`
    case "lost":
      return `the connection through the proxy ${info.proxy} failed${info.code !== undefined ? ` (${info.code})` : ""}`
  }
}

/**
 * A failure at the HTTP proxy, with the Node error it came from (if any) as its `cause`. Its message
 * names the proxy's host and port and what happened; never the proxy's credentials.
 * @category errors
 */
export class ProxyFailure extends Error {
  readonly _tag = "ProxyFailure" as const
  readonly proxy: string
  readonly problem: ProxyProblem
  readonly status: number | undefined
  readonly credentials: boolean
  readonly proxyStatus: string | undefined

  constructor(info: ProxyFailureInfo, cause?: unknown) {
    super(describe(info), cause === undefined ? undefined : { cause })
    this.name = "ProxyFailure"
    this.proxy = info.proxy
    this.problem = info.problem
    this.status = info.status
    this.credentials = info.credentials
    this.proxyStatus = info.proxyStatus
  }
}

/**
 * The `ProxyFailure` in an error's `cause` chain (five deep at most), if there is one.
 * @category accessors
 */
export const proxyFailureIn = (error: unknown): ProxyFailure | undefined => {
  let current = error
  for (let depth = 0; depth <= 5 && typeof current === "object" && current !== null; depth++) {
    if (current instanceof ProxyFailure) return current
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * `": <what happened at the proxy>"` when a `ProxyFailure` is in the cause chain, else `""`: what a
 * transport error's message appends (`could not connect to https://gw.example: the proxy
 * proxy.corp:3128 could not be reached (ECONNREFUSED)`).
 * @category accessors
 */
export const proxyNote = (error: unknown): string => {
  const failure = proxyFailureIn(error)
  return failure === undefined ? "" : `: ${failure.message}`
}
