// A call's GenAI metrics against a hostile gateway on loopback (node:http, reached as `gw.test` through a
// recording forwarding proxy that resolves every name the gateway redirects to): a redirect to a host
// holding the key shows it in no metric attribute and no span attribute; redirects to ever new hosts
// and ever new answering models stay within the per-process bounds on series; a stream opened and never
// pulled, and calls run concurrently, are each recorded once.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Context, Effect, Layer, Metric, Stream, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startForwardingProxy, type ForwardingProxy } from "../fixtures/forwardingProxy.js"
import { recordingTracer, type RecordedSpan } from "../support/tracers.js"

// Upper case on purpose: a host name is lower-cased by the URL parser.
const KEY = "sk-Metrics-HOST-Key-77aa"
const HOSTS = 80
const duration = "gen_ai.client.operation.duration"
const hi = [{ role: "user" as const, content: "hi" }]

let emu: Emulator
let server: Server
let port = 0
let proxy: ForwardingProxy
/** Where the gateway (`gw.test`) redirects a call: to a host holding the key, or to a new host each time. */
let redirectTo: "key" | "new-host" = "key"
/** The answering model of the next chat completion, when the test sets one. */
let nextModel: (() => string) | undefined
let redirects = 0

const completion = (model: string) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop", logprobs: null }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
  })

beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  server = createServer((req, res) => {
    req.resume()
    const host = (req.headers.host ?? "").split(":")[0]
    if (req.url === "/to-key") return void res.writeHead(303, { location: `http://${KEY}.test:${port}/final` }).end()
    if (host === "gw.test" && req.url === "/v1/chat/completions") {
      const location = redirectTo === "key" ? "/to-key" : `http://h${redirects++ % HOSTS}.test:${port}/final`
      return void res.writeHead(303, { location }).end()
    }
    res.writeHead(200, { "content-type": "application/json" }).end(completion(nextModel?.() ?? "gpt-4o-mini"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  const hosts: Record<string, string> = { "gw.test": "127.0.0.1", [`${KEY.toLowerCase()}.test`]: "127.0.0.1" }
  for (let i = 0; i < HOSTS; i++) hosts[`h${i}.test`] = "127.0.0.1"
  proxy = await startForwardingProxy({ hosts })
})
afterAll(async () => {
  server.closeAllConnections()
  await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), proxy.close(), emu.close()])
})

interface Measured {
  readonly metrics: ReadonlyArray<Metric.Metric.Snapshot>
  readonly spans: ReadonlyArray<RecordedSpan>
}

type GatewayModule = typeof import("../../src/adapters/Gateway.js")

/**
 * Runs `program` with a registry and a recording tracer of its own: its metrics and spans. `of` is the
 * Gateway module to run it with (by default this file's).
 */
const measured = async (
  program: Effect.Effect<unknown, unknown, Gateway>,
  config: Partial<GatewayConfigInput> = {},
  of: GatewayModule["Gateway"] = Gateway
): Promise<Measured> => {
  const registry: Metric.MetricRegistry = new Map()
  const { tracer, spans } = recordingTracer()
  const layer = Layer.merge(
    of.layer({
      baseUrl: `http://gw.test:${port}`,
      apiKey: KEY,
      maxRetries: 0,
      proxy: proxy.url,
      ...config
    }),
    Layer.succeed(Tracer.Tracer, tracer)
  )
  await Effect.runPromise(Effect.provideService(Effect.provide(program, layer), Metric.MetricRegistry, registry))
  return { metrics: Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry)), spans }
}

type Point = Metric.Metric.Snapshot & { readonly type: "Histogram"; readonly state: Metric.HistogramState }

const pointsOf = (metrics: ReadonlyArray<Metric.Metric.Snapshot>, name: string): Array<Point> =>
  metrics.filter((m): m is Point => m.id === name && m.type === "Histogram")

const chat = Effect.flatMap(Gateway, (g) => g.chat.create({ model: "gpt-4o-mini", messages: hi }))

/**
 * `f` given a Gateway module loaded afresh: the bounds on series are per process, and this worker's
 * other test files (which share its modules) must not find them used up by a test that fills them.
 */
const withFreshModules = async <A>(f: (fresh: GatewayModule["Gateway"]) => Promise<A>): Promise<A> => {
  vi.resetModules()
  try {
    return await f((await import("../../src/adapters/Gateway.js")).Gateway)
  } finally {
    vi.resetModules()
  }
}

