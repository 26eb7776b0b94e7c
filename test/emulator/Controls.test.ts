// The emulator's test controls and cross-cutting answers: CORS preflights of the official SDKs,
// fault injection on WebSocket routes, `inject` checks and `pendingFaults()`, `reset()`, string
// bodies of `status` faults, count_tokens fault types and HEAD. One emulator, raw fetch and ws.
import { WebSocket } from "ws"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator, type Fault } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, virtualClock: true })
})
afterAll(() => emu.close())
afterEach(() => emu.clearFaults())

const auth = (): Record<string, string> => ({
  authorization: `Bearer ${emu.apiKey}`,
  "content-type": "application/json"
})
const post = (path: string, body: unknown): Promise<Response> =>
  fetch(emu.url + path, { method: "POST", headers: auth(), body: JSON.stringify(body) })
const chat = { model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }
const countBody = { model: "epsilon-sonnet-4-5-20250929", messages: [{ role: "user", content: "hello" }] }

type Upgrade =
  | { readonly kind: "open"; readonly messages: number }
  | { readonly kind: "refused"; readonly status: number; readonly body: string }
  | { readonly kind: "dropped" }

/** Opens a WebSocket, reads what comes in 150 ms, and tells how the upgrade went. */
const connect = (path: string): Promise<Upgrade> =>
  new Promise((resolve) => {
    const ws = new WebSocket(emu.url.replace(/^http/, "ws") + path, { headers: auth() })
    let messages = 0
    ws.on("unexpected-response", (_req, res) => {
      let body = ""
      res.on("data", (d: Buffer) => (body += d.toString()))
      res.on("end", () => resolve({ kind: "refused", status: res.statusCode ?? 0, body }))
    })
    ws.on("message", () => messages++)
    ws.on("open", () =>
      setTimeout(() => {
        ws.close()
        resolve({ kind: "open", messages })
      }, 150)
    )
    ws.on("error", () => resolve({ kind: "dropped" }))
  })
const REALTIME = "/v1/realtime?model=gpt-realtime"
const LIVE = "/ws/v1beta/models/zeta-live-2.5-flash-native-audio/liveStream"

describe("CORS preflight", () => {
  it("allows the headers the official SDKs and the AI SDK providers send from a page", async () => {
    const asked = [
      "authorization",
      "content-type",
      "x-goog-api-key",
      "x-goog-api-client",
      "x-stainless-os",
      "x-stainless-retry-count",
      "x-stainless-timeout",
      "anthropic-dangerous-direct-browser-access",
      "anthropic-version",
      "anthropic-beta"
    ]
    const res = await fetch(`${emu.url}/v1beta/models/zeta-2.5-flash:generateContent`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": asked.join(",")
      }
    })
    expect(res.status).toBe(204)
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173")
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").split(/\s*,\s*/)
    expect(allowed).toEqual(expect.arrayContaining(asked))
    expect(res.headers.get("access-control-allow-methods")).toContain("HEAD")
  })

  it("echoes only well-formed header names, and nothing to an origin it does not allow", async () => {
    const preflight = (origin: string, asked: string) =>
      fetch(`${emu.url}/v1/chat/completions`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": asked }
      })
    const odd = await preflight("http://127.0.0.1:3000", "x-ok, x bad, x-<script>, x-fine")
    const allowed = (odd.headers.get("access-control-allow-headers") ?? "").split(/\s*,\s*/)
    expect(allowed).toEqual(expect.arrayContaining(["x-ok", "x-fine"]))
    expect(allowed.some((h) => h.includes("<") || h.includes(" "))).toBe(false)
    const foreign = await preflight("https://evil.example", "x-stainless-os")
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull()
    expect(foreign.headers.get("access-control-allow-headers")).toBeNull()
  })
})

