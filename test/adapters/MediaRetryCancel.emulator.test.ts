import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Effect, Fiber } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, mapConcurrent } from "../../src/streams/index.js"
import { lastValueFrom } from "rxjs"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
})
beforeEach(() => {
  emu.clearFaults()
  emu.counters.reset()
})

describe("embedMany and the server's x-should-retry", () => {
  it("does not try a text again after a 429 saying x-should-retry: false, as embeddings.create does not", async () => {
    // Before: the adaptive batch read only the 429's wait and type, so it retried it up to 8 times per text.
    emu.inject("embeddings", { kind: "status", status: 429, headers: { "x-should-retry": "false" } }, 50)
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.flatMap(Gateway, (g) =>
          g.embeddings.embedMany({ model: "text-embedding-3-small", inputs: ["a"], concurrency: 1 })
        ).pipe(Effect.provide(Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 1 })))
      )
    )
    expect(error).toMatchObject({ _tag: "RateLimited", status: 429 })
    expect(emu.counters.get("embeddings.rejected")).toBe(1)
  })

  it("umg/rx mapConcurrent does not either (one rule: rateLimitOf)", async () => {
    emu.inject("embeddings", { kind: "status", status: 429, headers: { "x-should-retry": "false" } }, 50)
    const gateway = createGateway({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 1 })
    try {
      const error: unknown = await lastValueFrom(
        mapConcurrent(["a"], (input) => gateway.embeddings.create$({ model: "text-embedding-3-small", input }), {
          concurrency: 1
        })
      ).catch((e: unknown) => e)
      expect(error).toMatchObject({ _tag: "RateLimited", status: 429 })
      expect(emu.counters.get("embeddings.rejected")).toBe(1)
    } finally {
      await gateway.dispose()
    }
  })
})

/**
 * A platform whose E7 answers after `tokenAfterMs` (never when undefined) and whose other endpoints
 * answer an image at once; it notes each request's path and whether its connection closed, and tells
 * `onRequest` of each as it arrives.
 */
const platformServer = async (tokenAfterMs?: number, onRequest: (path: string) => void = () => {}) => {
  const requests: Array<{ readonly path: string; closed: boolean }> = []
  const server: Server = createServer((req, res) => {
    const entry = { path: req.url ?? "", closed: false }
    requests.push(entry)
    onRequest(entry.path)
    res.on("close", () => {
      entry.closed = true
    })
    req.resume()
    const answer = (data: unknown) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ code: 200, msg: "ok", data }))
    }
    if (!entry.path.endsWith("/getToken")) return answer({ url: "https://images.example/1.png" })
    if (tokenAfterMs !== undefined) setTimeout(() => answer("Bearer t0k3n"), tokenAfterMs)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { url, requests, close }
}

const t2v = { model: "m1", prompt: "a calm sea", duration: "5", aspect_ratio: "16:9" } as const

describe("the platform token fetch under a call's signal", () => {
  const layerFor = (url: string) =>
    Gateway.layer({
      baseUrl: url,
      apiKey: "sk-test",
      platformUrl: url,
      platformUsername: "me",
      platformPassword: "pw",
      timeoutMs: 20_000,
      maxRetries: 0
    })

  for (const [name, call] of [
    ["login", (g: Gateway["Service"], signal: AbortSignal) => Effect.asVoid(g.platform.login({ signal }))],
    [
      "textToVideo",
      (g: Gateway["Service"], signal: AbortSignal) => Effect.asVoid(g.platform.textToVideo(t2v, { signal }))
    ]
  ] as const) {
    it(`${name}: aborting while the E7 token is awaited closes the E7 request when no one else waits`, async () => {
      // Before: the detached fetch kept its connection open until the layer's timeoutMs (20 s here).
      // The signal aborts once the E7 request has arrived (not after a guessed delay, which a loaded
      // machine can pass before the request is even sent).
      const controller = new AbortController()
      const platform = await platformServer(undefined, (path) => {
        if (path.endsWith("/getToken")) controller.abort()
      })
      try {
        const closed = await Effect.runPromise(
          Effect.gen(function* () {
            const g = yield* Gateway
            const error = yield* Effect.flip(call(g, controller.signal))
            expect(error._tag).toBe("Aborted")
            // Still inside the layer: its HTTP client (and any socket it keeps) is alive. The close is
            // waited for up to 5 s, a quarter of the 20 s the connection was kept before.
            const until = Date.now() + 5_000
            while (!platform.requests.every((r) => r.closed) && Date.now() < until) yield* Effect.sleep("10 millis")
            return platform.requests.map((r) => r.closed)
          }).pipe(Effect.provide(layerFor(platform.url)))
        )
        expect(closed).toEqual([true])
      } finally {
        await platform.close()
      }
    })
  }

  it("keeps the E7 request for a caller still waiting when another caller's signal aborts", async () => {
    const platform = await platformServer(300)
    try {
      const controller = new AbortController()
      const [aborted, easy] = await Effect.runPromise(
        Effect.gen(function* () {
          const g = yield* Gateway
          const first = yield* Effect.forkChild(Effect.flip(g.platform.textToVideo(t2v, { signal: controller.signal })))
          const second = yield* Effect.forkChild(
            g.platform.anyShootEasy({ size: "512x512", contents: [{ parts: [{ text: "a cat" }] }] })
          )
          yield* Effect.sleep("100 millis")
          controller.abort()
          return [yield* Fiber.join(first), yield* Fiber.join(second)] as const
        }).pipe(Effect.provide(layerFor(platform.url)))
      )
      expect(aborted._tag).toBe("Aborted")
      expect(easy.url).toBe("https://images.example/1.png")
      // One E7 request, answered; the aborted submit was never sent.
      expect(platform.requests.map((r) => r.path)).toEqual([
        "/prod-api/v3/auth/getToken",
        "/prod-api/svc/v4/api/anyShootEasyModeSubmit"
      ])
    } finally {
      await platform.close()
    }
  })
})
