import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import type { LimitsInput } from "../../src/adapters/internal/Limits.js"

const fromMap = (entries: Record<string, string>) =>
  Effect.provideService(GatewayConfig.fromEnv, ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: entries }))

describe("GatewayConfig", () => {
  it("applies the documented defaults", () => {
    const c = GatewayConfig.make({ baseUrl: "https://gw.test/", apiKey: "k" })
    expect(c).toMatchObject({
      baseUrl: "https://gw.test",
      maxRetries: 2,
      retryBaseDelayMs: 500,
      retryMaxDelayMs: 8_000,
      nativeAuth: "bearer",
      minPollIntervalMs: 3_000
    })
    expect(Redacted.isRedacted(c.apiKey)).toBe(true)
  })

  // Each was accepted before and then failed every call (a time limit of Infinity or over 2^31 - 1 ms
  // fires at once), retried without end (NaN) or was silently replaced by its default (limits).
  it.each([
    [
      "timeoutMs",
      { timeoutMs: Infinity },
      "timeoutMs: Infinity is out of range; allowed: a number from 1 to 2147483647 ms"
    ],
    ["timeoutMs", { timeoutMs: 3e9 }, "allowed: a number from 1 to 2147483647 ms"],
    ["timeoutMs", { timeoutMs: 0 }, "timeoutMs: 0 is out of range"],
    ["streamFirstByteTimeoutMs", { streamFirstByteTimeoutMs: Infinity }, "streamFirstByteTimeoutMs: Infinity"],
    ["streamIdleTimeoutMs", { streamIdleTimeoutMs: -1 }, "streamIdleTimeoutMs: -1"],
    ["maxRetries", { maxRetries: NaN }, "maxRetries: NaN is out of range; allowed: a whole number from 0 to 100"],
    ["maxRetries", { maxRetries: 1.5 }, "maxRetries: 1.5"],
    ["retryBaseDelayMs", { retryBaseDelayMs: -5 }, "allowed: a number from 0 to 2147483647 ms"],
    ["maxRetryAfterMs", { maxRetryAfterMs: Infinity }, "maxRetryAfterMs: Infinity"],
    ["embedConcurrency", { embedConcurrency: 0 }, "allowed: a whole number from 1 to 1000"],
    ["minPollIntervalMs", { minPollIntervalMs: NaN }, "minPollIntervalMs: NaN"],
    ["limits.maxJsonDepth", { limits: { maxJsonDepth: 100 } }, "allowed: a whole number from 1 to 64"],
    ["limits.maxResponseBytes", { limits: { maxResponseBytes: -1 } }, "limits.maxResponseBytes: -1"],
    ["limits.maxPendingBytes", { limits: { maxPendingBytes: 0 } }, "limits.maxPendingBytes: 0 is out of range"],
    ["limits.webSocketHandshakeTimeoutMs", { limits: { webSocketHandshakeTimeoutMs: Infinity } }, "ms"]
  ] as const)("refuses %s out of its range when the layer is made, naming it", (field, settings, words) => {
    const make = () => GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: "sk-range-SECRET", ...settings })
    expect(make).toThrow(words)
    let thrown: unknown
    try {
      Gateway.layer({ baseUrl: "https://gw.test", apiKey: "sk-range-SECRET", ...settings })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ _tag: "InvalidRequest", field, rule: "range" })
    expect(String(thrown)).not.toContain("SECRET")
  })

  it("takes the edges of each range: no retries, no delays, no redirects, the longest time limit", () => {
    const c = GatewayConfig.make({
      baseUrl: "https://gw.test",
      apiKey: "k",
      maxRetries: 0,
      retryBaseDelayMs: 0,
      minPollIntervalMs: 0,
      timeoutMs: 2_147_483_647,
      limits: { maxRedirects: 0, maxJsonDepth: 64 }
    })
    expect(c).toMatchObject({ maxRetries: 0, retryBaseDelayMs: 0, minPollIntervalMs: 0, timeoutMs: 2_147_483_647 })
    expect(c.limits).toMatchObject({ maxRedirects: 0, maxJsonDepth: 64, maxResponseBytes: 32 * 1024 * 1024 })
  })

  it("bounds the WebSocket bytes waiting for a reader at four times the frame bound unless told otherwise", () => {
    const make = (limits: LimitsInput) =>
      GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: "k", limits }).limits.maxPendingBytes
    expect(make({})).toBe(64 * 1024 * 1024)
    expect(make({ maxFrameBytes: 1024 })).toBe(4096)
    expect(make({ maxFrameBytes: 1024, maxPendingBytes: 100 })).toBe(100)
  })

  it.effect("reads every UMG_ variable, secrets as Redacted", () =>
    Effect.gen(function* () {
      const c = yield* fromMap({
        UMG_BASE_URL: "https://gw.test",
        UMG_API_KEY: "sk-env-SECRET",
        UMG_PLATFORM_URL: "https://platform.test/",
        UMG_PLATFORM_USERNAME: "me",
        UMG_PLATFORM_PASSWORD: "pw-env-SECRET",
        UMG_MAX_RETRIES: "5"
      })
      expect(Redacted.value(c.apiKey)).toBe("sk-env-SECRET")
      expect(c.platformUrl).toEqual(Option.some("https://platform.test"))
      expect(c.platformUsername).toEqual(Option.some("me"))
      expect(c.maxRetries).toBe(5)
      expect(JSON.stringify(c)).not.toContain("SECRET")
    })
  )

  it.effect("fails naming UMG_API_KEY, and no value, when the key is missing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        fromMap({ UMG_BASE_URL: "https://gw.test", UMG_PLATFORM_PASSWORD: "pw-env-SECRET" })
      )
      expect(String(error)).toContain("UMG_API_KEY")
      expect(String(error)).not.toContain("pw-env-SECRET")
    })
  )

  it.effect("is read through Gateway.layerFromEnv with the same checks", () =>
    Effect.gen(function* () {
      const env = { UMG_BASE_URL: "https://gw.test", UMG_API_KEY: "sk-env-SECRET", UMG_TIMEOUT_MS: "0" }
      const error = yield* Effect.flip(
        Effect.flatMap(Gateway, () => Effect.void).pipe(
          Effect.provide(Gateway.layerFromEnv),
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
        )
      )
      expect(GatewayConfig.envProblemOf(error)).toMatchObject({ variable: "UMG_TIMEOUT_MS", rule: "range" })
      expect(String(error)).not.toContain("SECRET")
    })
  )
})

