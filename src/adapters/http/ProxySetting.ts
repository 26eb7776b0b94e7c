/**
 * The HTTP proxy setting umg's clients take (`GatewayConfigInput.proxy`, `NodeHttpClient.layerWith`)
 * and its checks, pure so that settings are checked where they are given, in any build. The route
 * itself is Node's (`HttpProxy`).
 */
import * as Redacted from "effect/Redacted"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { redactUrlPasswords } from "../../core/errors/Redact.js"

/** An explicit proxy: its URL, and the hosts reached directly (Node's `NO_PROXY` syntax). @category models */
export interface ProxyOptions {
  /** `http://host:port` or `https://host:port`; `http://user:password@host:port` for Basic proxy auth. */
  readonly url: string | Redacted.Redacted<string>
  /** Comma-separated hosts reached without the proxy: `host`, `host:port`, `.suffix`, `*.suffix`, `a.b.c.d-e.f.g.h`, `*`. */
  readonly noProxy?: string | undefined
}

/**
 * Where requests go. Not given: as Node's own clients (the environment proxy when Node has it on);
 * a URL or `ProxyOptions`: through that proxy; `false`: directly, whatever Node's setting.
 * @category models
 */
export type ProxySetting = string | Redacted.Redacted<string> | ProxyOptions | false

/** Whether a Node version's `http.Agent` takes `proxyEnv`: 22.21+ on the 22 line, 24.5+, and 25 on. @category predicates */
export const supportsProxyEnv = (version: string): boolean => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  return major >= 25 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21)
}

/** The `InvalidRequest` of a proxy setting (field `proxy`). @category errors */
export const invalid = (rule: string, message: string): InvalidRequest =>
  new InvalidRequest({ field: "proxy", rule, message })

/** A proxy URL as a message may show it: its password hidden, or nothing of it when it does not parse. @category rendering */
export const shown = (raw: string): string => {
  try {
    new URL(raw)
    return JSON.stringify(redactUrlPasswords(raw))
  } catch {
    return "a value that is not a URL"
  }
}

/**
 * An explicit proxy URL, checked: absolute `http:`/`https:` with a host, nothing Node would refuse.
 * Throws `InvalidRequest` (field `proxy`, rule `url`) naming the value without its password.
 * @category validation
 */
export const proxyUrlOf = (raw: unknown): string => {
  const text = Redacted.isRedacted(raw) ? Redacted.value(raw) : raw
  if (typeof text !== "string")
    throw invalid("url", `proxy: a ${typeof text} is not a proxy URL; allowed: http://host:port or https://host:port`)
  let url: URL | undefined
  try {
    url = /[\s]/.test(text) ? undefined : new URL(text)
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "")
    throw invalid(
      "url",
      `proxy: ${shown(text)} is not an http(s) proxy URL; allowed: http://host:port or https://host:port (with user:password@ for Basic auth)`
    )
  // Node percent-decodes the user and password when it makes an agent: a bad escape would throw there.
  if (authorizationOf(url) === null)
    throw invalid(
      "url",
      `proxy: the user or password of ${shown(text)} is not percent-encoded right; write a % in it as %25`
    )
  // Node reads only a lower-case `http://` or `https://` start (anything else it ignores): the parsed form has it.
  return url.href
}

/** UTF-8 bytes as base64, without Node's `Buffer` (this module runs in any build). */
const base64 = (text: string): string => {
  let binary = ""
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/**
 * The `Proxy-Authorization` value Node sends for a proxy URL's credentials (`Basic`, the user and the
 * password percent-decoded, as Node's agent decodes them); `undefined` without credentials, `null`
 * when one of them is not valid percent-encoding.
 * @category accessors
 */
export const authorizationOf = (url: URL): string | undefined | null => {
  if (url.username === "" && url.password === "") return undefined
  try {
    return `Basic ${base64(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`)}`
  } catch {
    return null
  }
}

/** The proxy URLs Node's environment names (`HTTPS_PROXY`, `HTTP_PROXY`, either case), as text. */
const environmentProxies = (): ReadonlyArray<string> => {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  if (env === undefined) return []
  return [env.https_proxy, env.HTTPS_PROXY, env.http_proxy, env.HTTP_PROXY].filter(
    (v): v is string => typeof v === "string" && v !== ""
  )
}

/**
 * Every form of a proxy's credentials a proxy (or a gateway behind it) could echo, for redaction: the
 * password as written and decoded, and the `Basic` credentials Node sends (`user:password` in base64).
 * Of the setting's URL when one is given, else of the environment's proxy URLs (whether or not Node
 * uses them: hiding one more value costs nothing); none for `false`.
 * @category accessors
 */
export const proxySecretsOf = (setting: ProxySetting | undefined): ReadonlyArray<string> => {
  if (setting === false) return []
  const given =
    setting === undefined
      ? environmentProxies()
      : [typeof setting === "string" || Redacted.isRedacted(setting) ? setting : setting.url]
  const out: Array<string> = []
  for (const raw of given) {
    const url = URL.parse(Redacted.isRedacted(raw) ? Redacted.value(raw) : raw)
    if (url === null) continue
    const authorization = authorizationOf(url)
    if (url.password !== "") out.push(url.password)
    if (typeof authorization === "string") {
      const decoded = decodeURIComponent(url.password)
      if (decoded !== url.password && decoded !== "") out.push(decoded)
      out.push(authorization.slice("Basic ".length))
    }
  }
  return out
}

/** The running Node's version, or `undefined` outside Node (a browser). */
const nodeVersion = (): string | undefined =>
  (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node as string | undefined

/**
 * An explicit setting, checked when a client or a gateway is made. Throws `InvalidRequest` (field
 * `proxy`) for a URL that is not an absolute http(s) URL (rule `url`, the value shown without its
 * password), for a `noProxy` that is not one line (rule `no-proxy`), outside Node (rule `platform`: a
 * browser goes through its own proxy settings) and, on a Node whose `http.Agent` has no `proxyEnv`
 * (before 22.21, 23, 24.0–24.4), for any proxy (rule `node-version`). `false` (no proxy) is taken
 * anywhere. `version` is the running Node's unless given (`null`: not Node).
 * @category validation
 */
export const checkSetting = (
  setting: ProxySetting | undefined,
  version: string | null = nodeVersion() ?? null
): void => {
  if (setting === undefined || setting === false) return
  const options: ProxyOptions = typeof setting === "string" || Redacted.isRedacted(setting) ? { url: setting } : setting
  proxyUrlOf(options.url)
  if (options.noProxy !== undefined && (typeof options.noProxy !== "string" || /[\r\n]/.test(options.noProxy)))
    throw invalid("no-proxy", "proxy.noProxy: allowed: a comma-separated list of hosts, on one line")
  if (version === null)
    throw invalid(
      "platform",
      "proxy: only umg's Node clients go through a proxy umg is given; a browser uses its own proxy settings (leave proxy out)"
    )
  if (!supportsProxyEnv(version))
    throw invalid(
      "node-version",
      `proxy: needs Node 22.21 or later on the 22 line, or 24.5 or later (this is Node ${version}), whose http.Agent can go through a proxy`
    )
}
