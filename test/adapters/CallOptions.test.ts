// Per-call options against real servers over loopback: an aborted signal sends nothing, an abort
// mid-request or mid-stream closes the connection the server sees and fails with `Aborted` (never a
// hang, a defect or a bare interruption), the call's time limit and retry count override the layer's
// both ways, its headers are sent and the dangerous ones refused, and `onResponse` / `withResponse`
// give the successful answer's status, request id, headers and rate limits.
import { Cause, Effect, Exit, ManagedRuntime, Result, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import {
  type CallOptions,
  check,
  rateLimitOf,
  type ResponseInfo,
  withResponse
} from "../../src/adapters/CallOptions.js"
import { chatTextStream, messagesTextStream } from "../fixtures/TextStreams.js"

const servers: Array<Server> = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A server whose handler decides what each request gets; it records requests and socket closes. */
const serve = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
  const seen = { requests: 0, opened: 0, closed: 0, headers: [] as Array<IncomingMessage["headers"]> }
  const server = createServer((req, res) => {
    seen.requests++
    seen.headers.push(req.headers)
    req.resume()
    handler(req, res)
  })
  server.on("connection", (socket) => {
    seen.opened++
    socket.on("close", () => seen.closed++)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

const until = async (check: () => boolean, ms = 3_000) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
  return check()
}

/** Every connection the server saw is closed (a fetch client may open more than one). */
const allClosed = (seen: { opened: number; closed: number }) =>
  until(() => seen.opened > 0 && seen.closed === seen.opened)

const clients = [
  { name: "umg's Node client", layer: NodeHttpClient.layer },
  { name: "FetchHttpClient", layer: FetchHttpClient.layer }
]

const layerFor = (baseUrl: string, settings: Partial<GatewayConfigInput> = {}) =>
  Gateway.layer({ baseUrl, apiKey: "sk-calloptions-key", maxRetries: 0, ...settings })

/** Runs a call and gives its exit (never throws), so a defect or an interruption shows as such. */
const exitOf = <A, E>(
  baseUrl: string,
  f: (g: GatewayService) => Effect.Effect<A, E>,
  settings: Partial<GatewayConfigInput> = {}
) => Effect.runPromise(Effect.exit(Effect.flatMap(Gateway, f).pipe(Effect.provide(layerFor(baseUrl, settings)))))

/** The typed failure of an exit, `undefined` when it succeeded; a defect or a bare interruption fails the test. */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = Cause.findErrorOption(exit.cause)
  if (failure._tag === "None") throw new Error(`not a typed failure: ${Cause.pretty(exit.cause)}`)
  return failure.value
}

const completion = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
})
const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] }
const epsilon = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "hi" }]
}

const answer = (res: ServerResponse, headers: Record<string, string> = {}) => {
  res.writeHead(200, { "content-type": "application/json", ...headers })
  res.end(completion)
}

