/**
 * `umg realtime` against `ws` servers built for it: one that answers a turn (for any model), one that
 * answers `response.create` with an `error` event echoing the key, and one that accepts the upgrade
 * and never says a word. The command must print no key, honour `--allow-unknown-models`, give up on a
 * quiet server after `UMG_TIMEOUT_MS` (closing the socket) and still stop at once on a signal.
 */
import { spawn } from "node:child_process"
import { rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocketServer, type WebSocket } from "ws"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"
import { realtimeTurn } from "../../src/cli/commands/realtime.js"
import * as Connection from "../../src/cli/support/Connection.js"
import { expectNoSecret } from "../support/secrets.js"
import { bundleUmg, runUmg } from "./RunUmg.js"

const KEY = "sk-umg-realtime-secret-0123456789"

/** A realtime server: what it does with each client event, the models it was asked for, its sockets. */
interface RealtimeServer {
  readonly url: string
  readonly models: Array<string>
  /** Sockets the client closed (or that went away) so far. */
  readonly closed: () => number
  readonly close: () => Promise<void>
}

const realtimeServer = async (
  onClientEvent: (ws: WebSocket, event: { readonly type?: unknown }) => void
): Promise<RealtimeServer> => {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" })
  const models: Array<string> = []
  let closed = 0
  server.on("connection", (ws, req) => {
    models.push(new URL(req.url ?? "/", "http://x").searchParams.get("model") ?? "")
    ws.on("close", () => closed++)
    ws.on("message", (data) => onClientEvent(ws, JSON.parse(String(data)) as { type?: unknown }))
  })
  await new Promise<void>((r) => server.once("listening", () => r()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    models,
    closed: () => closed,
    close: () =>
      new Promise<void>((r) => {
        for (const c of server.clients) c.terminate()
        server.close(() => r())
      })
  }
}

let umg: string
let answering: RealtimeServer
let leaking: RealtimeServer
let quiet: RealtimeServer

beforeAll(async () => {
  ;[umg, answering, leaking, quiet] = await Promise.all([
    bundleUmg(),
    realtimeServer((ws, event) => {
      if (event.type !== "response.create") return
      ws.send(JSON.stringify({ type: "response.text.delta", delta: "hello from a newer model" }))
      ws.send(JSON.stringify({ type: "response.done", response: { id: "resp_1", status: "completed" } }))
    }),
    realtimeServer((ws, event) => {
      if (event.type !== "response.create") return
      ws.send(
        JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: `Bad key ${KEY} given` } })
      )
    }),
    realtimeServer(() => undefined)
  ])
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  for (const server of [answering, leaking, quiet]) await server?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
})

const envOf = (server: RealtimeServer, more: Record<string, string> = {}): Record<string, string> => ({
  UMG_BASE_URL: server.url,
  UMG_API_KEY: KEY,
  UMG_MAX_RETRIES: "0",
  ...more
})

