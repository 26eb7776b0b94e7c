// Hostile HTTP peers built for real: a node:http server that sends decompression bombs, declares a
// 2 GiB answer, echoes the key, redirects to unparsable places or across origins with a password in
// the body. Each test asserts the bound held (memory measured), the error's type, and that no secret
// shows anywhere in the error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import { Cause, Effect, Exit, type Layer, Option, Stream } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import { expectNoSecret } from "../support/secrets.js"

const KEY = "sk-hostile-test-key-0123456789abcdef"
const PASSWORD = "pw-hostile-platform-secret-42"

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void
const servers: Array<Server> = []
const serve = async (handler: Handler): Promise<string> => {
  const server = createServer((req, res) => handler(req, res, new URL(req.url ?? "/", "http://x")))
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

// Every client umg ships: its own Node client (the default in Node) and the fetch client (browsers).
const clients: ReadonlyArray<{ readonly name: string; readonly layer: Layer.Layer<HttpClient.HttpClient> }> = [
  { name: "umg's Node client", layer: NodeHttpClient.layer },
  { name: "FetchHttpClient", layer: FetchHttpClient.layer }
]

/** The typed failure of `effect` run over the gateway at `baseUrl`, through `client`. */
const failureWith = async <A>(
  client: Layer.Layer<HttpClient.HttpClient>,
  effect: Effect.Effect<A, unknown, Gateway>,
  baseUrl: string,
  extra: Record<string, unknown> = {}
): Promise<unknown> => {
  const layer = Gateway.layer({
    baseUrl,
    apiKey: KEY,
    maxRetries: 0,
    platformUrl: baseUrl,
    platformUsername: "u",
    platformPassword: PASSWORD,
    httpClient: client,
    ...extra
  })
  const exit = await Effect.runPromiseExit(Effect.provide(effect, layer))
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.findErrorOption(exit.cause)
  // A defect (a thrown TypeError, a stack overflow) is never an acceptable answer to outside input.
  if (Option.isNone(failure)) throw new Error(`a defect, not a typed error: ${Cause.pretty(exit.cause).slice(0, 300)}`)
  return failure.value
}
const listModels = Effect.flatMap(Gateway, (g) => g.models.list())

// A JSON answer that inflates to `mib` MiB of spaces inside a string.
const bombJson = (mib: number): Buffer => {
  const inner = Buffer.alloc(mib * 1024 * 1024, 0x20)
  return Buffer.concat([Buffer.from('{"object":"list","data":[],"pad":"'), inner, Buffer.from('"}')])
}

const rssGrowthMiB = async (run: () => Promise<unknown>): Promise<number> => {
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  try {
    await run()
  } finally {
    clearInterval(timer)
  }
  peak = Math.max(peak, process.memoryUsage().rss)
  return (peak - before) / (1024 * 1024)
}

// The bombs are made once for every client (compressing 900 MiB takes a while on a busy machine).
let gzipBomb: Buffer
let brotliBomb: Buffer
beforeAll(() => {
  gzipBomb = gzipSync(bombJson(400), { level: 9 })
  brotliBomb = brotliCompressSync(bombJson(500), { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
}, 120_000)

describe.each(clients)("a hostile gateway over HTTP ($name)", ({ layer: client }) => {
  const failureOf = <A>(
    effect: Effect.Effect<A, unknown, Gateway>,
    baseUrl: string,
    extra: Record<string, unknown> = {}
  ) => failureWith(client, effect, baseUrl, extra)

  it("stops a gzip bomb at the answer bound, with a typed error", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
      res.end(gzipBomb)
    })
    let error: unknown
    const growth = await rssGrowthMiB(async () => {
      error = await failureOf(listModels, url, { limits: { maxResponseBytes: 8 * 1024 * 1024 } })
    })
    expect(gzipBomb.length).toBeLessThan(1024 * 1024)
    expect(error).toMatchObject({ _tag: "TransportError", reason: "too-large" })
    expect(growth).toBeLessThan(150)
  })

  it("stops a brotli bomb (about 1 KiB on the wire) instead of inflating it and succeeding", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "br" })
      res.end(brotliBomb)
    })
    let error: unknown
    const growth = await rssGrowthMiB(async () => {
      error = await failureOf(listModels, url, { limits: { maxResponseBytes: 8 * 1024 * 1024 } })
    })
    expect(brotliBomb.length).toBeLessThan(4096)
    expect(error).toMatchObject({ _tag: "TransportError", reason: "too-large" })
    expect(growth).toBeLessThan(150)
  })

  it("refuses an answer that declares 2 GiB before reading it", async () => {
    let written = 0
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(2 * 1024 * 1024 * 1024) })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (written < 256 * 1024 * 1024 && res.write(chunk)) written += chunk.length
      }
      res.on("drain", pump)
      pump()
    })
    const error = await failureOf(listModels, url)
    expect(error).toMatchObject({ _tag: "TransportError", reason: "too-large" })
    expect((error as Error).message).toContain("bound")
  })

  it("keeps an echoed key out of an authentication error, from an HTML page and from JSON", async () => {
    const html = await serve((req, res) => {
      res.writeHead(401, { "content-type": "text/html" })
      res.end(`<html><body>Key ${req.headers.authorization} is not valid (${KEY})</body></html>`)
    })
    const json = await serve((req, res) => {
      res.writeHead(401, { "content-type": "application/json" })
      res.end(
        JSON.stringify({
          error: { type: "authentication_error", message: `invalid key ${String(req.headers.authorization).slice(7)}` }
        })
      )
    })
    for (const url of [html, json]) {
      const error = await failureOf(listModels, url)
      expect(error).toMatchObject({ _tag: "AuthenticationError", status: 401 })
      expectNoSecret(error, [KEY])
    }
  })

  it("keeps a key out of the DecodeError of a 200 answer that fails its schema", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(
        JSON.stringify({ object: "list", data: [{ id: { leaked: KEY }, object: "model", created: KEY, owned_by: 1 }] })
      )
    })
    const error = await failureOf(listModels, url)
    expect(error).toMatchObject({ _tag: "DecodeError" })
    expectNoSecret(error, [KEY])
  })

  it("answers 100,000-deep JSON with a DecodeError, not a stack overflow", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(`{"object":"list","data":${"[".repeat(100_000)}${"]".repeat(100_000)}}`)
    })
    expect(await failureOf(listModels, url)).toMatchObject({ _tag: "DecodeError" })
  })

  it.each(["http://[::1", "http://127.0.0.1:99999/", "http://%zz/", "javascript:alert(1)"])(
    "turns a redirect to %s into a typed error, not a defect",
    async (location) => {
      const url = await serve((_req, res) => {
        res.writeHead(302, { location })
        res.end()
      })
      expect(await failureOf(listModels, url)).toMatchObject({ _tag: "TransportError", reason: "protocol" })
    }
  )

  it("never re-sends the token request, with the password in its body, to another origin on 307/308", async () => {
    let reached = 0
    const other = await serve((req, res) => {
      reached++
      req.resume()
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ code: 200, msg: "ok", data: "Bearer stolen" }))
    })
    for (const status of [307, 308]) {
      const url = await serve((req, res) => {
        req.resume()
        res.writeHead(status, { location: `${other}/prod-api/v3/auth/getToken` })
        res.end()
      })
      const error = await failureOf(
        Effect.flatMap(Gateway, (g) => g.platform.login()),
        url
      )
      expect(error).toMatchObject({ _tag: "TransportError", reason: "protocol" })
      expect((error as Error).message).toContain("another origin")
      expectNoSecret(error, [KEY, PASSWORD])
    }
    expect(reached).toBe(0)
  })

  it("keeps an error body's echoed password out of the error, and reads at most the error-body bound", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(500, { "content-type": "application/json" })
      res.end(
        JSON.stringify({ error: { type: "server_error", message: `db said ${PASSWORD} ${"x".repeat(200_000)}` } })
      )
    })
    const error = await failureOf(listModels, url, { limits: { maxErrorBodyBytes: 4096 } })
    expect(error).toMatchObject({ status: 500 })
    expectNoSecret(error, [KEY, PASSWORD])
    expect((error as Error).message.length).toBeLessThan(1000)
  })
})

