import { Effect, Layer, Stream } from "effect"
import { LanguageModel } from "effect/ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { UmgLanguageModel } from "../../src/ai/index.js"
import { closeCountingServers, countingServer } from "../support/countingServer.js"

// A native-content prompt blocked (`promptFeedback.blockReason`, no candidate) through umg/ai: the
// answer and the stream both end with content-filter, the stream without failing (the core's own
// stream fails on a block; Effect AI's reads it as the answer does). Served by a loopback server.
const blocked = {
  promptFeedback: { blockReason: "SAFETY" },
  usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 }
}

let url: string
beforeAll(async () => {
  const server = await countingServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const stream = req.url?.includes(":streamGenerateContent") === true
      res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" })
      res.end(stream ? `data: ${JSON.stringify(blocked)}\r\n\r\n` : JSON.stringify(blocked))
    })
  })
  url = server.url
})
afterAll(() => closeCountingServers())

const run = <A, E>(effect: Effect.Effect<A, E, LanguageModel.LanguageModel>) =>
  Effect.runPromise(
    Effect.provide(
      effect,
      UmgLanguageModel.layer({ model: "zeta-2.5-flash" }).pipe(
        Layer.provide(Gateway.layer({ baseUrl: url, apiKey: "test-key", maxRetries: 0 }))
      )
    )
  )

describe("a native prompt blocked, through umg/ai", () => {
  it("generateText and streamText both end with content-filter, the stream without an error", async () => {
    const answer = await run(LanguageModel.generateText({ prompt: "x" }))
    expect(answer.finishReason).toBe("content-filter")
    const parts = await run(Stream.runCollect(LanguageModel.streamText({ prompt: "x" })))
    expect(parts.find((p) => p.type === "finish")).toMatchObject({ reason: "content-filter" })
    expect(parts.some((p) => p.type === "error")).toBe(false)
  })
})
