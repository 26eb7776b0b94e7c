import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import {
  APICallError,
  Output,
  embed,
  generateObject,
  generateText,
  jsonSchema,
  stepCountIs,
  streamText,
  tool,
  type LanguageModel
} from "ai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

// The AI SDK's official providers beside the official SDKs (WireCompat.test.ts): `ai` with its
// messages-style, chat, responses and native-content providers, pointed at the emulator, must accept
// its answers and streams — the AI SDK checks every answer against a strict schema, so a field the
// upstream leaves out and the emulator writes as null fails here where the official SDKs pass.
let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())
beforeEach(() => {
  emu.counters.reset()
  emu.clearFaults()
})

/** A fetch that records each attempt (when it started, when its answer came, its status), for the retry tests. */
const recorder = () => {
  const calls: Array<{ readonly started: number; readonly answered: number; readonly status: number }> = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const started = performance.now()
    const res = await globalThis.fetch(input, init)
    calls.push({ started, answered: performance.now(), status: res.status })
    return res
  }
  return { calls, fetch }
}

interface Family {
  readonly name: string
  /** The emulator's route name for a non-streaming call (counters and fault injection). */
  readonly route: string
  /** The family's model through its official provider, with the settings the gateway needs. */
  readonly model: (key: string, fetch: typeof globalThis.fetch) => LanguageModel
}

const families: ReadonlyArray<Family> = [
  {
    name: "messages-style",
    route: "messages",
    // The gateway takes Bearer on every endpoint: `authToken` sends it, `apiKey` would send x-api-key.
    model: (key, fetch) =>
      createAnthropic({ baseURL: `${emu.url}/v1`, authToken: key, fetch })("epsilon-sonnet-4-5-20250929")
  },
  {
    name: "chat",
    route: "chat",
    model: (key, fetch) => createOpenAI({ baseURL: `${emu.url}/v1`, apiKey: key, fetch }).chat("gpt-4o")
  },
  {
    name: "responses",
    route: "responses",
    model: (key, fetch) => createOpenAI({ baseURL: `${emu.url}/v1`, apiKey: key, fetch }).responses("gpt-5")
  },
  {
    name: "native content",
    route: "native.generate",
    // The provider sends its key in a header of its own, which the gateway does not read.
    model: (key, fetch) =>
      createGoogleGenerativeAI({
        baseURL: `${emu.url}/v1beta`,
        apiKey: key,
        headers: { authorization: `Bearer ${key}` },
        fetch
      })("zeta-2.5-flash")
  }
]

// An explicit limit: the providers do not know the contract's model ids and would otherwise warn.
const settings = { maxOutputTokens: 1024 } as const
const weather = tool({
  description: "Weather of a city",
  inputSchema: jsonSchema<{ city: string }>({
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false
  }),
  execute: ({ city }) => Promise.resolve(`12 °C and windy in ${city}`)
})
const paint = jsonSchema<{ colour: string; shade: number }>({
  type: "object",
  properties: { colour: { type: "string" }, shade: { type: "integer" } },
  required: ["colour", "shade"],
  additionalProperties: false
})

