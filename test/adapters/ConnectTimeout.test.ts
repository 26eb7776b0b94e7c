// A call's own time limit (`timeoutMs`) passing before its connection was made, against real peers on
// loopback: a proxy that takes the connection and never opens the `CONNECT` tunnel, or a port whose TCP
// handshake never completes, leaves no byte of the request sent, so the `TimeoutError` is of phase
// `connect` and even a paid video submit is tried again.
// Once a connection is made (a silent gateway, a plain `http://` proxy that took the request) the phase
// stays `request` and the submit is not repeated, as with a client that does not report its connection (`fetch`).
import { Effect, Layer, Stream } from "effect"
import { HttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { RetryPolicy } from "../../src/core/index.js"
import { startRawPeer, type RawPeer } from "../fixtures/rawPeer.js"
import { startTlsFront } from "../fixtures/tlsFront.js"
import { trustingClient } from "../fixtures/trustingClient.js"
import { startUnacceptingPeer } from "../fixtures/unacceptingPeer.js"
import { gatewayFailure } from "../support/gatewayFailure.js"
import { expectNoSecret } from "../support/secrets.js"

const submit = Effect.flatMap(Gateway, (g) => g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }))
const stream = Effect.flatMap(Gateway, (g) =>
  Stream.runDrain(
    g.messages.stream({
      model: "epsilon-haiku-4-5-20251001",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }]
    })
  )
)

/** The error a Gateway call fails with (it must fail): fast retries, a 300 ms limit per attempt. */
const failureOf = <A, E>(
  call: Effect.Effect<A, E, Gateway>,
  config: Partial<GatewayConfigInput> & Pick<GatewayConfigInput, "baseUrl">,
  client?: Layer.Layer<HttpClient.HttpClient>
): Promise<E> => gatewayFailure(call, { apiKey: "sk-test", timeoutMs: 300, ...config }, client)

// Takes every connection and reads it, never answering: a proxy that never opens its tunnel, or a
// gateway (or plain proxy) that got the request and stays silent.
let silent: RawPeer
beforeAll(async () => {
  silent = await startRawPeer((socket) => socket.resume())
})
afterAll(() => silent.close())

describe("a time limit passing while the CONNECT tunnel is still opening", () => {
  it("is a TimeoutError of phase connect, and a paid video submit is tried again", async () => {
    const before = silent.accepted()
    // The proxy's credentials never show: the message names its host and port only.
    const error = await failureOf(submit, {
      baseUrl: "https://gateway.test",
      proxy: `http://umg-user:c0nnect-secret@127.0.0.1:${silent.port}`
    })
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "connect", timeoutMs: 300 })
    expect((error as Error).message).toBe(
      `no connection to https://gateway.test within 300 ms (through the proxy 127.0.0.1:${silent.port})`
    )
    // The first attempt and both retries, each a tunnel asked for.
    expect(silent.accepted() - before).toBe(3)
    expectNoSecret(error, ["c0nnect-secret", Buffer.from("umg-user:c0nnect-secret").toString("base64")])
    // The same reading for a caller deciding from the error (a batch giving the line back).
    expect(RetryPolicy.errorProvesNotActed(error as RetryPolicy.ErrorLike)).toBe(true)
    // Each tunnel still opening was closed with its attempt.
    await vi.waitFor(() => expect(silent.open()).toBe(0))
  })

  it("bounds a stream's opening the same way (its first-byte limit)", async () => {
    const before = silent.accepted()
    const error = await failureOf(stream, {
      baseUrl: "https://gateway.test",
      proxy: `http://127.0.0.1:${silent.port}`,
      streamFirstByteTimeoutMs: 300
    })
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "connect", timeoutMs: 300 })
    expect(silent.accepted() - before).toBe(3)
  })

  it("with a per-call timeoutMs, says that limit", async () => {
    const error = await failureOf(
      Effect.flatMap(Gateway, (g) => g.models.list(undefined, { timeoutMs: 120, maxRetries: 0 })),
      { baseUrl: "https://gateway.test", proxy: `http://127.0.0.1:${silent.port}` }
    )
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "connect", timeoutMs: 120 })
  })
})

