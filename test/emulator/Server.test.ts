import { request } from "node:http"
import { WebSocket } from "ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { DEFAULT_KEY, makeContext } from "../../src/emulator/server/Context.js"
import { unknownPathMessage } from "../../src/emulator/server/Family.js"
import { compilePattern, Router } from "../../src/emulator/server/Router.js"
import { makeServer } from "../../src/emulator/server/Server.js"
import { jsonEvents, parseSse } from "./RawSse.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const headers = (): Record<string, string> => ({
  authorization: `Bearer ${emu.apiKey}`,
  "content-type": "application/json"
})
const post = (path: string, body: unknown, h: Record<string, string> = headers()): Promise<Response> =>
  fetch(emu.url + path, { method: "POST", headers: h, body: JSON.stringify(body) })

const message = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 64, messages: [{ role: "user", content: "hello" }] }
const chat = { model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }

/** Reads a body to its end or its failure, keeping what arrived. */
const readAll = async (res: Response): Promise<{ text: string; failed: boolean }> => {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ""
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { text, failed: false }
      text += decoder.decode(value, { stream: true })
    }
  } catch {
    return { text, failed: true }
  }
}

/** Reads until `enough(text)` holds, then reports whether more arrives within `ms` (used only to show a stall). */
const readThenWait = async (
  res: Response,
  enough: (text: string) => boolean,
  ms: number
): Promise<{ text: string; more: boolean }> => {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ""
  while (!enough(text)) {
    const { done, value } = await reader.read()
    if (done) return { text, more: false }
    text += decoder.decode(value, { stream: true })
  }
  const next = reader.read().then(
    () => true,
    () => true
  )
  const more = await Promise.race([next, new Promise<boolean>((r) => setTimeout(() => r(false), ms))])
  await reader.cancel().catch(() => undefined)
  return { text, more }
}

describe("the router", () => {
  it("matches a parameter followed by a literal suffix in the same segment", () => {
    const p = compilePattern("/v1beta/models/{model}:generateContent")
    expect(p.match("/v1beta/models/zeta-2.5-pro:generateContent")).toEqual({ model: "zeta-2.5-pro" })
    expect(p.match("/v1beta/models/zeta-2.5-pro:streamGenerateContent")).toBeUndefined()
    expect(p.match("/v1beta/models/a/b:generateContent")).toBeUndefined()
  })

  it("prefers a literal path to a parametrised one and reports 405 for a known path", () => {
    const r = new Router([
      { path: "/v1/video/generations/{task_id}", method: "GET", id: "get" },
      { path: "/v1/video/generations/download", method: "GET", id: "download" }
    ])
    const found = r.find("GET", "/v1/video/generations/download")
    expect(found.kind === "found" && found.route.id).toBe("download")
    expect(r.find("POST", "/v1/video/generations/x")).toEqual({ kind: "method-not-allowed", allowed: ["GET"] })
    expect(r.find("GET", "/nope")).toEqual({ kind: "not-found" })
  })

  it("points a native-content method asked under /v1 or /v1alpha to /v1beta, and no other unknown path", () => {
    const hint = "; native-content endpoints are under /v1beta"
    for (const path of [
      "/v1/models/zeta-2.5-flash:generateContent",
      "/v1alpha/models/zeta-2.5-flash:streamGenerateContent"
    ])
      expect(unknownPathMessage("POST", path)).toContain(`Unknown path: POST ${path}${hint}`)
    for (const path of [
      "/v1/models/a/b:generateContent",
      "/v1beta/models/a/b:generateContent",
      "/v2/models/zeta-2.5-flash:generateContent",
      "/v1/models/zeta-2.5-flash:countTokens",
      "/v1/models/zeta-2.5-flash:generateContent/x",
      "/nope"
    ])
      expect(unknownPathMessage("POST", path)).toBe(`Unknown path: POST ${path}`)
  })
})

