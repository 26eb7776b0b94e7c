/**
 * Which HTTP proxy umg's Node clients (`NodeHttpClient`, `NodeWebSocket`) go through: by default the
 * one Node's own clients use, else the one given. By default that is Node's environment proxy
 * (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`), on only when Node runs with `NODE_USE_ENV_PROXY=1` or
 * `--use-env-proxy` (read from Node's global agents, so `http.setGlobalProxyFromEnv()` counts too), as
 * for `http.request` and `fetch`. `http://` requests go to the proxy in absolute form, by Node's
 * `http.Agent` (its `proxyEnv` option, Node 22.21+ and 24.5+); `https://` ones through a `CONNECT`
 * tunnel umg's `https.Agent` opens (`ProxyTunnel`: Node's own is unbounded). This module resolves the
 * setting (checked by `ProxySetting.checkSetting`: a Node without `proxyEnv` fails it rather than
 * ignore it), makes the agents, and tells which proxy a failed request went through.
 */
import * as Http from "node:http"
import * as Https from "node:https"
import { createRequire } from "node:module"
import * as Redacted from "effect/Redacted"
import { type List, parseList, Token } from "structured-headers"
import { ProxyFailure } from "./ProxyFailure.js"
import { errorCode, neverConnected } from "./TransportFailure.js"
import { authorizationOf, invalid, type ProxyOptions, type ProxySetting, proxyUrlOf, shown } from "./ProxySetting.js"
import { type ProxyEndpoint, TunnelingAgent } from "./ProxyTunnel.js"

export { checkSetting, type ProxyOptions, type ProxySetting, supportsProxyEnv } from "./ProxySetting.js"

/** The proxy one protocol's requests go through, resolved. @category models */
export interface ProxyPlan {
  /** What Node's agent takes as `proxyEnv`; an empty one sends every request directly. */
  readonly proxyEnv: Http.ProxyEnv
  /** `host:port` of the proxy, when there is one. */
  readonly proxy: string | undefined
  readonly credentials: boolean
  /** The `NO_PROXY` entries, trimmed and lower-cased as Node reads them. */
  readonly bypass: ReadonlyArray<string>
  /** Where `CONNECT` tunnels go, when there is a proxy. */
  readonly endpoint?: ProxyEndpoint | undefined
}

const direct: ProxyPlan = { proxyEnv: {}, proxy: undefined, credentials: false, bypass: [] }

/** Refuses a proxy URL that does not parse, as Node does (ERR_PROXY_INVALID_CONFIG), without showing its password. */
const refusedUrl = (raw: string): never => {
  throw invalid("url", `proxy: ${shown(raw)} is not an http(s) proxy URL`)
}