describe.each(clients)("aborting a call ($name)", ({ layer }) => {
  const settings = { httpClient: layer }

  it("fails at once with Aborted, sending nothing, when the signal is already aborted", async () => {
    const { url, seen } = await serve((_req, res) => answer(res))
    const exit = await exitOf(url, (g) => g.chat.create(chat, { signal: AbortSignal.abort() }), settings)
    expect(failureOf(exit)).toMatchObject({ _tag: "Aborted", family: "openai" })
    const stream = await exitOf(
      url,
      (g) => Stream.runDrain(g.chat.stream(chat, { signal: AbortSignal.abort() })),
      settings
    )
    expect(failureOf(stream)).toMatchObject({ _tag: "Aborted" })
    expect(seen.requests).toBe(0)
  })

  it("closes the connection and fails with Aborted when the signal aborts mid-request", async () => {
    const { url, seen } = await serve(() => {})
    const controller = new AbortController()
    const started = Date.now()
    const pending = exitOf(url, (g) => g.chat.create(chat, { signal: controller.signal }), settings)
    expect(await until(() => seen.requests === 1)).toBe(true)
    controller.abort()
    const exit = await pending
    expect(failureOf(exit)).toMatchObject({ _tag: "Aborted", family: "openai" })
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(await allClosed(seen)).toBe(true)
  })

  it("fails a stream with Aborted mid-way, after the events already read, and closes its connection", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(chatTextStream.split("\n\n").slice(0, 2).join("\n\n") + "\n\n")
      // …and never the rest.
    })
    const controller = new AbortController()
    const events: Array<string> = []
    const exit = await exitOf(
      url,
      (g) =>
        Stream.runForEach(g.chat.stream(chat, { signal: controller.signal }), (event) =>
          Effect.sync(() => {
            events.push(event.type)
            // Aborted from inside the consumer, as a UI's stop button would.
            if (events.length === 2) controller.abort()
          })
        ),
      settings
    )
    expect(failureOf(exit)).toMatchObject({ _tag: "Aborted" })
    expect(events).toHaveLength(2)
    expect(await allClosed(seen)).toBe(true)
  })

  it("fails runToFinal with Aborted when the signal aborts while the stream waits for its next event", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(messagesTextStream.split("\n\n").slice(0, 2).join("\n\n") + "\n\n")
    })
    const controller = new AbortController()
    let events = 0
    const pending = exitOf(
      url,
      (g) =>
        runToFinal(g.messages.stream(epsilon, { signal: controller.signal }), () => Effect.sync(() => void events++)),
      settings
    )
    expect(await until(() => events === 2)).toBe(true)
    controller.abort()
    expect(failureOf(await pending)).toMatchObject({ _tag: "Aborted", family: "messages" })
    expect(await allClosed(seen)).toBe(true)
  })

  it("fails a byte stream (speech) with Aborted and closes its connection", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "audio/wav" })
      res.write(new Uint8Array(1024))
    })
    const controller = new AbortController()
    const exit = await exitOf(
      url,
      (g) =>
        Stream.runForEach(
          g.speech.stream({ model: "gpt-4o-mini-tts", input: "Hello", voice: "alloy" }, { signal: controller.signal }),
          () => Effect.sync(() => controller.abort())
        ),
      settings
    )
    expect(failureOf(exit)).toMatchObject({ _tag: "Aborted" })
    expect(await allClosed(seen)).toBe(true)
  })
})

describe("the call's signal, between attempts and requests", () => {
  it("aborts the wait before a retry", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(503, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: "busy", type: "server_error" } }))
    })
    const controller = new AbortController()
    const started = Date.now()
    const pending = exitOf(url, (g) => g.chat.create(chat, { signal: controller.signal }), {
      maxRetries: 5,
      retryBaseDelayMs: 20_000,
      retryMaxDelayMs: 20_000
    })
    expect(await until(() => seen.requests === 1)).toBe(true)
    controller.abort()
    expect(failureOf(await pending)).toMatchObject({ _tag: "Aborted" })
    expect(Date.now() - started).toBeLessThan(3_000)
    expect(seen.requests).toBe(1)
  })

  it("aborts a video wait between its queries, and follow ends with Aborted", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ task_id: "t1", status: "in_progress" }))
    })
    const controller = new AbortController()
    const pending = exitOf(url, (g) => g.video.wait("t1", { intervalMs: 3_000 }, { signal: controller.signal }), {
      minPollIntervalMs: 0
    })
    expect(await until(() => seen.requests === 1)).toBe(true)
    controller.abort()
    expect(failureOf(await pending)).toMatchObject({ _tag: "Aborted", family: "video" })

    const followed = new AbortController()
    let end: (exit: Exit.Exit<unknown, unknown>) => void = () => {}
    const ended = new Promise<Exit.Exit<unknown, unknown>>((resolve) => (end = resolve))
    const before = seen.requests
    // The layer stays open while the poll runs: closing it would stop the poll (VideoPollLifetime).
    const runtime = ManagedRuntime.make(layerFor(url, { minPollIntervalMs: 0 }))
    try {
      await runtime.runPromise(
        Effect.flatMap(Gateway, (g) => g.video.follow("t1", { intervalMs: 3_000 }, end, { signal: followed.signal }))
      )
      expect(await until(() => seen.requests === before + 1)).toBe(true)
      followed.abort()
      expect(failureOf(await ended)).toMatchObject({ _tag: "Aborted", family: "video" })
    } finally {
      await runtime.dispose()
    }
  })
})

