// An SSE stream's connection after its final event, against a real node:http server on loopback:
// kept for the next request when the body ends soon after (as servers end a stream), closed when the
// body goes on past the bound — and the consumer never waits for either.
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import type { ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { HttpClient, HttpClientRequest } from "effect/http"
import { Effect, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { messagesStreamSpec } from "../../src/adapters/groups/Messages.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { decodeSse } from "../../src/adapters/sse/SseTransport.js"
import { closeCountingServers, countingServer } from "../support/countingServer.js"
import { messageFrames } from "../fixtures/messagesFrames.js"

const stream = messageFrames(["Hello"]).join("")

afterEach(closeCountingServers)

/** A server that sends the whole stream in one write, then does `after` with the response; counts the bodies it ended. */
const serve = async (after: (res: ServerResponse) => void) => {
  let ended = 0
  const server = await countingServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.write(stream)
    res.on("finish", () => ended++)
    after(res)
  })
  return { ...server, ended: () => ended }
}

/** Reads one stream to its end; how many bodies the server had ended when the consumer was done. */
const readStream = (url: string, endedSoFar: () => number) =>
  Effect.gen(function* () {
    const response = yield* HttpClient.execute(HttpClientRequest.post(url))
    const events = yield* Stream.runCollect(
      decodeSse(response.stream, messagesStreamSpec, { firstEventMs: 5_000, idleMs: 5_000 })
    )
    return { types: events.map((e) => e.type), endedWhenDone: endedSoFar() }
  })

const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) =>
  Effect.runPromise(Effect.provide(effect, NodeHttpClient.layerWith()))

/** Whether `check` holds within `ms`, looked at every 10 ms (inside the run, so the client's pool stays open). */
const waitFor = (check: () => boolean, ms: number): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const until = Date.now() + ms
    while (!check() && Date.now() < until) yield* Effect.sleep("10 millis")
    return check()
  })

/**
 * Counts the times a client connection of this process went back to its agent's pool, free for the
 * next request (the socket's `free` event, after the agent's own listener has seen the body's end).
 */
const countFreed = () => {
  let freed = 0
  const onSocket = (message: unknown) => void (message as { socket: Socket }).socket.on("free", () => freed++)
  subscribe("net.client.socket", onSocket)
  return { freed: () => freed, stop: () => void unsubscribe("net.client.socket", onSocket) }
}

describe("an SSE stream's connection after its final event", () => {
  it("is kept for the next request when the body ends soon after, and the consumer does not wait for that end", async () => {
    // Each body is ended once its consumer is done (so at once after its final event), or by the
    // server itself 3 s later: a consumer that waited for the end would be done only then, past the
    // client's bound (1 s). No race between the server's timer and the client's reading, whatever the load.
    const release: Array<() => void> = []
    const server = await serve((res) => {
      const timer = setTimeout(() => res.end(), 3_000)
      release.push(() => {
        clearTimeout(timer)
        res.end()
      })
    })
    const pool = countFreed()
    try {
      const results = await run(
        Effect.forEach(Array.from({ length: 5 }), (_, i) =>
          Effect.gen(function* () {
            const read = yield* readStream(server.url, server.ended)
            release.shift()?.()
            // The next request goes once the client has its connection back, not after a guessed pause.
            if (!(yield* waitFor(() => pool.freed() > i, 5_000)))
              return yield* Effect.die(new Error(`the connection of request ${i} did not go back to the pool`))
            return read
          })
        )
      )
      for (const [i, r] of results.entries()) {
        expect(r.types.at(-1)).toBe("message_stop")
        // Done before the server ended this stream's body (it had ended only the earlier ones).
        expect(r.endedWhenDone).toBe(i)
      }
      expect(server.connections()).toBe(1)
    } finally {
      pool.stop()
    }
  })

  it("is closed when the body goes on past the bound after the final event", async () => {
    const junk = `: ${"x".repeat(16 * 1024)}\n\n`
    const server = await serve((res) => {
      const timer = setInterval(() => res.write(junk), 2)
      res.on("close", () => clearInterval(timer))
    })
    const result = await run(
      Effect.zip(
        readStream(server.url, server.ended),
        waitFor(() => server.open() === 0, 900)
      )
    )
    expect(result[0].types.at(-1)).toBe("message_stop")
    // Closed by the byte bound, well before the time bound (1 s).
    expect(result[1]).toBe(true)
  })

  it("is closed when the body does not end within the bound after the final event", async () => {
    const server = await serve(() => {})
    const result = await run(
      Effect.gen(function* () {
        const read = yield* readStream(server.url, server.ended)
        // Still open just after (the body may yet end), closed once the bound (1 s) has passed.
        const openAfter = server.open()
        return { read, openAfter, closed: yield* waitFor(() => server.open() === 0, 3_000) }
      })
    )
    expect(result.read.types.at(-1)).toBe("message_stop")
    expect(result.openAfter).toBe(1)
    expect(result.closed).toBe(true)
  })
})
