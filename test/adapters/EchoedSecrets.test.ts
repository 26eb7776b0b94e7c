// A hostile gateway that echoes the caller's secrets back by every way the leak hunt found: JSON
// escapes in an error body, a request-id header, a platform error sent with HTTP 200, an error event
// inside a stream, a failed video task's message. No error, stack, printed cause or span may show them.
import { Cause, Effect, Exit, Stream } from "effect"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { recordingTracer, shownBy } from "../support/tracers.js"

const KEY = "sk-LEAKKEY-7f3a9c1e5b"
const PASS = "pw-LEAKPASS-42q8z"
const TOKEN = "tok-LEAKTOKEN-9x8y7z"

/** `text` with every `L` written as a JSON escape: the secret is whole only once parsed. */
const escaped = (text: string) => JSON.stringify(text).replace(/L/g, "\\u004c")

const bodyOf = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = ""
    req.on("data", (c: Buffer) => (text += c.toString()))
    req.on("end", () => resolve(text))
  })

let server: Server
let url = ""
beforeAll(async () => {
  server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const auth = String(req.headers.authorization ?? "")
      const path = req.url ?? ""
      res.setHeader("x-request-id", `req-${auth}`)
      if (path.startsWith("/prod-api/v3/auth/getToken")) {
        // Logged in, with a token; or refused with HTTP 200 and the request body echoed.
        res.setHeader("content-type", "application/json")
        return res.end(
          body.includes("refuse-me")
            ? JSON.stringify({ code: 401, msg: `bad login ${body}` })
            : JSON.stringify({ code: 200, data: TOKEN })
        )
      }
      if (path.startsWith("/prod-api/")) {
        res.setHeader("content-type", "application/json")
        return res.end(JSON.stringify({ code: 500, msg: `token ${auth}` }))
      }
      if (path.startsWith("/v1/chat/completions")) {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(
          `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n`
        )
        return res.end(`data: {"error":{"message":${escaped(`rejected ${auth}`)},"type":"server_error"}}\n\n`)
      }
      if (path.startsWith("/v1/video/generations/")) {
        res.setHeader("content-type", "application/json")
        return res.end(
          JSON.stringify({ task_id: "video_1", status: "failed", error: { code: 500, message: `key ${auth}` } })
        )
      }
      if (path.startsWith("/v1/models") && req.headers["x-ok"] === "1") {
        res.setHeader("content-type", "application/json")
        return res.end(JSON.stringify({ object: "list", data: [] }))
      }
      res.writeHead(401, { "content-type": "application/json" })
      res.end(`{"error":{"message":${escaped(`bad ${auth}`)},"type":"authentication_error"}}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const shown = (value: unknown): string => {
  const stack = typeof value === "object" && value !== null ? (value as { stack?: unknown }).stack : undefined
  return [String(value), JSON.stringify(value), String(stack ?? "")].join("\n")
}

const expectNoSecret = (text: string) => {
  for (const secret of [KEY, PASS, TOKEN]) expect(text).not.toContain(secret)
}

/**
 * Runs a call against the hostile server; everything it shows (error, cause, spans: every attribute
 * value ever set and the printed cause of every span that failed), as text.
 */
const everything = async <A, E>(password: string, call: (g: Gateway["Service"]) => Effect.Effect<A, E>) => {
  const { tracer, spans } = recordingTracer()
  const exit = await Effect.runPromiseExit(
    Effect.flatMap(Gateway, call).pipe(
      Effect.provide(
        Gateway.layer({
          baseUrl: url,
          apiKey: KEY,
          platformUrl: url,
          platformUsername: "alice",
          platformPassword: password,
          maxRetries: 0
        })
      ),
      Effect.withTracer(tracer)
    )
  )
  const failure = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
  return {
    exit,
    failure,
    text: [Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "", shown(failure), shownBy(spans)].join("\n")
  }
}

describe("secrets a hostile gateway echoes back", () => {
  it("stay out of an error decoded from JSON escapes, and out of its request id", async () => {
    const { failure, text } = await everything(PASS, (g) => g.models.list())
    expect(failure).toMatchObject({ _tag: "AuthenticationError" })
    expect((failure as { message: string }).message).toContain("[redacted]")
    expectNoSecret(text)
  })

  it("stay out of a successful call's span (the request id header)", async () => {
    const { exit, text } = await everything(PASS, (g) => g.models.list({}, { headers: { "x-ok": "1" } }))
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(text).toContain("umg.gateway.request_id")
    expectNoSecret(text)
  })

  it("stay out of platform errors sent with HTTP 200: the password at login, the token after it", async () => {
    const login = await everything("refuse-me-pw-LEAKPASS-42q8z", (g) => g.platform.login())
    expect(login.failure).toMatchObject({ _tag: "PlatformError" })
    expect(login.text).not.toContain("refuse-me-pw-LEAKPASS")
    expectNoSecret(login.text)
    const submit = await everything(PASS, (g) =>
      g.platform.anyShootEasy({ size: "512x512", contents: [{ parts: [{ text: "a cat" }] }] })
    )
    expect(submit.failure).toMatchObject({ _tag: "PlatformError" })
    expectNoSecret(submit.text)
  })

  it("stay out of a stream's error event", async () => {
    const { failure, text } = await everything(PASS, (g) =>
      Stream.runDrain(g.chat.stream({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] }))
    )
    expect(failure).toMatchObject({ _tag: "IncompleteStream", reason: "error-event" })
    expectNoSecret(text)
  })

  it("stay out of a failed video task's message, from wait and from waitAll", async () => {
    const wait = await everything(PASS, (g) => g.video.wait("video_1"))
    expect(wait.failure).toMatchObject({ _tag: "VideoTaskFailed" })
    expectNoSecret(wait.text)
    const all = await everything(PASS, (g) => g.video.waitAll(["video_1"]))
    expectNoSecret(all.text + shown(Exit.isSuccess(all.exit) ? all.exit.value : undefined))
  })
})
