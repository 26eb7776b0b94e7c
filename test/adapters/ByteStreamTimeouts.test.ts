// Byte streams (`transport.open`: `speech.stream`, `video.downloadStream`, the CLI's download of a
// task's url) under the stream time limits, against hostile loopback peers that send the answer's
// headers, maybe some bytes, and then stall: the call's `timeoutMs` bounds the wait for the first
// chunk, the layer's `streamIdleTimeoutMs` every gap after it; past either, the stream fails with a
// `TimeoutError` naming the phase and the socket really closes (the server sees it). A reader that
// lags — the body paused — is not the server stalling; ending the stream early still closes the socket.
import type { ServerResponse } from "node:http"
import { Cause, Effect, Exit, type Layer, Option, Stream } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import { afterEach, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { urlStream } from "../../src/cli/commands/video.js"
import { listenLoopback, type Loopback } from "../fixtures/loopback.js"

const KEY = "sk-byte-stream-timeouts-0123456789"

/** A peer that answers every request with `answer` (which may never end it), and when the socket of the last request closed. */
interface Peer {
  readonly url: string
  /** Resolves with the time the last request's socket closed. */
  readonly socketClosed: () => Promise<number>
}

const open: Array<Loopback> = []
afterEach(async () => {
  for (const server of open.splice(0)) await server.close()
})

const peer = async (answer: (res: ServerResponse) => void): Promise<Peer> => {
  let closed: Promise<number> = new Promise(() => {})
  const server = await listenLoopback((req, res) => {
    closed = new Promise((resolve) => req.socket.once("close", () => resolve(Date.now())))
    answer(res)
  })
  open.push(server)
  return { url: server.url, socketClosed: () => closed }
}

/** Headers, then `bytes` (if any), then nothing more, the connection left open. */
const stallAfter =
  (contentType: string, bytes?: Uint8Array) =>
  (res: ServerResponse): void => {
    res.writeHead(200, { "content-type": contentType })
    res.flushHeaders()
    if (bytes !== undefined) res.write(bytes)
  }

const clients: ReadonlyArray<{ readonly name: string; readonly layer: Layer.Layer<HttpClient.HttpClient> }> = [
  { name: "umg's Node client", layer: NodeHttpClient.layer },
  { name: "FetchHttpClient", layer: FetchHttpClient.layer }
]

interface Outcome {
  readonly error: unknown
  readonly received: number
  readonly failedAt: number
  readonly startedAt: number
}

/** Runs a byte stream to its failure: the typed error, the bytes received before it, and when. */
const runToFailure = async <E, R>(
  stream: Stream.Stream<Uint8Array, E, R>,
  layer: Layer.Layer<R, unknown>
): Promise<Outcome> => {
  let received = 0
  const startedAt = Date.now()
  const exit = await Effect.runPromiseExit(
    Effect.provide(
      Stream.runForEach(stream, (chunk) => Effect.sync(() => (received += chunk.length))),
      layer
    )
  )
  const failedAt = Date.now()
  if (Exit.isSuccess(exit)) throw new Error("expected the stream to fail")
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`not a typed failure: ${Cause.pretty(exit.cause).slice(0, 300)}`)
  return { error: failure.value, received, failedAt, startedAt }
}

const gatewayLayer = (baseUrl: string, client: Layer.Layer<HttpClient.HttpClient>, extra: object = {}) =>
  Gateway.layer({ baseUrl, apiKey: KEY, maxRetries: 0, httpClient: client, ...extra })

const speechBody = { model: "tts-1", input: "hello", voice: "alloy", response_format: "wav" } as const

/** The socket closed within `ms` of the failure. */
const expectClosedSoon = async (server: Peer, failedAt: number, ms = 1_000): Promise<void> => {
  const closedAt = await Promise.race([server.socketClosed(), new Promise<number>((r) => setTimeout(() => r(-1), ms))])
  expect(closedAt, "the server saw the socket close").not.toBe(-1)
  expect(closedAt - failedAt).toBeLessThan(ms)
}