describe("the server", () => {
  it("answers an unknown path with 404 in the OpenAI error shape", async () => {
    const res = await fetch(`${emu.url}/v1/nothing-here`, { headers: headers() })
    expect(res.status).toBe(404)
    const body = (await res.json()) as { error: { type: string; message: string } }
    expect(body.error.type).toBe("invalid_request_error")
    expect(body.error.message).toContain("/v1/nothing-here")
  })

  it("answers an unknown native path with the native 404 envelope", async () => {
    const res = await post("/v1beta/models/zeta-2.5-pro:unknownAction", {})
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } })
  })

  it("answers a request target that is not a valid path with 404 instead of failing", async () => {
    const url = new URL(emu.url)
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: "//", method: "GET" }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", reject)
      req.end()
    })
    expect(status).toBe(404)
  })

  it("answers a wrong method with 405 and an Allow header", async () => {
    const res = await fetch(`${emu.url}/v1/messages`, { headers: headers() })
    expect(res.status).toBe(405)
    expect(res.headers.get("allow")).toBe("POST")
  })

  it("answers a CORS preflight with the methods and the headers a browser client asks for", async () => {
    const res = await fetch(`${emu.url}/v1/messages`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, x-api-key, anthropic-version, x-vendor-api-key"
      }
    })
    expect(res.status).toBe(204)
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173")
    expect(res.headers.get("access-control-allow-methods")).toContain("POST")
    expect(res.headers.get("access-control-allow-headers")).toContain("x-vendor-api-key")
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization")
  })

  it("never echoes an overlong requested header, and allows only loopback origins unless widened", async () => {
    const preflight = (origin: string, asked: string) =>
      fetch(`${emu.url}/v1/messages`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": asked }
      })
    const huge = `x-${"a".repeat(8_000)}`
    const res = await preflight("http://127.0.0.1:8080", huge)
    expect(res.headers.get("access-control-allow-headers")).not.toContain(huge)
    expect((res.headers.get("access-control-allow-headers") ?? "").length).toBeLessThan(400)
    const foreign = await preflight("https://evil.example", "authorization")
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull()
    const wide = await startEmulator({ fast: true, corsOrigins: ["https://app.example"] })
    try {
      const ok = await fetch(`${wide.url}/v1/models`, {
        headers: { origin: "https://app.example", authorization: `Bearer ${wide.apiKey}` }
      })
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example")
      const other = await fetch(`${wide.url}/v1/models`, {
        headers: { origin: "https://evil.example", authorization: `Bearer ${wide.apiKey}` }
      })
      expect(other.headers.get("access-control-allow-origin")).toBeNull()
    } finally {
      await wide.close()
    }
  })

  it("adds CORS headers and a request id per family to every response", async () => {
    const m = await post("/v1/messages", message, { ...headers(), origin: "http://localhost:5173" })
    expect(m.headers.get("access-control-allow-origin")).toBe("http://localhost:5173")
    // A page on another origin reads the request id and every header the retry policy honours.
    const exposed = (m.headers.get("access-control-expose-headers") ?? "").split(/\s*,\s*/)
    expect(exposed).toEqual(
      expect.arrayContaining(["request-id", "x-request-id", "retry-after", "retry-after-ms", "x-should-retry"])
    )
    expect(m.headers.get("request-id")).toMatch(/^req_/)
    const c = await post("/v1/chat/completions", chat)
    expect(c.headers.get("x-request-id")).toMatch(/^req_/)
    expect(c.headers.get("request-id")).toBeNull()
  })

  it("rejects a body declared larger than its route's bound (32 MiB) with 413 in the family's shape", async () => {
    const url = new URL(`${emu.url}/v1/messages`)
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { ...headers(), "content-length": String(70 * 1024 * 1024) }
        },
        (res) => {
          let text = ""
          res.on("data", (c: Buffer) => (text += c.toString()))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
        }
      )
      req.on("error", reject)
      req.flushHeaders()
    })
    expect(status).toBe(413)
    expect(JSON.parse(body)).toMatchObject({ type: "error", error: { type: "request_too_large" } })
  })
})

