/**
 * The fake gateway of the loopback contests (text-streams, requests), a plain `node:http` server in its own process (so its CPU
 * is never counted with a client's): POST `/v1/messages` and POST `/v1/chat/completions` with
 * `stream: true` answer the fixtures' text streams, POST `/v1/chat/completions` without it a chat
 * completion, GET `/v1/models` a 40-model list.
 *
 * A stream is delivered one of two ways, set by the bench before it measures (POST `/__bench/delivery`
 * `{"mode":"big"|"event","deltas":n}`): `big` writes the whole body at once; `event` writes one event
 * per `res.write` with a 1 ms timer between them and Nagle off, as tokens really arrive. GET
 * `/__bench/stats` gives the requests answered per route since the last POST `/__bench/reset`, so a
 * bench can check that every contender really asked the gateway each time; GET `/__bench/last` the
 * body of the last request answered, so a bench can check two clients sent the same.
 *
 * `startFakeGateway()` spawns it (`node --import tsx bench/harness/fakeGateway.ts`, which prints its port).
 */
import { spawn } from "node:child_process"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { fileURLToPath } from "node:url"
import {
  chatCompletionFixture,
  chatStreamFixture,
  messagesStreamFixture,
  modelListFixture,
  renderFrame
} from "./fixtures.js"

/** How a stream's bytes reach the socket. */
export type Delivery = "big" | "event"

/** The API key every contender sends; the server only checks that one is there. */
export const BENCH_API_KEY = "bench-key-13"

/** A running fake gateway, seen from the bench that started it. */
export interface FakeGateway {
  /** The gateway's `{base_url}` (endpoints under `/v1/…`). */
  readonly baseUrl: string
  readonly close: () => void
}

// ---- the server (this file run as a program) ----

const runServer = (): void => {
  let delivery: Delivery = "big"
  let deltas = 2_000
  const counts = new Map<string, number>()
  // Rendered once per (family, deltas): the server's own work stays small and the same for everyone.
  const rendered = new Map<string, { readonly frames: ReadonlyArray<Buffer>; readonly whole: Buffer }>()
  const stream = (family: "messages" | "chat") => {
    const key = `${family}:${deltas}`
    let r = rendered.get(key)
    if (r === undefined) {
      const fixture = family === "messages" ? messagesStreamFixture(deltas) : chatStreamFixture(deltas)
      const frames = fixture.frames.map((f) => Buffer.from(renderFrame(f)))
      r = { frames, whole: Buffer.concat(frames) }
      rendered.set(key, r)
    }
    return r
  }
  const models = Buffer.from(JSON.stringify(modelListFixture(40)))
  const completion = Buffer.from(JSON.stringify(chatCompletionFixture()))

  const json = (res: ServerResponse, status: number, body: Buffer | string) => {
    res.writeHead(status, { "content-type": "application/json", "x-request-id": "req_bench" })
    res.end(body)
  }
  const sendStream = (res: ServerResponse, family: "messages" | "chat") => {
    const { frames, whole } = stream(family)
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-request-id": "req_bench"
    })
    if (delivery === "big") return void res.end(whole)
    res.socket?.setNoDelay(true)
    let i = 0
    let timer: NodeJS.Timeout | undefined
    const next = () => {
      res.write(frames[i++]!)
      if (i === frames.length) return void res.end()
      timer = setTimeout(next, 1)
    }
    res.on("close", () => clearTimeout(timer))
    next()
  }
  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const parts: Array<Buffer> = []
      req.on("data", (b: Buffer) => parts.push(b))
      req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
      req.on("error", reject)
    })

  // The body of the last request answered (not a control call's): what a bench checks it sent.
  let last = ""
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0]!
    const body = await readBody(req)
    if (path === "/__bench/delivery") {
      const set = JSON.parse(body) as { mode: Delivery; deltas?: number }
      delivery = set.mode
      deltas = set.deltas ?? 2_000
      return json(res, 200, "{}")
    }
    if (path === "/__bench/reset") {
      counts.clear()
      return json(res, 200, "{}")
    }
    if (path === "/__bench/stats") return json(res, 200, JSON.stringify(Object.fromEntries(counts)))
    if (path === "/__bench/last") return json(res, 200, JSON.stringify({ body: last }))
    last = body
    const route = `${req.method} ${path}`
    counts.set(route, (counts.get(route) ?? 0) + 1)
    if (req.headers.authorization === undefined && req.headers["x-api-key"] === undefined)
      return json(res, 401, JSON.stringify({ error: { message: "missing key", type: "authentication_error" } }))
    if (route === "GET /v1/models") return json(res, 200, models)
    if (route === "POST /v1/messages") return sendStream(res, "messages")
    if (route === "POST /v1/chat/completions") {
      const streamed = (JSON.parse(body) as { stream?: boolean }).stream === true
      return streamed ? sendStream(res, "chat") : json(res, 200, completion)
    }
    json(res, 404, JSON.stringify({ error: { message: `no route ${route}`, type: "not_found_error" } }))
  }
  // A request that cannot be read or parsed is answered 500 rather than left hanging.
  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, JSON.stringify({ error: { message: String(error), type: "api_error" } }))
      else res.destroy()
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    process.stdout.write(`${typeof address === "object" && address !== null ? address.port : 0}\n`)
  })
}

// ---- the bench's side ----

/** Spawns the fake gateway in its own process and waits for its port. */
export const startFakeGateway = async (): Promise<FakeGateway> => {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`the fake gateway exited (${code}) before listening`)))
    child.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())))
  })
  child.removeAllListeners("exit")
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => void child.kill() }
}

/** A control call to the fake gateway (outside any measured window). */
export const control = async (
  baseUrl: string,
  path: "/__bench/delivery" | "/__bench/reset" | "/__bench/stats",
  body?: object
): Promise<Record<string, number>> => {
  const res = await fetch(
    `${baseUrl}${path}`,
    path === "/__bench/stats" ? {} : { method: "POST", body: JSON.stringify(body ?? {}) }
  )
  return (await res.json()) as Record<string, number>
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runServer()

/** The body of the last request the fake gateway answered (GET `/__bench/last`): what a client sent. */
export const lastBody = async (baseUrl: string): Promise<string> => {
  const res = await fetch(`${baseUrl}/__bench/last`)
  return ((await res.json()) as { readonly body: string }).body
}
