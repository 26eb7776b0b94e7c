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

const run = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}): Promise<A> =>
  Effect.runPromise(
    Effect.provide(
      effect,
      Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, timeoutMs: 5_000, ...over })
    ) as Effect.Effect<A, E>
  )

const userText = (text: string) => ({
  type: "conversation.item.create",
  item: { type: "message", role: "user", content: [{ type: "input_text", text }] }
})

describe("WebSocket sessions against the emulator", () => {
  it("runs a realtime v1 text turn", async () => {
    const types = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const session = yield* g.realtime.connect({ model: "gpt-realtime", session: { modalities: ["text"] } })
          expect(session.version).toBe("v1")
          yield* session.send(userText("Hello"))
          yield* session.send({ type: "response.create" })
          const events = yield* Stream.runCollect(Stream.takeUntil(session.events, (e) => e.type === "response.done"))
          return events.map((e) => e.type)
        })
      )
    )
    expect(types[0]).toBe("session.created")
    expect(types).toContain("session.updated")
    expect(types.at(-1)).toBe("response.done")
  })

  it("runs a realtime v2 session with the GA session shape", async () => {
    const types = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const g = yield* Gateway
          const session = yield* g.realtime.connect({
            model: "gpt-realtime-2",
            session: { output_modalities: ["text"] }
          })
          expect(session.version).toBe("v2")
          yield* session.send(userText("Hello"))
          yield* session.send({ type: "response.create" })
          const events = yield* Stream.runCollect(Stream.takeUntil(session.events, (e) => e.type === "response.done"))
          return events.map((e) => e.type)
        })
      )
    )
    expect(types).toContain("session.updated")
    expect(types.at(-1)).toBe("response.done")
  })

  it("refuses a v1 field on a v2 session before anything is sent", async () => {
    const error = await run(
      Effect.scoped(
        Effect.flip(
          Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime-2", session: { voice: "alloy" } }))
        )
      )
    )
    expect(error._tag).toBe("InvalidRequest")
  })

  it("refuses an unknown client event type", async () => {
    const error = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const session = yield* Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" }))
          return yield* Effect.flip(session.send({ type: "no.such.event" }))
        })
      )
    )
    expect(error._tag).toBe("InvalidRequest")
  })

  it("maps a refused upgrade to AuthenticationError without the key", async () => {
    const error = await run(
      Effect.scoped(Effect.flip(Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" })))),
      {
        apiKey: "wrong-ws-key"
      }
    )
    expect(error).toMatchObject({ _tag: "AuthenticationError", status: 401, family: "realtime" })
    expect(JSON.stringify(error) + String(error)).not.toContain("wrong-ws-key")
  })

  it("ends the events with TransportError carrying the close code", async () => {
    emu.inject("realtime", { kind: "ws-close", code: 1011, reason: "boom", afterMessages: 1 })
    const error = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const session = yield* Effect.flatMap(Gateway, (g) => g.realtime.connect({ model: "gpt-realtime" }))
          return yield* Effect.flip(Stream.runDrain(session.events))
        })
      )
    )
    expect(error).toMatchObject({ _tag: "TransportError", reason: "closed", closeCode: 1011 })
  })

  for (const nativeAuth of ["bearer", "query"] as const) {
    it(`runs a live text turn after setupComplete (${nativeAuth} auth)`, async () => {
      const texts = await run(
        Effect.scoped(
          Effect.gen(function* () {
            const g = yield* Gateway
            const session = yield* g.live.connect({
              model: "zeta-live-2.5-flash-native-audio",
              setup: { generationConfig: { responseModalities: ["TEXT"] } }
            })
            yield* session.send({
              clientContent: { turns: [{ role: "user", parts: [{ text: "Hello" }] }], turnComplete: true }
            })
            const messages = yield* Stream.runCollect(
              Stream.takeUntil(session.events, (m) => m.serverContent?.turnComplete === true)
            )
            return messages
          })
        ),
        { nativeAuth }
      )
      expect(texts.length).toBeGreaterThan(0)
      expect(texts.at(-1)?.serverContent?.turnComplete).toBe(true)
    })
  }

  it("refuses a live message with two top-level keys", async () => {
    const error = await run(
      Effect.scoped(
        Effect.gen(function* () {
          const session = yield* Effect.flatMap(Gateway, (g) =>
            g.live.connect({ model: "zeta-live-2.5-flash-native-audio" })
          )
          return yield* Effect.flip(session.send({ clientContent: {}, realtimeInput: {} }))
        })
      )
    )
    expect(error._tag).toBe("InvalidRequest")
  })
})