/** The plan of a `proxyEnv` for one protocol, read as Node reads it (lower-case names first). */
const planOfEnv = (env: Http.ProxyEnv, protocol: "http:" | "https:"): ProxyPlan => {
  const raw = protocol === "https:" ? env.https_proxy || env.HTTPS_PROXY : env.http_proxy || env.HTTP_PROXY
  if (raw === undefined || raw === "" || !/^https?:\/\//.test(raw)) return { ...direct, proxyEnv: { ...env } }
  const url = URL.parse(raw) ?? refusedUrl(raw)
  const authorization = authorizationOf(url)
  if (authorization === null) refusedUrl(raw)
  const noProxy = env.no_proxy || env.NO_PROXY
  const port = url.port || (url.protocol === "https:" ? "443" : "80")
  const proxy = `${url.hostname}:${port}`
  return {
    proxyEnv: { ...env },
    proxy,
    credentials: url.username !== "" || url.password !== "",
    bypass: noProxy ? noProxy.split(",").map((entry) => entry.trim().toLowerCase()) : [],
    endpoint: {
      name: proxy,
      secure: url.protocol === "https:",
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: Number(port),
      authorization: authorization ?? undefined
    }
  }
}

const require = createRequire(import.meta.url)
const builtin = <M>(name: string): M => require(name) as M

/** Node's environment proxy for one protocol, as its global agent for that protocol has it (none when off). */
const nodePlan = (protocol: "http:" | "https:"): ProxyPlan => {
  // Read from the modules themselves, not this module's ESM view of them: that view is a snapshot, blind
  // to the agent `http.setGlobalProxyFromEnv()` installs (unless the caller syncs the built-in exports).
  const agent = (protocol === "https:" ? builtin<typeof Https>("node:https") : builtin<typeof Http>("node:http"))
    .globalAgent as { options?: Http.AgentOptions }
  // `options` is untyped on `http.Agent`; a global agent another library put in may hold anything.
  const env: unknown = agent.options?.proxyEnv
  if (typeof env !== "object" || env === null) return direct
  const from = env as Http.ProxyEnv
  const only: Http.ProxyEnv = {}
  for (const name of ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"] as const)
    if (typeof from[name] === "string") only[name] = from[name]
  return planOfEnv(only, protocol)
}

/**
 * The plan of a setting (checked by `checkSetting`) for the requests of one protocol: Node's own when
 * not given, none for `false`, else the given proxy for both protocols.
 * @category constructors
 */
export const planFor = (setting: ProxySetting | undefined, protocol: "http:" | "https:"): ProxyPlan => {
  if (setting === undefined) return nodePlan(protocol)
  if (setting === false) return direct
  const options: ProxyOptions = typeof setting === "string" || Redacted.isRedacted(setting) ? { url: setting } : setting
  const url = proxyUrlOf(options.url)
  return planOfEnv({ HTTP_PROXY: url, HTTPS_PROXY: url, NO_PROXY: options.noProxy ?? "" }, protocol)
}

const isIPv4 = (host: string): boolean =>
  /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(host) && host.split(".").every((part) => Number(part) <= 255)

const ipToInt = (ip: string): number => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0)

/** Whether one `NO_PROXY` entry takes `host` (lower-cased) on `port` out of the proxy: Node's rules. */
const bypasses = (entry: string, host: string, port: string): boolean => {
  if (entry === "*" || entry === host || entry === `${host}:${port}`) return true
  if (entry.startsWith(".")) {
    const suffix = entry.slice(1)
    if (host === suffix || (host.endsWith(suffix) && host[host.length - suffix.length - 1] === ".")) return true
  }
  if (entry.startsWith("*.") && host.endsWith(entry.slice(1))) return true
  if (entry.includes("-") && isIPv4(host)) {
    const [start = "", end = ""] = entry.split("-").map((part) => part.trim())
    if (isIPv4(start) && isIPv4(end)) return ipToInt(host) >= ipToInt(start) && ipToInt(host) <= ipToInt(end)
  }
  return false
}

/**
 * The proxy (`host:port`) a request to `url` goes through under `plan`, or `undefined` when it goes
 * directly: Node's `NO_PROXY` rules (exact host or `host:port`, `.suffix`, `*.suffix`, an IPv4 range,
 * `*`): where umg's `https.Agent` opens its tunnels (`httpsAgent`), and where a failed request went
 * (Node's `http.Agent` routes `http://` requests by the same rules itself).
 * @category accessors
 */
export const proxyOf = (plan: ProxyPlan, url: URL): string | undefined =>
  routeOf(plan, url.hostname, url.port || (url.protocol === "https:" || url.protocol === "wss:" ? "443" : "80"))

/** `proxyOf` for a host (brackets around an IPv6 one or not) and a port. */
const routeOf = (plan: ProxyPlan, hostname: string, port: string): string | undefined => {
  if (plan.proxy === undefined) return undefined
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase()
  return plan.bypass.some((entry) => bypasses(entry, host, port)) ? undefined : plan.proxy
}

/**
 * The `https.Agent` of a plan: with a proxy, one that opens its `CONNECT` tunnels itself
 * (`ProxyTunnel.TunnelingAgent`) to every host the plan does not take out of the proxy; else Node's.
 * @category constructors
 */
export const httpsAgent = (plan: ProxyPlan, options: Https.AgentOptions = {}): Https.Agent => {
  const endpoint = plan.endpoint
  if (plan.proxy === undefined || endpoint === undefined) return new Https.Agent(options)
  return new TunnelingAgent(options, (host, port) =>
    routeOf(plan, host, String(port)) === undefined ? undefined : endpoint
  )
}

/**
 * A request's failure as the client reports it: a `ProxyFailure` (with the Node error as its cause)
 * when the request went through a proxy, else the error itself.
 * @category constructors
 */
export const failureOf = (plan: ProxyPlan, url: URL, error: unknown): unknown => {
  const proxy = proxyOf(plan, url)
  if (proxy === undefined || error instanceof ProxyFailure) return error
  const code = errorCode(error)
  const status = (error as { statusCode?: unknown } | null)?.statusCode
  const info =
    code === "ERR_PROXY_TUNNEL" &&
    typeof status === "number" &&
    Number.isInteger(status) &&
    status >= 100 &&
    status < 600
      ? { problem: "refused" as const, status }
      : { problem: neverConnected(error) ? ("unreachable" as const) : ("lost" as const) }
  // A Node tunnel's error quotes the proxy's status line, which may echo the credentials: not kept.
  const cause = code === "ERR_PROXY_TUNNEL" ? Object.assign(new Error("the proxy tunnel failed"), { code }) : error
  return new ProxyFailure({ proxy, credentials: plan.credentials, code, ...info }, cause)
}

/**
 * RFC 9209 error types by which a proxy says it could not connect to the next hop: no byte of the
 * request went on. The others (`connection_terminated`, `http_response_timeout`, …) leave open that the
 * gateway got it.
 */
const NOT_CONNECTED = new Set([
  "dns_timeout",
  "dns_error",
  "destination_not_found",
  "destination_unavailable",
  "destination_ip_prohibited",
  "destination_ip_unroutable",
  "connection_refused",
  "connection_timeout"
])

/**
 * The RFC 9209 error type of an answer's `Proxy-Status` saying that the proxy nearest umg (its list's
 * last member: each intermediary adds itself at the end) could not connect to the next hop, so the
 * answer is its own and nothing went on; `undefined` otherwise (no such field, one that does not parse,
 * another error, or an error of a proxy past it whose answer it carried).
 */
const notConnectedIn = (field: string | ReadonlyArray<string> | undefined): string | undefined => {
  if (field === undefined) return undefined
  let members: List
  try {
    members = parseList(typeof field === "string" ? field : field.join(", "))
  } catch {
    return undefined // RFC 8941: a field that does not parse is ignored whole
  }
  const last = members.at(-1)
  const error = last === undefined || Array.isArray(last[0]) ? undefined : last[1].get("error")
  // An error type is a token: a string that spells one is not one.
  return error instanceof Token && NOT_CONNECTED.has(error.toString()) ? error.toString() : undefined
}

/**
 * The failure of an answer the proxy itself gave to a request it was to forward (a plain `http://`
 * request or `ws://` upgrade, which go to the proxy in absolute form), or `undefined` when the answer is
 * the gateway's. The proxy's: a 407, and a 5xx whose RFC 9209 `Proxy-Status` (in `headers`, when given)
 * says the proxy could not connect to the gateway (`connection_refused`, `dns_error`, …): nothing else
 * tells a proxy's own answer from one it carried (a `Via` header and a body come with both). The
 * gateway's: any other answer, and any answer through a `CONNECT` tunnel.
 * @category constructors
 */
export const refusalOf = (
  plan: ProxyPlan,
  url: URL,
  status: number,
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>> = {}
): ProxyFailure | undefined => {
  if (url.protocol === "https:" || url.protocol === "wss:") return undefined
  const proxyStatus = status >= 500 && status < 600 ? notConnectedIn(headers["proxy-status"]) : undefined
  if (status !== 407 && proxyStatus === undefined) return undefined
  const proxy = proxyOf(plan, url)
  return proxy === undefined
    ? undefined
    : new ProxyFailure({ proxy, problem: "refused", status, credentials: plan.credentials, proxyStatus })
}
