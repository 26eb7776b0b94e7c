import { Schema } from "effect"
import { lastValueFrom, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import * as z from "zod"
import type { ToolResultStep, ToolStep } from "../../src/core/tools/ToolStep.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, type RxGateway } from "../../src/streams/createGateway.js"
import { type RxRunTools, type RxRunToolsConfig, runTools$, tool } from "../../src/streams/runTools.js"
import type { RequestError } from "../../src/core/errors/GatewayError.js"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import type { ChatBodyInput } from "../../src/core/text/chat/ChatBody.js"
import type { ChatCompletion } from "../../src/core/text/chat/ChatResponse.js"
import type { TypedObservable } from "../../src/streams/TypedObservable.js"

let emu: Emulator
let gw: RxGateway
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  gw = createGateway({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 10, retryMaxDelayMs: 40 })
})
afterAll(async () => {
  await gw.dispose()
  await emu.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const EPSILON = "epsilon-sonnet-4-5-20250929"
const prompt = (...tools: ReadonlyArray<string>) => `Use ${tools.join(" and ")} for Oslo, one at a time.`

type Family = "messages" | "chat" | "responses" | "native"
const families: ReadonlyArray<Family> = ["messages", "chat", "responses", "native"]

const loopOf = <A>(
  family: Family,
  text: string,
  config: RxRunToolsConfig<A>
): TypedObservable<ToolStep<A, unknown>, unknown> => {
  switch (family) {
    case "messages":
      return runTools$.messages(
        gw.messages,
        { model: EPSILON, max_tokens: 512, messages: [{ role: "user", content: text }] },
        config
      )
    case "chat":
      return runTools$.chat(gw.chat, { model: "gpt-4o-mini", messages: [{ role: "user", content: text }] }, config)
    case "responses":
      return runTools$.responses(
        gw.responses,
        { model: "gpt-5", max_output_tokens: 512, input: [{ role: "user", content: text }] },
        config
      )
    case "native":
      return runTools$.native(
        gw.native,
        { model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text }] }] },
        config
      )
  }
}

const weather = tool({
  name: "get_weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  handler: async ({ city }) => {
    await sleep(1)
    return { city, celsius: 12 }
  }
})
const clock = tool({
  name: "get_time",
  description: "The local time in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) => `10:00 in ${city}`
})
const Report = z.object({ city: z.string(), celsius: z.number(), windy: z.boolean() })

const resultsOf = (all: ReadonlyArray<ToolStep<unknown, unknown>>) =>
  all.filter((s): s is ToolResultStep => s._tag === "ToolResult")

describe.each(families)("runTools$ on %s against the emulator", (family) => {
  it("calls two Promise tools over three steps, then gives a typed object", async () => {
    const all = await lastValueFrom(
      loopOf(family, prompt("get_weather", "get_time"), { tools: [weather, clock], output: Report }).pipe(toArray())
    )
    expect(all.filter((s) => s._tag !== "ModelTurn").map((s) => s._tag)).toEqual([
      "ToolCall",
      "ToolResult",
      "ToolCall",
      "ToolResult",
      "Done"
    ])
    expect(resultsOf(all).map((r) => [r.name, r.isError])).toEqual([
      ["get_weather", false],
      ["get_time", false]
    ])
    const done = all.at(-1)
    if (done?._tag !== "Done") throw new Error("no Done")
    const value: z.infer<typeof Report> | undefined = done.value
    expect(Report.safeParse(value).success).toBe(true)
    expect(done).toMatchObject({ reason: "stop", steps: 3 })
  })

  it("answers a throwing and a rejecting handler as tool errors, and goes on", async () => {
    const throwing = tool({
      name: "get_weather",
      description: "throws",
      parameters: z.object({ city: z.string() }),
      handler: (): string => {
        throw new RangeError("no station near here")
      }
    })
    const rejecting = tool({
      name: "get_time",
      description: "rejects",
      parameters: z.object({ city: z.string() }),
      handler: () => Promise.reject(new Error("clock service down"))
    })
    const all = await lastValueFrom(
      loopOf(family, "Use get_weather and get_time.", { tools: [throwing, rejecting] }).pipe(toArray())
    )
    expect(resultsOf(all).map((r) => r.content)).toEqual([
      "error: the tool get_weather failed: RangeError: no station near here",
      "error: the tool get_time failed: Error: clock service down"
    ])
    expect(all.at(-1)).toMatchObject({
      _tag: "Done",
      reason: "stop",
      text: expect.stringMatching(/clock service down/)
    })
  })
})

