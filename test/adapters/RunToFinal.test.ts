import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Result, Exit, Stream } from "effect"
import { runToFinal, type ResultStream } from "../../src/adapters/sse/Consume.js"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import { messagesStreamSpec } from "../../src/adapters/groups/Messages.js"
import { decodeSse } from "../../src/adapters/sse/SseTransport.js"
import { foldAll, type Accumulator } from "../../src/core/text/Accumulator.js"
import { chatAccumulator } from "../../src/core/text/chat/ChatAccumulator.js"
import { messagesAccumulator } from "../../src/core/text/messages/MessagesAccumulator.js"
import type { MessagesEvent } from "../../src/core/text/messages/MessagesEvents.js"
import { nativeAccumulator } from "../../src/core/text/native/NativeAccumulator.js"
import { responsesAccumulator } from "../../src/core/text/responses/ResponsesAccumulator.js"
import { TransportError } from "../../src/core/errors/GatewayError.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { bytes, messageFrames } from "../fixtures/messagesFrames.js"

const full = messageFrames(["Hel", "lo"]).map(bytes)
const [start, blockStart, hel] = full as [Uint8Array, Uint8Array, Uint8Array]
const timeouts = { firstEventMs: 1_000, idleMs: 500 }

/** The messages accumulator, counting its steps and finishes. */
const counted = () => {
  const counts = { steps: 0, finishes: 0 }
  const acc: Accumulator<
    MessagesEvent,
    typeof messagesAccumulator.initial,
    ReturnType<typeof messagesAccumulator.finish> extends Result.Result<infer F, unknown> ? F : never
  > = {
    family: messagesAccumulator.family,
    initial: messagesAccumulator.initial,
    step: (snapshot, event) => {
      counts.steps++
      return messagesAccumulator.step(snapshot, event)
    },
    finish: (snapshot) => {
      counts.finishes++
      return messagesAccumulator.finish(snapshot)
    }
  }
  return { counts, spec: { ...messagesStreamSpec, accumulator: acc } }
}

describe("runToFinal over the SSE transport", () => {
  it("gives each event in order, then the final answer, with the events folded once", async () => {
    const { counts, spec } = counted()
    const seen: Array<string> = []
    const message = await Effect.runPromise(
      runToFinal(decodeSse(Stream.fromIterable(full), spec, timeouts), (e) => Effect.sync(() => seen.push(e.type)))
    )
    expect(seen).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
    expect(message).toMatchObject({
      id: "msg_1",
      role: "assistant",
      stop_reason: "end_turn",
      content: [{ type: "text", text: "Hello" }]
    })
    expect(counts).toEqual({ steps: 7, finishes: 1 })
  })

  it("is data-last in a pipe", async () => {
    const message = await Effect.runPromise(
      decodeSse(Stream.fromIterable(full), messagesStreamSpec, timeouts).pipe(runToFinal(() => Effect.void))
    )
    expect(message.content).toEqual([{ type: "text", text: "Hello" }])
  })

  it("fails with IncompleteStream and the partial answer when the connection is cut", async () => {
    const bytes = Stream.concat(
      Stream.fromIterable([start, blockStart, hel]),
      Stream.fail(new TransportError({ family: "messages", reason: "reset", message: "lost" }))
    )
    const error = await Effect.runPromise(
      Effect.flip(runToFinal(decodeSse(bytes, messagesStreamSpec, timeouts), () => Effect.void))
    )
    expect(error).toMatchObject({ _tag: "IncompleteStream", reason: "cut" })
    expect(JSON.stringify(error._tag === "IncompleteStream" ? error.partial : undefined)).toContain("Hel")
  })

  it("fails with IncompleteStream when the server ends before the final event", async () => {
    const error = await Effect.runPromise(
      Effect.flip(
        runToFinal(decodeSse(Stream.fromIterable(full.slice(0, 4)), messagesStreamSpec, timeouts), () => Effect.void)
      )
    )
    expect(error).toMatchObject({ _tag: "IncompleteStream", reason: "ended-early" })
  })

  it("fails with a step's error and closes the stream's body", async () => {
    let released = false
    const bytes = Stream.fromIterable(full).pipe(Stream.ensuring(Effect.sync(() => (released = true))))
    const exit = await Effect.runPromiseExit(
      runToFinal(decodeSse(bytes, messagesStreamSpec, timeouts), (e) =>
        e.type === "content_block_start" ? Effect.fail("stop" as const) : Effect.void
      )
    )
    expect(exit).toEqual(Exit.fail("stop"))
    expect(released).toBe(true)
  })

  it("is only for a call's own stream: a transformed one is refused by the types, and dies if forced", async () => {
    const mapped = Stream.map(decodeSse(Stream.fromIterable(full), messagesStreamSpec, timeouts), (e) => e)
    // @ts-expect-error a transformed stream has no final answer
    const forced = runToFinal(mapped, () => Effect.void)
    const exit = await Effect.runPromiseExit(forced as Effect.Effect<unknown>)
    expect(Exit.isFailure(exit) && !Exit.hasInterrupts(exit) && exit.cause.reasons.some((r) => r._tag === "Die")).toBe(
      true
    )
  })
})

describe("runToFinal through the Gateway against the emulator", () => {
  let emu: Emulator
  beforeAll(async () => {
    emu = await startEmulator({ fast: true })
  })
  afterAll(async () => {
    await emu.close()
  })
  const run = <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<A> =>
    Effect.runPromise(
      Effect.provide(effect, Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey })) as Effect.Effect<A, E>
    )

  /** The events seen and the final answer; the answer must be the fold of exactly those events. */
  const both = <A, F>(stream: (g: GatewayService) => ResultStream<A, unknown, F>, acc: Accumulator<A, unknown, F>) =>
    run(
      Effect.gen(function* () {
        const g = yield* Gateway
        const events: Array<A> = []
        const final = yield* runToFinal(stream(g), (e) => Effect.sync(() => events.push(e)))
        expect(events.length).toBeGreaterThan(1)
        expect(final).toEqual(Result.getOrThrow(foldAll(acc, events)))
        return final
      })
    )

  it("messages: the Message", async () => {
    const message = await both(
      (g) =>
        g.messages.stream({
          model: "epsilon-sonnet-4-5-20250929",
          max_tokens: 64,
          messages: [{ role: "user", content: "Hello" }]
        }),
      messagesAccumulator as never
    )
    expect((message as { role: string }).role).toBe("assistant")
  })

  it("chat: the ChatCompletion", async () => {
    const completion = await both(
      (g) => g.chat.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }),
      chatAccumulator as never
    )
    expect(
      (completion as { choices: ReadonlyArray<{ message: { content: string } }> }).choices[0]?.message.content
    ).toMatch(/\S/)
  })

  it("native: the GenerateContentResponse", async () => {
    const response = await both(
      (g) => g.native.stream({ model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
      nativeAccumulator as never
    )
    expect(
      (response as { candidates: ReadonlyArray<{ finishReason?: string }> }).candidates[0]?.finishReason
    ).toBeDefined()
  })

  it("responses: the ResponsesResponse", async () => {
    const response = await both(
      (g) => g.responses.stream({ model: "gpt-5", max_output_tokens: 64, input: [{ role: "user", content: "Hi" }] }),
      responsesAccumulator as never
    )
    expect((response as { status: string }).status).toBe("completed")
  })
})