describe("faults on WebSocket routes", () => {
  it("refuses the upgrade with an injected status in the family's shape", async () => {
    emu.inject("realtime", { kind: "status", status: 429, headers: { "retry-after": "1" } })
    const realtime = await connect(REALTIME)
    expect(realtime).toMatchObject({ kind: "refused", status: 429 })
    expect(JSON.parse((realtime as { body: string }).body)).toMatchObject({ error: { code: "rate_limit_exceeded" } })
    emu.inject("live", { kind: "status", status: 503 })
    const live = await connect(LIVE)
    expect(live).toMatchObject({ kind: "refused", status: 503 })
    expect(JSON.parse((live as { body: string }).body)).toMatchObject({ error: { code: 503, status: "UNAVAILABLE" } })
    expect(emu.counters.get("realtime.rejected")).toBeGreaterThanOrEqual(1)
  })

  it("drops the socket before the upgrade on drop-before, then accepts the next connection", async () => {
    emu.inject("realtime", { kind: "drop-before" })
    expect(await connect(REALTIME)).toEqual({ kind: "dropped" })
    expect((await connect(REALTIME)).kind).toBe("open")
  })

  it("leaves a `*` fault a WebSocket cannot apply for the next HTTP request", async () => {
    emu.inject("*", { kind: "sse-no-final" })
    emu.inject("*", { kind: "status", status: 500 })
    // The upgrade takes the status (it can apply it), not the SSE fault queued first.
    expect(await connect(REALTIME)).toMatchObject({ kind: "refused", status: 500 })
    expect(emu.pendingFaults()).toEqual([{ route: "*", fault: { kind: "sse-no-final" }, times: 1 }])
    expect((await connect(REALTIME)).kind).toBe("open")
    expect(emu.pendingFaults()).toHaveLength(1)
  })

  it("ends a socket abruptly on a ws-close of 1006 (no close frame carries it), and closes with any other code", async () => {
    const closeCode = (code: number) => {
      emu.inject("realtime", { kind: "ws-close", code })
      return new Promise<number>((resolve) => {
        const ws = new WebSocket(emu.url.replace(/^http/, "ws") + REALTIME, { headers: auth() })
        ws.on("close", (c) => resolve(c))
        ws.on("error", () => {})
      })
    }
    expect(await closeCode(1006)).toBe(1006)
    expect(await closeCode(4001)).toBe(4001)
  })

  it("refuses to queue a fault a route cannot apply", () => {
    expect(() => emu.inject("realtime", { kind: "sse-cut", afterEvents: 1 })).toThrow(/cannot apply.*WebSocket/)
    expect(() => emu.inject("chat", { kind: "ws-close", code: 1011 })).toThrow(/cannot apply.*HTTP/)
    // A route that never answers with a stream cannot apply a stream's fault.
    for (const route of ["rerank", "embeddings", "video.submit"])
      expect(() => emu.inject(route, { kind: "sse-error", afterEvents: 0 })).toThrow(/cannot apply.*never streams/)
    expect(emu.pendingFaults()).toEqual([])
  })
})

describe("stream faults on a route that streams", () => {
  it("wait for a request answered with a stream: a whole answer leaves them queued", async () => {
    emu.inject("chat", { kind: "sse-cut", afterEvents: 1 })
    const whole = await post("/v1/chat/completions", chat)
    expect(whole.status).toBe(200)
    expect(((await whole.json()) as { object: string }).object).toBe("chat.completion")
    expect(emu.pendingFaults()).toEqual([{ route: "chat", fault: { kind: "sse-cut", afterEvents: 1 }, times: 1 }])
    // The stream takes it: cut after its first event.
    const text = await post("/v1/chat/completions", { ...chat, stream: true })
      .then(
        (r) => r.text(),
        () => "cut"
      )
      .catch(() => "cut")
    expect(text).not.toContain("[DONE]")
    expect(emu.pendingFaults()).toEqual([])
  })

  it("a `*` stream fault given back by a whole answer keeps its place and count", async () => {
    emu.inject("*", { kind: "sse-no-final" }, 2)
    expect((await post("/v1/chat/completions", chat)).status).toBe(200)
    expect(emu.pendingFaults()).toEqual([{ route: "*", fault: { kind: "sse-no-final" }, times: 2 }])
  })
})

describe("inject checks and pendingFaults()", () => {
  it("throws on an unknown route, naming the routes", () => {
    for (const route of ["chat.completions", "/v1/chat/completions", "video"])
      expect(() => emu.inject(route, { kind: "status", status: 429 })).toThrow(/unknown route.*"chat".*"realtime"/)
  })

  it("throws on an unknown kind, a malformed field or times that is not a count", () => {
    expect(() => emu.inject("chat", { kind: "bogus" } as unknown as Fault)).toThrow(/unknown fault kind "bogus"/)
    expect(() => emu.inject("chat", { kind: "status", status: 42 })).toThrow(/status/)
    expect(() => emu.inject("chat", { kind: "sse-cut" } as unknown as Fault)).toThrow(/afterEvents/)
    expect(() => emu.inject("chat", { kind: "status", status: 429 }, 1.5)).toThrow(/times/)
    expect(() => emu.inject("chat", { kind: "status", status: 429 }, -3)).toThrow(/times/)
    // A field the kind does not have, and a close code no endpoint may send.
    expect(() => emu.inject("chat", { kind: "status", status: 429, foo: 1 } as unknown as Fault)).toThrow(
      /no field `foo`/
    )
    expect(() => emu.inject("realtime", { kind: "ws-close", code: 1005 })).toThrow(/close code that can be sent/)

    expect(emu.pendingFaults()).toEqual([])
  })

  it("advanceTime takes a finite number of ms >= 0, and the clock stays sound", () => {
    const before = emu.now()
    for (const ms of [Number.NaN, -5_000, Number.POSITIVE_INFINITY])
      expect(() => emu.advanceTime(ms)).toThrow(/finite number >= 0/)
    emu.advanceTime(1_000)
    expect(emu.now() - before).toBe(1_000)
  })

  it("lists the queued faults and what each still awaits", async () => {
    emu.inject("chat", { kind: "status", status: 429 }, 2)
    emu.inject("*", { kind: "drop-before" })
    expect(emu.pendingFaults()).toEqual([
      { route: "chat", fault: { kind: "status", status: 429 }, times: 2 },
      { route: "*", fault: { kind: "drop-before" }, times: 1 }
    ])
    expect((await post("/v1/chat/completions", chat)).status).toBe(429)
    expect(emu.pendingFaults()[0]).toMatchObject({ route: "chat", times: 1 })
  })
})