describe("a crashing route", () => {
  it("answers 500 svc_api_error in the messages family, the gateway's internal error", async () => {
    const ctx = makeContext({})
    const server = makeServer(
      ctx,
      [{ name: "messages", method: "POST", path: "/v1/messages", handle: () => Promise.reject(new Error("boom")) }],
      []
    )
    const port = await server.listen()
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${DEFAULT_KEY}` },
        body: "{}"
      })
      expect(res.status).toBe(500)
      expect(await res.json()).toMatchObject({
        type: "error",
        error: { type: "svc_api_error", message: expect.stringContaining("boom") }
      })
    } finally {
      await server.close()
    }
  })
})

describe("counters", () => {
  it("count a request that reaches its handler exactly once and a wrong-key request as rejected", async () => {
    emu.counters.reset()
    await (await post("/v1/embeddings", { model: "text-embedding-3-small", input: "one" })).text()
    await (
      await post("/v1/embeddings", { model: "text-embedding-3-small", input: "two" }, { authorization: "Bearer wrong" })
    ).text()
    expect(emu.counters.get("embeddings")).toBe(1)
    expect(emu.counters.get("embeddings.rejected")).toBe(1)
    expect(emu.counters.snapshot()).toEqual({ embeddings: 1, "embeddings.rejected": 1 })
  })
})

describe("fault injection", () => {
  it("answers an injected status with Retry-After and the family's error body instead of the handler", async () => {
    emu.counters.reset()
    emu.inject("messages", { kind: "status", status: 429, headers: { "retry-after": "2" } }, 2)
    for (let i = 0; i < 2; i++) {
      const res = await post("/v1/messages", message)
      expect(res.status).toBe(429)
      expect(res.headers.get("retry-after")).toBe("2")
      expect(await res.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } })
    }
    expect((await post("/v1/messages", message)).status).toBe(200)
    expect(emu.counters.get("messages")).toBe(1)
    expect(emu.counters.get("messages.rejected")).toBe(2)
  })

  it("answers an injected status in the native envelope on a native route, with a given body when set", async () => {
    emu.inject("native.generate", { kind: "status", status: 503 })
    const res = await post("/v1beta/models/zeta-2.5-flash:generateContent", {
      contents: [{ role: "user", parts: [{ text: "hi" }] }]
    })
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ error: { code: 503, status: "UNAVAILABLE" } })
    emu.inject("chat", { kind: "status", status: 500, body: { custom: true } })
    expect(await (await post("/v1/chat/completions", chat)).json()).toEqual({ custom: true })
  })

  const rows: Array<[string, string, unknown, number, unknown]> = [
    ["messages", "/v1/messages", message, 429, { type: "error", error: { type: "rate_limit_error" } }],
    ["messages", "/v1/messages", message, 500, { type: "error", error: { type: "upstream_error" } }],
    [
      "native.generate",
      "/v1beta/models/zeta-2.5-flash:generateContent",
      { contents: [{ parts: [{ text: "x" }] }] },
      429,
      { error: { code: 429, status: "RESOURCE_EXHAUSTED" } }
    ],
    [
      "native.generate",
      "/v1beta/models/zeta-2.5-flash:generateContent",
      { contents: [{ parts: [{ text: "x" }] }] },
      500,
      { error: { code: 500, status: "INTERNAL" } }
    ],
    ["chat", "/v1/chat/completions", chat, 429, { error: { code: "rate_limit_exceeded" } }],
    ["chat", "/v1/chat/completions", chat, 500, { error: { type: "server_error" } }]
  ]
  for (const [route, path, body, status, expected] of rows)
    it(`gives an injected ${status} on ${route} the family's error row`, async () => {
      emu.inject(route, { kind: "status", status })
      const res = await post(path, body)
      expect(res.status).toBe(status)
      expect(await res.json()).toMatchObject(expected as object)
    })

  it("drops the connection before any byte and does not run the handler", async () => {
    emu.counters.reset()
    emu.inject("chat", { kind: "drop-before" })
    await expect(post("/v1/chat/completions", chat)).rejects.toThrow()
    expect(emu.counters.get("chat")).toBe(0)
    expect(emu.counters.get("chat.rejected")).toBe(1)
  })

  it("drops the connection in the middle of a JSON body after the handler ran", async () => {
    emu.counters.reset()
    emu.inject("chat", { kind: "drop-mid", afterBytes: 20 })
    const res = await post("/v1/chat/completions", chat)
    expect(res.status).toBe(200)
    const { text, failed } = await readAll(res)
    expect(failed).toBe(true)
    expect(text.length).toBeLessThanOrEqual(20)
    expect(emu.counters.get("chat")).toBe(1)
  })

  it("cuts an SSE stream in the middle of an event", async () => {
    emu.inject("messages", { kind: "sse-cut", afterEvents: 2 })
    const { text, failed } = await readAll(await post("/v1/messages", { ...message, stream: true }))
    expect(failed).toBe(true)
    const events = parseSse(text)
    expect(events.slice(0, 2).map((e) => e.event)).toEqual(["message_start", "content_block_start"])
    expect(text.endsWith("\n\n")).toBe(false)
  })

  it("ends an SSE stream cleanly without its final event", async () => {
    emu.inject("messages", { kind: "sse-no-final" })
    const { text, failed } = await readAll(await post("/v1/messages", { ...message, stream: true }))
    expect(failed).toBe(false)
    const names = parseSse(text).map((e) => e.event)
    expect(names).toContain("message_delta")
    expect(names).not.toContain("message_stop")
  })

  it("writes malformed JSON into the chosen event", async () => {
    emu.inject("chat", { kind: "sse-malformed", atEvent: 1 })
    const { text } = await readAll(await post("/v1/chat/completions", { ...chat, stream: true }))
    const events = parseSse(text)
    expect(() => JSON.parse(events[0]!.data) as unknown).not.toThrow()
    expect(() => JSON.parse(events[1]!.data) as unknown).toThrow()
  })

  it("stalls an SSE stream after the given number of events", async () => {
    emu.inject("chat", { kind: "stall", afterEvents: 1 })
    const res = await post("/v1/chat/completions", { ...chat, stream: true })
    const { text, more } = await readThenWait(res, (t) => t.includes("\n\n"), 300)
    expect(parseSse(text)).toHaveLength(1)
    expect(more).toBe(false)
  })

  it("stalls a JSON body after its headers", async () => {
    emu.inject("embeddings", { kind: "stall" })
    const res = await post("/v1/embeddings", { model: "text-embedding-3-small", input: "x" })
    expect(res.status).toBe(200)
    const { text, more } = await readThenWait(res, () => true, 300)
    expect(text).toBe("")
    expect(more).toBe(false)
  })

  it("keeps an SSE stream alive with pings only", async () => {
    emu.inject("messages", { kind: "sse-only-pings", everyMs: 5 })
    const res = await post("/v1/messages", { ...message, stream: true })
    const { text } = await readThenWait(res, (t) => t.split(": ping").length > 3, 0)
    expect(text).toMatch(/^(: ping\n\n)+/)
    expect(text).not.toContain("data:")
  })

  it("drops an SSE stream after the given number of bytes", async () => {
    emu.inject("messages", { kind: "drop-mid", afterBytes: 100 })
    const { text, failed } = await readAll(await post("/v1/messages", { ...message, stream: true }))
    expect(failed).toBe(true)
    expect(text.length).toBe(100)
  })

  it("keeps serving after a client abandons a paced stream", async () => {
    const paced = await startEmulator({ text: { tokenDelayMs: 20, replyWords: 200 } })
    try {
      const abort = new AbortController()
      const res = await fetch(`${paced.url}/v1/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${paced.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ ...message, max_tokens: 1000, stream: true }),
        signal: abort.signal
      })
      const reader = res.body!.getReader()
      await reader.read()
      abort.abort()
      const next = await fetch(`${paced.url}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${paced.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: message.model, messages: message.messages })
      })
      expect(next.status).toBe(200)
    } finally {
      await paced.close()
    }
  })

  it("applies a fault queued for every route with *", async () => {
    emu.inject("*", { kind: "status", status: 500 })
    expect((await post("/v1/rerank", { model: "rerank-v1", query: "a", documents: ["a"] })).status).toBe(500)
    expect((await post("/v1/rerank", { model: "rerank-v1", query: "a", documents: ["a"] })).status).toBe(200)
  })
})

