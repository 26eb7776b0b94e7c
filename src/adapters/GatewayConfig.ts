/**
 * The settings of a gateway client: where the gateway and the platform are, the credentials (held as
 * `Redacted` so they never print), retry and timeout budgets, extra headers and native-content auth.
 */
import type { Layer } from "effect"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import type { HttpClient } from "effect/http"
import type { SocketOpener } from "./socket/WebSocketSession.js"
import { checkSetting as checkProxySetting, invalid as proxyProblem, type ProxySetting } from "./http/ProxySetting.js"
import { concurrency, delay, retryCount, type SettingRange, settingOr, timeLimit } from "../core/validation/Setting.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { redactText } from "../core/errors/Redact.js"
import { describe } from "../core/validation/Rules.js"
import { type Limits, type LimitsInput, makeLimits } from "./internal/Limits.js"
import { checkLogLevel, type GatewayLogLevel } from "../core/validation/LogLevelSetting.js"

/** How native-content (zeta) calls carry the key: `Authorization: Bearer`, `x-vendor-api-key`, or `?key=`. @category models */
export type NativeAuth = "bearer" | "x-vendor-api-key" | "query"

/** What a user passes to `Gateway.layer`; secrets may be plain strings or `Redacted`. @category models */
export interface GatewayConfigInput {
  /** The gateway's `{base_url}` (endpoints live under `baseUrl + "/v1/…"`). */
  readonly baseUrl: string
  readonly apiKey: string | Redacted.Redacted<string>
  /** `{platform_url}` of the platform-style endpoints (E4–E7). */
  readonly platformUrl?: string | undefined
  readonly platformUsername?: string | undefined
  readonly platformPassword?: string | Redacted.Redacted<string> | undefined
  /** Retries after the first attempt (default 2). */
  readonly maxRetries?: number | undefined
  /** First backoff delay (default 500 ms); doubles each retry up to `retryMaxDelayMs` (default 8000 ms). */
  readonly retryBaseDelayMs?: number | undefined
  readonly retryMaxDelayMs?: number | undefined
  /** Longest `Retry-After` we wait for; a longer one stops retrying (default 60 s). */
  readonly maxRetryAfterMs?: number | undefined
  /** Time limit of one request attempt until its whole body is read (default 60 s). */
  readonly timeoutMs?: number | undefined
  /** Time limit until a stream's first event (default 30 s). */
  readonly streamFirstByteTimeoutMs?: number | undefined
  /** Longest gap between two events of a stream; pings and comments do not count (default 60 s). */
  readonly streamIdleTimeoutMs?: number | undefined
  /** Extra headers sent with every gateway request (never with a cross-origin redirect). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** How native-content calls authenticate (default `bearer`). */
  readonly nativeAuth?: NativeAuth | undefined
  /** Concurrency of `embeddings.embedMany` (default 4). */
  readonly embedConcurrency?: number | undefined
  /**
   * The shortest video poll interval allowed (default 3000 ms, the contract's 3–5 s rule); lower it only
   * against an emulator with fast timings.
   */
  readonly minPollIntervalMs?: number | undefined
  /**
   * An HTTP client layer to use instead of the platform's default (umg's Node client, or
   * `FetchHttpClient` in browsers) with `Gateway.layer`. Prefer
   * `Gateway.layerWithoutHttpClient(config)` and provide the client as a layer.
   */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  /** How WebSockets are opened (default: the Node `ws` package, which can send the key as a header). */
  readonly webSocket?: SocketOpener | undefined
  /** Bounds on everything read from outside (see `Limits`); each defaults on its own. */
  readonly limits?: LimitsInput | undefined
  /**
   * Send model ids the catalog does not list (for a gateway newer than umg) instead of refusing them
   * before sending. A model of another family is refused either way. Default false.
   */
  readonly allowUnknownModels?: boolean | undefined
  /**
   * The HTTP proxy of umg's own Node clients (HTTP and WebSocket). Not given: the one Node's own
   * clients use (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` when Node runs with `NODE_USE_ENV_PROXY=1`
   * or `--use-env-proxy`); a URL (`http://user:password@proxy.corp:3128`, a string or `Redacted`) or
   * `{ url, noProxy }`: that proxy; `false`: none, whatever Node's setting. Needs Node 22.21+ or
   * 24.5+; refused in browsers (they use their own settings) and when both `httpClient` and
   * `webSocket` are brought (it would apply to neither).
   */
  readonly proxy?: ProxySetting | undefined
}

