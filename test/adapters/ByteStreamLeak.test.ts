// A byte stream (`speech.stream`, `video.downloadStream`) ended early — taken from, failed by its
// consumer, interrupted — left its listener on the call's signal: a server passing one long-lived
// signal to every call gained a listener (holding the response and its buffers) per such call.
import { getEventListeners } from "node:events"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Exit, Scope, Stream } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as ByteSource from "../../src/adapters/http/ByteSource.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<A> =>
  Effect.runPromise(
    Effect.provide(
      effect,
      Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0, minPollIntervalMs: 50 })
    )
  )

const speech = { model: "gpt-4o-mini-tts", input: "Hello there, how are you today?", voice: "alloy" } as const
const listeners = (signal: AbortSignal): number => getEventListeners(signal, "abort").length

describe("a byte stream ended early leaves no listener on the call's signal", () => {
  it("speech.stream: taken from, failed by its consumer, or interrupted", async () => {
    const signal = new AbortController().signal
    await run(
      Effect.flatMap(Gateway, (g) =>
        Effect.gen(function* () {
          for (let i = 0; i < 10; i++) {
            yield* Stream.runDrain(Stream.take(g.speech.stream(speech, { signal }), 1))
            yield* Effect.exit(
              Stream.runForEach(g.speech.stream(speech, { signal }), () => Effect.fail("enough" as const))
            )
            yield* Effect.exit(Stream.runForEach(g.speech.stream(speech, { signal }), () => Effect.interrupt))
          }
        })
      )
    )
    expect(listeners(signal)).toBe(0)
  })

  it("video.downloadStream: taken from", async () => {
    const signal = new AbortController().signal
    await run(
      Effect.flatMap(Gateway, (g) =>
        Effect.gen(function* () {
          const { task_id } = yield* g.video.submit({ model: "alpha-2", prompt: "a calm sea" })
          yield* g.video.wait(task_id, { intervalMs: 50 })
          for (let i = 0; i < 10; i++)
            yield* Stream.runDrain(Stream.take(g.video.downloadStream(task_id, { signal }), 1))
        })
      )
    )
    expect(listeners(signal)).toBe(0)
  })

  it("ByteSource.abortable: a started source's listener goes when its scope closes", async () => {
    const signal = new AbortController().signal
    let closed = 0
    const source = ByteSource.abortable(
      ByteSource.fromOpen<never>(() => ({ pause: () => {}, resume: () => {}, close: () => void closed++ })),
      signal,
      () => "aborted" as const
    )
    const sink: ByteSource.ByteSink<"aborted"> = { chunk: () => {}, end: () => {}, fail: () => {} }
    await Effect.runPromise(
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        yield* Scope.provide(source.start(sink), scope)
        expect(listeners(signal)).toBe(1)
        yield* Scope.close(scope, Exit.void)
      })
    )
    expect(closed).toBe(1)
    expect(listeners(signal)).toBe(0)
  })
})
