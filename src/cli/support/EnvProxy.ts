/**
 * The `umg` command takes its HTTP proxy from the environment as curl, npm and gh do: with `HTTPS_PROXY`
 * or `HTTP_PROXY` set, Node's environment proxy is on for the process before a command connects.
 *
 * A library follows Node's convention (the environment proxy only under `NODE_USE_ENV_PROXY=1` or
 * `--use-env-proxy`); a command-line tool is expected to follow the variables themselves. So, when a
 * proxy variable is set (either case, not empty) and `NODE_USE_ENV_PROXY` is not, umg turns Node's
 * environment proxy on: `http.setGlobalProxyFromEnv` where Node has it (24.14+), else Node's global
 * agents are given the `proxyEnv` themselves — umg's clients read it from those agents (`HttpProxy`).
 * `NODE_USE_ENV_PROXY` set to anything leaves it to Node's own rule (`1` on, `0` off), and so does
 * `--use-env-proxy`.
 *
 * On top of Node's rules, as Go's clients (gh) do: loopback (`localhost`, `127.0.0.0/8`, `::1`) is
 * always reached directly (an embedded emulator, a local gateway; a proxy elsewhere cannot reach it),
 * and a proxy without a scheme (`proxy.corp:3128`) is an `http://` one, as curl takes it. A value that
 * is not an http(s) proxy URL is refused before anything runs (exit 2), naming the variable, never its
 * password. On a Node whose `http.Agent` cannot proxy (22.19–22.20, 23, 24.0–24.4) one warning is
 * printed and the command goes directly, as Node itself would: the variables are shared by every tool
 * of the shell, and a gateway reachable directly (loopback, `NO_PROXY`) must not be refused for them.
 */
import { createRequire, syncBuiltinESMExports } from "node:module"
import type * as Http from "node:http"
import type * as Https from "node:https"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as ProxySetting from "../../adapters/http/ProxySetting.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import * as Output from "./Output.js"

/** The environment as the process has it. */
type Env = Readonly<Record<string, string | undefined>>

/** The proxy variables, as Node reads them for each protocol: the lower-case name first. */
const proxyNames = {
  https: ["https_proxy", "HTTPS_PROXY"],
  http: ["http_proxy", "HTTP_PROXY"]
} as const

/** Reached directly whatever `NO_PROXY` says (Node's `NO_PROXY` syntax). */
const loopback = "localhost,127.0.0.0-127.255.255.255,::1"

const valueOf = (env: Env, name: string): string | undefined => {
  const value = env[name]
  return value === undefined || value === "" ? undefined : value
}

/** The variable Node takes a protocol's proxy from, and its value, when one is set. */
const proxyOf = (env: Env, protocol: "https" | "http"): { readonly name: string; readonly raw: string } | undefined => {
  for (const name of proxyNames[protocol]) {
    const raw = valueOf(env, name)
    if (raw !== undefined) return { name, raw }
  }
  return undefined
}

/** A proxy as curl takes it: without a scheme, an `http://` one. */
const withScheme = (raw: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`)

/**
 * The passwords of the proxy variables' URLs, as written and decoded: secrets no printed failure may
 * show, whatever way one reached it.
 * @category accessors
 */
export const secretsOf = (env: Env): ReadonlyArray<string> =>
  [...proxyNames.https, ...proxyNames.http].flatMap((name) => {
    const raw = valueOf(env, name)
    const password = raw === undefined ? "" : (URL.parse(withScheme(raw))?.password ?? "")
    if (password === "") return []
    try {
      return [password, decodeURIComponent(password)]
    } catch {
      return [password]
    }
  })

/** What the environment asks of the command's proxy. @category models */
export type Plan =
  /** No proxy variable, or `NODE_USE_ENV_PROXY` set: Node's own setting, untouched. */
  | { readonly _tag: "Node" }
  /** Node's environment proxy to turn on, with this `proxyEnv`. */
  | { readonly _tag: "On"; readonly proxyEnv: Http.ProxyEnv }
  /** A proxy is asked for, but this Node cannot go through one: `variable` names it. */
  | { readonly _tag: "Unsupported"; readonly variable: string }

/** The rules of a proxy URL and of a Node that can proxy: the ones the library checks its `proxy` setting by. */
type Rules = Pick<typeof ProxySetting, "proxyUrlOf" | "shown" | "supportsProxyEnv">

/** Whether the environment asks umg to decide: a proxy variable set, `NODE_USE_ENV_PROXY` not. */
const asksUmg = (env: Env): boolean =>
  valueOf(env, "NODE_USE_ENV_PROXY") === undefined &&
  (proxyOf(env, "https") !== undefined || proxyOf(env, "http") !== undefined)

/** One variable's proxy URL, checked (`ProxySetting.proxyUrlOf`); refused naming the variable, its password hidden. */
const checked = (
  rules: Rules,
  variable: { readonly name: string; readonly raw: string }
): Result.Result<string, InvalidRequest> => {
  const url = withScheme(variable.raw)
  try {
    return Result.succeed(rules.proxyUrlOf(url))
  } catch {
    return Result.fail(
      new InvalidRequest({
        field: variable.name,
        rule: "url",
        message: `${variable.name}: ${rules.shown(url)} is not an http(s) proxy URL; allowed: http://host:port or https://host:port (with user:password@ for Basic auth), or NODE_USE_ENV_PROXY=0 to go without a proxy`
      })
    )
  }
}

