// A real streaming call over loopback (umg's own Node client, a node:http server), run by Effect's
// `Stream.runForEach` and by umg's `runToFinal`: every event in order, the connection kept for the
// next call after the final event, and the socket closed at once when the run is interrupted or a
// step fails mid-stream.
import type { ServerResponse } from "node:http"
import { Effect, Exit, Fiber, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { closeCountingServers, countingServer } from "../support/countingServer.js"
import { messageFrames } from "../fixtures/messagesFrames.js"

const frames = messageFrames(["Hello"])
const opening = frames.slice(0, 3).join("")
const closing = frames.slice(3).join("")

const body = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "Hi" }]
}

afterEach(closeCountingServers)

/** A gateway server that answers every messages call with `answer(res)` after the stream's headers. */
const serve = (answer: (res: ServerResponse) => void) =>
  countingServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      answer(res)
    })
  })

const layerFor = (url: string) =>
  Gateway.layer({ baseUrl: url, apiKey: "sk-test-consume", maxRetries: 0, allowUnknownModels: true })

// The two ways a streaming call is consumed: Effect's own runner, and umg's with the final answer.
type Call = ReturnType<GatewayService["messages"]["stream"]>
type Event = Stream.Success<Call>
type Consume = <E>(
  stream: Call,
  step: (event: Event) => Effect.Effect<unknown, E>
) => Effect.Effect<unknown, E | Stream.Error<Call>>
const consumers: ReadonlyArray<{ readonly name: string; readonly run: Consume }> = [
  { name: "Stream.runForEach", run: (stream, step) => Stream.runForEach(stream, step) },
  { name: "runToFinal", run: (stream, step) => runToFinal(stream, step) }
]

describe.each(consumers)("$name on a streaming call", ({ run: runForEach }) => {
  it("gets every event in order, and the connection serves the next call", async () => {
    const server = await serve((res) => res.end(opening + closing))
    const types = await Effect.runPromise(
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const all: Array<Array<string>> = []
        for (let i = 0; i < 3; i++) {
          const seen: Array<string> = []
          yield* runForEach(gateway.messages.stream(body), (event) => Effect.sync(() => seen.push(event.type)))
          all.push(seen)
        }
        return all
      }).pipe(Effect.provide(layerFor(server.url)))
    )
    for (const seen of types)
      expect(seen).toEqual([
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
    expect(server.connections()).toBe(1)
  })

  it("interrupted while the stream waits: the socket is closed", async () => {
    // The stream's opening, then nothing more: the run waits for the next event.
    const server = await serve((res) => res.write(opening))
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const seen: Array<string> = []
        const fiber = yield* Effect.forkChild(
          runForEach(gateway.messages.stream(body), (event) => Effect.sync(() => seen.push(event.type)))
        )
        while (seen.length < 3) yield* Effect.sleep("5 millis")
        expect(server.open()).toBe(1)
        yield* Fiber.interrupt(fiber)
        const exit = yield* Fiber.await(fiber)
        while (server.open() > 0) yield* Effect.sleep("5 millis")
        return { exit, seen }
      }).pipe(Effect.timeout("5 seconds"), Effect.provide(layerFor(server.url)))
    )
    expect(Exit.hasInterrupts(result.exit)).toBe(true)
    expect(result.seen).toEqual(["message_start", "content_block_start", "content_block_delta"])
  })

  it("a step that fails mid-stream fails the run with its error and closes the socket", async () => {
    const server = await serve((res) => res.write(opening))
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        const gateway = yield* Gateway
        yield* runForEach(gateway.messages.stream(body), (event) =>
          event.type === "content_block_delta" ? Effect.fail("enough" as const) : Effect.void
        )
      }).pipe(Effect.timeout("5 seconds"), Effect.provide(layerFor(server.url)))
    )
    expect(exit).toEqual(Exit.fail("enough"))
    await expect.poll(() => server.open(), { timeout: 3_000 }).toBe(0)
  })
})
