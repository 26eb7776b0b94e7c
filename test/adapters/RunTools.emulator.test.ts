import { Context, Data, Deferred, Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import * as z from "zod"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import {
  chatRunTools,
  messagesRunTools,
  nativeRunTools,
  responsesRunTools,
  type RunToolsConfig,
  type RunToolsMethod,
  type RunToolsOutputError
} from "../../src/adapters/tools/RunTools.js"
import type { RequestError } from "../../src/core/errors/GatewayError.js"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import type { AnySchema } from "../../src/core/structured/AnySchema.js"
import type { ChatBodyInput } from "../../src/core/text/chat/ChatBody.js"
import type { ChatCompletion } from "../../src/core/text/chat/ChatResponse.js"
import * as Tool from "../../src/core/tools/Tool.js"
import type { DoneStep, ToolResultStep, ToolStep } from "../../src/core/tools/ToolStep.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
let layer: Layer.Layer<Gateway>
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  layer = Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, retryBaseDelayMs: 10, retryMaxDelayMs: 40 })
})
afterAll(async () => {
  await emu.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, Gateway>): Promise<A> => Effect.runPromise(Effect.provide(effect, layer))
const steps = <A, Response, E>(
  f: (g: GatewayService) => Stream.Stream<ToolStep<A, Response>, E>
): Promise<ReadonlyArray<ToolStep<A, Response>>> => run(Effect.flatMap(Gateway, (g) => Stream.runCollect(f(g))))

const EPSILON = "epsilon-sonnet-4-5-20250929"

/** A prompt the emulator answers by calling the tools it names, in order, one per turn. */
const prompt = (...tools: ReadonlyArray<string>) => `Use ${tools.join(" and ")} for Oslo, one at a time.`

type Family = "messages" | "chat" | "responses" | "native"
const families: ReadonlyArray<Family> = ["messages", "chat", "responses", "native"]

/** Runs a loop of `family` on `text` with `config`: each family's minimal body. */
const loopOf =
  <A, R>(family: Family, text: string, config: RunToolsConfig<A, R>) =>
  (g: GatewayService): Stream.Stream<ToolStep<A, unknown>, unknown, R> => {
    switch (family) {
      case "messages":
        return messagesRunTools(
          g.messages,
          { model: EPSILON, max_tokens: 512, messages: [{ role: "user", content: text }] },
          config
        )
      case "chat":
        return chatRunTools(g.chat, { model: "gpt-4o-mini", messages: [{ role: "user", content: text }] }, config)
      case "responses":
        return responsesRunTools(
          g.responses,
          { model: "gpt-5", max_output_tokens: 512, input: [{ role: "user", content: text }] },
          config
        )
      case "native":
        return nativeRunTools(
          g.native,
          { model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text }] }] },
          config
        )
    }
  }

const weather = Tool.make({
  name: "get_weather",
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) => Effect.succeed({ city, celsius: 12, sky: "windy" })
})
const clock = Tool.make({
  name: "get_time",
  description: "The local time in a city",
  parameters: z.object({ city: z.string() }),
  handler: ({ city }) => Effect.succeed(`10:00 in ${city}`)
})

const tags = (all: ReadonlyArray<ToolStep<unknown, unknown>>) => all.map((s) => s._tag)
const doneOf = <A, R>(all: ReadonlyArray<ToolStep<A, R>>): DoneStep<A, R> => {
  const last = all.at(-1)
  if (last?._tag !== "Done") throw new Error(`the loop did not end with Done: ${tags(all).join(", ")}`)
  return last
}
const resultsOf = (all: ReadonlyArray<ToolStep<unknown, unknown>>) =>
  all.filter((s): s is ToolResultStep => s._tag === "ToolResult")

/** A family's usage object in an answer (`usage`, `usageMetadata`). */
const usageIn = (response: unknown): Record<string, number> => {
  const r = response as { usage?: Record<string, number>; usageMetadata?: Record<string, number> }
  return r.usage ?? r.usageMetadata ?? {}
}