/**
 * The plan for `env` on Node `version`, by `rules`; an `InvalidRequest` (field: the variable) for a
 * proxy that is not an http(s) URL.
 * @category constructors
 */
export const planOf = (env: Env, version: string, rules: Rules): Result.Result<Plan, InvalidRequest> => {
  if (!asksUmg(env)) return Result.succeed({ _tag: "Node" })
  const https = proxyOf(env, "https")
  const http = proxyOf(env, "http")
  if (!rules.supportsProxyEnv(version)) return Result.succeed({ _tag: "Unsupported", variable: (https ?? http)!.name })
  const noProxy = valueOf(env, "no_proxy") ?? valueOf(env, "NO_PROXY")
  const proxyEnv: Http.ProxyEnv = { NO_PROXY: noProxy === undefined ? loopback : `${noProxy},${loopback}` }
  for (const [name, variable] of [
    ["HTTPS_PROXY", https],
    ["HTTP_PROXY", http]
  ] as const) {
    if (variable === undefined) continue
    const url = checked(rules, variable)
    if (Result.isFailure(url)) return Result.fail(url.failure)
    proxyEnv[name] = url.success
  }
  return Result.succeed({ _tag: "On", proxyEnv })
}

/** Node's own modules (their `module.exports`, which `setGlobalProxyFromEnv` changes), not their ESM views. */
const nodeModules = () => {
  const require = createRequire(import.meta.url)
  return { http: require("node:http") as typeof Http, https: require("node:https") as typeof Https }
}

/** Whether Node's global agents already go through the environment proxy (`--use-env-proxy`). */
const nodeHasIt = (http: typeof Http, https: typeof Https): boolean =>
  [http.globalAgent, https.globalAgent].some(
    (agent) => typeof (agent as { options?: Http.AgentOptions }).options?.proxyEnv === "object"
  )

/**
 * Turns Node's environment proxy on with `proxyEnv`: `http.setGlobalProxyFromEnv` where Node has it,
 * else new global agents (as Node makes them) with the `proxyEnv`; then the ESM views of `node:http`
 * and `node:https` (what umg's modules import) are brought up to date.
 */
const turnOn = (proxyEnv: Http.ProxyEnv): void => {
  const { http, https } = nodeModules()
  if (nodeHasIt(http, https)) return
  const setGlobal = (http as { setGlobalProxyFromEnv?: (env: Http.ProxyEnv) => unknown }).setGlobalProxyFromEnv
  if (typeof setGlobal === "function") setGlobal(proxyEnv)
  else {
    const options = { keepAlive: true, scheduling: "lifo", timeout: 5_000, proxyEnv } as const
    http.globalAgent = new http.Agent(options)
    https.globalAgent = new https.Agent(options)
  }
  syncBuiltinESMExports()
}

/**
 * The environment's proxy applied to the process, before any command connects (see the module's
 * comment): fails with `InvalidRequest` (exit 2) for a proxy that is not an http(s) URL, warns once on
 * a Node that cannot proxy. Nothing is loaded when no proxy variable is set or `NODE_USE_ENV_PROXY` is.
 * @category constructors
 */
export const fromEnvironment = (env: Env = process.env): Effect.Effect<void, InvalidRequest> => {
  if (!asksUmg(env)) return Effect.void
  return Effect.flatMap(
    // Loaded only here: the command's start loads no adapter (test/cli/LazyCommands).
    Effect.promise(() => import("../../adapters/http/ProxySetting.js")),
    (rules) =>
      Effect.flatMap(Effect.fromResult(planOf(env, process.versions.node, rules)), (plan) => {
        switch (plan._tag) {
          case "Node":
            return Effect.void
          case "On":
            return Effect.sync(() => turnOn(plan.proxyEnv))
          case "Unsupported":
            return Output.note(
              Output.errColour.yellow(
                `umg: ${plan.variable} is set, but Node ${process.versions.node} cannot go through a proxy (Node 22.21+ or 24.5+ can): connecting directly; NODE_USE_ENV_PROXY=0 goes directly without this warning`
              )
            )
        }
      })
  )
}
