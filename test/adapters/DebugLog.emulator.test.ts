// The debug log against the emulator over loopback: at Effect's `Debug` level a call writes one line
// per request sent and per answer (method, path, status, time, attempt, request id), per body that
// failed after its answer (lost, too large, not valid, past the time limit), per retry, per stream end
// — SSE events or a byte stream's bytes (`speech.stream`, a video download), time, how it ended — and
// per WebSocket open and close, through the fiber's own loggers; at the default level it writes
// nothing. No line or annotation ever holds the API key, a configured header's secret or a secret the
// server echoes.
import { createServer } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Effect, Logger, References, Stream } from "effect"
import type { LogLevel } from "effect/LogLevel"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

// Recognisable fakes: the key the emulator accepts, and a configured header's value.
const KEY = "sk-umg-debuglog-FAKE-7f3a9c21"
const TEAM = "team-token-DEBUGLOG-SECRET-4411"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, keys: { [KEY]: "full" } })
})
afterAll(async () => {
  await emu.close()
})
beforeEach(() => {
  emu.clearFaults()
})

interface Line {
  readonly level: string
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
}

/** Every line a run writes, with the annotations in force when it was written. */
const capture = () => {
  const lines: Array<Line> = []
  const logger = Logger.make(({ logLevel, message, fiber }) => {
    const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
    lines.push({
      level: logLevel,
      message: String(parts[0]),
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  })
  return { lines, layer: Logger.layer([logger]) }
}

const layerFor = (over: Partial<GatewayConfigInput> = {}) =>
  Gateway.layer({
    baseUrl: emu.url,
    apiKey: KEY,
    headers: { "x-team-token": TEAM },
    retryBaseDelayMs: 10,
    retryMaxDelayMs: 40,
    ...over
  })

/** Runs `effect` with a capturing logger, at `level` (Effect's default when `undefined`); umg's lines. */
const logged = async <A, E>(
  effect: Effect.Effect<A, E, Gateway>,
  level: LogLevel | undefined,
  over: Partial<GatewayConfigInput> = {}
): Promise<ReadonlyArray<Line>> => {
  const { lines, layer } = capture()
  const provided = effect.pipe(Effect.provide(layerFor(over)), Effect.provide(layer))
  await Effect.runPromise(
    Effect.exit(level === undefined ? provided : Effect.provideService(provided, References.MinimumLogLevel, level))
  )
  return lines.filter((line) => line.message.startsWith("umg:"))
}

/** No credential or echoed secret in any line, message or annotation. */
const expectNoSecret = (lines: ReadonlyArray<Line>): void => {
  const shown = JSON.stringify(lines)
  expect(shown).not.toContain(KEY)
  expect(shown).not.toContain(TEAM)
  expect(shown).not.toContain("Bearer")
}

const chatBody = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Hello" }] }
const create = Effect.flatMap(Gateway, (g) => g.chat.create(chatBody))

describe("the debug log", () => {
  it("writes nothing at Effect's default level, and a request and a response line per chat call at Debug", async () => {
    expect(await logged(create, undefined)).toEqual([])
    expect(await logged(create, "Info")).toEqual([])

    const lines = await logged(create, "Debug")
    expect(lines.map((l) => l.message)).toEqual(["umg: request", "umg: response"])
    expect(lines.every((l) => l.level === "Debug")).toBe(true)
    const where = {
      "umg.family": "openai",
      "http.request.method": "POST",
      "url.path": "/v1/chat/completions",
      "server.address": "127.0.0.1",
      "server.port": emu.port,
      "umg.attempt": 1
    }
    expect(lines[0]!.annotations).toEqual(where)
    expect(lines[1]!.annotations).toMatchObject({ ...where, "http.response.status_code": 200 })
    expect(lines[1]!.annotations["umg.duration_ms"]).toEqual(expect.any(Number))
    expect(lines[1]!.annotations["umg.gateway.request_id"]).toMatch(/^req_/)
    expectNoSecret(lines)
  })

  it("logs a retry between two attempts: the failed answer, the wait and the next attempt, the echoed secrets redacted", async () => {
    emu.inject("chat", {
      kind: "status",
      status: 500,
      headers: { "x-request-id": `req-${KEY}-${TEAM}` },
      body: { error: { message: `bad key ${KEY}`, type: "server_error" } }
    })
    const lines = await logged(create, "Debug")
    expect(lines.map((l) => l.message)).toEqual([
      "umg: request",
      "umg: response",
      "umg: retrying",
      "umg: request",
      "umg: response"
    ])
    expect(lines[1]!.annotations).toMatchObject({
      "umg.attempt": 1,
      "http.response.status_code": 500,
      "umg.gateway.request_id": "req-[redacted]-[redacted]"
    })
    expect(lines[2]!.annotations).toMatchObject({
      "umg.family": "openai",
      "http.request.method": "POST",
      "url.path": "/v1/chat/completions",
      "umg.attempt": 2,
      "error.type": "ServerError",
      "http.response.status_code": 500
    })
    expect(lines[2]!.annotations["umg.retry_delay_ms"]).toEqual(expect.any(Number))
    expect(lines[3]!.annotations).toMatchObject({ "umg.attempt": 2 })
    expect(lines[4]!.annotations).toMatchObject({ "umg.attempt": 2, "http.response.status_code": 200 })
    expectNoSecret(lines)
  })

  it("logs an attempt that reached no server with the failure's type, and no response", async () => {
    // A port nobody listens on: the connection is refused.
    const port = await new Promise<number>((done) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number }
        server.close(() => done(port))
      })
    })
    const lines = await logged(create, "Debug", { baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 })
    expect(lines.map((l) => l.message)).toEqual(["umg: request", "umg: request failed"])
    expect(lines[1]!.annotations).toMatchObject({
      "url.path": "/v1/chat/completions",
      "server.port": port,
      "umg.attempt": 1,
      "error.type": "TransportError(connect)"
    })
    expectNoSecret(lines)
  })

  it("logs a stream's end once: completed with its events and bytes, cancelled by its reader, failed when cut", async () => {
    const stream = Effect.flatMap(Gateway, (g) => g.chat.stream(chatBody).pipe(Stream.runCollect))
    const completed = await logged(stream, "Debug")
    expect(completed.map((l) => l.message)).toEqual(["umg: request", "umg: response", "umg: stream ended"])
    const end = completed[2]!.annotations
    expect(end).toMatchObject({ "umg.family": "openai", "umg.stream.outcome": "completed" })
    expect(end["umg.stream.events"]).toBeGreaterThan(1)
    expect(end["umg.stream.bytes"]).toBeGreaterThan(100)
    expect(end["umg.duration_ms"]).toEqual(expect.any(Number))
    expect(end).not.toHaveProperty("error.type")

    const first = Effect.flatMap(Gateway, (g) => g.chat.stream(chatBody).pipe(Stream.take(1), Stream.runCollect))
    const cancelled = (await logged(first, "Debug")).filter((l) => l.message === "umg: stream ended")
    expect(cancelled.map((l) => l.annotations)).toEqual([
      expect.objectContaining({ "umg.stream.outcome": "cancelled", "umg.stream.events": 1 })
    ])

    emu.inject("chat", { kind: "sse-cut", afterEvents: 2 })
    const cut = (await logged(stream, "Debug", { maxRetries: 0 })).filter((l) => l.message === "umg: stream ended")
    expect(cut.map((l) => l.annotations)).toEqual([
      expect.objectContaining({ "umg.stream.outcome": "failed", "error.type": "IncompleteStream(cut)" })
    ])
    expectNoSecret([...completed, ...cancelled, ...cut])
  })

  it("logs a byte stream's end: speech.stream completed with its bytes (no events), cancelled by its reader", async () => {
    const speech = { model: "gpt-4o-mini-tts", input: "Hello there, how are you today?", voice: "alloy" } as const
    let received = 0
    const drained = Effect.flatMap(Gateway, (g) =>
      Stream.runForEach(g.speech.stream(speech), (chunk) => Effect.sync(() => (received += chunk.length)))
    )
    const completed = await logged(drained, "Debug")
    expect(completed.map((l) => l.message)).toEqual(["umg: request", "umg: response", "umg: stream ended"])
    const end = completed[2]!.annotations
    expect(end).toMatchObject({
      "umg.family": "openai",
      "umg.stream.outcome": "completed",
      "umg.stream.bytes": received
    })
    expect(received).toBeGreaterThan(100)
    expect(end["umg.duration_ms"]).toEqual(expect.any(Number))
    expect(end).not.toHaveProperty("umg.stream.events")
    expect(end).not.toHaveProperty("error.type")

    const first = Effect.flatMap(Gateway, (g) => Stream.runDrain(Stream.take(g.speech.stream(speech), 1)))
    const cancelled = (await logged(first, "Debug")).filter((l) => l.message === "umg: stream ended")
    expect(cancelled.map((l) => l.annotations["umg.stream.outcome"])).toEqual(["cancelled"])

    // Off: the same streams, no line.
    expect(await logged(drained, undefined)).toEqual([])
    expectNoSecret([...completed, ...cancelled])
  })

  it("logs a video download's end: completed with the answer's bytes, failed with the decoder's error when the answer is refused", async () => {
    const submitted = await Effect.runPromise(
      Effect.flatMap(Gateway, (g) =>
        Effect.flatMap(g.video.submit({ model: "alpha-2", prompt: "a calm sea" }), (task) =>
          Effect.as(g.video.wait(task.task_id, { intervalMs: 50 }), task.task_id)
        )
      ).pipe(Effect.provide(layerFor({ minPollIntervalMs: 50 })))
    )
    const download = Effect.flatMap(Gateway, (g) => Stream.runDrain(g.video.downloadStream(submitted)))
    const ok = (await logged(download, "Debug")).filter((l) => l.annotations["url.path"] !== "/v1/video/generations")
    expect(ok.map((l) => l.message)).toEqual(["umg: request", "umg: response", "umg: stream ended"])
    expect(ok[0]!.annotations).toMatchObject({ "umg.family": "video", "url.path": "/v1/video/generations/download" })
    expect(ok[2]!.annotations).toMatchObject({ "umg.family": "video", "umg.stream.outcome": "completed" })
    expect(ok[2]!.annotations["umg.stream.bytes"]).toBeGreaterThan(100)

    // An answer whose base64 is not base64: the download's own check stops reading it and fails the stream.
    const body = { success: true, generation_id: submitted, task_id: submitted, format: "mp4", size: 3 }
    emu.inject("video.download", {
      kind: "status",
      status: 200,
      body: { ...body, base64: "@@@@", data_url: "data:video/mp4;base64,@@@@" }
    })
    const refused = (await logged(download, "Debug")).filter((l) => l.message === "umg: stream ended")
    expect(refused.map((l) => l.annotations)).toEqual([
      expect.objectContaining({ "umg.family": "video", "umg.stream.outcome": "failed", "error.type": "DecodeError" })
    ])
    expectNoSecret([...ok, ...refused])
  })

  it("logs an answer whose body failed after its headers: past the time limit, too large, not JSON; each attempt, the retry its own line", async () => {
    // Headers, then nothing: the attempt's time limit passes while the body is read.
    emu.inject("chat", { kind: "stall" })
    const stalled = await logged(create, "Debug", { maxRetries: 0, timeoutMs: 300 })
    expect(stalled.map((l) => l.message)).toEqual(["umg: request", "umg: response", "umg: response failed"])
    expect(stalled[2]!.annotations).toMatchObject({
      "umg.family": "openai",
      "http.request.method": "POST",
      "url.path": "/v1/chat/completions",
      "server.port": emu.port,
      "umg.attempt": 1,
      "error.type": "TimeoutError(request)"
    })
    expect(stalled[2]!.annotations["umg.duration_ms"]).toBeGreaterThanOrEqual(250)

    // Past the answer's bound: no retry (it would be as large again).
    const tooLarge = await logged(create, "Debug", { limits: { maxResponseBytes: 64 } })
    expect(tooLarge.map((l) => l.message)).toEqual(["umg: request", "umg: response", "umg: response failed"])
    expect(tooLarge[2]!.annotations["error.type"]).toBe("TransportError(too-large)")

    // Not JSON under a 200.
    emu.inject("chat", {
      kind: "status",
      status: 200,
      body: "not json",
      headers: { "content-type": "application/json" }
    })
    const notJson = await logged(create, "Debug")
    expect(notJson.map((l) => l.message)).toEqual(["umg: request", "umg: response", "umg: response failed"])
    expect(notJson[2]!.annotations["error.type"]).toBe("DecodeError")

    // Cut mid-body, then retried: the failed attempt's line, then the retry's, then the next attempt.
    emu.inject("chat", { kind: "drop-mid", afterBytes: 10 })
    const cut = await logged(create, "Debug")
    expect(cut.map((l) => l.message)).toEqual([
      "umg: request",
      "umg: response",
      "umg: response failed",
      "umg: retrying",
      "umg: request",
      "umg: response"
    ])
    expect(cut[2]!.annotations).toMatchObject({ "umg.attempt": 1, "error.type": "TransportError(reset)" })

    // A refusal (its status in the response line) and a success have none.
    emu.inject("chat", {
      kind: "status",
      status: 400,
      body: { error: { message: "no", type: "invalid_request_error" } }
    })
    expect((await logged(create, "Debug")).map((l) => l.message)).toEqual(["umg: request", "umg: response"])
    expectNoSecret([...stalled, ...tooLarge, ...notJson, ...cut])
  })

  it("logs a WebSocket session's opening and close (by umg or the server), a refused opening, never the query credential", async () => {
    const realtime = Effect.scoped(
      Effect.flatMap(Gateway, (g) =>
        Effect.flatMap(g.realtime.connect({ model: "gpt-realtime", session: { modalities: ["text"] } }), (s) => s.next)
      )
    )
    const lines = await logged(realtime, "Debug")
    expect(lines.map((l) => l.message)).toEqual(["umg: websocket opened", "umg: websocket closed"])
    expect(lines[0]!.annotations).toMatchObject({
      "umg.family": "realtime",
      "url.path": "/v1/realtime",
      "server.port": emu.port
    })
    expect(lines[0]!.annotations["umg.duration_ms"]).toEqual(expect.any(Number))
    expect(lines[1]!.annotations).toMatchObject({
      "umg.family": "realtime",
      "websocket.close_code": 1000,
      "umg.closed_by": "umg"
    })

    // The key in the URL's query (`nativeAuth: "query"`): the path alone is shown.
    const live = Effect.scoped(
      Effect.flatMap(Gateway, (g) => g.live.connect({ model: "zeta-live-2.5-flash-native-audio" }))
    )
    const query = await logged(live, "Debug", { nativeAuth: "query" })
    expect(query.map((l) => l.message)).toEqual(["umg: websocket opened", "umg: websocket closed"])
    expect(query[0]!.annotations["url.path"]).toBe("/ws/v1beta/models/zeta-live-2.5-flash-native-audio/liveStream")

    // The server closes first, its reason echoing the key: the code and who closed, never the reason.
    emu.inject("realtime", { kind: "ws-close", code: 1011, reason: `bad key ${KEY}`, afterMessages: 1 })
    const drain = Effect.scoped(
      Effect.flatMap(Gateway, (g) =>
        Effect.flatMap(g.realtime.connect({ model: "gpt-realtime", session: { modalities: ["text"] } }), (s) =>
          Effect.exit(Stream.runDrain(s.events))
        )
      )
    )
    const byServer = await logged(drain, "Debug")
    expect(byServer.map((l) => l.message)).toEqual(["umg: websocket opened", "umg: websocket closed"])
    expect(byServer[1]!.annotations).toMatchObject({ "websocket.close_code": 1011, "umg.closed_by": "server" })

    emu.inject("realtime", { kind: "status", status: 401, body: { error: { message: `key ${KEY} is not valid` } } })
    const refused = await logged(realtime, "Debug")
    expect(refused.map((l) => l.message)).toEqual(["umg: websocket not opened"])
    expect(refused[0]!.annotations).toMatchObject({ "umg.family": "realtime", "error.type": "AuthenticationError" })
    expectNoSecret([...lines, ...query, ...byServer, ...refused])
  })
})
