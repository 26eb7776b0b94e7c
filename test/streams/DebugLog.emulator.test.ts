// umg/rx's logging, against the emulator over loopback: `createGateway({ logLevel: "debug", logger })`
// (or `UMG_LOG=debug`) hands each request, answer, retry and stream end to the user's console-like
// logger as `logger.debug(message, facts)`; without either nothing is logged; a wrong level, logger
// or `UMG_LOG` is refused when the gateway is made, naming it. No line holds the key or an echoed secret.
import { lastValueFrom, toArray } from "rxjs"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createGateway } from "../../src/streams/createGateway.js"
import type { GatewayLogger } from "../../src/streams/RxLogging.js"
import { rxEmulator } from "../support/rxEmulator.js"

const KEY = "sk-umg-rx-debuglog-FAKE-52e1d0"

const { emu, gatewayWith } = rxEmulator(KEY)

afterEach(() => {
  vi.restoreAllMocks()
})

interface Call {
  readonly method: keyof GatewayLogger
  readonly args: ReadonlyArray<unknown>
}

/** A console-like logger that keeps every call. */
const recorder = () => {
  const calls: Array<Call> = []
  const at =
    (method: keyof GatewayLogger) =>
    (...args: ReadonlyArray<unknown>) =>
      void calls.push({ method, args })
  const logger: GatewayLogger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") }
  return { calls, logger }
}

const chatBody = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Hello" }] }
const umgCalls = (calls: ReadonlyArray<Call>) => calls.filter((c) => String(c.args[0]).startsWith("umg:"))

describe("createGateway's logging", () => {
  it("logs nothing by default, and with logLevel debug hands each request, answer, retry and stream end to the logger", async () => {
    const quiet = recorder()
    await lastValueFrom(gatewayWith({ logger: quiet.logger }).chat.create$(chatBody))
    expect(umgCalls(quiet.calls)).toEqual([])

    const { calls, logger } = recorder()
    const gateway = gatewayWith({ logLevel: "debug", logger })
    emu().inject("chat", { kind: "status", status: 503, headers: { "x-request-id": `req-${KEY}` } })
    await lastValueFrom(gateway.chat.create$(chatBody))
    await lastValueFrom(gateway.chat.stream$(chatBody).pipe(toArray()))
    const lines = umgCalls(calls)
    expect(lines.map((c) => [c.method, c.args[0]])).toEqual([
      ["debug", "umg: request"],
      ["debug", "umg: response"],
      ["debug", "umg: retrying"],
      ["debug", "umg: request"],
      ["debug", "umg: response"],
      ["debug", "umg: request"],
      ["debug", "umg: response"],
      ["debug", "umg: stream ended"]
    ])
    expect(lines[1]!.args[1]).toMatchObject({
      "http.request.method": "POST",
      "url.path": "/v1/chat/completions",
      "http.response.status_code": 503,
      "umg.attempt": 1,
      "umg.gateway.request_id": "req-[redacted]"
    })
    expect(lines[2]!.args[1]).toMatchObject({ "umg.attempt": 2, "error.type": "ServerError" })
    expect(lines[7]!.args[1]).toMatchObject({ "umg.stream.outcome": "completed" })
    expect(JSON.stringify(calls)).not.toContain(KEY)
  })

  it("takes UMG_LOG when no logLevel is given; a logLevel given wins over it", async () => {
    process.env.UMG_LOG = " DEBUG "
    const fromEnv = recorder()
    await lastValueFrom(gatewayWith({ logger: fromEnv.logger }).models.list$())
    expect(umgCalls(fromEnv.calls).map((c) => c.args[0])).toEqual(["umg: request", "umg: response"])

    const overridden = recorder()
    await lastValueFrom(gatewayWith({ logLevel: "info", logger: overridden.logger }).models.list$())
    expect(umgCalls(overridden.calls)).toEqual([])
  })

  it("writes to Effect's console logger when no logger is given", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {})
    await lastValueFrom(gatewayWith({ logLevel: "debug" }).models.list$())
    const written = log.mock.calls.map((args) => args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))))
    expect(written.some((args) => args.includes("umg: response"))).toBe(true)
    expect(JSON.stringify(written)).not.toContain(KEY)
  })

  it("takes console itself as its logger: the lines go to console.debug", async () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {})
    await lastValueFrom(gatewayWith({ logLevel: "debug", logger: console }).models.list$())
    expect(debug.mock.calls.map((args) => args[0])).toEqual(["umg: request", "umg: response"])
    expect(debug.mock.calls[1]![1]).toMatchObject({ "url.path": "/v1/models", "http.response.status_code": 200 })
  })

  it("refuses a wrong logLevel, logger or UMG_LOG when the gateway is made, naming it", () => {
    const base = { baseUrl: emu().url, apiKey: KEY }
    expect(() => createGateway({ ...base, logLevel: "verbose" as never })).toThrow(
      expect.objectContaining({ _tag: "InvalidRequest", field: "logLevel", rule: "one-of" })
    )
    expect(() => createGateway({ ...base, logger: { debug: () => {} } as never })).toThrow(
      expect.objectContaining({ _tag: "InvalidRequest", field: "logger", rule: "type" })
    )
    // A long value is not shown: it may be the key, put in the wrong variable.
    process.env.UMG_LOG = KEY
    expect(() => createGateway(base)).toThrow(
      expect.objectContaining({
        _tag: "InvalidRequest",
        field: "UMG_LOG",
        rule: "one-of",
        message: `UMG_LOG: a text of ${KEY.length} characters is not allowed; allowed: debug, info, warn, error, off`
      })
    )
  })
})
