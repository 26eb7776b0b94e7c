import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"

const fromMap = (entries: Record<string, string>) =>
  Effect.withConfigProvider(GatewayConfig.fromEnv, ConfigProvider.fromMap(new Map(Object.entries(entries))))

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
    }))

  it.effect("fails naming UMG_API_KEY, and no value, when the key is missing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(fromMap({ UMG_BASE_URL: "https://gw.test", UMG_PLATFORM_PASSWORD: "pw-env-SECRET" }))
      expect(String(error)).toContain("UMG_API_KEY")
      expect(String(error)).not.toContain("pw-env-SECRET")
    }))
})