describe("status faults", () => {
  it("sends a string body as it is, with the fault's content-type or text/plain", async () => {
    emu.inject("chat", {
      kind: "status",
      status: 502,
      headers: { "Content-Type": "text/html" },
      body: "<html>bad</html>"
    })
    const html = await post("/v1/chat/completions", chat)
    expect(html.status).toBe(502)
    expect(html.headers.get("content-type")).toBe("text/html")
    expect(await html.text()).toBe("<html>bad</html>")
    emu.inject("chat", { kind: "status", status: 503, body: "upstream down" })
    const plain = await post("/v1/chat/completions", chat)
    expect(plain.headers.get("content-type")).toMatch(/^text\/plain/)
    expect(await plain.text()).toBe("upstream down")
    emu.inject("chat", { kind: "status", status: 400, body: { error: { message: "x" } } })
    expect(await (await post("/v1/chat/completions", chat)).json()).toEqual({ error: { message: "x" } })
  })

  it("gives count_tokens the type of the status, as the messages route does", async () => {
    const typeOf = async (status: number): Promise<unknown> => {
      emu.inject("count_tokens", { kind: "status", status })
      const res = await post("/v1/messages/count_tokens", countBody)
      expect(res.status).toBe(status)
      return ((await res.json()) as { error: { type: string } }).error.type
    }
    expect(await typeOf(429)).toBe("rate_limit_error")
    expect(await typeOf(413)).toBe("request_too_large")
    expect(await typeOf(529)).toBe("overloaded_error")
    expect(await typeOf(500)).toBe("upstream_error")
    expect(await typeOf(400)).toBe("invalid_request_error")
  })
})

describe("HEAD", () => {
  it("answers HEAD wherever GET works, with GET's status and headers and no body", async () => {
    const sub = await post("/v1/video/generations", { model: "gamma2.5-t2v-preview", prompt: "a cat", duration: 5 })
    const { task_id } = (await sub.json()) as { task_id: string }
    emu.advanceTime(60_000)
    const task = (await (await fetch(`${emu.url}/v1/video/generations/${task_id}`, { headers: auth() })).json()) as {
      url: string
    }
    const get = await fetch(task.url)
    const getBytes = (await get.arrayBuffer()).byteLength
    const head = await fetch(task.url, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"))
    expect(head.headers.get("content-length")).toBe(String(getBytes))
    expect((await head.arrayBuffer()).byteLength).toBe(0)
    const models = await fetch(`${emu.url}/v1/models`, { method: "HEAD", headers: auth() })
    expect(models.status).toBe(200)
    const wrong = await fetch(`${emu.url}/v1/models`, { method: "POST", headers: auth() })
    expect(wrong.headers.get("allow")).toBe("GET, HEAD")
  })
})

describe("reset()", () => {
  it("forgets stored responses, prompt cache, video tasks, counters and faults, keeping port and keys", async () => {
    const port = emu.port
    const stored = (await (await post("/v1/responses", { model: "gpt-5", input: "hi" })).json()) as { id: string }
    expect((await fetch(`${emu.url}/v1/responses/${stored.id}`, { headers: auth() })).status).toBe(200)
    const system = "cached ".padEnd(6000, "lorem ipsum ")
    const cached = {
      model: "epsilon-sonnet-4-5-20250929",
      max_tokens: 16,
      system: [{ type: "text", text: system, cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "Summarise." }]
    }
    const cacheRead = async (): Promise<number> =>
      ((await (await post("/v1/messages", cached)).json()) as { usage: { cache_read_input_tokens: number } }).usage
        .cache_read_input_tokens
    await cacheRead()
    expect(await cacheRead()).toBeGreaterThan(0)
    const sub = await post("/v1/video/generations", { model: "gamma2.5-t2v-preview", prompt: "a dog", duration: 5 })
    const { task_id } = (await sub.json()) as { task_id: string }
    emu.inject("chat", { kind: "status", status: 500 })

    emu.reset()
    expect(emu.counters.snapshot()).toEqual({})
    expect(emu.pendingFaults()).toEqual([])
    expect(emu.port).toBe(port)
    expect((await fetch(`${emu.url}/v1/responses/${stored.id}`, { headers: auth() })).status).toBe(404)
    expect(await cacheRead()).toBe(0)
    expect((await fetch(`${emu.url}/v1/video/generations/${task_id}`, { headers: auth() })).status).toBe(404)
    expect((await post("/v1/chat/completions", chat)).status).toBe(200)
  })
})