describe("umg realtime", () => {
  it("reports an error event that echoes the key without the key, as text and as JSON", async () => {
    const [text, json] = await Promise.all([
      runUmg(umg, ["realtime", "-m", "gpt-realtime", "hello"], envOf(leaking)),
      runUmg(umg, ["realtime", "-m", "gpt-realtime", "--json", "hello"], envOf(leaking))
    ])
    for (const run of [text, json]) {
      expect(run.code, run.stderr).toBe(1)
      expect(run.stderr).toContain("IncompleteStream")
      expect(run.stderr).toContain("Bad key [redacted] given")
      expect(run.stdout + run.stderr).not.toContain(KEY)
    }
  })

  it("sends a model the catalog does not list with --allow-unknown-models or UMG_ALLOW_UNKNOWN_MODELS=1", async () => {
    const [flagged, fromEnv] = await Promise.all([
      runUmg(umg, ["realtime", "-m", "gpt-realtime-9", "--allow-unknown-models", "--json", "hello"], envOf(answering)),
      runUmg(umg, ["realtime", "-m", "gpt-realtime-9", "--json", "hello"], {
        ...envOf(answering),
        UMG_ALLOW_UNKNOWN_MODELS: "1"
      })
    ])
    for (const run of [flagged, fromEnv]) {
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({
        model: "gpt-realtime-9",
        text: "hello from a newer model",
        status: "completed"
      })
    }
    expect(answering.models).toEqual(["gpt-realtime-9", "gpt-realtime-9"])
    // Without either, it is refused before connecting.
    const refused = await runUmg(umg, ["realtime", "-m", "gpt-realtime-9", "hello"], envOf(answering))
    expect(refused.code).toBe(2)
    expect(answering.models).toHaveLength(2)
  })

  it("gives up on a server that never answers after UMG_TIMEOUT_MS with a TimeoutError, exit 1, and closes the socket", async () => {
    const before = quiet.closed()
    const started = Date.now()
    const [text, json] = await Promise.all([
      runUmg(umg, ["realtime", "hello"], envOf(quiet, { UMG_TIMEOUT_MS: "1500" })),
      runUmg(umg, ["realtime", "--json", "hello"], envOf(quiet, { UMG_TIMEOUT_MS: "1500" }))
    ])
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(text.code, text.stderr).toBe(1)
    expect(text.stderr).toMatch(/TimeoutError \(family realtime\): .*1500 ms/)
    expect(json.code, json.stderr).toBe(1)
    const report = JSON.parse(json.stderr.trim().split("\n").pop()!) as { error: Record<string, unknown> }
    expect(report.error).toMatchObject({ exitCode: 1, type: "TimeoutError", family: "realtime" })
    await expect.poll(() => quiet.closed() - before).toBe(2)
  }, 30_000)

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143]
  ] as const)(
    "stopped by %s while the server is quiet, exits %i and closes the socket",
    async (signal, code) => {
      const before = quiet.closed()
      const opened = quiet.models.length
      const child = spawn(process.execPath, [umg, "realtime", "hello"], {
        env: {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_"))),
          NO_COLOR: "1",
          ...envOf(quiet)
        },
        stdio: ["ignore", "pipe", "pipe"]
      })
      const exited = new Promise<number | null>((r) => child.on("close", (c) => r(c)))
      await expect.poll(() => quiet.models.length, { timeout: 10_000 }).toBe(opened + 1)
      child.kill(signal)
      expect(await exited).toBe(code)
      await expect.poll(() => quiet.closed() - before).toBe(1)
    },
    30_000
  )
})

/** Runs `realtimeTurn` in the process against `server` with these settings; its typed failure. */
const turnFailure = async (server: RealtimeServer, settings: Partial<GatewayConfigInput> = {}): Promise<unknown> => {
  const config: GatewayConfigInput = { baseUrl: server.url, apiKey: KEY, maxRetries: 0, ...settings }
  const connection = Layer.succeed(Connection.Connection, {
    baseUrl: server.url,
    embedded: Option.none(),
    pollIntervalMs: 100,
    config
  })
  const exit = await Effect.runPromiseExit(
    realtimeTurn("gpt-realtime", "hello", () => Effect.void).pipe(
      Effect.provide(Layer.merge(connection, Gateway.layer(config)))
    )
  )
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`a defect, not a typed error: ${Cause.pretty(exit.cause).slice(0, 300)}`)
  return failure.value
}

describe("realtimeTurn", () => {
  it("fails at an error event with an IncompleteStream whose text holds no configured secret", async () => {
    const failure = await turnFailure(leaking)
    expect(failure).toMatchObject({
      _tag: "IncompleteStream",
      reason: "error-event",
      message: "Bad key [redacted] given"
    })
    expectNoSecret(failure, [KEY])
  })

  it("fails with a TimeoutError after the connection's timeoutMs when the server says nothing", async () => {
    const before = quiet.closed()
    const failure = await turnFailure(quiet, { timeoutMs: 300 })
    expect(failure).toMatchObject({ _tag: "TimeoutError", family: "realtime", phase: "request", timeoutMs: 300 })
    await expect.poll(() => quiet.closed() - before).toBe(1)
  })
})