const Report = Schema.Struct({
  city: Schema.String,
  celsius: Schema.Number,
  windy: Schema.Boolean,
  tags: Schema.Array(Schema.Literals(["rain", "sun", "wind"]))
})
const ZodReport = z.object({ city: z.string(), celsius: z.number(), windy: z.boolean(), note: z.string().optional() })

describe.each(families)("runTools on %s against the emulator", (family) => {
  it("calls two tools over three steps, each result going back, then stops", async () => {
    const all = await steps(loopOf(family, prompt("get_weather", "get_time"), { tools: [weather, clock] }))
    expect(tags(all)).toEqual([
      "ModelTurn",
      "ToolCall",
      "ToolResult",
      "ModelTurn",
      "ToolCall",
      "ToolResult",
      "ModelTurn",
      "Done"
    ])
    const results = resultsOf(all)
    expect(results.map((r) => [r.name, r.isError])).toEqual([
      ["get_weather", false],
      ["get_time", false]
    ])
    expect(results[1]).toMatchObject({ isError: false, output: expect.stringMatching(/^10:00 in \S/) })
    const done = doneOf(all)
    expect(done).toMatchObject({ reason: "stop", steps: 3, value: undefined })
    expect(done.text).toMatch(/10:00 in /)
  })
})

describe.each(families)("runTools on %s with a typed final value", (family) => {
  it("calls two tools over three steps, then gives an object of the output schema (Effect Schema)", async () => {
    const all = await steps(
      loopOf(family, prompt("get_weather", "get_time"), { tools: [weather, clock], output: Report })
    )
    const done = doneOf(all)
    expect(done).toMatchObject({ reason: "stop", steps: 3 })
    // The loop's usage is every model turn's, the extra output turn included.
    const turns = all.filter((s) => s._tag === "ModelTurn")
    const sum = (read: (u: Record<string, number>) => number | undefined) =>
      turns.reduce((n, t) => n + (read(usageIn(t.response)) ?? 0), 0)
    expect(done.usage).toEqual({
      inputTokens: sum((u) => u.input_tokens ?? u.prompt_tokens ?? u.promptTokenCount),
      outputTokens: sum((u) => u.output_tokens ?? u.completion_tokens ?? u.candidatesTokenCount)
    })
    expect(done.usage.inputTokens).toBeGreaterThan(turns.length)
    // The value is decoded: a schema-shaped object, not text.
    expect(Schema.is(Report)(done.value)).toBe(true)
    expect(resultsOf(all).map((r) => r.name)).toEqual(["get_weather", "get_time"])
    // Chat and responses ask for the format at every step; messages-style and native once more at the end.
    expect(turns.map((t) => t.output)).toEqual(
      family === "chat" || family === "responses" ? [false, false, false] : [false, false, false, true]
    )
  })

  it("gives a value of a zod output schema, typed", async () => {
    const all = await steps(loopOf(family, prompt("get_weather"), { tools: [weather], output: ZodReport }))
    const value: z.infer<typeof ZodReport> | undefined = doneOf(all).value
    expect(ZodReport.safeParse(value).success).toBe(true)
  })

  it("takes a Standard Schema without JSON Schema (valibot's kind) with outputJsonSchema, and refuses it without", async () => {
    // A validator that offers no `~standard.jsonSchema`: its JSON Schema has to be given.
    const city: AnySchema<{ readonly city: string }> = {
      "~standard": {
        version: 1,
        vendor: "hand-made",
        validate: (value) =>
          typeof value === "object" && value !== null && typeof (value as { city?: unknown }).city === "string"
            ? { value: value as { city: string } }
            : { issues: [{ message: "expected { city: string }" }] }
      }
    }
    const refused = await exitOf(loopOf(family, prompt("get_weather"), { tools: [weather], output: city }))
    expect(Exit.isFailure(refused) ? JSON.stringify(refused.cause) : "success").toContain("offers no JSON Schema")
    const all = await steps(
      loopOf(family, prompt("get_weather"), {
        tools: [weather],
        output: city,
        outputJsonSchema: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
          additionalProperties: false
        }
      })
    )
    expect(doneOf(all).value).toEqual({ city: expect.any(String) })
  })
})

