// Backpressure of a streaming call against a hostile peer built for real: a node:http server that
// writes large SSE events as fast as its socket takes them, forever, to a consumer stalled on its
// first event. The body must be paused once a bounded amount waits (in bytes, not only in events),
// so the server's writes stop at what the socket buffers take from a client that reads nothing, plus
// that bound — measured by the bytes the server's socket wrote — for umg's Node client and the fetch
// client alike.
import { connect } from "node:net"
import { Deferred, Effect, Fiber, type Layer, Stream } from "effect"
import type { HttpClient } from "effect/http"
import { afterEach, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { closeCountingServers } from "../support/countingServer.js"
import { type FloodedCall, floodedCalls, floodServer, httpClients } from "../support/floodServer.js"

afterEach(closeCountingServers)

// 64 KiB of text per event: 4,096 of them waiting would be 256 MiB.
const TEXT = "x".repeat(64 * 1024)
// What the client may hold beyond the socket buffers (the decoder's backlog, a body's chunks, the
// fetch client's own queue): far below 256 MiB.
const SLACK = 16 * 1024 * 1024

/** `written()` once it stops growing (unchanged for ten looks in a row), or as soon as it passes `limit`. */
const settled = (written: () => number, limit: number): Effect.Effect<number> =>
  Effect.gen(function* () {
    let last = -1
    let same = 0
    while (same < 10 && written() <= limit) {
      yield* Effect.sleep("50 millis")
      const now = written()
      same = now === last ? same + 1 : 0
      last = now
    }
    return written()
  })

/** What the server writes to a client that sends its request and never reads: the socket buffers' share. */
const socketBuffers = async (opening: string, event: string): Promise<number> => {
  const server = await floodServer(opening, event)
  const socket = connect(server.port, "127.0.0.1")
  socket.pause()
  socket.write("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n")
  const written = await Effect.runPromise(settled(server.written, Number.MAX_SAFE_INTEGER))
  socket.destroy()
  return written
}

type Call = FloodedCall["stream"]

/** The bytes the server wrote while the consumer was stalled on its first event (`settled`, up to `limit`). */
const writtenWhileStalled = (
  server: { readonly url: string; readonly written: () => number },
  client: Layer.Layer<HttpClient.HttpClient>,
  call: Call,
  limit: number
) =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    const stalled = yield* Deferred.make<void>()
    const first = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkChild(
      Stream.runForEach(call(gateway), () =>
        Effect.andThen(Deferred.succeed(first, undefined), Deferred.await(stalled))
      )
    )
    yield* Deferred.await(first)
    const written = yield* settled(server.written, limit)
    yield* Fiber.interrupt(fiber)
    return written
  }).pipe(
    Effect.provide(
      Gateway.layer({
        baseUrl: server.url,
        apiKey: "sk-test-backpressure",
        maxRetries: 0,
        allowUnknownModels: true,
        httpClient: client
      })
    )
  )

describe.each(httpClients)("a streaming call over $name, its consumer stalled", ({ layer }) => {
  it.each(floodedCalls(TEXT))(
    "$name: the body is paused once a bounded number of bytes waits",
    async ({ opening, event, stream }) => {
      const bound = (await socketBuffers(opening, event)) + SLACK
      const server = await floodServer(opening, event)
      const written = await Effect.runPromise(writtenWhileStalled(server, layer, stream, bound))
      // At least one event reached the consumer; the server was then held back by the paused body.
      expect(written).toBeGreaterThan(event.length)
      expect(written).toBeLessThan(bound)
    }
  )
})