describe.each(families)("the AI SDK with the $name provider", (family) => {
  const model = () => family.model(emu.apiKey, globalThis.fetch)

  it("generateText gets the reply's text, finish reason and usage in one request", async () => {
    const r = await generateText({ model: model(), prompt: "Tell me about the sea.", ...settings })
    expect(r.text).toMatch(/^\S+( \S+)+$/)
    expect(r.finishReason).toBe("stop")
    expect(r.usage.inputTokens).toBeGreaterThan(0)
    expect(r.usage.outputTokens).toBeGreaterThan(0)
    expect(emu.counters.get(family.route)).toBe(1)
  })

  it("streamText streams the same text in pieces, then the finish reason and usage", async () => {
    const whole = await generateText({ model: model(), prompt: "Tell me about the sea.", ...settings })
    const errors: Array<unknown> = []
    const s = streamText({
      model: model(),
      prompt: "Tell me about the sea.",
      ...settings,
      onError: ({ error }) => void errors.push(error)
    })
    const pieces: Array<string> = []
    for await (const piece of s.textStream) pieces.push(piece)
    expect(errors).toEqual([])
    expect(pieces.length).toBeGreaterThan(1)
    expect(pieces.join("")).toBe(whole.text)
    expect(await s.finishReason).toBe("stop")
    expect((await s.usage).outputTokens).toBeGreaterThan(0)
  })

  it("generateText runs a two-step tool call: the tool's input, then an answer built on its output", async () => {
    const r = await generateText({
      model: model(),
      prompt: "Weather in Paris?",
      tools: { weather },
      stopWhen: stepCountIs(5),
      ...settings
    })
    expect(r.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"])
    const call = r.steps[0]!.toolCalls[0]!
    expect(call.toolName).toBe("weather")
    expect(call.input).toEqual({ city: expect.any(String) })
    expect(r.text).toContain(`12 °C and windy in ${(call.input as { city: string }).city}`)
    expect(emu.counters.get(family.route)).toBe(2)
  })

  it("streamText streams the same two-step tool call", async () => {
    const errors: Array<unknown> = []
    const s = streamText({
      model: model(),
      prompt: "Weather in Paris?",
      tools: { weather },
      stopWhen: stepCountIs(5),
      ...settings,
      onError: ({ error }) => void errors.push(error)
    })
    const steps = await s.steps
    expect(errors).toEqual([])
    expect(steps.map((step) => step.finishReason)).toEqual(["tool-calls", "stop"])
    expect(steps[0]!.toolCalls[0]!.toolName).toBe("weather")
    expect(await s.text).toContain("12 °C and windy in ")
  })

  it("generateObject, and generateText with an object output, get an object of the requested schema", async () => {
    const { object } = await generateObject({ model: model(), schema: paint, prompt: "Pick a paint.", ...settings })
    expect(object).toEqual({ colour: expect.any(String), shade: expect.any(Number) })
    expect(Number.isInteger(object.shade)).toBe(true)
    const { output } = await generateText({
      model: model(),
      output: Output.object({ schema: paint }),
      prompt: "Pick a paint.",
      ...settings
    })
    expect(Object.keys(output).sort()).toEqual(["colour", "shade"])
  })

  it("streamText with an object output (ai 7's replacement of streamObject) streams the object as it grows", async () => {
    const errors: Array<unknown> = []
    const s = streamText({
      model: model(),
      output: Output.object({ schema: paint }),
      prompt: "Pick a paint.",
      ...settings,
      onError: ({ error }) => void errors.push(error)
    })
    const partials: Array<unknown> = []
    for await (const partial of s.partialOutputStream) partials.push(partial)
    const output = await s.output
    expect(errors).toEqual([])
    expect(Object.keys(output).sort()).toEqual(["colour", "shade"])
    expect(partials.length).toBeGreaterThan(0)
    expect(partials[partials.length - 1]).toEqual(output)
  })

  it("maps a wrong key to a 401 APICallError with the gateway's message, and does not retry it", async () => {
    const rec = recorder()
    const failure = await generateText({
      model: family.model("wrong-key", rec.fetch),
      prompt: "Hello",
      ...settings
    }).catch((e: unknown) => e)
    expect(APICallError.isInstance(failure)).toBe(true)
    const e = failure as APICallError
    expect(e.statusCode).toBe(401)
    expect(e.isRetryable).toBe(false)
    expect(e.message).toMatch(/Invalid API key/)
    expect(rec.calls.map((c) => c.status)).toEqual([401])
    expect(emu.counters.get(`${family.route}.rejected`)).toBe(1)
  })

  it("retries a 429 itself, after the answer's Retry-After rather than its own backoff", async () => {
    emu.inject(family.route, { kind: "status", status: 429, headers: { "retry-after": "1" } })
    const rec = recorder()
    const r = await generateText({ model: family.model(emu.apiKey, rec.fetch), prompt: "Hello", ...settings })
    expect(r.text.length).toBeGreaterThan(0)
    expect(rec.calls.map((c) => c.status)).toEqual([429, 200])
    // Retry-After: 1 s; the SDK's own first backoff would be 2 s.
    const waited = rec.calls[1]!.started - rec.calls[0]!.answered
    expect(waited).toBeGreaterThanOrEqual(900)
    expect(waited).toBeLessThan(1900)
    expect([emu.counters.get(`${family.route}.rejected`), emu.counters.get(family.route)]).toEqual([1, 1])
  })
})

describe("the AI SDK with the messages-style provider, beyond the shared cases", () => {
  it("gets structured output through output_config.format too (the shared case goes through its json tool)", async () => {
    const model = createAnthropic({ baseURL: `${emu.url}/v1`, authToken: emu.apiKey })("epsilon-sonnet-4-5-20250929")
    const { object } = await generateObject({
      model,
      schema: paint,
      prompt: "Pick a paint.",
      providerOptions: { anthropic: { structuredOutputMode: "outputFormat" } },
      ...settings
    })
    expect(object).toEqual({ colour: expect.any(String), shade: expect.any(Number) })
  })
})

describe("the AI SDK's embed against the gateway's one-text embeddings", () => {
  it("gets a 400 that names the rule, not retried: the SDK always sends an array", async () => {
    const rec = recorder()
    const model = createOpenAI({ baseURL: `${emu.url}/v1`, apiKey: emu.apiKey, fetch: rec.fetch }).embedding(
      "text-embedding-3-small"
    )
    const failure = await embed({ model, value: "a fox" }).catch((e: unknown) => e)
    expect(APICallError.isInstance(failure)).toBe(true)
    expect((failure as APICallError).statusCode).toBe(400)
    expect((failure as APICallError).message).toBe("This gateway takes one text per request: 'input' must be a string.")
    expect(rec.calls).toHaveLength(1)
  })
})