describe.each(clients)("byte streams that stall, over $name", ({ layer: client }) => {
  it("speech.stream: a stall after some audio fails with TimeoutError (idle, the layer's limit) and closes the socket", async () => {
    const server = await peer(stallAfter("audio/wav", new Uint8Array(1_000).fill(7)))
    const layer = gatewayLayer(server.url, client, { streamIdleTimeoutMs: 300, streamFirstByteTimeoutMs: 60_000 })
    const stream = Stream.unwrap(Effect.map(Gateway, (g) => g.speech.stream(speechBody, { timeoutMs: 5_000 })))
    const outcome = await runToFailure(stream, layer)
    expect(outcome.error).toMatchObject({ _tag: "TimeoutError", family: "openai", phase: "idle", timeoutMs: 300 })
    expect(outcome.received).toBe(1_000)
    expect(outcome.failedAt - outcome.startedAt).toBeLessThan(3_000)
    await expectClosedSoon(server, outcome.failedAt)
  })

  it("speech.stream: headers and then nothing fails by the call's timeoutMs (first-byte), not the layer's 60 s", async () => {
    const server = await peer(stallAfter("audio/wav"))
    const layer = gatewayLayer(server.url, client, { streamIdleTimeoutMs: 60_000, streamFirstByteTimeoutMs: 60_000 })
    const stream = Stream.unwrap(Effect.map(Gateway, (g) => g.speech.stream(speechBody, { timeoutMs: 300 })))
    const outcome = await runToFailure(stream, layer)
    expect(outcome.error).toMatchObject({ _tag: "TimeoutError", phase: "first-byte", timeoutMs: 300 })
    expect(outcome.received).toBe(0)
    expect(outcome.failedAt - outcome.startedAt).toBeLessThan(3_000)
    await expectClosedSoon(server, outcome.failedAt)
  })

  it("video.downloadStream: a stall mid-answer fails with TimeoutError (idle) and closes the socket", async () => {
    const partial = new TextEncoder().encode('{"success":true,"task_id":"t","base64":"AAAAAAAA')
    const server = await peer(stallAfter("application/json", partial))
    const layer = gatewayLayer(server.url, client, { streamIdleTimeoutMs: 300 })
    const stream = Stream.unwrap(Effect.map(Gateway, (g) => g.video.downloadStream("task-1")))
    const outcome = await runToFailure(stream, layer)
    expect(outcome.error).toMatchObject({ _tag: "TimeoutError", family: "video", phase: "idle", timeoutMs: 300 })
    expect(outcome.received).toBe(6)
    expect(outcome.failedAt - outcome.startedAt).toBeLessThan(3_000)
    await expectClosedSoon(server, outcome.failedAt)
  })
})

describe("byte streams: the CLI's download, ending early, a lagging reader", () => {
  it("umg video's download of a task's url (urlStream): a stall fails with TimeoutError (idle) and closes the socket", async () => {
    const server = await peer(stallAfter("video/mp4", new Uint8Array(500)))
    const config = GatewayConfig.make({ baseUrl: server.url, apiKey: KEY, maxRetries: 0, streamIdleTimeoutMs: 300 })
    const outcome = await runToFailure(urlStream(config, `${server.url}/video.mp4`), NodeHttpClient.layer)
    expect(outcome.error).toMatchObject({ _tag: "TimeoutError", family: "video", phase: "idle", timeoutMs: 300 })
    expect(outcome.received).toBe(500)
    expect(outcome.failedAt - outcome.startedAt).toBeLessThan(3_000)
    await expectClosedSoon(server, outcome.failedAt)
  })

  it("speech.stream ended after its first chunk closes the socket (no time limit involved)", async () => {
    const server = await peer(stallAfter("audio/wav", new Uint8Array(100)))
    const layer = gatewayLayer(server.url, NodeHttpClient.layer, { streamIdleTimeoutMs: 60_000 })
    const first = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => Stream.runCollect(Stream.take(g.speech.stream(speechBody), 1))),
        layer
      )
    )
    expect(first.length).toBe(1)
    await expectClosedSoon(server, Date.now())
  })

  it("a reader slower than the idle limit (the body paused) is not timed out", async () => {
    const total = 2 * 1024 * 1024
    const server = await peer((res) => {
      res.writeHead(200, { "content-type": "audio/wav" })
      res.end(new Uint8Array(total))
    })
    const layer = gatewayLayer(server.url, NodeHttpClient.layer, { streamIdleTimeoutMs: 200 })
    let received = 0
    let pulls = 0
    await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) =>
          Stream.runForEach(g.speech.stream(speechBody), (chunk) =>
            Effect.andThen(
              Effect.sync(() => (received += chunk.length)),
              // The first chunk's step outlasts the idle limit, the body paused meanwhile.
              pulls++ === 0 ? Effect.sleep("600 millis") : Effect.void
            )
          )
        ),
        layer
      )
    )
    expect(received).toBe(total)
  })
})
