import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Stream } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
})

const provide = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}) =>
  Effect.provide(effect, Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 10, ...over }))
const run = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}): Promise<A> =>
  Effect.runPromise(provide(effect, over))
const fail = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}): Promise<E> =>
  Effect.runPromise(Effect.flip(provide(effect, over)))

const contents = [{ role: "user" as const, parts: [{ text: "Hi" }] }]

describe("native model ids (E10)", () => {
  for (const model of ["zeta-3-pro-preview-thinking-high", "zeta-2.5-pro-thinking-8192", "zeta-2.5-flash-nothinking"]) {
    it(`routes ${model} by its base and sends the full id in the path`, async () => {
      const answer = await run(Effect.flatMap(Gateway, (g) => g.native.generate({ model, contents })))
      expect(answer.candidates?.length).toBeGreaterThan(0)
      const chunks = await run(
        Effect.flatMap(Gateway, (g) => Stream.runCollect(g.native.stream({ model, contents }).pipe(Stream.take(1))))
      )
      expect(chunks.length).toBe(1)
    })
  }

  // The emulator serves the catalog's models only: its 404 shows the request was sent, to the full id's path.
  it("sends a model newer than the catalog with allowUnknownModels, and refuses it without", async () => {
    const refused = await fail(Effect.flatMap(Gateway, (g) => g.native.generate({ model: "zeta-9-pro", contents })))
    expect(refused).toMatchObject({ _tag: "InvalidRequest", field: "model", rule: "unknown-model" })
    const sent = await fail(
      Effect.flatMap(Gateway, (g) => g.native.generate({ model: "zeta-9-pro", contents })),
      {
        allowUnknownModels: true
      }
    )
    expect(sent).toMatchObject({ _tag: "NotFound", status: 404 })
  })

  it("sends an unknown model with a thinking suffix with allowUnknownModels, the full id in the path", async () => {
    const model = "zeta-9-pro-thinking-low"
    const refused = await fail(Effect.flatMap(Gateway, (g) => g.native.generate({ model, contents })))
    expect(refused).toMatchObject({ _tag: "InvalidRequest", field: "model" })
    const sent = await fail(
      Effect.flatMap(Gateway, (g) => g.native.generate({ model, contents })),
      {
        allowUnknownModels: true
      }
    )
    expect(sent).toMatchObject({ _tag: "NotFound", status: 404 })
    expect(String((sent as { message: string }).message)).toContain(`models/${model} `)
  })
})