describe("the call's time limit and retry count override the layer's", () => {
  it("a shorter call timeoutMs fails within it, a longer one lets a slow answer through", async () => {
    // 300 ms, not less: a limit that a stalled event loop lets pass before the loopback connect
    // callback runs is (rightly) phase "connect".
    const { url } = await serve((_req, res) => setTimeout(() => answer(res), 1_000))
    const short = await exitOf(url, (g) => g.chat.create(chat, { timeoutMs: 300 }), { timeoutMs: 10_000 })
    expect(failureOf(short)).toMatchObject({ _tag: "TimeoutError", phase: "request", timeoutMs: 300 })
    const long = await exitOf(url, (g) => g.chat.create(chat, { timeoutMs: 5_000 }), { timeoutMs: 300 })
    expect(Exit.isSuccess(long)).toBe(true)
  })

  it("a stream's timeoutMs bounds the wait for its headers", async () => {
    const { url } = await serve(() => {})
    const exit = await exitOf(url, (g) => Stream.runDrain(g.chat.stream(chat, { timeoutMs: 300 })), {
      streamFirstByteTimeoutMs: 10_000
    })
    expect(failureOf(exit)).toMatchObject({ _tag: "TimeoutError", phase: "first-byte", timeoutMs: 300 })
  })

  it("a stream's streamIdleTimeoutMs bounds the gaps after its first event, both ways", async () => {
    // Two events, then a stall of 1 s before the rest.
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      const events = chatTextStream.split("\n\n")
      res.write(events.slice(0, 2).join("\n\n") + "\n\n")
      setTimeout(() => res.end(events.slice(2).join("\n\n")), 1_000)
    })
    const short = await exitOf(url, (g) => Stream.runDrain(g.chat.stream(chat, { streamIdleTimeoutMs: 300 })), {
      streamIdleTimeoutMs: 10_000
    })
    expect(failureOf(short)).toMatchObject({ _tag: "TimeoutError", phase: "idle", timeoutMs: 300 })
    expect(await allClosed(seen)).toBe(true)
    const long = await exitOf(url, (g) => Stream.runCollect(g.chat.stream(chat, { streamIdleTimeoutMs: 5_000 })), {
      streamIdleTimeoutMs: 300
    })
    expect(Exit.isSuccess(long)).toBe(true)
  })

  it("a byte stream's streamIdleTimeoutMs bounds the gaps between its chunks", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "audio/mpeg" })
      res.write(new Uint8Array(64))
      setTimeout(() => res.end(new Uint8Array(64)), 1_000)
    })
    const speech = { model: "gpt-4o-mini-tts", input: "Hello", voice: "alloy" as const }
    const short = await exitOf(url, (g) => Stream.runDrain(g.speech.stream(speech, { streamIdleTimeoutMs: 300 })), {
      streamIdleTimeoutMs: 10_000
    })
    expect(failureOf(short)).toMatchObject({ _tag: "TimeoutError", phase: "idle", timeoutMs: 300 })
  })

  it("maxRetries 0 makes one attempt and 2 makes three, whatever the layer says", async () => {
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(503, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: "busy", type: "server_error" } }))
    })
    const fast = { retryBaseDelayMs: 1, retryMaxDelayMs: 2 }
    const none = await exitOf(url, (g) => g.chat.create(chat, { maxRetries: 0 }), { ...fast, maxRetries: 5 })
    expect(failureOf(none)).toMatchObject({ _tag: "ServerError", status: 503 })
    expect(seen.requests).toBe(1)
    const two = await exitOf(url, (g) => g.chat.create(chat, { maxRetries: 2 }), { ...fast, maxRetries: 0 })
    expect(failureOf(two)).toMatchObject({ _tag: "ServerError" })
    expect(seen.requests).toBe(4)
  })

  it("refuses a time limit or retry count outside its range before sending", async () => {
    const { url, seen } = await serve((_req, res) => answer(res))
    for (const options of [
      { timeoutMs: 0 },
      { timeoutMs: 2 ** 31 },
      { streamIdleTimeoutMs: 0 },
      { streamIdleTimeoutMs: 2 ** 31 },
      { maxRetries: -1 },
      { maxRetries: 1.5 }
    ]) {
      const exit = await exitOf(url, (g) => g.chat.create(chat, options))
      expect(failureOf(exit)).toMatchObject({ _tag: "InvalidRequest", rule: "range" })
    }
    expect(seen.requests).toBe(0)
  })
})