describe("runTools$ handlers", () => {
  it("runs at most `concurrency` Promise handlers at once", async () => {
    let inFlight = 0
    let most = 0
    const names = ["t_a", "t_b", "t_c", "t_d", "t_e"]
    const tools = names.map((name) =>
      tool({
        name,
        description: name,
        parameters: z.object({ city: z.string() }),
        handler: async () => {
          most = Math.max(most, ++inFlight)
          await sleep(30)
          inFlight--
          return name
        }
      })
    )
    const all = await lastValueFrom(
      loopOf("chat", `Use ${names.join(", ")}.`, { tools, concurrency: 2 }).pipe(toArray())
    )
    expect(resultsOf(all)).toHaveLength(5)
    expect(most).toBe(2)
  })

  it.each(families)("unsubscribing mid-handler aborts its signal and stops the loop (%s)", async (family) => {
    let signal: AbortSignal | undefined
    let started: () => void = () => undefined
    const running = new Promise<void>((resolve) => (started = resolve))
    const waiting = tool({
      name: "get_weather",
      description: "waits for its signal",
      parameters: z.object({ city: z.string() }),
      handler: (_input, context) => {
        signal = context.signal
        started()
        return new Promise<string>(() => undefined)
      }
    })
    emu.counters.reset()
    const seen: Array<string> = []
    let called: () => void = () => undefined
    const toolCall = new Promise<void>((resolve) => (called = resolve))
    const subscription = loopOf(family, prompt("get_weather"), { tools: [waiting] }).subscribe((s) => {
      seen.push(s._tag)
      if (s._tag === "ToolCall") called()
    })
    await Promise.all([running, toolCall])
    expect(signal?.aborted).toBe(false)
    subscription.unsubscribe()
    expect(signal?.aborted).toBe(true)
    await sleep(30)
    // One model call, and no more after the unsubscription.
    expect(Object.values(emu.counters.snapshot()).reduce((a, b) => a + b, 0)).toBe(1)
    expect(seen).toEqual(["ModelTurn", "ToolCall"])
  })

  it("aborting the options' signal errors with Aborted and aborts the handler's signal", async () => {
    let signal: AbortSignal | undefined
    let started: () => void = () => undefined
    const running = new Promise<void>((resolve) => (started = resolve))
    const waiting = tool({
      name: "get_weather",
      description: "waits",
      parameters: z.object({ city: z.string() }),
      handler: (_input, context) => {
        signal = context.signal
        started()
        return new Promise<string>(() => undefined)
      }
    })
    const controller = new AbortController()
    const failure = lastValueFrom(
      runTools$.chat(
        gw.chat,
        { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt("get_weather") }] },
        { tools: [waiting] },
        { signal: controller.signal }
      )
    ).then(
      () => undefined,
      (e: unknown) => e
    )
    await running
    controller.abort()
    expect(await failure).toMatchObject({ _tag: "Aborted", family: "openai" })
    expect(signal?.aborted).toBe(true)
  })
})

describe("runTools$ types", () => {
  it("wires into an RxGateway group in one line, the final value typed", async () => {
    const chatRunTools$: RxRunTools<ChatBodyInput, ChatCompletion, RequestError | InvalidRequest> = (
      body,
      config,
      options
    ) => runTools$.chat(gw.chat, body, config, options)
    const _steps$ = () => chatRunTools$({ model: "gpt-4o-mini", messages: [] }, { tools: [weather], output: Report })
    type Step = ReturnType<typeof _steps$> extends TypedObservable<infer S, unknown> ? S : never
    expectTypeOf<Extract<Step, { _tag: "Done" }>["value"]>().toEqualTypeOf<z.infer<typeof Report> | undefined>()
    const done = await lastValueFrom(
      chatRunTools$(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt("get_weather") }] },
        { tools: [weather], output: Report }
      )
    )
    expect(done._tag === "Done" && Report.safeParse(done.value).success).toBe(true)
  })
})
