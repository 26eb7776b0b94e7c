// umg/rx's logging when the user's logger fails, against the emulator over loopback: a logger whose
// methods throw (a closed transport, a console that cannot print) or return a rejected promise (an
// async logger) never fails or breaks the call it logs, for a request, a stream and a retry; and
// `UMG_LOG`'s odd values (empty, blank, with a line break, with control characters) are read as a
// person means them or refused without printing what they hold.
import { lastValueFrom, toArray } from "rxjs"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createGateway } from "../../src/streams/createGateway.js"
import type { GatewayLogger } from "../../src/streams/RxLogging.js"
import { rxEmulator } from "../support/rxEmulator.js"

const KEY = "sk-umg-rx-logger-fails-FAKE-3c9d"

const { emu, gatewayWith } = rxEmulator(KEY)

const rejections: Array<unknown> = []
const onRejection = (reason: unknown) => void rejections.push(reason)
beforeEach(() => {
  rejections.length = 0
  process.on("unhandledRejection", onRejection)
})
afterEach(() => {
  process.off("unhandledRejection", onRejection)
})

const chatBody = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "Hello" }] }

/** A logger each of whose methods counts its call, then fails as `fail` says. */
const failing = (fail: () => unknown) => {
  let calls = 0
  const method = () => {
    calls++
    return fail()
  }
  const logger = { debug: method, info: method, warn: method, error: method } as GatewayLogger
  return { logger, calls: () => calls }
}

describe("createGateway with a logger that fails", () => {
  it("completes a request, a retried request and a stream when every logger method throws", async () => {
    const { logger, calls } = failing(() => {
      throw new Error("the log transport is closed")
    })
    const gateway = gatewayWith({ logLevel: "debug", logger })
    emu().inject("chat", { kind: "status", status: 503 })
    const answer = await lastValueFrom(gateway.chat.create$(chatBody))
    expect(answer.object).toBe("chat.completion")
    const events = await lastValueFrom(gateway.chat.stream$(chatBody).pipe(toArray()))
    expect(events.length).toBeGreaterThan(1)
    expect(await lastValueFrom(gateway.models.list$())).toEqual(expect.any(Array))
    // It was asked to log every line, and every one threw.
    expect(calls()).toBeGreaterThanOrEqual(8)
  })

  it("completes a call when the logger's methods return a rejected promise, leaving no rejection unhandled", async () => {
    const { logger, calls } = failing(() => Promise.reject(new Error("the async log sink is down")))
    const answer = await lastValueFrom(gatewayWith({ logLevel: "debug", logger }).chat.create$(chatBody))
    expect(answer.object).toBe("chat.completion")
    expect(calls()).toBeGreaterThanOrEqual(2)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(rejections).toEqual([])
  })
})

describe("UMG_LOG's odd values", () => {
  const recorder = () => {
    const lines: Array<string> = []
    const at = (message: string) => void lines.push(message)
    return { lines, logger: { debug: at, info: at, warn: at, error: at } }
  }

  it("takes an empty or blank-padded value as a person means it: empty is unset, ' DeBuG\\n' is debug", async () => {
    process.env.UMG_LOG = ""
    const unset = recorder()
    await lastValueFrom(gatewayWith({ logger: unset.logger }).models.list$())
    expect(unset.lines.filter((l) => l.startsWith("umg:"))).toEqual([])

    process.env.UMG_LOG = " DeBuG\n"
    const padded = recorder()
    await lastValueFrom(gatewayWith({ logger: padded.logger }).models.list$())
    expect(padded.lines.filter((l) => l.startsWith("umg:"))).toEqual(["umg: request", "umg: response"])
  })

  it("refuses a blank value or one with control characters, naming UMG_LOG and showing them escaped", () => {
    const base = { baseUrl: emu().url, apiKey: KEY }
    process.env.UMG_LOG = "   "
    expect(() => createGateway(base)).toThrow(
      expect.objectContaining({ field: "UMG_LOG", rule: "one-of", message: expect.stringContaining('"   "') })
    )
    process.env.UMG_LOG = "\u001b[2Jdebug"
    let thrown: unknown
    try {
      createGateway(base)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ field: "UMG_LOG", rule: "one-of" })
    // The terminal escape is shown as JSON escapes it, never raw.
    expect((thrown as Error).message).toContain("\\u001b[2Jdebug")
    expect((thrown as Error).message).not.toContain("\u001b")
  })
})
