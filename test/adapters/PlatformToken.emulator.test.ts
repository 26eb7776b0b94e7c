import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { AnyShootEasyBody } from "../../src/core/platform/Platform.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, virtualClock: true, platform: { tokenTtlMs: 60_000 } })
})
afterAll(async () => {
  await emu.close()
})
beforeEach(() => {
  emu.clearFaults()
  emu.counters.reset()
})

const layer = (password = emu.platform.password) =>
  Gateway.layer({
    baseUrl: emu.url,
    apiKey: emu.apiKey,
    platformUrl: emu.platformUrl,
    platformUsername: emu.platform.username,
    platformPassword: password,
    retryBaseDelayMs: 10,
    retryMaxDelayMs: 20
  })

const easy: AnyShootEasyBody = { size: "512x512", contents: [{ parts: [{ text: "a cat" }] }] }

describe("the platform token", () => {
  it("is not asked for when a platform setting is missing: an InvalidRequest naming the settings and their variables", async () => {
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.flatMap(Gateway, (g) => g.platform.login()).pipe(
          Effect.provide(
            Gateway.layer({
              baseUrl: emu.url,
              apiKey: emu.apiKey,
              platformUsername: "me",
              platformPassword: "pw-SECRET"
            })
          )
        )
      )
    )
    expect(error).toMatchObject({ _tag: "InvalidRequest", field: "platformUrl", rule: "required" })
    expect(error.message).toBe(
      "platformUrl (UMG_PLATFORM_URL) not set: the platform endpoints need platformUrl, platformUsername and platformPassword; nothing was sent"
    )
    expect(String(error)).not.toContain("pw-SECRET")
    expect(emu.counters.get("platform.token")).toBe(0)
  })

  it("is not asked for with an empty or non-string credential: an InvalidRequest naming the setting, never the password", async () => {
    const refusal = (username: unknown, password: unknown) =>
      Effect.runPromise(
        Effect.flip(
          Effect.flatMap(Gateway, (g) => g.platform.login()).pipe(
            Effect.provide(
              Gateway.layer({
                baseUrl: emu.url,
                apiKey: emu.apiKey,
                platformUrl: emu.platformUrl,
                platformUsername: username as string,
                platformPassword: password as string
              })
            )
          )
        )
      )
    const empty = await refusal(emu.platform.username, "")
    expect(empty).toMatchObject({ _tag: "InvalidRequest", field: "platformPassword" })
    expect(empty.message).toMatch(/^platformPassword .*; nothing was sent$/)
    const number = await refusal(emu.platform.username, 424242)
    expect(number).toMatchObject({ _tag: "InvalidRequest", field: "platformPassword" })
    expect(String(number)).not.toContain("424242")
    expect(await refusal("  ", emu.platform.password)).toMatchObject({ field: "platformUsername" })
    expect(emu.counters.get("platform.token")).toBe(0)
  })

  it("is fetched once for fifty concurrent calls after it expired", async () => {
    const program = Effect.gen(function* () {
      const g = yield* Gateway
      yield* g.platform.anyShootEasy(easy)
      const before = emu.counters.get("platform.token")
      emu.advanceTime(61_000)
      const results = yield* Effect.all(
        Array.from({ length: 50 }, () => g.platform.anyShootEasy(easy)),
        { concurrency: "unbounded" }
      )
      return { before, results }
    })
    const { before, results } = await Effect.runPromise(Effect.provide(program, layer()))
    expect(before).toBe(1)
    expect(results.length).toBe(50)
    expect(emu.counters.get("platform.token")).toBe(2)
    // The route counts every call it handled: the first, fifty refused with the old token, fifty retried.
    expect(emu.counters.get("platform.anyShootEasy")).toBe(1 + 50 + 50)
  })

  it("is sent once as 'Bearer <token>', never 'Bearer Bearer'", async () => {
    // The emulator refuses anything but `Bearer <token>`: success proves the header's shape.
    await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => g.platform.anyShootEasy(easy)),
        layer()
      )
    )
    expect(emu.counters.get("platform.anyShootEasy.rejected")).toBe(0)
  })

  it("fails with AuthenticationError, without looping, when a fresh token is refused too", async () => {
    emu.inject("platform.anyShootEasy", { kind: "status", status: 401 }, 5)
    const program = Effect.flatMap(Gateway, (g) => Effect.flip(g.platform.anyShootEasy(easy)))
    const error = await Effect.runPromise(Effect.provide(program, layer()))
    expect(error._tag).toBe("AuthenticationError")
    expect(emu.counters.get("platform.token")).toBe(2)
    expect(emu.counters.get("platform.anyShootEasy.rejected")).toBe(2)
  })

  it("shares one refused login among fifty concurrent callers", async () => {
    const program = Effect.flatMap(Gateway, (g) =>
      Effect.all(
        Array.from({ length: 50 }, () => Effect.flip(g.platform.anyShootEasy(easy))),
        { concurrency: "unbounded" }
      )
    )
    const errors = await Effect.runPromise(Effect.provide(program, layer("not-the-password")))
    expect(errors.every((e) => e._tag === "AuthenticationError")).toBe(true)
    expect(emu.counters.get("platform.token")).toBe(1)
    expect(emu.counters.get("platform.anyShootEasy")).toBe(0)
  })
})