describe("WebSocket upgrades", () => {
  const upgrade = (
    path: string,
    headers: Record<string, string> = {}
  ): Promise<{ status: number; body: string } | WebSocket> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(emu.url.replace("http", "ws") + path, { headers })
      ws.once("open", () => resolve(ws))
      ws.once("unexpected-response", (_req, res) => {
        let body = ""
        res.on("data", (c: Buffer) => (body += c.toString()))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      })
      ws.once("error", reject)
    })

  it("answers an upgrade on an unknown path with 404", async () => {
    const r = await upgrade("/v1/no-socket-here")
    expect(r).toMatchObject({ status: 404 })
  })

  it("counts a refused upgrade as rejected and an accepted one once", async () => {
    emu.counters.reset()
    const refused = await upgrade("/v1/realtime?model=gpt-realtime")
    expect(refused).toMatchObject({ status: 401 })
    const ws = await upgrade("/v1/realtime?model=gpt-realtime", { authorization: `Bearer ${emu.apiKey}` })
    expect(ws).toBeInstanceOf(WebSocket)
    ;(ws as WebSocket).close()
    expect(emu.counters.get("realtime.rejected")).toBe(1)
    expect(emu.counters.get("realtime")).toBe(1)
  })
})

describe("close()", () => {
  it("terminates open WebSockets", async () => {
    const other = await startEmulator({ fast: true })
    const ws = new WebSocket(`${other.url.replace("http", "ws")}/v1/realtime?model=gpt-realtime`, {
      headers: { authorization: `Bearer ${other.apiKey}` }
    })
    await new Promise((resolve, reject) => {
      ws.once("open", resolve)
      ws.once("error", reject)
    })
    const closed = new Promise((resolve) => ws.once("close", resolve))
    await other.close()
    await closed
    expect(ws.readyState).toBe(WebSocket.CLOSED)
  })

  it("ends open streams so that no client hangs", async () => {
    const other = await startEmulator({ fast: true })
    other.inject("messages", { kind: "stall", afterEvents: 1 })
    const res = await fetch(`${other.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${other.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ ...message, stream: true })
    })
    const reading = readAll(res)
    await other.close()
    const { text, failed } = await reading
    expect(failed).toBe(true)
    expect(jsonEvents(text)[0]).toMatchObject({ type: "message_start" })
  })
})