/** Runs a loop to its end: its steps, or its failure. */
const exitOf = <A, Response, E>(f: (g: GatewayService) => Stream.Stream<ToolStep<A, Response>, E>) =>
  Effect.runPromise(
    Effect.exit(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => Stream.runCollect(f(g))),
        layer
      )
    )
  )

describe.each(families)("runTools on %s with an answer that does not match the output schema", (family) => {
  it("fails with OutputMismatch carrying the raw answer, after the tool errors went back", async () => {
    const exit = await exitOf(
      loopOf(family, `${prompt("get_weather")} [umg:mismatch]`, { tools: [weather], output: Report })
    )
    if (Exit.isSuccess(exit)) throw new Error("expected a failure")
    const error = exit.cause.reasons[0]
    if (error?._tag !== "Fail") throw new Error("expected a typed failure")
    expect(error.error).toMatchObject({ _tag: "OutputMismatch", family })
    expect((error.error as { readonly raw: string }).raw).not.toBe("")
  })
})

describe("the loop's stop conditions", () => {
  it("stops at once when the model answers without calls", async () => {
    const all = await steps((g) =>
      chatRunTools(
        g.chat,
        { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt("get_weather") }], tool_choice: "none" },
        { tools: [weather] }
      )
    )
    expect(tags(all)).toEqual(["ModelTurn", "Done"])
    expect(doneOf(all)).toMatchObject({ reason: "stop", steps: 1 })
  })

  it.each(families)("ends with max-steps on %s after the last allowed turn's calls are answered", async (family) => {
    const all = await steps(
      loopOf(family, prompt("get_weather", "get_time"), { tools: [weather, clock], maxSteps: 2, output: Report })
    )
    expect(tags(all)).toEqual(["ModelTurn", "ToolCall", "ToolResult", "ModelTurn", "ToolCall", "ToolResult", "Done"])
    expect(doneOf(all)).toMatchObject({ reason: "max-steps", steps: 2, value: undefined })
  })

  it("runs eight turns at most by default", async () => {
    const many = Array.from({ length: 9 }, (_, i) => Tool.make({ ...weather, name: `tool_${i}` }))
    const all = await steps(loopOf("messages", prompt(...many.map((t) => t.name)), { tools: many }))
    expect(doneOf(all)).toMatchObject({ reason: "max-steps", steps: 8 })
    expect(resultsOf(all)).toHaveLength(8)
  })

  it("refuses a bad maxSteps or concurrency, and bad tools, before sending anything", async () => {
    emu.counters.reset()
    const exits = await Promise.all([
      exitOf(loopOf("chat", "hi", { tools: [weather], maxSteps: 0 })),
      exitOf(loopOf("chat", "hi", { tools: [weather], concurrency: 1.5 })),
      exitOf(loopOf("chat", "hi", { tools: [weather, weather] })),
      exitOf(loopOf("messages", "hi", { tools: [weather], output: Schema.Struct({ x: Schema.Unknown }) }))
    ])
    expect(exits.map((e) => (Exit.isFailure(e) ? JSON.stringify(e.cause) : "success"))).toEqual([
      expect.stringContaining('"field":"maxSteps"'),
      expect.stringContaining('"field":"concurrency"'),
      expect.stringContaining('"field":"tools[1].name"'),
      expect.stringContaining("SchemaNotExpressible")
    ])
    expect(emu.counters.snapshot()).toEqual({})
  })
})