describe("the call's headers", () => {
  it("are sent with the request, names lower-cased", async () => {
    const { url, seen } = await serve((_req, res) => answer(res))
    const exit = await exitOf(url, (g) => g.chat.create(chat, { headers: { "X-Trace-Id": "trace-77", "x-b": "2" } }))
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(seen.headers[0]).toMatchObject({
      "x-trace-id": "trace-77",
      "x-b": "2",
      authorization: "Bearer sk-calloptions-key"
    })
  })

  it("refuse the transport's own and the credential's, naming the header and never its value", async () => {
    const { url, seen } = await serve((_req, res) => answer(res))
    for (const name of ["Host", "content-length", "transfer-encoding", "connection", "authorization", "x-api-key"]) {
      const exit = await exitOf(url, (g) => g.chat.create(chat, { headers: { [name]: "value-secret-9" } }))
      const failure = failureOf(exit)
      expect(failure).toMatchObject({
        _tag: "InvalidRequest",
        field: `options.headers.${name.toLowerCase()}`,
        rule: "forbidden-header"
      })
      expect(JSON.stringify(failure)).not.toContain("value-secret-9")
    }
    const injected = await exitOf(url, (g) => g.chat.create(chat, { headers: { "x-evil": "a\r\nx-injected: 1" } }))
    const failure = failureOf(injected)
    expect(failure).toMatchObject({ _tag: "InvalidRequest", field: "options.headers.x-evil", rule: "header-value" })
    expect(JSON.stringify(failure)).not.toContain("x-injected")
    // A character past Latin-1 cannot go in a header: the message says so, and shows no value.
    const wide = failureOf(await exitOf(url, (g) => g.chat.create(chat, { headers: { "x-user": "José 世界" } })))
    expect(wide).toMatchObject({ field: "options.headers.x-user", rule: "header-value" })
    expect((wide as { message: string }).message).toContain("Latin-1")
    expect(JSON.stringify(wide)).not.toContain("世界")
    expect(seen.requests).toBe(0)
  })

  it("never reach an error: a value the server echoes is redacted", async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(400, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: `bad trace ${String(req.headers["x-trace-id"])}`, type: "invalid" } }))
    })
    const exit = await exitOf(url, (g) => g.chat.create(chat, { headers: { "x-trace-id": "trace-secret-123" } }))
    const failure = failureOf(exit)
    expect(failure).toMatchObject({ _tag: "BadRequest" })
    expect(JSON.stringify(failure)).not.toContain("trace-secret-123")
  })
})