/** `count` chat calls, `concurrency` at a time, with the given Gateway. */
const chats = (of: GatewayModule["Gateway"], count: number, concurrency = 1) =>
  Effect.flatMap(of, (g) =>
    Effect.forEach(
      Array.from({ length: count }, () => undefined),
      () => g.chat.create({ model: "gpt-4o-mini", messages: hi }),
      { discard: true, concurrency }
    )
  )

describe("a call's metrics against a hostile gateway", () => {
  it("never show the key a redirect put in the answering host, in a metric or in the span, whatever its case", async () => {
    const { metrics, spans } = await measured(chat)
    // The call went where the redirects said: through the proxy, to the host holding the key.
    expect(proxy.records.at(-1)?.target).toBe(`${KEY.toLowerCase()}.test:${port}`)
    const shown = JSON.stringify([
      metrics.map((m) => m.attributes),
      spans.map((s) => Object.fromEntries(s.attributes))
    ]).toLowerCase()
    expect(shown).not.toContain(KEY.toLowerCase())
    const [point] = pointsOf(metrics, duration)
    expect(point?.state.count).toBe(1)
    expect(point?.attributes?.["server.address"]).toBe("[redacted]")
  })

  it("tell at most 64 answering hosts apart, however many hosts the gateway redirects to", async () => {
    redirectTo = "new-host"
    const { metrics } = await withFreshModules((fresh) => measured(chats(fresh, HOSTS), {}, fresh)).finally(
      () => (redirectTo = "key")
    )
    const points = pointsOf(metrics, duration)
    const servers = new Set(points.map((p) => p.attributes?.["server.address"]))
    expect(points.reduce((n, p) => n + p.state.count, 0)).toBe(HOSTS)
    expect(servers.size).toBeLessThanOrEqual(65)
    expect(servers.has("_OTHER")).toBe(true)
  })

  it("bound the answering model's value and tell at most 256 models apart", async () => {
    let m = 0
    nextModel = () => `model-${m++}-${"x".repeat(10_000)}`
    try {
      const { metrics } = await withFreshModules((fresh) =>
        measured(
          chats(fresh, 300, 8),
          {
            baseUrl: `http://127.0.0.1:${port}`,
            proxy: false
          },
          fresh
        )
      )
      const points = pointsOf(metrics, duration)
      const models = new Set(points.map((p) => String(p.attributes?.["gen_ai.response.model"])))
      expect(points.reduce((count, p) => count + p.state.count, 0)).toBe(300)
      expect(models.size).toBeLessThanOrEqual(257)
      expect(models.has("_OTHER")).toBe(true)
      expect(Math.max(...[...models].map((model) => model.length))).toBeLessThanOrEqual(201)
    } finally {
      nextModel = undefined
    }
  })
})

describe("a call's metrics, recorded once", () => {
  const messagesBody = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 32, messages: hi }
  const onEmulator = () => ({ baseUrl: emu.url, apiKey: emu.apiKey, proxy: false as const })

  it("for a stream opened and never pulled (its scope closed first): its duration once, no error.type", async () => {
    const { metrics } = await measured(
      Effect.flatMap(Gateway, (g) => Effect.scoped(Effect.asVoid(Stream.toPull(g.messages.stream(messagesBody))))),
      onEmulator()
    )
    const points = pointsOf(metrics, duration)
    expect(points.map((p) => [p.state.count, p.attributes?.["error.type"]])).toEqual([[1, undefined]])
  })

  it("for calls run concurrently: each once, in its own series", async () => {
    const { metrics } = await measured(
      Effect.flatMap(Gateway, (g) =>
        Effect.all(
          Array.from({ length: 24 }, (_, i) =>
            i % 2 === 0
              ? Stream.runDrain(g.messages.stream(messagesBody))
              : g.chat.create({ model: "gpt-4o-mini", messages: hi })
          ),
          { concurrency: "unbounded", discard: true }
        )
      ),
      onEmulator()
    )
    const points = pointsOf(metrics, duration)
    const counts = points.map((p) => [p.attributes?.["gen_ai.provider.name"], p.state.count])
    // The bounds filled above were a fresh module's: this worker's own still tells this server apart.
    expect(new Set(points.map((p) => p.attributes?.["server.address"]))).toEqual(new Set(["127.0.0.1"]))
    expect(counts.sort()).toEqual([
      ["epsilon", 12],
      ["openai", 12]
    ])
  })
})
