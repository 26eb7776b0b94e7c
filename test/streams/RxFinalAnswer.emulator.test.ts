// The token operators over real streams agree with the final answer: chat with `n` > 1 streams every
// choice's tool calls, and `toolCalls()` gives the first choice's, as the final answer's
// `choices[0].message.tool_calls` and `toolCallDeltas()` do; `accumulateMessage()` reads the family
// from the first event that names it, so a stream opening with an event several families share
// (`unknown`) is still folded by its own family.
import { Effect } from "effect"
import { from, lastValueFrom, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import type { MessagesEvent } from "../../src/core/text/messages/MessagesEvents.js"
import type { ResponsesEvent } from "../../src/core/text/responses/ResponsesResponse.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { accumulateMessage } from "../../src/streams/accumulateMessage.js"
import { createGateway, type RxGateway } from "../../src/streams/createGateway.js"
import { toolCallDeltas } from "../../src/streams/toolCallDeltas.js"
import { toolCalls } from "../../src/streams/toolCalls.js"
import { messagesText, responsesText } from "./tokenStreams.js"

let emu: Emulator
let rx: RxGateway
const config = () => ({ baseUrl: emu.url, apiKey: emu.apiKey })
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  rx = createGateway(config())
})
afterAll(async () => {
  await rx.dispose()
  await emu.close()
})

const city = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const
const chatTwoChoices = {
  model: "gpt-4o",
  n: 2,
  messages: [{ role: "user" as const, content: "Use get_weather and get_time for Paris" }],
  tools: [
    { type: "function" as const, function: { name: "get_weather", parameters: city } },
    { type: "function" as const, function: { name: "get_time", parameters: city } }
  ]
}

describe("toolCalls() with several chat choices", () => {
  it("gives the first choice's calls, as the final answer and toolCallDeltas() do", async () => {
    const final = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => runToFinal(g.chat.stream(chatTwoChoices), () => Effect.void)),
        Gateway.layer(config())
      )
    )
    const first = final.choices.find((c) => c.index === 0)!
    const expected = (first.message.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)])
    expect(expected).toHaveLength(2)
    // The other choice calls the tools too, with other arguments: the stream carries four calls.
    expect(final.choices.flatMap((c) => c.message.tool_calls ?? [])).toHaveLength(4)

    const calls = await lastValueFrom(rx.chat.stream$(chatTwoChoices).pipe(toolCalls(), toArray()))
    expect(calls.map((c) => [c.name, c.input])).toEqual(expected)
    const done = (await lastValueFrom(rx.chat.stream$(chatTwoChoices).pipe(toolCallDeltas(), toArray()))).filter(
      (d) => d.done
    )
    expect(done.map((d) => [d.name, d.partial])).toEqual(expected)
  })
})

describe("accumulateMessage() and a stream opening with a shared event", () => {
  const unknownMessages: MessagesEvent = { type: "unknown", event: "future_event", data: {} }
  const unknownResponses: ResponsesEvent = { type: "unknown", event: "response.future", data: {} }

  it("folds a messages stream by the family its first naming event gives, one snapshot per event", async () => {
    const events = [unknownMessages, ...messagesText]
    const snapshots = await lastValueFrom(from(events).pipe(accumulateMessage(), toArray()))
    expect(snapshots).toHaveLength(events.length)
    const last = snapshots.at(-1)!
    expect(last.phase).toBe("stopped")
    expect(last.message?.content.length).toBeGreaterThan(0)
  })

  it("folds a responses stream likewise", async () => {
    const events = [unknownResponses, ...responsesText]
    const snapshots = await lastValueFrom(from(events).pipe(accumulateMessage(), toArray()))
    expect(snapshots).toHaveLength(events.length)
    expect(snapshots.at(-1)!.phase).toBe("completed")
  })
})
