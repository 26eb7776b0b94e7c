import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { messagesStreamSpec } from "../../src/adapters/groups/Messages.js"
import { decodeSse } from "../../src/adapters/sse/SseTransport.js"
import { TransportError, type GatewayError } from "../../src/core/errors/GatewayError.js"
import * as F from "../fixtures/messagesFrames.js"

const enc = new TextEncoder()
const frame = (event: string, data: object) => F.bytes(F.frame(event, data))
const start = F.bytes(F.messageStart)
const blockStart = F.bytes(F.blockStart)
const delta = (text: string) => F.bytes(F.textDelta(text))
const blockStop = F.bytes(F.blockStop)
const messageDelta = F.bytes(F.messageDelta)
const stop = F.bytes(F.messageStop)
const ping = frame("ping", {})
const comment = enc.encode(": keep-alive\n\n")
const full = [start, blockStart, delta("Hel"), delta("lo"), blockStop, messageDelta, stop]

const timeouts = { firstEventMs: 1_000, idleMs: 500 }
const events = (bytes: Stream.Stream<Uint8Array, GatewayError>) => decodeSse(bytes, messagesStreamSpec, timeouts)

describe("SseTransport.decodeSse", () => {
  it.effect("decodes a whole stream and drops pings", () =>
    Effect.gen(function* () {
      const out = yield* Stream.runCollect(events(Stream.fromIterable([start, ping, ...full.slice(1)])))
      expect(out.map((e) => e.type)).toEqual([
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
    })
  )

  it.effect("stops reading right after the final event", () =>
    Effect.gen(function* () {
      let pulledAfterFinal = false
      const tail = Stream.fromEffect(Effect.sync(() => (pulledAfterFinal = true))).pipe(
        Stream.flatMap(() => Stream.never)
      )
      const bytes = Stream.concat(Stream.fromIterable(full), tail as Stream.Stream<Uint8Array>)
      const out = yield* Stream.runCollect(events(bytes))
      expect(out.length).toBe(7)
      expect(pulledAfterFinal).toBe(false)
    })
  )

  it.effect("fails with IncompleteStream carrying the partial text when the connection is cut", () =>
    Effect.gen(function* () {
      const bytes = Stream.concat(
        Stream.fromIterable([start, blockStart, delta("Hel")]),
        Stream.fail(new TransportError({ family: "messages", reason: "reset", message: "connection lost" }))
      )
      const error = yield* Effect.flip(Stream.runDrain(events(bytes)))
      expect(error).toMatchObject({ _tag: "IncompleteStream", reason: "cut" })
      const partial =
        error._tag === "IncompleteStream"
          ? (error.partial as { blocks: ReadonlyArray<{ block: { text: string } }> })
          : undefined
      expect(JSON.stringify(partial)).toContain("Hel")
    })
  )

  it.effect("fails with IncompleteStream ended-early when the stream ends before message_stop", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Stream.runDrain(events(Stream.fromIterable(full.slice(0, 5)))))
      expect(error).toMatchObject({ _tag: "IncompleteStream", reason: "ended-early" })
    })
  )

  it.effect("fails with IncompleteStream on an error event", () =>
    Effect.gen(function* () {
      const err = enc.encode(
        `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`
      )
      const error = yield* Effect.flip(Stream.runDrain(events(Stream.fromIterable([start, err]))))
      expect(error).toMatchObject({ _tag: "IncompleteStream", reason: "error-event", errorType: "overloaded_error" })
    })
  )

  it.effect("times out the first event even while pings and comments keep arriving", () =>
    Effect.gen(function* () {
      const keepAlive = Stream.fromEffectRepeat(Effect.as(Effect.sleep("100 millis"), ping)).pipe(
        Stream.merge(Stream.fromEffectRepeat(Effect.as(Effect.sleep("70 millis"), comment)))
      )
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(events(keepAlive))))
      yield* TestClock.adjust("999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "TimeoutError", phase: "first-byte", timeoutMs: 1000 })
    })
  )

  it.effect("times out an idle stream whose only traffic after the start is pings", () =>
    Effect.gen(function* () {
      const bytes = Stream.concat(
        Stream.fromIterable([start, blockStart]),
        Stream.fromEffectRepeat(Effect.as(Effect.sleep("50 millis"), ping))
      )
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(events(bytes))))
      yield* TestClock.adjust("499 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "TimeoutError", phase: "idle", timeoutMs: 500 })
    })
  )

  it.effect("resets the idle timer on every real event", () =>
    Effect.gen(function* () {
      const slow = (b: Uint8Array) => Stream.fromEffect(Effect.as(Effect.sleep("400 millis"), b))
      const bytes = Stream.concat(Stream.make(start), Stream.flatten(Stream.fromIterable(full.slice(1).map(slow))))
      const fiber = yield* Effect.forkChild(Effect.result(Stream.runCollect(events(bytes))))
      yield* TestClock.adjust("3 seconds")
      const result = yield* Fiber.join(fiber)
      expect(Result.isSuccess(result) && result.success.length).toBe(7)
    })
  )

  it.effect("closes the body stream when the consumer is interrupted", () =>
    Effect.gen(function* () {
      let closed = false
      const bytes = Stream.concat(Stream.make(start), Stream.never).pipe(
        Stream.ensuring(Effect.sync(() => (closed = true)))
      )
      const fiber = yield* Effect.forkChild(Stream.runDrain(events(bytes)))
      yield* TestClock.adjust("10 millis")
      yield* Fiber.interrupt(fiber)
      expect(closed).toBe(true)
    })
  )
})
