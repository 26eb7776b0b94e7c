/**
 * The settings of a gateway client: where the gateway and the platform are, the credentials (held as
 * `Redacted` so they never print), retry and timeout budgets, extra headers and native-content auth.
 */
import { Config, Option, Redacted } from "effect"
import type * as HttpClient from "@effect/platform/HttpClient"
import type { Layer } from "effect"
import type { SocketOpener } from "./WebSocketSession.js"
import { type Limits, type LimitsInput, makeLimits } from "./Limits.js"

/** How native-content (zeta) calls carry the key: `Authorization: Bearer`, `x-vendor-api-key`, or `?key=`. @category models */
export type NativeAuth = "bearer" | "x-vendor-api-key" | "query"

/** What a user passes to `Gateway.layer`; secrets may be plain strings or `Redacted`. @category models */
export interface GatewayConfigInput {
  /** The gateway's `{base_url}` (endpoints live under `baseUrl + "/v1/…"`). */
  readonly baseUrl: string
  readonly apiKey: string | Redacted.Redacted<string>
  /** `{platform_url}` of the platform-style endpoints (E4–E7). */
  readonly platformUrl?: string
  readonly platformUsername?: string
  readonly platformPassword?: string | Redacted.Redacted<string>
  /** Retries after the first attempt (default 2). */
  readonly maxRetries?: number
  /** First backoff delay (default 500 ms); doubles each retry up to `retryMaxDelayMs` (default 8000 ms). */
  readonly retryBaseDelayMs?: number
  readonly retryMaxDelayMs?: number
  /** Longest `Retry-After` we wait for; a longer one stops retrying (default 60 s). */
  readonly maxRetryAfterMs?: number
  /** Time limit of one request attempt until its whole body is read (default 60 s). */
  readonly timeoutMs?: number
  /** Time limit until a stream's first event (default 30 s). */
  readonly streamFirstByteTimeoutMs?: number
  /** Longest gap between two events of a stream; pings and comments do not count (default 60 s). */
  readonly streamIdleTimeoutMs?: number
  /** Extra headers sent with every gateway request (never with a cross-origin redirect). */
  readonly headers?: Readonly<Record<string, string>>
  /** How native-content calls authenticate (default `bearer`). */
  readonly nativeAuth?: NativeAuth
  /** Concurrency of `embeddings.embedMany` (default 4). */
  readonly embedConcurrency?: number
  /**
   * The shortest video poll interval allowed (default 3000 ms, the spec's 3–5 s rule); lower it only
   * against an emulator with fast timings.
   */
  readonly minPollIntervalMs?: number
  /**
   * An HTTP client layer to use instead of `FetchHttpClient.layer` with `Gateway.layer`. Prefer
   * `Gateway.layerWithoutHttpClient(config)` and provide the client as a layer.
   */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient>
  /** How WebSockets are opened (default: the Node `ws` package, which can send the key as a header). */
  readonly webSocket?: SocketOpener
  /** Bounds on everything read from outside (see `Limits`); each defaults on its own. */
  readonly limits?: LimitsInput
  /**
   * Send model ids the catalog does not list (for a gateway newer than umg) instead of refusing them
   * before sending. A model of another family is refused either way. Default false.
   */
  readonly allowUnknownModels?: boolean
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
}

const redact = (s: string | Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.isRedacted(s) ? s : Redacted.make(s)

// A trailing slash would give `//v1/...` once joined with an absolute path.
const trimSlash = (url: string): string => url.replace(/\/+$/, "")

/**
 * Applies the defaults to a user's settings.
 * @category constructors
 */
export const make = (input: GatewayConfigInput): GatewayConfig => ({
  baseUrl: trimSlash(input.baseUrl),
  apiKey: redact(input.apiKey),
  platformUrl: Option.map(Option.fromNullable(input.platformUrl), trimSlash),
  platformUsername: Option.fromNullable(input.platformUsername),
  platformPassword: Option.map(Option.fromNullable(input.platformPassword), redact),
  maxRetries: Math.max(0, Math.floor(input.maxRetries ?? 2)),
  retryBaseDelayMs: input.retryBaseDelayMs ?? 500,
  retryMaxDelayMs: input.retryMaxDelayMs ?? 8_000,
  maxRetryAfterMs: input.maxRetryAfterMs ?? 60_000,
  timeoutMs: input.timeoutMs ?? 60_000,
  streamFirstByteTimeoutMs: input.streamFirstByteTimeoutMs ?? 30_000,
  streamIdleTimeoutMs: input.streamIdleTimeoutMs ?? 60_000,
  headers: input.headers ?? {},
  nativeAuth: input.nativeAuth ?? "bearer",
  embedConcurrency: Math.max(1, Math.floor(input.embedConcurrency ?? 4)),
  minPollIntervalMs: Math.max(0, input.minPollIntervalMs ?? 3_000),
  httpClient: Option.fromNullable(input.httpClient),
  webSocket: Option.fromNullable(input.webSocket),
  limits: makeLimits(input.limits),
  allowUnknownModels: input.allowUnknownModels === true
})

/**
 * The settings read from the environment: `UMG_BASE_URL`, `UMG_API_KEY` (required; the error names
 * the variable, never a value), `UMG_PLATFORM_URL`, `UMG_PLATFORM_USERNAME`, `UMG_PLATFORM_PASSWORD`,
 * and optionally `UMG_MAX_RETRIES`, `UMG_TIMEOUT_MS`.
 * @category constructors
 */
export const fromEnv: Config.Config<GatewayConfig> = Config.all({
  baseUrl: Config.string("UMG_BASE_URL").pipe(
    Config.withDescription("the gateway's base URL, e.g. https://gateway.example.com")
  ),
  apiKey: Config.redacted("UMG_API_KEY").pipe(
    Config.withDescription("the gateway API key (UMG_API_KEY) is required")
  ),
  platformUrl: Config.option(Config.string("UMG_PLATFORM_URL")),
  platformUsername: Config.option(Config.string("UMG_PLATFORM_USERNAME")),
  platformPassword: Config.option(Config.redacted("UMG_PLATFORM_PASSWORD")),
  maxRetries: Config.option(Config.integer("UMG_MAX_RETRIES")),
  timeoutMs: Config.option(Config.integer("UMG_TIMEOUT_MS"))
}).pipe(
  Config.map((c) =>
    make({
      baseUrl: c.baseUrl,
      apiKey: c.apiKey,
      ...Option.match(c.platformUrl, { onNone: () => ({}), onSome: (platformUrl) => ({ platformUrl }) }),
      ...Option.match(c.platformUsername, { onNone: () => ({}), onSome: (platformUsername) => ({ platformUsername }) }),
      ...Option.match(c.platformPassword, { onNone: () => ({}), onSome: (platformPassword) => ({ platformPassword }) }),
      ...Option.match(c.maxRetries, { onNone: () => ({}), onSome: (maxRetries) => ({ maxRetries }) }),
      ...Option.match(c.timeoutMs, { onNone: () => ({}), onSome: (timeoutMs) => ({ timeoutMs }) })
    })
  )
)