describe.each(families)("runTools on %s with a body that declares tools itself", (family) => {
  it("refuses a loop tool of the same name as one of the body's, naming it, before sending anything", async () => {
    const own = { name: "get_weather", parameters: { type: "object", properties: {} } }
    const text = "hi"
    const config = { tools: [clock, weather] }
    const loop = (g: GatewayService): Stream.Stream<unknown, unknown> => {
      switch (family) {
        case "messages":
          return messagesRunTools(
            g.messages,
            {
              model: EPSILON,
              max_tokens: 512,
              messages: [{ role: "user", content: text }],
              tools: [{ name: own.name, input_schema: { type: "object" } }]
            },
            config
          )
        case "chat":
          return chatRunTools(
            g.chat,
            {
              model: "gpt-4o-mini",
              messages: [{ role: "user", content: text }],
              tools: [{ type: "function", function: own }]
            },
            config
          )
        case "responses":
          return responsesRunTools(
            g.responses,
            { model: "gpt-5", input: [{ role: "user", content: text }], tools: [{ type: "function", ...own }] },
            config
          )
        case "native":
          return nativeRunTools(
            g.native,
            {
              model: "zeta-2.5-flash",
              contents: [{ role: "user", parts: [{ text }] }],
              tools: [{ functionDeclarations: [{ name: "other" }, { name: own.name }] }]
            },
            config
          )
      }
    }
    emu.counters.reset()
    const exit = await Effect.runPromiseExit(
      Effect.provide(
        Effect.flatMap(Gateway, (g) => Stream.runDrain(loop(g))),
        layer
      )
    )
    const shown = Exit.isFailure(exit) ? JSON.stringify(exit.cause) : "success"
    expect(shown).toContain('"field":"tools[1].name"')
    expect(shown).toContain(`\\"get_weather\\" is also declared in the body's own tools`)
    expect(emu.counters.snapshot()).toEqual({})
  })
})