describe.each(clients)("video task ids placed in a URL ($name)", ({ layer: client }) => {
  const failureOf = <A>(
    effect: Effect.Effect<A, unknown, Gateway>,
    baseUrl: string,
    extra: Record<string, unknown> = {}
  ) => failureWith(client, effect, baseUrl, extra)

  it("refuses `.`, `..` and slashes, typed by a user or returned by a submit answer, and sends nothing for them", async () => {
    const paths: Array<string> = []
    const url = await serve((req, res) => {
      paths.push(req.url ?? "")
      req.resume()
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ task_id: "..", status: "submitted", format: "mp4" }))
    })
    for (const id of [".", "..", "a/../../v1/models", "%2e%2e"]) {
      const error = await failureOf(
        Effect.flatMap(Gateway, (g) => g.video.get(id)),
        url
      )
      expect(error).toMatchObject({ _tag: "InvalidRequest", field: "task_id" })
    }
    expect(paths).toEqual([])
    const fromAnswer = await failureOf(
      Effect.flatMap(Gateway, (g) =>
        g.video.generate({ model: "beta-3.1-fast-generate-001", prompt: "a calm sea" }, { intervalMs: 3000 })
      ),
      url
    )
    expect(fromAnswer).toMatchObject({ _tag: "InvalidRequest", field: "task_id" })
    expect(paths).toEqual(["/v1/video/generations"])
    // E3 takes the id in its query: refused the same way, and any other id encoded.
    for (const id of [".", ".."]) {
      expect(
        await failureOf(
          Effect.flatMap(Gateway, (g) => g.video.download(id)),
          url
        )
      ).toMatchObject({ _tag: "InvalidRequest", field: "task_id" })
      expect(
        await failureOf(
          Effect.flatMap(Gateway, (g) => Stream.runDrain(g.video.poll(id, { intervalMs: 3000 }))),
          url
        )
      ).toMatchObject({ _tag: "InvalidRequest" })
    }
    expect(paths).toEqual(["/v1/video/generations"])
    await failureOf(
      Effect.flatMap(Gateway, (g) => g.video.download("x y&z=1")),
      url
    )
    expect(paths.at(-1)).toBe("/v1/video/generations/download?id=x%20y%26z%3D1")
  })
})

