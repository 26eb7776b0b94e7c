// Per-call options against the emulator (started with `rateLimitHeaders`): `withResponse` and
// `onResponse` read the request id and the rate-limit headers it sends on a JSON answer and on a
// messages-style stream, and an aborted signal sends nothing.
import { Effect, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ResponseInfo, withResponse } from "../../src/adapters/CallOptions.js"
import { Gateway } from "../../src/adapters/Gateway.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, rateLimitHeaders: true })
})
afterAll(async () => {
  await emu.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, Gateway>) =>
  Effect.runPromise(
    Effect.provide(effect, Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0 })) as Effect.Effect<
      A,
      E
    >
  )

const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Hi" }] }
const hello = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "Hello" }]
}

describe("call options against the emulator", () => {
  it("withResponse gives a chat answer's request id and OpenAI-style rate limits", async () => {
    const { data, response } = await run(
      Effect.flatMap(Gateway, (g) => withResponse((options) => g.chat.create(chat, options)))
    )
    expect(data.choices.length).toBeGreaterThan(0)
    expect(response?.status).toBe(200)
    expect(response?.requestId).toEqual(expect.any(String))
    expect(response?.rateLimit.requests).toMatchObject({ limit: 1000, remaining: expect.any(Number) })
    expect(response?.rateLimit.tokens?.resetMs).toBeGreaterThanOrEqual(0)
  })

  it("onResponse on a messages-style stream reads its request id and messages-style rate limits first", async () => {
    const seen: Array<ResponseInfo | string> = []
    await run(
      Effect.flatMap(Gateway, (g) =>
        runToFinal(g.messages.stream(hello, { onResponse: (info) => seen.push(info) }), (event) =>
          Effect.sync(() => void seen.push(event.type))
        )
      )
    )
    const info = seen[0] as ResponseInfo
    expect(info.requestId).toEqual(expect.any(String))
    expect(info.headers["request-id"]).toBe(info.requestId)
    expect(info.rateLimit).toMatchObject({
      requests: { limit: 1000 },
      inputTokens: { limit: 1_000_000 },
      outputTokens: { remaining: 1_000_000 }
    })
    expect(seen[1]).toBe("message_start")
  })

  it("an aborted signal sends nothing", async () => {
    emu.counters.reset()
    const error = await run(
      Effect.flip(
        Effect.flatMap(Gateway, (g) => Stream.runDrain(g.messages.stream(hello, { signal: AbortSignal.abort() })))
      )
    )
    expect(error).toMatchObject({ _tag: "Aborted", family: "messages" })
    expect(emu.counters.get("messages")).toBe(0)
  })
})
