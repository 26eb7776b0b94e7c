// The addresses and the key are checked when the settings are made, by the one rule `layerFromEnv`
// uses too: a `baseUrl` that is not an http(s) URL was accepted, and every call then retried and
// failed as a lost connection (saying the gateway may have acted). And `Gateway.layerConfig` reports
// a setting not allowed as the `ConfigError` its type promises, not as a defect.
import { describe, expect, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import { createGateway } from "../../src/streams/createGateway.js"

const KEY = "sk-checks-SECRET-key"

/** What `f` throws (`undefined` when it returns). */
const thrownBy = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

describe("GatewayConfig.make: addresses and key", () => {
  it.each([
    ["not a url"],
    ["127.0.0.1:8787"],
    ["localhost:8787"],
    ["ftp://example.com"],
    [""],
    ["http://"],
    ["https://exa mple.com"],
    [" https://gw.test"],
    ["//gw.test"]
  ])("refuses the baseUrl %j when the layer is made, naming baseUrl and the form allowed", (baseUrl) => {
    const layers: ReadonlyArray<() => unknown> = [
      () => GatewayConfig.make({ baseUrl, apiKey: KEY }),
      () => Gateway.layer({ baseUrl, apiKey: KEY }),
      () => Gateway.layerWithoutHttpClient({ baseUrl, apiKey: KEY }),
      () => createGateway({ baseUrl, apiKey: KEY })
    ]
    for (const make of layers) {
      const thrown = thrownBy(make)
      expect(thrown).toMatchObject({ _tag: "InvalidRequest", field: "baseUrl", rule: "url" })
      expect((thrown as Error).message).toBe(
        `baseUrl: ${JSON.stringify(baseUrl)} is not an http(s) URL, e.g. https://gateway.example.com`
      )
    }
  })

  it("refuses a platformUrl that is not an http(s) URL, naming platformUrl", () => {
    const thrown = thrownBy(() =>
      GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: KEY, platformUrl: "ftp://platform" })
    )
    expect(thrown).toMatchObject({ _tag: "InvalidRequest", field: "platformUrl", rule: "url" })
    expect((thrown as Error).message).toContain('platformUrl: "ftp://platform" is not an http(s) URL')
  })

  it("never shows a credential of the value it refuses, and cuts a long one", () => {
    const messageOf = (input: GatewayConfig.GatewayConfigInput) =>
      (thrownBy(() => GatewayConfig.make(input)) as Error).message
    // The key where the address should be, a URL password, a query's token, a header's value.
    expect(messageOf({ baseUrl: KEY, apiKey: KEY })).toContain('baseUrl: "[redacted]"')
    expect(messageOf({ baseUrl: `ftp://me:pw-SECRET@gw.test`, apiKey: KEY })).toContain("ftp://me:***@gw.test")
    expect(messageOf({ baseUrl: "gw.test/?token=tok-SECRET", apiKey: KEY })).toContain('"gw.test/?…"')
    expect(
      messageOf({ baseUrl: "x-SECRET-header", apiKey: Redacted.make(KEY), headers: { "x-t": "x-SECRET-header" } })
    ).toContain('"[redacted]"')
    const long = messageOf({ baseUrl: `gw.test/${"a".repeat(500)}`, apiKey: KEY })
    expect(long.length).toBeLessThan(200)
    for (const input of [
      { baseUrl: KEY, apiKey: KEY },
      { baseUrl: "ftp://me:pw-SECRET@gw.test", apiKey: KEY },
      { baseUrl: "gw.test/?token=tok-SECRET", apiKey: KEY }
    ])
      expect(messageOf(input)).not.toContain("SECRET")
  })

  it("takes http(s) URLs, any case of scheme, with a port or a path, without their trailing slash", () => {
    const baseOf = (baseUrl: string) => GatewayConfig.make({ baseUrl, apiKey: KEY }).baseUrl
    expect(baseOf("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787")
    expect(baseOf("https://gw.test/prefix/")).toBe("https://gw.test/prefix")
    expect(baseOf("HTTPS://GW.TEST")).toBe("HTTPS://GW.TEST")
    expect(baseOf("http://[::1]:8787/")).toBe("http://[::1]:8787")
  })

  it.each([[""], ["   "], [Redacted.make("")]])("refuses the apiKey %j, naming apiKey", (apiKey) => {
    const thrown = thrownBy(() => Gateway.layer({ baseUrl: "https://gw.test", apiKey }))
    expect(thrown).toMatchObject({ _tag: "InvalidRequest", field: "apiKey", rule: "required" })
    expect((thrown as Error).message).toContain("apiKey: empty; allowed: the gateway's API key")
  })

  it.effect("is the rule of UMG_BASE_URL too, which never shows the key either", () =>
    Effect.gen(function* () {
      const read = (env: Record<string, string>) =>
        Effect.flip(
          Effect.provideService(
            GatewayConfig.envSettings,
            ConfigProvider.ConfigProvider,
            ConfigProvider.fromEnv({ env })
          )
        )
      const spaced = yield* read({ UMG_BASE_URL: "https://exa mple.com", UMG_API_KEY: KEY })
      expect(GatewayConfig.envProblemOf(spaced)).toMatchObject({ variable: "UMG_BASE_URL", rule: "url" })
      const swapped = yield* read({ UMG_BASE_URL: KEY, UMG_API_KEY: KEY })
      expect(GatewayConfig.envProblemOf(swapped)?.message).toBe(
        'UMG_BASE_URL: "[redacted]" is not an http(s) URL, e.g. https://gateway.example.com'
      )
    })
  )
})