describe("the handlers", () => {
  const names = ["t_a", "t_b", "t_c", "t_d", "t_e", "t_f"]
  /** Six tools called in one turn; each takes longer the earlier it is called, counting those in flight. */
  const counted = () => {
    let inFlight = 0
    let most = 0
    const tools = names.map((name, i) =>
      Tool.make({
        name,
        description: `tool ${name}`,
        parameters: Schema.Struct({ city: Schema.String }),
        handler: () =>
          Effect.gen(function* () {
            inFlight++
            most = Math.max(most, inFlight)
            yield* Effect.sleep(`${30 * (names.length - i)} millis`)
            inFlight--
            return `r:${name}`
          })
      })
    )
    return { tools, most: () => most }
  }
  const sixAtOnce = `Use ${names.join(", ")}.`

  it.each([
    [2, 2],
    [undefined, 4],
    [6, 6]
  ])("runs at most `concurrency` (%s) at once (seen: %s)", async (concurrency, expected) => {
    const { tools, most } = counted()
    const all = await steps(loopOf("messages", sixAtOnce, { tools, concurrency }))
    expect(resultsOf(all)).toHaveLength(6)
    expect(most()).toBe(expected)
  })

  it.each(families)(
    "shows results as they complete, and sends them back in the order of the calls (%s)",
    async (family) => {
      // Each waits until the result of the one called after it was shown: the last called finishes first.
      const shown = new Map(names.map((name) => [name, Deferred.makeUnsafe<void>()]))
      const tools = names.map((name, i) =>
        Tool.make({
          name,
          description: `tool ${name}`,
          parameters: Schema.Struct({ city: Schema.String }),
          handler: () =>
            Effect.as(i + 1 < names.length ? Deferred.await(shown.get(names[i + 1]!)!) : Effect.void, `r:${name}`)
        })
      )
      const all = await steps((g) =>
        loopOf(family, sixAtOnce, { tools, concurrency: 6 })(g).pipe(
          Stream.tap((s) => (s._tag === "ToolResult" ? Deferred.succeed(shown.get(s.name)!, undefined) : Effect.void))
        )
      )
      const calls = all.filter((s) => s._tag === "ToolCall").map((s) => s.name)
      expect(calls).toEqual(names)
      // The last called finishes first.
      expect(resultsOf(all).map((r) => r.name)).toEqual([...names].reverse())
      // The model read them in the order of the calls.
      expect(doneOf(all).text).toMatch(new RegExp(names.map((n) => `r:${n}`).join(".*")))
    }
  )

  class CityUnknown extends Data.TaggedError("CityUnknown")<{ readonly message: string }> {}

  it.each(families)(
    "answers bad arguments, a typed failure, a defect and an unsendable output as tool errors, and goes on (%s)",
    async (family) => {
      const failing = Tool.make({
        name: "get_forecast",
        description: "fails",
        parameters: Schema.Struct({ city: Schema.String }),
        handler: () => Effect.fail(new CityUnknown({ message: "no forecast here" }))
      })
      const dying = Tool.make({ ...failing, name: "get_tide", handler: () => Effect.die(new Error("tide table lost")) })
      const bigint = Tool.make({ ...failing, name: "get_pressure", handler: () => Effect.succeed(10n) })
      const all = await steps(
        loopOf(family, `Use get_forecast, get_tide and get_pressure. ${"[umg:mismatch]"}`, {
          tools: [failing, dying, bigint]
        })
      )
      const results = resultsOf(all)
      expect(results.map((r) => [r.name, r.isError])).toEqual([
        ["get_forecast", true],
        ["get_tide", true],
        ["get_pressure", true]
      ])
      // Mismatching arguments never reach the handlers.
      expect(results.map((r) => (r.isError ? r.error.reason : "ok"))).toEqual([
        "invalid-arguments",
        "invalid-arguments",
        "invalid-arguments"
      ])
      expect(doneOf(all).text).toMatch(/error: the tool get_forecast was not run: its arguments do not match/)

      const fine = await steps(
        loopOf(family, "Use get_forecast, get_tide and get_pressure.", { tools: [failing, dying, bigint] })
      )
      const again = resultsOf(fine)
      expect(again.map((r) => (r.isError ? r.error.reason : "ok"))).toEqual([
        "handler-failed",
        "handler-died",
        "output-not-json"
      ])
      expect(again.map((r) => r.content)).toEqual([
        "error: the tool get_forecast failed: CityUnknown: no forecast here",
        "error: the tool get_tide failed unexpectedly: Error: tide table lost",
        "error: the tool get_pressure failed: the output is not JSON (TypeError)"
      ])
      const failed = again[0]!
      expect(failed.isError && failed.error.cause).toBeInstanceOf(CityUnknown)
      expect(doneOf(fine)).toMatchObject({ reason: "stop", steps: 2 })
      expect(doneOf(fine).text).toMatch(/no forecast here.*tide table lost.*not JSON/)
    }
  )

  it("answers a handler that throws instead of returning an effect, or fails with a plain object, and goes on", async () => {
    const throwing = Tool.make({
      name: "get_weather",
      description: "throws",
      parameters: Schema.Struct({ city: Schema.String }),
      handler: (): Effect.Effect<string> => {
        throw new Error("sync throw")
      }
    })
    const plain = Tool.make({
      name: "get_time",
      description: "fails with a plain object",
      parameters: Schema.Struct({ city: Schema.String }),
      handler: ({ city }) => Effect.fail({ reason: `no data for ${city}` })
    })
    const all = await steps(loopOf("messages", prompt("get_weather", "get_time"), { tools: [throwing, plain] }))
    const [thrown, failed] = resultsOf(all)
    expect([thrown?.name, thrown?.isError === true && thrown.error.reason, thrown?.content]).toEqual([
      "get_weather",
      "handler-died",
      "error: the tool get_weather failed unexpectedly: Error: sync throw"
    ])
    expect([failed?.name, failed?.isError === true && failed.error.reason]).toEqual(["get_time", "handler-failed"])
    // The object's own words reach the model (the city is the emulator's choice).
    expect(failed?.content).toMatch(/^error: the tool get_time failed: \{"reason":"no data for [^"]+"\}$/)
    expect(doneOf(all).reason).toBe("stop")
  })

  it("answers a call of a tool the loop does not have as an unknown tool", async () => {
    const all = await steps((g) =>
      messagesRunTools(
        g.messages,
        {
          model: EPSILON,
          max_tokens: 512,
          messages: [{ role: "user", content: "Use ghost." }],
          tools: [{ name: "ghost", input_schema: { type: "object" } }]
        },
        { tools: [weather] }
      )
    )
    const [result] = resultsOf(all)
    expect(result).toMatchObject({ name: "ghost", isError: true })
    expect(result!.content).toBe('error: there is no tool "ghost"; the tools are: get_weather')
    expect(doneOf(all).text).toMatch(/there is no tool/)
  })
})

describe("cancelling the loop mid-handler", () => {
  const waiting = () => {
    const started = Deferred.makeUnsafe<void>()
    let finalized = false
    const tool = Tool.make({
      name: "get_weather",
      description: "waits forever",
      parameters: Schema.Struct({ city: Schema.String }),
      handler: () =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.ensuring(Effect.sync(() => (finalized = true)))
        )
    })
    return { tool, started, finalized: () => finalized }
  }

  it.each(families)("interrupting the stream interrupts the running handler (%s)", async (family) => {
    const { tool, started, finalized } = waiting()
    const program = Effect.gen(function* () {
      const g = yield* Gateway
      const fiber = yield* Effect.forkChild(
        Stream.runCollect(loopOf(family, prompt("get_weather"), { tools: [tool] })(g))
      )
      yield* Deferred.await(started)
      expect(finalized()).toBe(false)
      yield* Fiber.interrupt(fiber)
      return finalized()
    })
    expect(await run(program)).toBe(true)
  })

  it("a consumer that stops reading stops the loop and its handlers", async () => {
    const { tool, finalized } = waiting()
    const firstCall = await steps((g) =>
      loopOf("chat", prompt("get_weather"), { tools: [tool] })(g).pipe(Stream.takeUntil((s) => s._tag === "ToolCall"))
    )
    expect(tags(firstCall)).toEqual(["ModelTurn", "ToolCall"])
    expect(finalized()).toBe(true)
  })

  it("aborting the options' signal fails the loop with Aborted and interrupts the handler", async () => {
    const { tool, started, finalized } = waiting()
    const controller = new AbortController()
    const failure = run(
      Effect.flip(
        Effect.flatMap(Gateway, (g) =>
          Stream.runCollect(
            chatRunTools(
              g.chat,
              { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt("get_weather") }] },
              { tools: [tool] },
              { signal: controller.signal }
            )
          )
        )
      )
    )
    await Effect.runPromise(Deferred.await(started))
    controller.abort()
    expect(await failure).toMatchObject({ _tag: "Aborted", family: "openai" })
    expect(finalized()).toBe(true)
  })
})

