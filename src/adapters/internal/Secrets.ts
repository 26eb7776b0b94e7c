/**
 * The secrets a gateway request could see echoed back (in an error page, a WebSocket close reason):
 * what the core's `redactText` replaces before outside text reaches an error. The one list, used by
 * the HTTP transport and the WebSocket groups alike.
 */
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as HttpAuth from "../http/HttpAuth.js"
import type { GatewayConfig } from "../GatewayConfig.js"
import { proxySecretsOf } from "../http/ProxySetting.js"

/**
 * Every secret a request could see echoed back: the API key, the platform password, the values of
 * the configured extra headers, the proxy's credentials (its password as written and decoded, and
 * the `Basic` credentials sent to it; of the given proxy, else of the environment's), and the
 * request's own credential (a platform token), each also without its `Bearer ` prefix.
 * @category accessors
 */
export const secretsOf = (config: GatewayConfig, auth?: HttpAuth.Auth): ReadonlyArray<string> => {
  const out = [Redacted.value(config.apiKey), ...Object.values(config.headers)]
  if (Option.isSome(config.platformPassword)) out.push(Redacted.value(config.platformPassword.value))
  out.push(...proxySecretsOf(config.proxy))
  const values =
    auth === undefined
      ? []
      : auth._tag === "Bearer"
        ? [Redacted.value(auth.token)]
        : auth._tag === "Header" || auth._tag === "Query"
          ? [Redacted.value(auth.value)]
          : auth._tag === "Headers"
            ? Object.values(Redacted.value(auth.headers))
            : []
  for (const value of values) out.push(value, value.replace(/^bearer\s+/i, ""))
  return out
}
