// The contract gives no HTTP status for count tokens' two error envelopes (a missing parameter, an
// invalid key). One answered with 200 was decoded as a token count and failed as a `DecodeError`,
// losing the gateway's message; it is the typed error the same envelope gives under an error status.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(async () => {
  await emu.close()
})

const model = "epsilon-haiku-4-5-20251001"

/** The failure of one count-tokens call. */
const countFailure = () =>
  Effect.runPromise(
    Effect.flip(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => g.messages.countTokens({ model, messages: [{ role: "user", content: "hi" }] })),
        Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0 })
      )
    )
  )

const missingModel = {
  type: "error",
  error: { type: "invalid_request_error", message: "model: Field required" }
}
const invalidToken = { error: { message: "Invalid token", type: "invalid_request_error" } }

describe("count tokens error envelopes", () => {
  it("fails a missing-parameter envelope answered with 200 as a BadRequest with the gateway's message", async () => {
    emu.inject("count_tokens", { kind: "status", status: 200, body: missingModel })
    const error = await countFailure()
    expect(error).toMatchObject({
      _tag: "BadRequest",
      family: "count_tokens",
      type: "invalid_request_error",
      message: "model: Field required"
    })
  })

  it("fails an Invalid token envelope answered with 200 as an AuthenticationError", async () => {
    emu.inject("count_tokens", { kind: "status", status: 200, body: invalidToken })
    const error = await countFailure()
    expect(error).toMatchObject({
      _tag: "AuthenticationError",
      family: "count_tokens",
      type: "invalid_request_error",
      message: "Invalid token"
    })
  })

  it("gives the same typed error as the envelope under an error status, with the request id", async () => {
    // What the error says but for the status and the request id, which differ by answer.
    const said = (error: unknown) => {
      const { status: _status, requestId: _requestId, ...rest } = error as Record<string, unknown>
      return { ...rest, message: (error as Error).message }
    }
    for (const [body, status] of [
      [missingModel, 400],
      [invalidToken, 401]
    ] as const) {
      emu.inject("count_tokens", { kind: "status", status: 200, body })
      const under200 = await countFailure()
      emu.inject("count_tokens", { kind: "status", status, body })
      const underError = await countFailure()
      expect(under200._tag).toBe(underError._tag)
      expect(said(under200)).toEqual(said(underError))
      expect(under200).toMatchObject({ status: 200, requestId: expect.stringMatching(/^req_/) })
    }
  })

  it("still reads a token count answered with 200", async () => {
    const count = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => g.messages.countTokens({ model, messages: [{ role: "user", content: "hi" }] })),
        Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0 })
      )
    )
    expect(count.input_tokens).toBeGreaterThan(0)
  })
})
