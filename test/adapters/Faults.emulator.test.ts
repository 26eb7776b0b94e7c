import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
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
beforeEach(() => {
  emu.clearFaults()
  emu.counters.reset()
})

const layerFor = (over: Partial<GatewayConfigInput> = {}) =>
  Gateway.layer({
    baseUrl: emu.url,
    apiKey: emu.apiKey,
    retryBaseDelayMs: 10,
    retryMaxDelayMs: 40,
    streamFirstByteTimeoutMs: 2_000,
    streamIdleTimeoutMs: 2_000,
    ...over
  })
const run = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}): Promise<A> =>
  Effect.runPromise(Effect.provide(effect, layerFor(over)) as Effect.Effect<A, E>)
const fail = <A, E>(effect: Effect.Effect<A, E, Gateway>, over: Partial<GatewayConfigInput> = {}): Promise<E> =>
  Effect.runPromise(Effect.flip(Effect.provide(effect, layerFor(over)) as Effect.Effect<A, E>))

const hello = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "Hello there" }]
}
const create = Effect.flatMap(Gateway, (g) => g.messages.create(hello))
const stream = Effect.flatMap(Gateway, (g) => Stream.runCollect(g.messages.stream(hello)))

describe("Gateway under injected faults", () => {
  it("honours Retry-After on a 429 and then succeeds, acting once", async () => {
    emu.inject("messages", { kind: "status", status: 429, headers: { "retry-after": "1" } })
    await run(create)
    expect(emu.counters.get("messages.rejected")).toBe(1)
    expect(emu.counters.get("messages")).toBe(1)
  })

  it("gives RateLimited with retryAfterMs when the wait is above the cap", async () => {
    emu.inject("messages", { kind: "status", status: 429, headers: { "retry-after": "120" } })
    const error = await fail(create)
    expect(error).toMatchObject({ _tag: "RateLimited", status: 429, retryAfterMs: 120_000, type: "rate_limit_error" })
    expect(emu.counters.get("messages.rejected")).toBe(1)
  })

  it("succeeds after 500, 500, 200 with the action performed once", async () => {
    emu.inject("messages", { kind: "status", status: 500 }, 2)
    await run(create)
    expect(emu.counters.get("messages.rejected")).toBe(2)
    expect(emu.counters.get("messages")).toBe(1)
  })

  it("stops after the retry budget when the gateway answers 503 forever", async () => {
    emu.inject("messages", { kind: "status", status: 503 }, 100)
    const error = await fail(create)
    expect(error).toMatchObject({ _tag: "ServerError", status: 503 })
    expect(emu.counters.get("messages.rejected")).toBe(3)
  })

  it("maps the messages-style 500 rows: upstream_error and svc_api_error", async () => {
    emu.inject("messages", {
      kind: "status",
      status: 500,
      body: { type: "error", error: { type: "upstream_error", message: "upstream failed" } }
    })
    expect(await fail(create, { maxRetries: 0 })).toMatchObject({
      _tag: "UpstreamError",
      status: 500,
      type: "upstream_error"
    })
    emu.inject("messages", {
      kind: "status",
      status: 500,
      body: { type: "error", error: { type: "svc_api_error", message: "internal" } }
    })
    expect(await fail(create, { maxRetries: 0 })).toMatchObject({
      _tag: "ServerError",
      status: 500,
      type: "svc_api_error"
    })
  })

  it("gives IncompleteStream with the partial message when the stream is cut", async () => {
    emu.inject("messages", { kind: "sse-cut", afterEvents: 4 })
    const error = await fail(stream)
    expect(error).toMatchObject({ _tag: "IncompleteStream", reason: "cut", family: "messages" })
    if (error._tag === "IncompleteStream") {
      expect((error.partial as { message?: { id?: string } }).message?.id).toBeTruthy()
    }
  })

  it("gives IncompleteStream ended-early when the stream ends without message_stop", async () => {
    emu.inject("messages", { kind: "sse-no-final" })
    expect(await fail(stream)).toMatchObject({ _tag: "IncompleteStream", reason: "ended-early" })
  })

  it("gives DecodeError for a malformed event", async () => {
    emu.inject("messages", { kind: "sse-malformed", atEvent: 0 })
    expect(await fail(stream)).toMatchObject({ _tag: "DecodeError", family: "messages" })
  })

  it("hits the idle timeout when a stream stalls", async () => {
    emu.inject("messages", { kind: "stall", afterEvents: 2 })
    expect(await fail(stream, { streamIdleTimeoutMs: 150 })).toMatchObject({
      _tag: "TimeoutError",
      phase: "idle",
      timeoutMs: 150
    })
  })

  it("hits an idle timeout shorter than the first-event one at its own time, not at the first-event deadline", async () => {
    // Before: the watchdog slept until the first-event deadline it had read at the start (5 s here).
    emu.inject("messages", { kind: "stall", afterEvents: 2 })
    const started = Date.now()
    const error = await fail(stream, { streamFirstByteTimeoutMs: 5_000, streamIdleTimeoutMs: 150 })
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "idle", timeoutMs: 150 })
    expect(Date.now() - started).toBeLessThan(2_500)
  })

  it("bounds the wait for a stream's first event by the call's timeoutMs, as its documentation says", async () => {
    // The headers come at once, then nothing: before, the layer's 5 s first-event limit applied.
    emu.inject("messages", { kind: "stall" })
    const error = await fail(
      Effect.flatMap(Gateway, (g) => Stream.runCollect(g.messages.stream(hello, { timeoutMs: 200, maxRetries: 0 }))),
      { streamFirstByteTimeoutMs: 5_000 }
    )
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "first-byte", timeoutMs: 200 })
  })

  it("hits the first-event timeout when only pings arrive", async () => {
    emu.inject("messages", { kind: "sse-only-pings", everyMs: 20 })
    expect(await fail(stream, { streamFirstByteTimeoutMs: 200 })).toMatchObject({
      _tag: "TimeoutError",
      phase: "first-byte"
    })
  })

  it("gives IncompleteStream for cut chat and native streams too", async () => {
    emu.inject("chat", { kind: "sse-cut", afterEvents: 2 })
    const chat = await fail(
      Effect.flatMap(Gateway, (g) =>
        Stream.runDrain(g.chat.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }))
      )
    )
    expect(chat).toMatchObject({ _tag: "IncompleteStream", family: "openai" })
    emu.inject("native.stream", { kind: "sse-no-final" })
    const native = await fail(
      Effect.flatMap(Gateway, (g) =>
        Stream.runDrain(
          g.native.stream({ model: "zeta-2.5-pro", contents: [{ role: "user", parts: [{ text: "Hi" }] }] })
        )
      )
    )
    expect(native).toMatchObject({ _tag: "IncompleteStream", family: "native" })
  })

  it("does not repeat a video submit that failed with 500", async () => {
    emu.inject("video.submit", { kind: "status", status: 500 }, 5)
    const error = await fail(
      Effect.flatMap(Gateway, (g) => g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }))
    )
    expect(error._tag).toBe("ServerError")
    expect(emu.counters.get("video.submit.rejected")).toBe(1)
  })

  it("does not repeat a video submit whose connection dropped", async () => {
    emu.inject("video.submit", { kind: "drop-before" }, 5)
    const error = await fail(
      Effect.flatMap(Gateway, (g) => g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }))
    )
    expect(error).toMatchObject({ _tag: "TransportError", reason: "reset" })
    expect(emu.counters.get("video.submit.rejected")).toBe(1)
  })

  it("repeats a video submit that got a 429", async () => {
    emu.inject("video.submit", { kind: "status", status: 429, headers: { "retry-after-ms": "10" } })
    const task = await run(
      Effect.flatMap(Gateway, (g) => g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }))
    )
    expect(task.status).toBe("submitted")
    expect(emu.counters.get("video.submit")).toBe(1)
  })

  it("retries an idempotent call whose connection was cut mid-answer", async () => {
    emu.inject("embeddings", { kind: "drop-mid", afterBytes: 10 })
    const result = await run(
      Effect.flatMap(Gateway, (g) => g.embeddings.create({ model: "text-embedding-3-small", input: "hi" }))
    )
    expect(result.data.length).toBe(1)
    expect(emu.counters.get("embeddings")).toBe(2)
  })

  it("reports a refused connection as TransportError connect", async () => {
    const closed = await startEmulator({ fast: true })
    const url = closed.url
    await closed.close()
    const error = await fail(create, { baseUrl: url })
    expect(error).toMatchObject({ _tag: "TransportError", reason: "connect" })
  })

  it("completes a stream whose events all arrived even if the server keeps the connection open", async () => {
    const events = await run(stream)
    expect(events.at(-1)?.type).toBe("message_stop")
  })
})