describe("a time limit passing while a direct connection is still being made", () => {
  it("is a TimeoutError of phase connect, and a paid video submit is tried again", async () => {
    const peer = await startUnacceptingPeer()
    try {
      const error = await failureOf(submit, { baseUrl: `http://127.0.0.1:${peer.port}` })
      expect(error).toMatchObject({ _tag: "TimeoutError", phase: "connect", timeoutMs: 300 })
      expect((error as Error).message).toBe(`no connection to http://127.0.0.1:${peer.port} within 300 ms`)
      expect(RetryPolicy.errorProvesNotActed(error as RetryPolicy.ErrorLike)).toBe(true)
    } finally {
      peer.close()
    }
  })
})

// Where the connection is made, a limit long enough that a stalled event loop (a busy machine) cannot
// run the timer before the socket's connect callback, which Node's timers phase would come first to.
const CONNECTED_MS = 1_500

describe("a time limit passing once the connection was made", () => {
  it("to a silent gateway is phase request: the paid submit is not repeated", async () => {
    const before = silent.accepted()
    const error = await failureOf(submit, { baseUrl: `http://127.0.0.1:${silent.port}`, timeoutMs: CONNECTED_MS })
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "request" })
    expect((error as Error).message).toBe(`no answer within ${CONNECTED_MS} ms`)
    expect(silent.accepted() - before).toBe(1)
    expect(RetryPolicy.errorProvesNotActed(error as RetryPolicy.ErrorLike)).toBe(false)
  })

  it("over TLS, directly, to a silent gateway is phase request: the paid submit is not repeated", async () => {
    // TLS ends at the front, which passes the bytes to the silent peer.
    const front = await startTlsFront(silent.port)
    const before = silent.accepted()
    try {
      const error = await failureOf(submit, { baseUrl: front.url, timeoutMs: CONNECTED_MS }, trustingClient(false))
      expect(error).toMatchObject({ _tag: "TimeoutError", phase: "request" })
      expect(silent.accepted() - before).toBe(1)
    } finally {
      await front.close()
    }
  })

  it("to a plain http:// proxy, which may have passed the request on, is phase request", async () => {
    const before = silent.accepted()
    const error = await failureOf(submit, {
      baseUrl: "http://gateway.test",
      proxy: `http://127.0.0.1:${silent.port}`,
      timeoutMs: CONNECTED_MS
    })
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "request" })
    expect(silent.accepted() - before).toBe(1)
  })

  it("on a kept connection (pooled, already connected) is phase request", async () => {
    // The first call is answered on a connection the pool keeps; the second goes out on it and waits.
    let answered = 0
    const body = JSON.stringify({ object: "list", data: [] })
    const peer = await startRawPeer((socket) =>
      socket.on("data", () => {
        if (answered++ === 0)
          socket.write(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`
          )
      })
    )
    try {
      const program = Effect.flatMap(Gateway, (g) =>
        Effect.andThen(
          g.models.list(),
          Effect.flip(g.video.submit({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }))
        )
      )
      const error = await Effect.runPromise(
        Effect.provide(
          program,
          Gateway.layer({ apiKey: "sk-test", baseUrl: `http://127.0.0.1:${peer.port}`, timeoutMs: 300, maxRetries: 2 })
        )
      )
      expect(error).toMatchObject({ _tag: "TimeoutError", phase: "request" })
      expect(peer.accepted()).toBe(1)
      expect(answered).toBe(2)
    } finally {
      await peer.close()
    }
  })
})

describe("a client that does not report its connection", () => {
  it("leaves the phase request (may have reached the gateway): the paid submit is not repeated", async () => {
    let sent = 0
    const never = Layer.succeed(
      HttpClient.HttpClient,
      HttpClient.make(() => {
        sent++
        return Effect.never
      })
    )
    const error = await failureOf(submit, { baseUrl: "https://gateway.test" }, never)
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "request" })
    expect(sent).toBe(1)
  })

  it("umg's Node client, given by a layer of its own, reports it", async () => {
    const before = silent.accepted()
    const proxy = `http://127.0.0.1:${silent.port}`
    const error = await failureOf(
      submit,
      { baseUrl: "https://gateway.test", proxy },
      NodeHttpClient.layerWith({ proxy })
    )
    expect(error).toMatchObject({ _tag: "TimeoutError", phase: "connect" })
    expect(silent.accepted() - before).toBe(3)
  })
})