/** The resolved settings, every default applied. @category models */
export interface GatewayConfig {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly platformUrl: Option.Option<string>
  readonly platformUsername: Option.Option<string>
  readonly platformPassword: Option.Option<Redacted.Redacted<string>>
  readonly maxRetries: number
  readonly retryBaseDelayMs: number
  readonly retryMaxDelayMs: number
  readonly maxRetryAfterMs: number
  readonly timeoutMs: number
  readonly streamFirstByteTimeoutMs: number
  readonly streamIdleTimeoutMs: number
  readonly headers: Readonly<Record<string, string>>
  readonly nativeAuth: NativeAuth
  readonly embedConcurrency: number
  readonly minPollIntervalMs: number
  readonly httpClient: Option.Option<Layer.Layer<HttpClient.HttpClient>>
  readonly webSocket: Option.Option<SocketOpener>
  readonly limits: Limits
  readonly allowUnknownModels: boolean
  /** The proxy of umg's own clients, when one is given (`GatewayConfigInput.proxy`). */
  readonly proxy?: ProxySetting | undefined
}

const redact = (s: string | Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.isRedacted(s) ? s : Redacted.make(s)

// A trailing slash would give `//v1/...` once joined with an absolute path.
const trimSlash = (url: string): string => url.replace(/\/+$/, "")

/**
 * The one rule of an address (`baseUrl`, `platformUrl`, `UMG_BASE_URL`, `UMG_PLATFORM_URL`): an
 * absolute http(s) URL with a host, and nothing around it. Anything else would only fail once sent,
 * after retries, as a lost connection (which says the gateway may have acted).
 */
const isHttpUrl = (raw: unknown): raw is string => {
  if (typeof raw !== "string" || !/^https?:\/\/[^\s/?#]/i.test(raw) || /\s/.test(raw)) return false
  try {
    const url = new URL(raw)
    return (url.protocol === "http:" || url.protocol === "https:") && url.host !== ""
  } catch {
    return false
  }
}

/**
 * What an address that is not allowed says: the setting, the value cut short (its query, any
 * secret of the settings and any URL password taken out) and the form allowed.
 */
const urlMessage = (name: string, raw: unknown, secrets: ReadonlyArray<string>): string => {
  const shown =
    typeof raw === "string"
      ? JSON.stringify(redactText(raw.replace(/[?#][\s\S]*$/, "?…"), secrets, 80))
      : raw === undefined || raw === null
        ? String(raw)
        : `a ${typeof raw}`
  return `${name}: ${shown} is not an http(s) URL, e.g. https://gateway.example.com`
}

/** The secrets of a user's settings, as plain text: never shown in a message about another setting. */
const inputSecrets = (input: GatewayConfigInput): ReadonlyArray<string> =>
  [input.apiKey, input.platformPassword, ...Object.values(input.headers ?? {})].flatMap((secret) =>
    secret === undefined ? [] : [Redacted.isRedacted(secret) ? Redacted.value(secret) : secret]
  )

/** An address setting (`raw`, the value of `name`), checked (see `make`), without its trailing slash. */
const address = (input: GatewayConfigInput, name: "baseUrl" | "platformUrl", raw: unknown): string => {
  if (!isHttpUrl(raw))
    throw new InvalidRequest({ field: name, rule: "url", message: urlMessage(name, raw, inputSecrets(input)) })
  return trimSlash(raw)
}

/** The key, checked (see `make`): a non-blank string or `Redacted` string. */
const apiKeyOf = (input: GatewayConfigInput): Redacted.Redacted<string> => {
  const key: unknown = Redacted.isRedacted(input.apiKey) ? Redacted.value(input.apiKey) : input.apiKey
  if (typeof key !== "string" || key.trim() === "")
    throw new InvalidRequest({
      field: "apiKey",
      rule: "required",
      message: `apiKey: ${typeof key === "string" ? "empty" : "missing"}; allowed: the gateway's API key, a non-empty string (or Redacted)`
    })
  return redact(input.apiKey)
}

/** The values `nativeAuth` allows. */
const nativeAuths: ReadonlyArray<NativeAuth> = ["bearer", "x-vendor-api-key", "query"]

/** The native-content auth, checked (see `make`), or `bearer` when not given. */
const nativeAuthOf = (input: GatewayConfigInput): NativeAuth => {
  const raw: unknown = input.nativeAuth
  if (raw === undefined || raw === null) return "bearer"
  const allowed = nativeAuths.find((value) => value === raw)
  if (allowed !== undefined) return allowed
  // A string is shown cut short and without any secret of the settings (a key put here by mistake).
  const shown = typeof raw === "string" ? JSON.stringify(redactText(raw, inputSecrets(input), 40)) : describe(raw)
  throw new InvalidRequest({
    field: "nativeAuth",
    rule: "one-of",
    message: `nativeAuth: ${shown} is not allowed; allowed: ${nativeAuths.join(", ")}`
  })
}

/** The numeric settings: what each allows and its default. */
const numericSettings = {
  maxRetries: [retryCount, 2],
  retryBaseDelayMs: [delay, 500],
  retryMaxDelayMs: [delay, 8_000],
  maxRetryAfterMs: [delay, 60_000],
  timeoutMs: [timeLimit, 60_000],
  streamFirstByteTimeoutMs: [timeLimit, 30_000],
  streamIdleTimeoutMs: [timeLimit, 60_000],
  embedConcurrency: [concurrency, 4],
  minPollIntervalMs: [delay, 3_000]
} as const satisfies Record<string, readonly [SettingRange, number]>

/** A numeric setting, checked (see `make`), or its default. */
const numeric = (input: GatewayConfigInput, name: keyof typeof numericSettings): number => {
  const [range, fallback] = numericSettings[name]
  const checked = settingOr(name, input[name], range, fallback)
  if (Result.isFailure(checked)) throw checked.failure
  return checked.success
}

/**
 * Applies the defaults to a user's settings. Throws `InvalidRequest` naming the setting and what it
 * allows when one is not allowed: `baseUrl` and `platformUrl` (rule `url`) an absolute http(s) URL
 * such as `https://gateway.example.com` (the value shown cut short, never a secret), `apiKey` (rule
 * `required`) a non-empty key, `nativeAuth` (rule `one-of`) `bearer`, `x-vendor-api-key` or `query`,
 * and (rule `range`) a time limit from 1 ms to 2,147,483,647 ms (what a host timer keeps; `Infinity`
 * would fire at once), a delay from 0, `maxRetries` a whole number from 0 to 100, `embedConcurrency`
 * from 1 to 1000, each of `limits` as `makeLimits` says, and `proxy` as `ProxySetting.checkSetting` says.
 * `Gateway.layerConfig` reports the same checks as a `ConfigError` instead of throwing.
 * @category constructors
 */
export const make = (input: GatewayConfigInput): GatewayConfig => ({
  baseUrl: address(input, "baseUrl", input.baseUrl),
  apiKey: apiKeyOf(input),
  platformUrl: Option.map(Option.fromNullishOr(input.platformUrl), (url) => address(input, "platformUrl", url)),
  platformUsername: Option.fromNullishOr(input.platformUsername),
  platformPassword: Option.map(Option.fromNullishOr(input.platformPassword), redact),
  maxRetries: numeric(input, "maxRetries"),
  retryBaseDelayMs: numeric(input, "retryBaseDelayMs"),
  retryMaxDelayMs: numeric(input, "retryMaxDelayMs"),
  maxRetryAfterMs: numeric(input, "maxRetryAfterMs"),
  timeoutMs: numeric(input, "timeoutMs"),
  streamFirstByteTimeoutMs: numeric(input, "streamFirstByteTimeoutMs"),
  streamIdleTimeoutMs: numeric(input, "streamIdleTimeoutMs"),
  headers: input.headers ?? {},
  nativeAuth: nativeAuthOf(input),
  embedConcurrency: numeric(input, "embedConcurrency"),
  minPollIntervalMs: numeric(input, "minPollIntervalMs"),
  httpClient: Option.fromNullishOr(input.httpClient),
  webSocket: Option.fromNullishOr(input.webSocket),
  limits: makeLimits(input.limits),
  allowUnknownModels: input.allowUnknownModels === true,
  ...(input.proxy === undefined ? {} : { proxy: proxyOf(input) })
})

/** `proxy`, checked (`ProxySetting.checkSetting`), and refused when no client of umg's own would use it. */
const proxyOf = (input: GatewayConfigInput): ProxySetting => {
  const proxy = input.proxy!
  checkProxySetting(proxy)
  if (proxy !== false && input.httpClient !== undefined && input.webSocket !== undefined)
    throw proxyProblem(
      "unused",
      "proxy: applies to umg's own HTTP client and WebSocket opener, and both are brought (httpClient, webSocket): give the proxy to them"
    )
  return proxy
}

// ---------------------------------------------------------------------------------------------
// The environment: the one reader of the UMG_* variables (Gateway.layerFromEnv and the CLI)
// ---------------------------------------------------------------------------------------------

/**
 * A `UMG_*` variable whose value is missing or not allowed: the variable, the rule it broke
 * (`required`, `range`, `url`, `one-of`) and a message naming the variable and the allowed values — never the
 * value of a secret. It is the `cause` of the `SourceError` a `ConfigError` of `fromEnv` carries.
 * @category errors
 */
export class EnvProblem extends Data.TaggedError("EnvProblem")<{
  readonly variable: string
  readonly rule: "required" | "range" | "url" | "one-of"
  readonly message: string
}> {}

/**
 * The integer variables and their allowed ranges: `[name, min, max]`.
 * @category models
 */
export const envIntegers = {
  UMG_TIMEOUT_MS: [1, 3_600_000],
  UMG_MAX_RETRIES: [retryCount.min, retryCount.max], // the library's `maxRetries` range, one rule
  UMG_POLL_INTERVAL_MS: [10, 5_000]
} as const satisfies Record<string, readonly [number, number]>

/** What the environment says: the settings, and the video poll interval to use against the gateway. @category models */
export interface EnvSettings {
  readonly input: GatewayConfigInput
  /** `UMG_POLL_INTERVAL_MS`, default 5000 ms (the contract's 3–5 s rule); lower only for an emulator with fast timings. */
  readonly pollIntervalMs: number
}

/** The ConfigError of a variable that is missing or not allowed, with its `EnvProblem` as cause. @category constructors */
export const envProblem = (variable: string, rule: EnvProblem["rule"], message: string): Config.ConfigError =>
  new Config.ConfigError(
    new ConfigProvider.SourceError({ message, cause: new EnvProblem({ variable, rule, message }) })
  )

/** The `EnvProblem` a `ConfigError` of `fromEnv` carries, if any. @category accessors */
export const envProblemOf = (error: Config.ConfigError): EnvProblem | undefined =>
  error.cause._tag === "SourceError" && error.cause.cause instanceof EnvProblem ? error.cause.cause : undefined

// Every variable is read as text (an empty one counts as absent), then checked here in one place.
const text = (name: string): Config.Config<string | undefined> =>
  Config.map(Config.option(Config.String(name)), (value) =>
    Option.isSome(value) && value.value !== "" ? value.value : undefined
  )

const secret = (name: string): Config.Config<Redacted.Redacted<string> | undefined> =>
  Config.map(Config.option(Config.Redacted(name)), (value) =>
    Option.isSome(value) && Redacted.value(value.value) !== "" ? value.value : undefined
  )

const integerOf = (name: keyof typeof envIntegers, raw: string): Result.Result<number, Config.ConfigError> => {
  const [min, max] = envIntegers[name]
  const n = Number(raw)
  return /^\d+$/.test(raw.trim()) && Number.isInteger(n) && n >= min && n <= max
    ? Result.succeed(n)
    : Result.fail(
        envProblem(
          name,
          "range",
          `${name}: ${JSON.stringify(raw.slice(0, 40))} is not allowed; allowed: an integer from ${min} to ${max}${name === "UMG_POLL_INTERVAL_MS" ? " (milliseconds)" : ""}`
        )
      )
}

// The rule and the message of `make`'s addresses: the key and password are never shown.
const urlOf = (name: string, raw: string, secrets: ReadonlyArray<string>): Result.Result<string, Config.ConfigError> =>
  isHttpUrl(raw) ? Result.succeed(raw) : Result.fail(envProblem(name, "url", urlMessage(name, raw, secrets)))

const booleanOf = (name: string, raw: string): Result.Result<boolean, Config.ConfigError> => {
  const value = raw.trim().toLowerCase()
  return value === "1" || value === "true"
    ? Result.succeed(true)
    : value === "0" || value === "false"
      ? Result.succeed(false)
      : Result.fail(
          envProblem(
            name,
            "one-of",
            `${name}: ${JSON.stringify(raw.slice(0, 40))} is not allowed; allowed: 1, true, 0, false`
          )
        )
}

/**
 * `UMG_NATIVE_AUTH` as read (unset or empty: the library's default): one of `nativeAuth`'s values,
 * any case; a wrong value is shown cut short and without the key or password (put here by mistake).
 */
const nativeAuthFromEnv = (
  raw: string | undefined,
  secrets: ReadonlyArray<string>
): Result.Result<NativeAuth | undefined, Config.ConfigError> => {
  if (raw === undefined) return Result.succeed(undefined)
  const value = raw.trim().toLowerCase()
  const allowed = nativeAuths.find((auth) => auth === value)
  return allowed !== undefined
    ? Result.succeed(allowed)
    : Result.fail(
        envProblem(
          "UMG_NATIVE_AUTH",
          "one-of",
          `UMG_NATIVE_AUTH: ${JSON.stringify(redactText(raw, secrets, 40))} is not allowed; allowed: ${nativeAuths.join(", ")}`
        )
      )
}

/** `UMG_ALLOW_UNKNOWN_MODELS` as read (unset or empty: false). */
const allowUnknownModelsOf = (raw: string | undefined): Result.Result<boolean, Config.ConfigError> =>
  raw === undefined ? Result.succeed(false) : booleanOf("UMG_ALLOW_UNKNOWN_MODELS", raw)

/**
 * `UMG_ALLOW_UNKNOWN_MODELS` (`1`/`true` or `0`/`false`; unset or empty: false): the environment's
 * `allowUnknownModels`. Part of `envSettings`; the CLI also reads it alone, to check a request
 * before it connects.
 * @category constructors
 */
export const allowUnknownModelsFromEnv: Config.Config<boolean> = Config.mapEffect(
  text("UMG_ALLOW_UNKNOWN_MODELS"),
  (raw) => Effect.fromResult(allowUnknownModelsOf(raw))
)

/**
 * `UMG_LOG` (`debug`, `info`, `warn`, `error` or `off`, any case; unset or empty: `undefined`): how
 * much umg logs, for a face that runs its own Effect runtime (umg/rx's `createGateway` when given no
 * `logLevel`; the CLI reads the variable by the same rule, `checkLogLevel`, without loading the
 * adapters). An Effect program sets `References.MinimumLogLevel` instead: `Gateway.layerFromEnv` does
 * not read it. A wrong value is a `ConfigError` whose `envProblemOf` names the variable.
 * @category constructors
 */
export const logLevelFromEnv: Config.Config<GatewayLogLevel | undefined> = Config.mapEffect(text("UMG_LOG"), (raw) =>
  raw === undefined
    ? Effect.succeed(undefined)
    : Effect.fromResult(
        Result.mapError(checkLogLevel("UMG_LOG", raw), (refused) => envProblem("UMG_LOG", "one-of", refused.message))
      )
)

/**
 * The settings read from the environment, every variable checked and named when wrong:
 * `UMG_BASE_URL` (required, an http(s) URL), `UMG_API_KEY` (required; never shown),
 * `UMG_PLATFORM_URL` (an http(s) URL), `UMG_PLATFORM_USERNAME`, `UMG_PLATFORM_PASSWORD`,
 * `UMG_MAX_RETRIES` (0–100, as `maxRetries`), `UMG_TIMEOUT_MS` (1–3600000), `UMG_POLL_INTERVAL_MS` (10–5000: the
 * video poll interval, and the shortest allowed when below 3000), `UMG_NATIVE_AUTH` (`bearer`,
 * `x-vendor-api-key` or `query`, as `nativeAuth`) and `UMG_ALLOW_UNKNOWN_MODELS`
 * (`allowUnknownModelsFromEnv`). An empty variable counts as unset.
 * A failure is a `ConfigError` whose `envProblemOf` names the variable.
 * @category constructors
 */
export const envSettings: Config.Config<EnvSettings> = Config.all({
  baseUrl: text("UMG_BASE_URL"),
  apiKey: secret("UMG_API_KEY"),
  platformUrl: text("UMG_PLATFORM_URL"),
  platformUsername: text("UMG_PLATFORM_USERNAME"),
  platformPassword: secret("UMG_PLATFORM_PASSWORD"),
  maxRetries: text("UMG_MAX_RETRIES"),
  timeoutMs: text("UMG_TIMEOUT_MS"),
  pollIntervalMs: text("UMG_POLL_INTERVAL_MS"),
  nativeAuth: text("UMG_NATIVE_AUTH"),
  allowUnknownModels: text("UMG_ALLOW_UNKNOWN_MODELS")
}).pipe(
  Config.mapEffect((env) =>
    Effect.fromResult(
      Result.gen(function* () {
        if (env.baseUrl === undefined)
          return yield* Result.fail(
            envProblem(
              "UMG_BASE_URL",
              "required",
              "UMG_BASE_URL is not set: set UMG_BASE_URL (and UMG_API_KEY) to your gateway"
            )
          )
        if (env.apiKey === undefined)
          return yield* Result.fail(
            envProblem("UMG_API_KEY", "required", "UMG_API_KEY must be set when UMG_BASE_URL is set")
          )
        const pollIntervalMs =
          env.pollIntervalMs === undefined ? 5_000 : yield* integerOf("UMG_POLL_INTERVAL_MS", env.pollIntervalMs)
        const timeoutMs = env.timeoutMs === undefined ? undefined : yield* integerOf("UMG_TIMEOUT_MS", env.timeoutMs)
        const maxRetries =
          env.maxRetries === undefined ? undefined : yield* integerOf("UMG_MAX_RETRIES", env.maxRetries)
        const secrets = [env.apiKey, env.platformPassword].flatMap((s) => (s === undefined ? [] : [Redacted.value(s)]))
        const baseUrl = yield* urlOf("UMG_BASE_URL", env.baseUrl, secrets)
        const platformUrl =
          env.platformUrl === undefined ? undefined : yield* urlOf("UMG_PLATFORM_URL", env.platformUrl, secrets)
        const nativeAuth = yield* nativeAuthFromEnv(env.nativeAuth, secrets)
        const allowUnknownModels = yield* allowUnknownModelsOf(env.allowUnknownModels)
        const input: GatewayConfigInput = {
          baseUrl,
          apiKey: env.apiKey,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(maxRetries === undefined ? {} : { maxRetries }),
          ...(env.pollIntervalMs === undefined ? {} : { minPollIntervalMs: Math.min(pollIntervalMs, 3_000) }),
          ...(platformUrl === undefined ? {} : { platformUrl }),
          ...(env.platformUsername === undefined ? {} : { platformUsername: env.platformUsername }),
          ...(env.platformPassword === undefined ? {} : { platformPassword: env.platformPassword }),
          ...(nativeAuth === undefined ? {} : { nativeAuth }),
          ...(allowUnknownModels ? { allowUnknownModels } : {})
        }
        return { input, pollIntervalMs }
      })
    )
  )
)

/**
 * The resolved settings read from the environment (`envSettings`): what `Gateway.layerFromEnv` uses.
 * @category constructors
 */
export const fromEnv: Config.Config<GatewayConfig> = Config.map(envSettings, (settings) => make(settings.input))