describe("the loop's types", () => {
  it("wires into a group in one line, the final value and the handlers' services typed", async () => {
    class Clock extends Context.Service<Clock, { readonly now: () => string }>()("test/Clock") {}
    const needsClock = Tool.make({
      name: "now",
      description: "",
      parameters: Schema.Struct({ city: Schema.String }),
      handler: () => Effect.map(Clock, (c) => c.now())
    })
    const wire = (g: GatewayService) => {
      const runTools: RunToolsMethod<ChatBodyInput, ChatCompletion, RequestError | InvalidRequest> = (
        body,
        config,
        options
      ) => chatRunTools(g.chat, body, config, options)
      return runTools
    }
    const _plain = (g: GatewayService) => wire(g)({ model: "gpt-4o-mini", messages: [] }, { tools: [weather] })
    type Loop = ReturnType<typeof _plain>
    expectTypeOf<Stream.Success<Loop>>().toEqualTypeOf<ToolStep<undefined, ChatCompletion>>()
    expectTypeOf<Stream.Error<Loop>>().toEqualTypeOf<RequestError | InvalidRequest | RunToolsOutputError>()
    expectTypeOf<Stream.Services<Loop>>().toBeNever()
    const _typed = (g: GatewayService) =>
      wire(g)({ model: "gpt-4o-mini", messages: [] }, { tools: [weather, needsClock], output: Report })
    type Typed = ReturnType<typeof _typed>
    expectTypeOf<Stream.Success<Typed>>().toEqualTypeOf<ToolStep<typeof Report.Type, ChatCompletion>>()
    expectTypeOf<Stream.Services<Typed>>().toEqualTypeOf<Clock>()
    const last = await run(
      Effect.flatMap(Gateway, (g) =>
        Stream.runLast(
          wire(g)(
            { model: "gpt-4o-mini", messages: [{ role: "user", content: prompt("get_weather") }] },
            { tools: [weather] }
          )
        )
      )
    )
    expect(last).toMatchObject({ _tag: "Some", value: { _tag: "Done", reason: "stop", steps: 2 } })
  })
})