// A `nativeAuth` not allowed was taken, and every native call then died on an undefined credential.
describe("GatewayConfig.make: nativeAuth", () => {
  it.each([["x-goog-api-key"], ["header"], ["Bearer"], [""], [1]])(
    "refuses the nativeAuth %j when the layer is made, naming nativeAuth and the values allowed",
    (nativeAuth) => {
      const input = {
        baseUrl: "https://gw.test",
        apiKey: KEY,
        nativeAuth
      } as unknown as GatewayConfig.GatewayConfigInput
      for (const make of [
        () => GatewayConfig.make(input),
        () => Gateway.layer(input),
        () => Gateway.layerWithoutHttpClient(input),
        () => createGateway(input)
      ]) {
        const thrown = thrownBy(make)
        expect(thrown).toMatchObject({ _tag: "InvalidRequest", field: "nativeAuth", rule: "one-of" })
        expect((thrown as Error).message).toMatch(
          /^nativeAuth: .+ is not allowed; allowed: bearer, x-vendor-api-key, query$/
        )
      }
    }
  )

  it("never shows a credential given as nativeAuth", () => {
    const thrown = thrownBy(() =>
      GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: KEY, nativeAuth: KEY as "query" })
    )
    expect((thrown as Error).message).toBe(
      'nativeAuth: "[redacted]" is not allowed; allowed: bearer, x-vendor-api-key, query'
    )
  })

  it("takes each allowed value, and bearer when none is given", () => {
    const authOf = (nativeAuth?: GatewayConfig.NativeAuth) =>
      GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: KEY, ...(nativeAuth ? { nativeAuth } : {}) }).nativeAuth
    expect([authOf("bearer"), authOf("x-vendor-api-key"), authOf("query"), authOf()]).toEqual([
      "bearer",
      "x-vendor-api-key",
      "query",
      "bearer"
    ])
  })
})

describe("Gateway.layerConfig", () => {
  const provider = (values: Record<string, unknown>) =>
    ConfigProvider.layer(ConfigProvider.fromUnknown({ BASE: "https://gw.test", KEY, ...values }))
  const settings = Config.all({
    baseUrl: Config.String("BASE"),
    apiKey: Config.Redacted("KEY"),
    timeoutMs: Config.Number("TIMEOUT").pipe(Config.withDefault(60_000))
  })
  /** Builds the layer; its `ConfigError`, or `undefined` when it built. */
  const build = (layer: Layer.Layer<Gateway, Config.ConfigError>, values: Record<string, unknown> = {}) =>
    Effect.runPromiseExit(
      Effect.flatMap(Gateway, () => Effect.void).pipe(
        Effect.provide(layer.pipe(Layer.provide(provider(values)))),
        Effect.catchTag("ConfigError", (error) => Effect.succeed(error))
      )
    ).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      throw new Error(`not a ConfigError: ${String(exit.cause)}`)
    })

  it("fails with a ConfigError naming the setting when Config.map(…, GatewayConfig.make) refuses it", async () => {
    const error = await build(Gateway.layerConfig(Config.map(settings, GatewayConfig.make)), { TIMEOUT: -1 })
    expect(error).toBeInstanceOf(Config.ConfigError)
    expect(error?.message).toContain("timeoutMs: -1 is out of range; allowed: a number from 1 to 2147483647 ms")
    expect((error?.cause as { cause?: unknown }).cause).toMatchObject({ _tag: "InvalidRequest", field: "timeoutMs" })
  })

  it("takes a Config of a user's settings and checks them into a ConfigError", async () => {
    const bad = await build(Gateway.layerConfig(settings), { BASE: "not a url" })
    expect(bad?.message).toContain('baseUrl: "not a url" is not an http(s) URL')
    expect(bad?.message).not.toContain("SECRET")
    expect(await build(Gateway.layerConfig(settings), { TIMEOUT: 0 })).toMatchObject({ _tag: "ConfigError" })
    expect(await build(Gateway.layerConfig(settings))).toBeUndefined()
  })

  it("still takes a Config of resolved settings as they are", async () => {
    const resolved = GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: KEY, timeoutMs: 1234 })
    expect(await build(Gateway.layerConfig(Config.succeed(resolved)))).toBeUndefined()
    expect(await build(Gateway.layerConfig(Config.map(settings, GatewayConfig.make)))).toBeUndefined()
  })

  it("leaves a Config's own failures and other defects as they were", async () => {
    const missing = await build(
      Gateway.layerConfig(Config.all({ baseUrl: Config.String("NOPE"), apiKey: Config.Redacted("KEY") }))
    )
    expect(missing).toMatchObject({ _tag: "ConfigError" })
    const exit = await Effect.runPromiseExit(
      Effect.flatMap(Gateway, () => Effect.void).pipe(
        Effect.provide(
          Gateway.layerConfig(
            Config.map(settings, (): GatewayConfig.GatewayConfigInput => {
              throw new Error("boom")
            })
          ).pipe(Layer.provide(provider({})))
        )
      )
    )
    expect(Exit.isFailure(exit) && String(exit.cause)).toContain("boom")
  })
})