describe.each(clients)("a hostile gateway over SSE ($name)", ({ layer: client }) => {
  const failureOf = <A>(
    effect: Effect.Effect<A, unknown, Gateway>,
    baseUrl: string,
    extra: Record<string, unknown> = {}
  ) => failureWith(client, effect, baseUrl, extra)

  const nativeChunk = (text: string, finish?: string) =>
    `data: ${JSON.stringify({ candidates: [{ index: 0, content: { role: "model", parts: [{ text }] }, ...(finish ? { finishReason: finish } : {}) }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3 } })}\r\n\r\n`

  it("completes a native stream at its final chunk even when the server keeps the socket open", async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(nativeChunk("Hello"))
      res.write(nativeChunk(" world", "STOP"))
      // …and never ends the response.
    })
    const layer = Gateway.layer({
      baseUrl: url,
      apiKey: KEY,
      maxRetries: 0,
      streamIdleTimeoutMs: 60_000,
      httpClient: client
    })
    const started = Date.now()
    const chunks = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) =>
          Stream.runCollect(
            g.native.stream({ model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: "hi" }] }] })
          )
        ),
        layer
      )
    )
    expect([...chunks].length).toBe(2)
    // It ended at the final chunk, not at the 60 s idle limit.
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("refuses an SSE line past the event bound with a DecodeError that does not echo the line", async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.end(`data: {"leak":"${KEY}${"x".repeat(2 * 1024 * 1024)}"}\n\n`)
    })
    const error = await failureOf(
      Effect.flatMap(Gateway, (g) =>
        Stream.runDrain(
          g.native.stream({ model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: "hi" }] }] })
        )
      ),
      url,
      { limits: { maxSseEventBytes: 64 * 1024 } }
    )
    expect(error).toMatchObject({ _tag: "DecodeError" })
    expectNoSecret(error, [KEY])
  })
})

describe.each(clients)("the JSON depth bound of the config ($name)", ({ layer: client }) => {
  const failureOf = <A>(
    effect: Effect.Effect<A, unknown, Gateway>,
    baseUrl: string,
    extra: Record<string, unknown> = {}
  ) => failureWith(client, effect, baseUrl, extra)

  it("refuses an answer deeper than limits.maxJsonDepth as soon as it is parsed", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(`{"object":"list","data":[],"x":${"[".repeat(20)}${"]".repeat(20)}}`)
    })
    const error = await failureOf(listModels, url, { limits: { maxJsonDepth: 10 } })
    expect(error).toMatchObject({ _tag: "DecodeError" })
    expect((error as Error).message).toContain("deeper than 10 levels")
  })
})
