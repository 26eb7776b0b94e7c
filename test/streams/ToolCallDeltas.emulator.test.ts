// Tool-call deltas of real streams: the emulator, offered a tool the prompt names, streams a call in
// each family's own shape; both faces (the Effect `toolCallDeltas` over `Gateway` streams, and the
// Rx `toolCallDeltas()` over `createGateway`'s `stream$`) give its arguments as they grow and end
// with what `toolCalls()` gives.
import { Effect, Stream } from "effect"
import { lastValueFrom, type Observable, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { toolCallDeltas as toolCallDeltasStream } from "../../src/adapters/text/ToolCallDeltas.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, type RxGateway } from "../../src/streams/createGateway.js"
import { type ToolCallDelta, toolCallDeltas } from "../../src/streams/toolCallDeltas.js"
import { toolCalls } from "../../src/streams/toolCalls.js"
import type { TokenEvent } from "../../src/streams/TokenEvent.js"

let emu: Emulator
let rx: RxGateway
const config = () => ({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 10, retryMaxDelayMs: 40 })
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  rx = createGateway(config())
})
afterAll(async () => {
  await rx.dispose()
  await emu.close()
})

const PROMPT = "Use plan_trip for Paris."
const schema = {
  type: "object",
  properties: {
    city: { type: "string" },
    days: { type: "integer" },
    stops: { type: "array", items: { type: "string" } },
    hotel: {
      type: "object",
      properties: { name: { type: "string" }, stars: { type: "integer" } },
      required: ["name", "stars"]
    }
  },
  required: ["city", "days", "stops", "hotel"]
} as const
const bodies = {
  messages: {
    model: "epsilon-sonnet-4-5-20250929",
    max_tokens: 256,
    messages: [{ role: "user", content: PROMPT }],
    tools: [{ name: "plan_trip", description: "Plans a trip", input_schema: schema }]
  },
  chat: {
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: PROMPT }],
    tools: [{ type: "function", function: { name: "plan_trip", description: "Plans a trip", parameters: schema } }]
  },
  responses: {
    model: "gpt-5",
    input: [{ role: "user", content: PROMPT }],
    tools: [{ type: "function", name: "plan_trip", description: "Plans a trip", parameters: schema }]
  },
  native: {
    model: "zeta-2.5-flash",
    contents: [{ role: "user", parts: [{ text: PROMPT }] }],
    tools: [{ functionDeclarations: [{ name: "plan_trip", description: "Plans a trip", parameters: schema }] }]
  }
} as const
type Family = keyof typeof bodies

const effectStream = (family: Family): Stream.Stream<TokenEvent, unknown, Gateway> =>
  Stream.unwrap(
    Effect.map(Gateway, (g): Stream.Stream<TokenEvent, unknown> => {
      switch (family) {
        case "messages":
          return g.messages.stream(bodies.messages)
        case "chat":
          return g.chat.stream(bodies.chat)
        case "responses":
          return g.responses.stream(bodies.responses)
        case "native":
          return g.native.stream(bodies.native)
      }
    })
  )

const rxStream = (family: Family): Observable<TokenEvent> => {
  switch (family) {
    case "messages":
      return rx.messages.stream$(bodies.messages)
    case "chat":
      return rx.chat.stream$(bodies.chat)
    case "responses":
      return rx.responses.stream$(bodies.responses)
    case "native":
      return rx.native.stream$(bodies.native)
  }
}

const viaEffect = (family: Family): Promise<Array<ToolCallDelta>> =>
  Effect.runPromise(
    Stream.runCollect(toolCallDeltasStream(effectStream(family))).pipe(Effect.provide(Gateway.layer(config())))
  ).then((deltas) => [...deltas])

describe.each(["messages", "chat", "responses", "native"] as const)("toolCallDeltas over a %s stream", (family) => {
  it("gives the call's arguments as they grow and ends with its input, on both faces", async () => {
    const deltas = await viaEffect(family)
    expect(deltas.length).toBeGreaterThan(0)
    for (const d of deltas) expect(d).toMatchObject({ family, name: "plan_trip" })
    // One call: every delta is of it, only the last is done.
    expect(new Set(deltas.map((d) => d.index)).size).toBe(1)
    expect(deltas.map((d) => d.done)).toStrictEqual([...deltas.slice(1).map(() => false), true])
    const last = deltas.at(-1)!
    expect(last.partial).toStrictEqual(JSON.parse(last.argumentsText))
    expect(last.partial).toMatchObject({ city: expect.any(String), days: expect.any(Number), stops: expect.any(Array) })
    // The text only grows, and each partial is what the text so far shows.
    for (let i = 1; i < deltas.length; i++)
      expect(deltas[i]!.argumentsText.startsWith(deltas[i - 1]!.argumentsText)).toBe(true)

    const rxDeltas = await lastValueFrom(rxStream(family).pipe(toolCallDeltas(), toArray()))
    // Ids are made per answer; the rest is the same on the Rx face.
    const withoutId = (ds: ReadonlyArray<ToolCallDelta>) => ds.map(({ id: _id, ...rest }) => rest)
    expect(withoutId(rxDeltas)).toStrictEqual(withoutId(deltas))
    const [call] = await lastValueFrom(rxStream(family).pipe(toolCalls(), toArray()))
    expect(call?.input).toStrictEqual(last.partial)
  })
})

describe("toolCallDeltas against the emulator's streaming", () => {
  it.each(["messages", "chat", "responses"] as const)(
    "reports how many pieces the %s arguments arrive in",
    async (family) => {
      const deltas = await viaEffect(family)
      const growing = deltas.filter((d) => !d.done && d.argumentsText !== "")
      // The emulator streams arguments in several pieces (issue 34, goal 5): the partial input is seen before the end.
      expect(growing.length).toBeGreaterThan(1)
      expect(growing.some((d) => JSON.stringify(d.partial) !== JSON.stringify(deltas.at(-1)!.partial))).toBe(true)
    }
  )
})
