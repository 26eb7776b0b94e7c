// Bodies that are not plain objects, given to the text calls of the Gateway (create and stream of
// chat, responses and messages): each is refused with an `InvalidRequest` naming what it is, before
// anything is sent — never a defect, never a throw from the call itself, and never a `null` read as
// an empty body (which used to be refused as a body without `model`).
import { Cause, Effect, Exit, Stream } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"

let server: Server
let baseUrl: string
let requests = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++
    req.resume()
    res.writeHead(500).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const throwing = (model: string) => ({
  model,
  get messages(): never {
    throw new Error("boom")
  }
})

type Call = (g: GatewayService, body: unknown) => Effect.Effect<unknown, unknown>
const calls: ReadonlyArray<readonly [string, string, Call]> = [
  ["chat.create", "gpt-4o-mini", (g, body) => g.chat.create(body as never)],
  ["chat.stream", "gpt-4o-mini", (g, body) => Stream.runDrain(g.chat.stream(body as never))],
  ["responses.create", "gpt-4o-mini", (g, body) => g.responses.create(body as never)],
  ["responses.stream", "gpt-4o-mini", (g, body) => Stream.runDrain(g.responses.stream(body as never))],
  ["messages.create", "epsilon-sonnet-4-5-20250929", (g, body) => g.messages.create(body as never)],
  ["messages.stream", "epsilon-sonnet-4-5-20250929", (g, body) => Stream.runDrain(g.messages.stream(body as never))]
]

/** The call's failure: a typed one, or the test fails naming the defect. */
const failureOf = async (call: Call, body: unknown) => {
  const exit = await Effect.runPromiseExit(
    Effect.flatMap(Gateway, (g) => Effect.suspend(() => call(g, body))).pipe(
      Effect.provide(Gateway.layer({ baseUrl, apiKey: "k-hostile", maxRetries: 0 }))
    )
  )
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = Cause.findErrorOption(exit.cause)
  if (error._tag === "None") throw new Error(`not a typed failure: ${Cause.pretty(exit.cause)}`)
  return error.value as { _tag: string; field?: string; rule?: string; message: string }
}

describe.each(calls)("%s refuses a body that is not plain data, sending nothing", (_name, model, call) => {
  it("a body whose property throws when read: InvalidRequest, not a defect", async () => {
    // The call is made inside `Effect.suspend` (failureOf): a throw from the call itself would be a
    // defect there, which failureOf reports as a failed test.
    const e = await failureOf(call, throwing(model))
    expect(e._tag).toBe("InvalidRequest")
    expect(e.message).toMatch(/cannot be read|could not be read/)
  })

  it("null, an array or a string: named as what it is, not read as an empty body", async () => {
    for (const [body, what] of [
      [null, "null"],
      [[1, 2], "an array of 2"],
      ["hi", '"hi"']
    ] as const) {
      const e = await failureOf(call, body)
      expect(e).toMatchObject({ _tag: "InvalidRequest", field: "(body)", rule: "type" })
      expect(e.message).toContain(`expected an object, got ${what}`)
    }
    expect(requests).toBe(0)
  })
})