describe("onResponse and withResponse", () => {
  const rateHeaders = {
    "x-request-id": "req_chat_1",
    "x-ratelimit-limit-requests": "500",
    "x-ratelimit-remaining-requests": "499",
    "x-ratelimit-reset-requests": "1m30s",
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "29990",
    "x-ratelimit-reset-tokens": "20ms",
    "retry-after": "2",
    "set-cookie": "session=sk-calloptions-key"
  }

  it("gives a JSON answer's status, request id, secret-free headers and rate limits, once", async () => {
    const { url } = await serve((_req, res) => answer(res, rateHeaders))
    const infos: Array<ResponseInfo> = []
    const exit = await exitOf(url, (g) => g.chat.create(chat, { onResponse: (info) => infos.push(info) }))
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(infos).toHaveLength(1)
    expect(infos[0]).toMatchObject({
      status: 200,
      requestId: "req_chat_1",
      rateLimit: {
        requests: { limit: 500, remaining: 499, resetMs: 90_000 },
        tokens: { limit: 30000, remaining: 29990, resetMs: 20 },
        retryAfterMs: 2000
      }
    })
    expect(infos[0]!.headers["x-ratelimit-limit-requests"]).toBe("500")
    expect(infos[0]!.headers["set-cookie"]).toBeUndefined()
    expect(JSON.stringify(infos[0])).not.toContain("sk-calloptions-key")
  })

  it("withResponse gives the value and the meta of the one request it made", async () => {
    const { url, seen } = await serve((_req, res) => answer(res, rateHeaders))
    const mine: Array<ResponseInfo> = []
    const exit = await exitOf(url, (g) =>
      withResponse((options) => g.chat.create(chat, options), { onResponse: (info) => mine.push(info) })
    )
    expect(Exit.isSuccess(exit) && exit.value.data.choices[0]?.message.content).toBe("hi")
    expect(Exit.isSuccess(exit) && exit.value.response?.requestId).toBe("req_chat_1")
    expect(mine).toHaveLength(1)
    expect(seen.requests).toBe(1)
  })

  it("on a stream: called when its headers arrive, before its first event, with the messages-style rate limits", async () => {
    const reset = new Date(Date.now() + 60_000).toISOString()
    const { url } = await serve((_req, res) => {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "request-id": "req_msg_1",
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "49",
        "anthropic-ratelimit-requests-reset": reset,
        "anthropic-ratelimit-input-tokens-remaining": "1000",
        "anthropic-ratelimit-output-tokens-limit": "8000"
      })
      res.end(messagesTextStream)
    })
    const order: Array<string> = []
    const exit = await exitOf(url, (g) =>
      runToFinal(
        g.messages.stream(epsilon, {
          onResponse: (info) => {
            order.push("response")
            expect(info).toMatchObject({
              status: 200,
              requestId: "req_msg_1",
              rateLimit: {
                requests: { limit: 50, remaining: 49 },
                inputTokens: { remaining: 1000 },
                outputTokens: { limit: 8000 }
              }
            })
            const resetMs = info.rateLimit.requests?.resetMs ?? -1
            expect(resetMs).toBeGreaterThan(50_000)
            expect(resetMs).toBeLessThanOrEqual(60_000)
          }
        }),
        (event) => Effect.sync(() => void order.push(event.type))
      )
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(order[0]).toBe("response")
    expect(order[1]).toBe("message_start")
  })

  it("withResponse on a stream opens it in the scope: the meta first, then its events and final answer", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_msg_2" })
      res.end(messagesTextStream)
    })
    const exit = await exitOf(url, (g) =>
      Effect.scoped(
        Effect.gen(function* () {
          const { data, response } = yield* withResponse((options) => g.messages.stream(epsilon, options))
          const requestId = response?.requestId
          let events = 0
          const message = yield* runToFinal(data, () => Effect.sync(() => void events++))
          return { requestId, events, text: message.content }
        })
      )
    )
    expect(Exit.isSuccess(exit) && exit.value).toMatchObject({
      requestId: "req_msg_2",
      events: 8,
      text: [{ type: "text", text: "Hello, world" }]
    })
  })

  it("withResponse on a plain stream (speech) gives the meta and the bytes; an error answer fails the effect", async () => {
    const { url } = await serve((req, res) => {
      if (req.url?.includes("speech") === true) {
        res.writeHead(200, { "content-type": "audio/wav", "x-request-id": "req_tts" })
        res.end(new Uint8Array([1, 2, 3]))
      }
    })
    const speech = { model: "gpt-4o-mini-tts", input: "Hello", voice: "alloy" as const }
    const exit = await exitOf(url, (g) =>
      Effect.scoped(
        Effect.gen(function* () {
          const { data, response } = yield* withResponse((options) => g.speech.stream(speech, options))
          const chunks = yield* Stream.runCollect(data)
          return { requestId: response?.requestId, bytes: chunks.reduce((n, c) => n + c.length, 0) }
        })
      )
    )
    expect(Exit.isSuccess(exit) && exit.value).toEqual({ requestId: "req_tts", bytes: 3 })

    const { url: failing } = await serve((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: "no", type: "invalid_api_key" } }))
    })
    const refused = await exitOf(failing, (g) =>
      Effect.scoped(withResponse((options) => g.speech.stream(speech, options)))
    )
    expect(failureOf(refused)).toMatchObject({ _tag: "AuthenticationError" })
  })

  it("is not called for an error answer", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(404, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: "no such model", type: "not_found" } }))
    })
    let called = 0
    const exit = await exitOf(url, (g) => g.chat.create(chat, { onResponse: () => void called++ }))
    expect(failureOf(exit)).toMatchObject({ _tag: "NotFound" })
    expect(called).toBe(0)
  })
})