// The one reader of the UMG_* environment (Gateway.layerFromEnv and the CLI): every variable checked, and named.
describe("GatewayConfig.envSettings", () => {
  const settings = (env: Record<string, string>) =>
    Effect.provideService(GatewayConfig.envSettings, ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))
  const base = { UMG_BASE_URL: "https://gw.test", UMG_API_KEY: "sk-env-SECRET" }

  const refused: ReadonlyArray<readonly [Record<string, string>, string, string, string]> = [
    [{}, "UMG_BASE_URL", "required", "UMG_BASE_URL is not set"],
    [{ UMG_BASE_URL: "" }, "UMG_BASE_URL", "required", "UMG_BASE_URL is not set"],
    [
      { UMG_BASE_URL: "https://gw.test" },
      "UMG_API_KEY",
      "required",
      "UMG_API_KEY must be set when UMG_BASE_URL is set"
    ],
    [
      { ...base, UMG_BASE_URL: "gateway.example.com" },
      "UMG_BASE_URL",
      "url",
      'UMG_BASE_URL: "gateway.example.com" is not an http(s) URL, e.g. https://gateway.example.com'
    ],
    [
      { ...base, UMG_PLATFORM_URL: "ftp://platform" },
      "UMG_PLATFORM_URL",
      "url",
      'UMG_PLATFORM_URL: "ftp://platform" is not an http(s) URL'
    ],
    [
      { ...base, UMG_TIMEOUT_MS: "abc" },
      "UMG_TIMEOUT_MS",
      "range",
      'UMG_TIMEOUT_MS: "abc" is not allowed; allowed: an integer from 1 to 3600000'
    ],
    [{ ...base, UMG_TIMEOUT_MS: "0" }, "UMG_TIMEOUT_MS", "range", "allowed: an integer from 1 to 3600000"],
    [{ ...base, UMG_TIMEOUT_MS: "3600001" }, "UMG_TIMEOUT_MS", "range", "allowed: an integer from 1 to 3600000"],
    [
      { ...base, UMG_MAX_RETRIES: "-1" },
      "UMG_MAX_RETRIES",
      "range",
      'UMG_MAX_RETRIES: "-1" is not allowed; allowed: an integer from 0 to 100'
    ],
    [{ ...base, UMG_MAX_RETRIES: "2.5" }, "UMG_MAX_RETRIES", "range", "allowed: an integer from 0 to 100"],
    [{ ...base, UMG_MAX_RETRIES: "101" }, "UMG_MAX_RETRIES", "range", "allowed: an integer from 0 to 100"],
    [
      { ...base, UMG_POLL_INTERVAL_MS: "9" },
      "UMG_POLL_INTERVAL_MS",
      "range",
      'UMG_POLL_INTERVAL_MS: "9" is not allowed; allowed: an integer from 10 to 5000 (milliseconds)'
    ],
    [
      { ...base, UMG_ALLOW_UNKNOWN_MODELS: "yes" },
      "UMG_ALLOW_UNKNOWN_MODELS",
      "one-of",
      'UMG_ALLOW_UNKNOWN_MODELS: "yes" is not allowed; allowed: 1, true, 0, false'
    ],
    [
      { ...base, UMG_NATIVE_AUTH: "basic" },
      "UMG_NATIVE_AUTH",
      "one-of",
      'UMG_NATIVE_AUTH: "basic" is not allowed; allowed: bearer, x-vendor-api-key, query'
    ],
    // The key put here by mistake is not shown.
    [
      { ...base, UMG_NATIVE_AUTH: "sk-env-SECRET" },
      "UMG_NATIVE_AUTH",
      "one-of",
      'UMG_NATIVE_AUTH: "[redacted]" is not allowed; allowed: bearer, x-vendor-api-key, query'
    ]
  ]

  it.effect.each(refused)("refuses %j naming $1", ([env, variable, rule, message]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(settings(env))
      const problem = GatewayConfig.envProblemOf(error)
      expect(problem).toMatchObject({ variable, rule })
      expect(problem!.message).toContain(message)
      expect(error.message).toContain(message)
      expect(String(error)).not.toContain("SECRET")
    })
  )

  it.effect("accepts the bounds, counts an empty variable as unset, and reads the poll interval", () =>
    Effect.gen(function* () {
      const plain = yield* settings(base)
      expect(plain.pollIntervalMs).toBe(5_000)
      expect(plain.input).not.toHaveProperty("minPollIntervalMs")
      expect(plain.input).not.toHaveProperty("timeoutMs")
      const empty = yield* settings({ ...base, UMG_TIMEOUT_MS: "", UMG_PLATFORM_URL: "", UMG_PLATFORM_PASSWORD: "" })
      expect(empty.input).toEqual(plain.input)
      const edges = yield* settings({
        ...base,
        UMG_TIMEOUT_MS: "3600000",
        UMG_MAX_RETRIES: "0",
        UMG_POLL_INTERVAL_MS: "10",
        UMG_PLATFORM_URL: "http://platform.test"
      })
      expect(edges.input).toMatchObject({
        timeoutMs: 3_600_000,
        maxRetries: 0,
        minPollIntervalMs: 10,
        platformUrl: "http://platform.test"
      })
      expect(edges.pollIntervalMs).toBe(10)
      const slow = yield* settings({ ...base, UMG_POLL_INTERVAL_MS: "5000" })
      expect(slow).toMatchObject({ pollIntervalMs: 5_000, input: { minPollIntervalMs: 3_000 } })
      expect(Redacted.isRedacted(slow.input.apiKey)).toBe(true)
    })
  )

  it.effect("reads UMG_NATIVE_AUTH as the nativeAuth setting (any case; unset or empty: bearer)", () =>
    Effect.gen(function* () {
      for (const [value, auth] of [
        ["bearer", "bearer"],
        ["x-vendor-api-key", "x-vendor-api-key"],
        [" Query ", "query"]
      ] as const) {
        expect((yield* settings({ ...base, UMG_NATIVE_AUTH: value })).input.nativeAuth, value).toBe(auth)
        expect((yield* fromMap({ ...base, UMG_NATIVE_AUTH: value })).nativeAuth, value).toBe(auth)
      }
      expect((yield* settings({ ...base, UMG_NATIVE_AUTH: "" })).input).not.toHaveProperty("nativeAuth")
      expect((yield* fromMap({ ...base, UMG_NATIVE_AUTH: "" })).nativeAuth).toBe("bearer")
      expect((yield* fromMap(base)).nativeAuth).toBe("bearer")
    })
  )

  it.effect("reads UMG_ALLOW_UNKNOWN_MODELS as the allowUnknownModels setting, alone too", () =>
    Effect.gen(function* () {
      for (const [value, allowed] of [
        ["1", true],
        [" TRUE ", true],
        ["0", false],
        ["false", false],
        ["", false]
      ] as const) {
        const read = yield* settings({ ...base, UMG_ALLOW_UNKNOWN_MODELS: value })
        expect(read.input.allowUnknownModels === true, value).toBe(allowed)
        const alone = yield* Effect.provideService(
          GatewayConfig.allowUnknownModelsFromEnv,
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnv({ env: { UMG_ALLOW_UNKNOWN_MODELS: value } })
        )
        expect(alone, value).toBe(allowed)
      }
      expect((yield* settings(base)).input).not.toHaveProperty("allowUnknownModels")
      const config = yield* Effect.provideService(
        GatewayConfig.fromEnv,
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromEnv({ env: { ...base, UMG_ALLOW_UNKNOWN_MODELS: "1" } })
      )
      expect(config.allowUnknownModels).toBe(true)
    })
  )
})
