import { createOpenAI } from "@ai-sdk/openai"
import { generateText, jsonSchema, stepCountIs, tool } from "ai"
import { Effect, Schema, Stream } from "effect"
import OpenAI from "openai"
import type {
  FunctionTool,
  Response,
  ResponseInputItem,
  ResponseStreamEvent
} from "openai/resources/responses/responses"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { responsesRunTools } from "../../src/adapters/tools/RunTools.js"
import * as Tool from "../../src/core/tools/Tool.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { contextOf } from "../../src/emulator/server/Context.js"
import { MAX_STORED_RESPONSES, resetResponsesState } from "../../src/emulator/text/responses/ResponsesState.js"

// The responses API keeps state as upstream does: each response is stored (unless `store: false`),
// `previous_response_id` continues its chain, `conversation` its conversation; both end a tool loop
// that sends only the function outputs. Stored responses can be retrieved and deleted, and the
// store is bounded. The official `openai` SDK is the client, as these are its calls.
let emu: Emulator
let openai: OpenAI
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  openai = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.url}/v1`, maxRetries: 0 })
})
afterAll(() => emu.close())
beforeEach(() => emu.clearFaults())

const model = "gpt-5"
const city = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false
}
const weather: FunctionTool = { type: "function", name: "get_weather", strict: true, parameters: city }
const time: FunctionTool = { type: "function", name: "get_time", strict: true, parameters: city }
const tools = [weather]

const statusOf = (item: Response["output"][number]): unknown => ("status" in item ? item.status : undefined)
const callsOf = (r: Response) => r.output.flatMap((o) => (o.type === "function_call" ? [o] : []))
const outputs = (r: Response, output: string): Array<ResponseInputItem> =>
  callsOf(r).map((c) => ({ type: "function_call_output", call_id: c.call_id, output }))

/** Whatever `run` throws (or fails the test when it does not throw). */
const thrown = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run()
  } catch (e) {
    return e
  }
  throw new Error("expected the call to fail")
}

describe("previous_response_id", () => {
  it("ends a tool loop on turn 2 with a message built on the tool output", async () => {
    let r = await openai.responses.create({ model, input: "What is the weather in Paris?", tools })
    const turns: Array<number> = []
    for (let turn = 1; turn <= 5; turn++) {
      turns.push(callsOf(r).length)
      if (callsOf(r).length === 0) break
      r = await openai.responses.create({ model, previous_response_id: r.id, tools, input: outputs(r, "12 C") })
    }
    expect(turns).toEqual([1, 0])
    expect(r.output_text).toMatch(/^The tool returned: 12 C\. /)
    expect(r.output[0]).toMatchObject({ type: "message", status: "completed" })
  })

  it("continues a chain of three responses from every earlier turn", async () => {
    const input = "Call get_weather and get_time for Paris, one at a time."
    const r1 = await openai.responses.create({ model, input, tools: [weather, time] })
    expect(callsOf(r1).map((c) => c.name)).toEqual(["get_weather"])
    const r2 = await openai.responses.create({
      model,
      previous_response_id: r1.id,
      tools: [weather, time],
      input: outputs(r1, "12 C")
    })
    // The prompt and the first call come from r1: only the second tool is left.
    expect(callsOf(r2).map((c) => c.name)).toEqual(["get_time"])
    expect(r2.previous_response_id).toBe(r1.id)
    const r3 = await openai.responses.create({
      model,
      previous_response_id: r2.id,
      tools: [weather, time],
      input: outputs(r2, "9 h")
    })
    expect(callsOf(r3)).toEqual([])
    expect(r3.output_text).toMatch(/^The tool returned: 9 h\. /)
    expect(r3.previous_response_id).toBe(r2.id)
    // The model read the whole chain, so the input tokens grow with it.
    expect(r3.usage!.input_tokens).toBeGreaterThan(r2.usage!.input_tokens)
    expect(r2.usage!.input_tokens).toBeGreaterThan(r1.usage!.input_tokens)
  })

  it("is echoed, null when absent, with store", async () => {
    const r = await openai.responses.create({ model, input: "Hello" })
    expect(r).toMatchObject({ previous_response_id: null, store: true })
    const next = await openai.responses.create({ model, input: "And then?", previous_response_id: r.id })
    expect(next.previous_response_id).toBe(r.id)
  })

  it("refuses an unknown id with the SDK's BadRequestError, code previous_response_not_found", async () => {
    const e = await thrown(() =>
      openai.responses.create({ model, input: "Hello", previous_response_id: "resp_unknown" })
    )
    expect(e).toBeInstanceOf(OpenAI.BadRequestError)
    expect(e).toMatchObject({
      status: 400,
      error: {
        message: "Previous response with id 'resp_unknown' not found.",
        type: "invalid_request_error",
        param: "previous_response_id",
        code: "previous_response_not_found"
      }
    })
  })

  it("cannot continue or retrieve a response made with store: false", async () => {
    const r = await openai.responses.create({ model, input: "What is the weather in Paris?", tools, store: false })
    expect(r).toMatchObject({ store: false })
    const chained = await thrown(() =>
      openai.responses.create({ model, previous_response_id: r.id, tools, input: outputs(r, "12 C") })
    )
    expect(chained).toBeInstanceOf(OpenAI.BadRequestError)
    expect(chained).toMatchObject({ code: "previous_response_not_found" })
    expect(await thrown(() => openai.responses.retrieve(r.id))).toBeInstanceOf(OpenAI.NotFoundError)
  })

  it("checks function outputs against the calls of the whole chain", async () => {
    const r = await openai.responses.create({ model, input: "What is the weather in Paris?", tools })
    const call = callsOf(r)[0]!
    const stray = await thrown(() =>
      openai.responses.create({
        model,
        previous_response_id: r.id,
        input: [{ type: "function_call_output", call_id: "call_other", output: "x" }]
      })
    )
    expect(stray).toMatchObject({
      status: 400,
      error: { message: "No tool call found for function call output with call_id call_other.", param: "input" }
    })
    const unanswered = await thrown(() =>
      openai.responses.create({ model, previous_response_id: r.id, input: "Never mind." })
    )
    expect(unanswered).toMatchObject({
      status: 400,
      error: { message: `No tool output found for function call ${call.call_id}.` }
    })
  })

  it("streams a continuation, whose response is stored as streamed", async () => {
    const r1 = await openai.responses.create({ model, input: "What is the weather in Paris?", tools })
    const stream = await openai.responses.create({
      model,
      previous_response_id: r1.id,
      tools,
      input: outputs(r1, "12 C"),
      stream: true
    })
    const events: Array<ResponseStreamEvent> = []
    for await (const e of stream) events.push(e)
    const created = events.find((e) => e.type === "response.created")
    const completed = events.at(-1)
    expect(created?.type === "response.created" && created.response.previous_response_id).toBe(r1.id)
    expect(completed?.type).toBe("response.completed")
    if (completed?.type !== "response.completed") return
    const text = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("")
    expect(text).toMatch(/^The tool returned: 12 C\. /)
    expect(await openai.responses.retrieve(completed.response.id)).toEqual(
      expect.objectContaining({
        id: completed.response.id,
        previous_response_id: r1.id,
        output: completed.response.output
      })
    )
  })
})

describe("GET and DELETE /v1/responses/{id}", () => {
  it("retrieves the stored response and deletes it, then answers 404 and refuses chaining", async () => {
    const r = await openai.responses.create({ model, input: "Hello", max_output_tokens: 64 })
    const got = await openai.responses.retrieve(r.id)
    expect(got).toEqual(r)
    const raw = await fetch(`${emu.url}/v1/responses/${r.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${emu.apiKey}` }
    })
    expect(raw.status).toBe(200)
    expect(await raw.json()).toEqual({ id: r.id, object: "response.deleted", deleted: true })
    const missing = await thrown(() => openai.responses.retrieve(r.id))
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError)
    expect(missing).toMatchObject({
      status: 404,
      error: { message: `Response with id '${r.id}' not found.`, type: "invalid_request_error", param: null }
    })
    expect(await thrown(() => openai.responses.delete(r.id))).toBeInstanceOf(OpenAI.NotFoundError)
    expect(
      await thrown(() => openai.responses.create({ model, input: "Again", previous_response_id: r.id }))
    ).toBeInstanceOf(OpenAI.BadRequestError)
  })

  it("keeps auth, fault injection and each key's own responses", async () => {
    const r = await openai.responses.create({ model, input: "Hello" })
    expect((await fetch(`${emu.url}/v1/responses/${r.id}`)).status).toBe(401)
    emu.inject("responses.get", { kind: "status", status: 503 })
    expect(await thrown(() => openai.responses.retrieve(r.id))).toMatchObject({ status: 503 })
    expect((await openai.responses.retrieve(r.id)).id).toBe(r.id)
    const other = new OpenAI({ apiKey: emu.restrictedKey!, baseURL: `${emu.url}/v1`, maxRetries: 0 })
    expect(await thrown(() => other.responses.retrieve(r.id))).toBeInstanceOf(OpenAI.NotFoundError)
  })
})

describe("conversation", () => {
  it("ends a tool loop on turn 2 with the official SDK", async () => {
    const conversation = await openai.conversations.create({ metadata: { topic: "weather" } })
    expect(conversation).toMatchObject({ object: "conversation", metadata: { topic: "weather" } })
    expect(conversation.id).toMatch(/^conv_/)
    let r = await openai.responses.create({
      model,
      input: "What is the weather in Paris?",
      tools,
      conversation: conversation.id
    })
    expect(r.conversation).toEqual({ id: conversation.id })
    expect(callsOf(r)).toHaveLength(1)
    r = await openai.responses.create({
      model,
      tools,
      conversation: { id: conversation.id },
      input: outputs(r, "12 C")
    })
    expect(callsOf(r)).toEqual([])
    expect(r.output_text).toMatch(/^The tool returned: 12 C\. /)
    expect(await openai.conversations.retrieve(conversation.id)).toEqual(conversation)
    expect(await openai.conversations.delete(conversation.id)).toEqual({
      id: conversation.id,
      object: "conversation.deleted",
      deleted: true
    })
    const gone = await thrown(() => openai.conversations.retrieve(conversation.id))
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError)
    expect(gone).toMatchObject({ error: { message: `Conversation with id '${conversation.id}' not found.` } })
  })

  it("ends the AI SDK's tool loop on step 2 (it sends the user's message again with the outputs)", async () => {
    const conversation = await openai.conversations.create()
    const provider = createOpenAI({ baseURL: `${emu.url}/v1`, apiKey: emu.apiKey })
    const result = await generateText({
      model: provider.responses("gpt-5"),
      prompt: "What is the weather in Paris?",
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string }>({
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"]
          }),
          execute: () => Promise.resolve("12 C")
        })
      },
      stopWhen: stepCountIs(5),
      providerOptions: { openai: { conversation: conversation.id } }
    })
    expect(result.steps.map((s) => s.toolCalls.length)).toEqual([1, 0])
    expect(result.text).toMatch(/^The tool returned: "?12 C"?\. /)
  })

  it("refuses an unknown conversation with 404, and one given beside previous_response_id", async () => {
    const unknown = await thrown(() => openai.responses.create({ model, input: "Hello", conversation: "conv_unknown" }))
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError)
    expect(unknown).toMatchObject({ error: { message: "Conversation with id 'conv_unknown' not found." } })
    const r = await openai.responses.create({ model, input: "Hello" })
    const conversation = await openai.conversations.create()
    const both = await thrown(() =>
      openai.responses.create({ model, input: "Hello", conversation: conversation.id, previous_response_id: r.id })
    )
    expect(both).toBeInstanceOf(OpenAI.BadRequestError)
  })
})

describe("umg's own client", () => {
  const run = <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<A> =>
    Effect.runPromise(Effect.provide(effect, Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey })))

  it("continues with previous_response_id and with conversation, input given or left out", async () => {
    const tools = [{ ...weather }]
    const first = await run(Effect.flatMap(Gateway, (g) => g.responses.create({ model, input: "Hello", tools })))
    const answers = first.output.flatMap((o) =>
      o.type === "function_call" && "call_id" in o
        ? [{ type: "function_call_output", call_id: String(o.call_id), output: "12 C" }]
        : []
    )
    expect(answers).toHaveLength(1)
    const second = await run(
      Effect.flatMap(Gateway, (g) =>
        g.responses.create({ model, previous_response_id: first.id, tools, input: answers })
      )
    )
    expect(second.previous_response_id).toBe(first.id)
    expect(second.output.map((o) => o.type)).toEqual(["message"])
    // No input: the stored chain stands in for it.
    const third = await run(
      Effect.flatMap(Gateway, (g) => g.responses.create({ model, previous_response_id: second.id }))
    )
    expect(third.status).toBe("completed")
    const conversation = await openai.conversations.create({ items: [{ role: "user", content: "Hello" }] })
    const inConversation = await run(
      Effect.flatMap(Gateway, (g) => g.responses.create({ model, conversation: conversation.id }))
    )
    expect(inConversation.status).toBe("completed")
    // umg keeps what the answer says of where it lives.
    expect(inConversation.conversation).toEqual({ id: conversation.id })
    expect(second.store).toBe(true)
  })
})

describe("items sent again", () => {
  it("are refused as upstream does: an input item whose id the chain, the conversation or the input holds", async () => {
    const first = await openai.responses.create({ model, input: "What is the weather in Paris?", tools })
    const call = first.output.find((o) => o.type === "function_call")!
    const output = {
      type: "function_call_output" as const,
      call_id: "call_id" in call ? call.call_id : "",
      output: "12 C"
    }
    const again = (extra: object) =>
      openai.responses.create({ model, tools, ...extra } as never).then(
        () => undefined,
        (e: unknown) => e
      )
    const chained = await again({ previous_response_id: first.id, input: [call, output] })
    expect(chained).toBeInstanceOf(OpenAI.BadRequestError)
    expect((chained as Error).message).toContain(`Duplicate item found with id ${call.id}`)
    const twice = await again({ input: [{ role: "user", content: "Hi" }, call, call, output] })
    expect((twice as Error).message).toContain("Duplicate item found")
    // The outputs alone continue the chain.
    expect(await again({ previous_response_id: first.id, input: [output] })).toBeUndefined()
  })

  it("are not sent by umg's tool loop in a conversation: it ends, each step sending only its outputs", async () => {
    const conversation = await openai.conversations.create({})
    const all = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Gateway, (g) =>
          Stream.runCollect(
            responsesRunTools(
              g.responses,
              { model, conversation: conversation.id, input: "Use get_weather and get_time for Oslo, one at a time." },
              {
                tools: [
                  Tool.make({
                    name: "get_weather",
                    description: "The weather in a city",
                    parameters: Schema.Struct({ city: Schema.String }),
                    handler: () => Effect.succeed("12 C")
                  }),
                  Tool.make({
                    name: "get_time",
                    description: "The local time in a city",
                    parameters: Schema.Struct({ city: Schema.String }),
                    handler: () => Effect.succeed("10:00")
                  })
                ]
              }
            )
          )
        ),
        Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey })
      )
    )
    expect(all.map((step) => step._tag).filter((tag) => tag === "ToolResult")).toHaveLength(2)
    expect(all.at(-1)?._tag).toBe("Done")
  })
})

describe("incomplete responses", () => {
  it("mark their message item incomplete, in the response and in the stream", async () => {
    const r = await openai.responses.create({ model, input: "Hello", max_output_tokens: 16 })
    expect(r.status).toBe("incomplete")
    expect(r.output.map(statusOf)).toEqual(["incomplete"])
    const stream = await openai.responses.create({ model, input: "Hello", max_output_tokens: 16, stream: true })
    const done: Array<unknown> = []
    let final: Response | undefined
    for await (const e of stream) {
      if (e.type === "response.output_item.done") done.push(statusOf(e.item))
      if (e.type === "response.incomplete") final = e.response
    }
    expect(done).toEqual(["incomplete"])
    expect(final?.output.map(statusOf)).toEqual(["incomplete"])
  })
})

describe("the bound", () => {
  it("drops the oldest response beyond the bound, which then answers 404 and 400", async () => {
    const small = await startEmulator({ fast: true })
    try {
      resetResponsesState(contextOf(small), { responses: 3 })
      const client = new OpenAI({ apiKey: small.apiKey, baseURL: `${small.url}/v1`, maxRetries: 0 })
      const ids: Array<string> = []
      for (const n of [1, 2, 3, 4]) ids.push((await client.responses.create({ model, input: `Hello ${n}` })).id)
      expect(await thrown(() => client.responses.retrieve(ids[0]!))).toBeInstanceOf(OpenAI.NotFoundError)
      expect(
        await thrown(() => client.responses.create({ model, input: "Again", previous_response_id: ids[0]! }))
      ).toMatchObject({ code: "previous_response_not_found" })
      for (const id of ids.slice(1)) expect((await client.responses.retrieve(id)).id).toBe(id)
    } finally {
      await small.close()
    }
  })

  it("drops the oldest responses when the stored characters outgrow the bound", async () => {
    const small = await startEmulator({ fast: true })
    try {
      resetResponsesState(contextOf(small), { chars: 20_000 })
      const client = new OpenAI({ apiKey: small.apiKey, baseURL: `${small.url}/v1`, maxRetries: 0 })
      const big = (await client.responses.create({ model, input: `Hello ${"x".repeat(15_000)}` })).id
      const next = (await client.responses.create({ model, input: `Hello ${"y".repeat(15_000)}` })).id
      expect(await thrown(() => client.responses.retrieve(big))).toBeInstanceOf(OpenAI.NotFoundError)
      expect((await client.responses.retrieve(next)).id).toBe(next)
    } finally {
      await small.close()
    }
  })

  it("is 1,000 responses by default: the 1,001st drops the first", async () => {
    const fresh = await startEmulator({ fast: true })
    try {
      const client = new OpenAI({ apiKey: fresh.apiKey, baseURL: `${fresh.url}/v1`, maxRetries: 0 })
      expect(MAX_STORED_RESPONSES).toBe(1_000)
      const first = (await client.responses.create({ model, input: "Hello", max_output_tokens: 1 })).id
      // Plain fetch, 250 at a time: the SDK's per-call work would make this the slowest test here.
      const post = () =>
        fetch(`${fresh.url}/v1/responses`, {
          method: "POST",
          headers: { authorization: `Bearer ${fresh.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ model, input: "Hi", max_output_tokens: 1 })
        }).then(async (res) => ((await res.json()) as { id: string }).id)
      const kept: Array<string> = []
      for (let batch = 0; batch < 4; batch++) kept.push(...(await Promise.all(Array.from({ length: 250 }, post))))
      expect((await client.responses.retrieve(kept[0]!)).id).toBe(kept[0])
      expect(await thrown(() => client.responses.retrieve(first))).toBeInstanceOf(OpenAI.NotFoundError)
    } finally {
      await fresh.close()
    }
  })
})