describe("the rules, read alone", () => {
  it("rateLimitOf reads durations, seconds, times and retry-after, and leaves out what it cannot read", () => {
    const now = Date.parse("2026-11-28T10:00:00Z")
    expect(
      rateLimitOf(
        {
          "x-ratelimit-limit-requests": "100",
          "x-ratelimit-reset-requests": "1h2m3.5s",
          "x-ratelimit-remaining-tokens": "12",
          "x-ratelimit-reset-tokens": "6m0s",
          "anthropic-ratelimit-output-tokens-reset": "2026-11-28T10:00:30Z",
          "anthropic-ratelimit-input-tokens-limit": "not a number",
          "retry-after-ms": "250"
        },
        now
      )
    ).toEqual({
      requests: { limit: 100, resetMs: 3_723_500 },
      tokens: { remaining: 12, resetMs: 360_000 },
      outputTokens: { resetMs: 30_000 },
      retryAfterMs: 250
    })
    expect(rateLimitOf({ "x-ratelimit-reset-requests": "9".repeat(100) }, now)).toEqual({})
    expect(rateLimitOf({}, now)).toEqual({})
  })

  it("check refuses what would break the request, naming the option", () => {
    const fieldOf = (options: CallOptions) => {
      const checked = check(options)
      return Result.isFailure(checked) ? checked.failure.field : "accepted"
    }
    expect(fieldOf({})).toBe("accepted")
    expect(fieldOf({ timeoutMs: 1, maxRetries: 0, headers: { "x-a": "" } })).toBe("accepted")
    expect(fieldOf({ timeoutMs: Number.NaN })).toBe("options.timeoutMs")
    expect(fieldOf({ streamIdleTimeoutMs: Number.NaN })).toBe("options.streamIdleTimeoutMs")
    expect(fieldOf({ maxRetries: 101 })).toBe("options.maxRetries")
    expect(fieldOf({ headers: { "bad name": "v" } })).toBe("options.headers.bad name")
    expect(fieldOf({ headers: { "Sec-WebSocket-Key": "v" } })).toBe("options.headers.sec-websocket-key")
    expect(fieldOf({ headers: { cookie: "v" } })).toBe("options.headers.cookie")
    expect(fieldOf({ headers: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-${i}`, "v"])) })).toBe(
      "options.headers"
    )
    expect(fieldOf({ signal: {} as AbortSignal })).toBe("options.signal")
    const checked = check({ headers: { "X-Upper": "v" } })
    expect(Result.isSuccess(checked) && checked.success.headers).toEqual({ "x-upper": "v" })
  })
})
