// The bound on a whole streamed answer (`limits.maxStreamBytes`): the decoder folds every event into
// the final answer, so a server that streams valid events forever to a consumer that keeps up would
// grow memory without end. Against a real node:http server on loopback that does, the stream fails
// with a `TransportError` (`too-large`) naming the bound, and the server sees its connection closed.
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect, Stream } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import type { Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import { messagesStreamSpec } from "../../src/adapters/groups/Messages.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { defaultLimits } from "../../src/adapters/internal/Limits.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { decodeSse } from "../../src/adapters/sse/SseTransport.js"
import { closeCountingServers, countingServer } from "../support/countingServer.js"
import * as F from "../fixtures/messagesFrames.js"

afterEach(closeCountingServers)

const BOUND = 1_000_000
// 16 KiB of text per event: the bound passes after some sixty of them.
const TEXT = "x".repeat(16 * 1024)

const chatChunk = `data: ${JSON.stringify({
  id: "c",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-4o",
  choices: [{ index: 0, delta: { content: TEXT }, finish_reason: null }]
})}\n\n`

/** A server that answers with `opening`, then `event` again and again as fast as its reader takes it, forever. */
const endless = async (opening: string, event: string) => {
  let written = 0
  const closed: Array<Promise<void>> = []
  const server = await countingServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    closed.push(new Promise((resolve) => req.socket.once("close", () => resolve())))
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(opening)
      const pump = (): void => {
        while (!res.destroyed) {
          written += event.length
          if (!res.write(event)) break
        }
        if (!res.destroyed) res.once("drain", pump)
      }
      pump()
    })
  })
  return { url: server.url, written: () => written, closed: () => Promise.all(closed), requests: () => closed.length }
}

const clients: ReadonlyArray<{ readonly name: string; readonly layer: Layer.Layer<HttpClient.HttpClient> }> = [
  { name: "umg's Node client", layer: NodeHttpClient.layer },
  { name: "FetchHttpClient", layer: FetchHttpClient.layer }
]

type Read = (g: GatewayService) => Effect.Effect<unknown, unknown>
const calls: ReadonlyArray<{
  readonly name: string
  readonly opening: string
  readonly event: string
  readonly read: Read
}> = [
  {
    name: "messages.stream read by Stream.runDrain",
    opening: F.messageStart + F.blockStart,
    event: F.textDelta(TEXT),
    read: (g) =>
      Stream.runDrain(
        g.messages.stream({
          model: "epsilon-sonnet-4-5-20250929",
          max_tokens: 64,
          messages: [{ role: "user", content: "Hi" }]
        })
      )
  },
  {
    name: "chat.stream read by runToFinal",
    opening: "",
    event: chatChunk,
    read: (g) =>
      runToFinal(g.chat.stream({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] }), () => Effect.void)
  }
]

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

describe.each(clients)("an endless streamed answer over $name, its consumer keeping up", ({ layer }) => {
  it.each(calls)(
    "$name: fails past limits.maxStreamBytes and closes the connection",
    async ({ opening, event, read }) => {
      const server = await endless(opening, event)
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
