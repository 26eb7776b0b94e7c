// The bound on a whole streamed answer (`limits.maxStreamBytes`): the decoder folds every event into
// the final answer, so a server that streams valid events forever to a consumer that keeps up would
// grow memory without end. Against a real node:http server on loopback that does, the stream fails
// with a `TransportError` (`too-large`) naming the bound, and the server sees its connection closed.
import { Effect, type Layer, Stream } from "effect"
import type { HttpClient } from "effect/http"
import { afterEach, describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import { messagesStreamSpec } from "../../src/adapters/groups/Messages.js"
import { defaultLimits } from "../../src/adapters/internal/Limits.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { decodeSse } from "../../src/adapters/sse/SseTransport.js"
import { closeCountingServers } from "../support/countingServer.js"
import { floodedCalls, floodServer, httpClients } from "../support/floodServer.js"
import * as F from "../fixtures/messagesFrames.js"

afterEach(closeCountingServers)

const BOUND = 1_000_000
// 16 KiB of text per event: the bound passes after some sixty of them.
const TEXT = "x".repeat(16 * 1024)

type Read = (g: GatewayService) => Effect.Effect<unknown, unknown>
/** Each flooded call read as users read one: the messages stream drained, the chat stream by `runToFinal`. */
const calls = floodedCalls(TEXT).map(({ name, opening, event, stream }) => {
  const byFinal = name === "chat.stream"
  const read: Read = (g) => (byFinal ? runToFinal(stream(g), () => Effect.void) : Stream.runDrain(stream(g)))
  return { name: `${name} read by ${byFinal ? "runToFinal" : "Stream.runDrain"}`, opening, event, read }
})
// Keep-alives only: nothing but pings after the opening, which carry no text but are data all the same.
const [messages] = floodedCalls(TEXT)
calls.push({
  name: "messages.stream of pings only, read by Stream.runDrain",
  opening: F.messageStart,
  event: F.frame("ping", {}),
  read: (g) => Stream.runDrain(messages!.stream(g))
})

/** How reading the endless answer ends, within 10 s (a stream still going then is a failure of the test). */
const failureOf = (url: string, client: Layer.Layer<HttpClient.HttpClient>, read: Read) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const gateway = yield* Gateway
      return yield* Effect.flip(read(gateway))
    }).pipe(
      Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.succeed("still streaming after 10 s") }),
      Effect.provide(
        Gateway.layer({
          baseUrl: url,
          apiKey: "sk-test-stream-bytes",
          maxRetries: 0,
          allowUnknownModels: true,
          httpClient: client,
          limits: { maxStreamBytes: BOUND }
        })
      )
    )
  )

describe.each(httpClients)("an endless streamed answer over $name, its consumer keeping up", ({ layer }) => {
  it.each(calls)(
    "$name: fails past limits.maxStreamBytes and closes the connection",
    async ({ opening, event, read }) => {
      const server = await floodServer(opening, event)
      const error = await failureOf(server.url, layer, read)
      expect(error).toMatchObject({
        _tag: "TransportError",
        reason: "too-large",
        message: expect.stringContaining(`bound of ${BOUND} (limits.maxStreamBytes`)
      })
      // The server saw its connection closed: reading stopped at the bound, not left paused or draining.
      expect(server.requests()).toBe(1)
      await Effect.runPromise(
        Effect.timeoutOrElse(
          Effect.promise(() => server.closed()),
          { duration: "5 seconds", orElse: () => Effect.die(new Error("the server's connection stayed open")) }
        )
      )
      const afterClose = server.written()
      await new Promise((r) => setTimeout(r, 100))
      expect(server.written()).toBe(afterClose)
    }
  )
})

describe("limits.maxStreamBytes", () => {
  it("defaults to 256 MiB", () => {
    expect(defaultLimits.maxStreamBytes).toBe(256 * 1024 * 1024)
    expect(GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: "k" }).limits.maxStreamBytes).toBe(
      256 * 1024 * 1024
    )
    expect(
      GatewayConfig.make({ baseUrl: "https://gw.test", apiKey: "k", limits: { maxStreamBytes: 1 } }).limits
        .maxStreamBytes
    ).toBe(1)
  })

  it.each([0, -1, 1.5, NaN, Infinity])("refuses %s when the layer is made, naming the field", (value) => {
    let thrown: unknown
    try {
      Gateway.layer({ baseUrl: "https://gw.test", apiKey: "k", limits: { maxStreamBytes: value } })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ _tag: "InvalidRequest", field: "limits.maxStreamBytes", rule: "range" })
    expect(String(thrown)).toContain(`limits.maxStreamBytes: ${value}`)
  })

  // Every event's data counts, keep-alives too; a stream whose data totals the bound exactly completes.
  const frames = F.messageFrames(["Hel", "lo"]).map(F.bytes)
  const dataOf = (frame: string): number => frame.split("\n")[1]!.length - "data: ".length
  const total = F.messageFrames(["Hel", "lo"]).reduce((n, f) => n + dataOf(f), 0)
  const ping = F.frame("ping", {})
  const decode = (bytes: ReadonlyArray<Uint8Array>, maxStreamBytes: number) =>
    Stream.runCollect(
      decodeSse(Stream.fromIterable(bytes), messagesStreamSpec, { firstEventMs: 1_000, idleMs: 1_000, maxStreamBytes })
    )

  it("lets a stream whose event data totals the bound exactly through", async () => {
    const out = await Effect.runPromise(decode(frames, total))
    expect(out.length).toBe(7)
  })

  it("fails one code unit past the bound, keep-alives counted, with the events before handed out first", async () => {
    const seen: Array<string> = []
    const withPing = [frames[0]!, F.bytes(ping), ...frames.slice(1)]
    const error = await Effect.runPromise(
      Effect.flip(
        Stream.runForEach(
          decodeSse(Stream.fromIterable(withPing), messagesStreamSpec, {
            firstEventMs: 1_000,
            idleMs: 1_000,
            maxStreamBytes: total + dataOf(ping) - 1
          }),
          (e) => Effect.sync(() => seen.push(e.type))
        )
      )
    )
    expect(error).toMatchObject({ _tag: "TransportError", reason: "too-large" })
    expect(seen).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta"
    ])
  })
})
