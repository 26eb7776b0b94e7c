import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI, type CallableTool, type FunctionCall, type Part } from "@google/genai"
import { betaZodOutputFormat, betaZodTool } from "@anthropic-ai/sdk/helpers/beta/zod"
import { zodOutputFormat } from "@anthropic-ai/sdk/helpers/zod"
import OpenAI from "openai"
import { zodFunction, zodResponseFormat, zodTextFormat } from "openai/helpers/zod"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as z from "zod"
import { nativeSdkClient } from "../fixtures/nativeSdkClient.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

// The official SDKs' own structured-output and tool helpers against the emulator: openai-node's
// `chat.completions.parse` (zodResponseFormat), `runTools` (zodFunction), `responses.parse`
// (zodTextFormat) and the anthropic SDK's `messages.parse` (zodOutputFormat) and
// `beta.messages.toolRunner` (betaZodTool). Each helper validates the emulator's JSON with zod
// itself, so a value that does not match the schema fails here.
let emu: Emulator
let openai: OpenAI
let anthropic: Anthropic
let genai: GoogleGenAI
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  openai = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.url}/v1`, maxRetries: 0 })
  // The gateway takes Bearer on the messages family, so the key goes in as an auth token.
  anthropic = new Anthropic({ apiKey: null, authToken: emu.apiKey, baseURL: emu.url, maxRetries: 0 })
  genai = nativeSdkClient(emu)
})
afterAll(() => emu.close())

const Order = z.object({
  id: z.uuid(),
  customer: z.object({ name: z.string().min(2), email: z.email() }),
  items: z
    .array(z.object({ sku: z.string(), quantity: z.int().min(1).max(9) }))
    .min(1)
    .max(3),
  status: z.enum(["open", "paid", "shipped"]),
  placedAt: z.iso.datetime(),
  note: z.string().nullable()
})

const weatherArgs = z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]) })
const timeArgs = z.object({ zone: z.string() })

describe("openai-node's helpers", () => {
  const messages = [{ role: "user" as const, content: "Make up an order." }]

  it("chat.completions.parse with zodResponseFormat gets a parsed value of the schema", async () => {
    const completion = await openai.chat.completions.parse({
      model: "gpt-4o",
      messages,
      response_format: zodResponseFormat(Order, "order")
    })
    const parsed = completion.choices[0]!.message.parsed
    expect(Order.parse(parsed)).toEqual(parsed)
    expect(parsed!.items.length).toBeGreaterThanOrEqual(1)
  })

  it("chat.completions.parse fails with the SDK's own zod error when the prompt asks for a mismatch", async () => {
    const failure = await openai.chat.completions
      .parse({
        model: "gpt-4o",
        messages: [{ role: "user", content: "Make up an order. [umg:mismatch]" }],
        response_format: zodResponseFormat(Order, "order")
      })
      .catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(z.ZodError)
  })

  it("chat.completions.stream with zodResponseFormat streams the JSON and parses the final message", async () => {
    const stream = openai.chat.completions.stream({
      model: "gpt-4o",
      messages,
      response_format: zodResponseFormat(Order, "order")
    })
    const deltas: Array<string> = []
    stream.on("content.delta", ({ delta }) => void deltas.push(delta))
    const final = await stream.finalChatCompletion()
    expect(deltas.length).toBeGreaterThan(3)
    expect(Order.safeParse(final.choices[0]!.message.parsed).success).toBe(true)
  })

  it("runTools runs two tools over three steps, one at a time, then gets the answer", async () => {
    const ran: Array<string> = []
    const runner = openai.chat.completions.runTools({
      model: "gpt-4o",
      messages: [{ role: "user", content: "Use get_weather and then get_time for Paris, one at a time." }],
      tools: [
        zodFunction({
          name: "get_weather",
          parameters: weatherArgs,
          function: (args) => {
            ran.push(`weather:${args.unit}`)
            return "12 degrees and windy"
          }
        }),
        zodFunction({
          name: "get_time",
          parameters: timeArgs,
          function: () => {
            ran.push("time")
            return "half past nine"
          }
        })
      ]
    })
    const content = await runner.finalContent()
    expect(ran).toEqual(["weather:celsius", "time"])
    expect(content).toContain("half past nine")
    expect(runner.messages.filter((m) => m.role === "assistant")).toHaveLength(3)
  })

  it("runTools with stream: true streams the tool arguments and runs the same loop", async () => {
    const ran: Array<string> = []
    const runner = openai.chat.completions.runTools({
      model: "gpt-4o",
      stream: true,
      messages: [{ role: "user", content: "Use get_weather and get_time for Oslo." }],
      tools: [
        zodFunction({
          name: "get_weather",
          parameters: weatherArgs,
          function: () => {
            ran.push("weather")
            return "cold"
          }
        }),
        zodFunction({
          name: "get_time",
          parameters: timeArgs,
          function: () => {
            ran.push("time")
            return "noon"
          }
        })
      ]
    })
    const argDeltas: Array<string> = []
    runner.on("tool_calls.function.arguments.delta", ({ arguments_delta }) => void argDeltas.push(arguments_delta))
    const content = await runner.finalContent()
    expect(ran.sort()).toEqual(["time", "weather"])
    expect(argDeltas.length).toBeGreaterThan(4)
    expect(content).toContain("The tool returned")
  })

  it("responses.parse with zodTextFormat gets output_parsed of the schema", async () => {
    const response = await openai.responses.parse({
      model: "gpt-5",
      input: "Make up an order.",
      text: { format: zodTextFormat(Order, "order") }
    })
    expect(Order.safeParse(response.output_parsed).success).toBe(true)
  })
})

describe("the anthropic SDK's helpers", () => {
  const model = "epsilon-sonnet-4-5-20250929"

  it("messages.parse with zodOutputFormat gets parsed_output of the schema", async () => {
    const message = await anthropic.messages.parse({
      model,
      max_tokens: 2048,
      messages: [{ role: "user", content: "Make up an order." }],
      output_config: { format: zodOutputFormat(Order) }
    })
    expect(Order.safeParse(message.parsed_output).success).toBe(true)
  })

  it("beta.messages.parse with betaZodOutputFormat gets parsed_output of the schema", async () => {
    const message = await anthropic.beta.messages.parse({
      model,
      max_tokens: 2048,
      messages: [{ role: "user", content: "Make up an order." }],
      output_format: betaZodOutputFormat(Order)
    })
    expect(Order.safeParse(message.parsed_output).success).toBe(true)
  })

  it("beta.messages.toolRunner with betaZodTool runs two tools over three steps and ends with text", async () => {
    const ran: Array<string> = []
    const runner = anthropic.beta.messages.toolRunner({
      model,
      max_tokens: 1024,
      thread: false,
      messages: [{ role: "user", content: "Use get_weather, then get_time, for Paris, one at a time." }],
      tools: [
        betaZodTool({
          name: "get_weather",
          description: "Weather of a city",
          inputSchema: weatherArgs,
          run: (input) => {
            ran.push(`weather:${input.city.length > 0 ? "city" : ""}`)
            return "12 degrees and windy"
          }
        }),
        betaZodTool({
          name: "get_time",
          description: "Time in a zone",
          inputSchema: timeArgs,
          run: () => {
            ran.push("time")
            return "half past nine"
          }
        })
      ]
    })
    const stops: Array<string | null> = []
    for await (const message of runner) stops.push(message.stop_reason)
    expect(stops).toEqual(["tool_use", "tool_use", "end_turn"])
    expect(ran).toEqual(["weather:city", "time"])
    const final = await runner
    expect(final.content.find((b) => b.type === "text")).toMatchObject({
      text: expect.stringContaining("half past nine")
    })
  })

  it("beta.messages.toolRunner sends a tool's failure back as is_error and the emulator answers it", async () => {
    const runner = anthropic.beta.messages.toolRunner({
      model,
      max_tokens: 1024,
      thread: false,
      messages: [{ role: "user", content: "Use get_weather for Paris. [umg:mismatch]" }],
      tools: [
        betaZodTool({ name: "get_weather", description: "Weather", inputSchema: weatherArgs, run: () => "never" })
      ]
    })
    const final = await runner
    // The mismatching arguments fail the tool's zod schema; the runner returns that as an error result.
    expect(final.stop_reason).toBe("end_turn")
    expect(final.content.find((b) => b.type === "text")).toMatchObject({
      text: expect.stringMatching(/^The tool returned: an error \(/)
    })
  })
})

describe("js-genai's helpers", () => {
  it("answers responseJsonSchema from zod's JSON Schema with JSON of the schema", async () => {
    const response = await genai.models.generateContent({
      model: "zeta-2.5-flash",
      contents: "Make up an order.",
      config: { responseMimeType: "application/json", responseJsonSchema: z.toJSONSchema(Order) }
    })
    expect(Order.safeParse(JSON.parse(response.text!)).success).toBe(true)
  })

  it("runs automatic function calling with a callable tool over two turns", async () => {
    const calls: Array<FunctionCall> = []
    const tool: CallableTool = {
      tool: () =>
        Promise.resolve({
          functionDeclarations: [{ name: "get_weather", parametersJsonSchema: z.toJSONSchema(weatherArgs) }]
        }),
      callTool: (functionCalls: Array<FunctionCall>): Promise<Array<Part>> => {
        calls.push(...functionCalls)
        return Promise.resolve(
          functionCalls.map((c) => ({ functionResponse: { name: c.name!, response: { output: "12 degrees" } } }))
        )
      }
    }
    const response = await genai.models.generateContent({
      model: "zeta-2.5-flash",
      contents: "Use get_weather for Paris.",
      config: { tools: [tool] }
    })
    expect(calls.map((c) => c.name)).toEqual(["get_weather"])
    expect(weatherArgs.safeParse(calls[0]!.args).success).toBe(true)
    expect(response.text).toContain("12 degrees")
    expect(response.automaticFunctionCallingHistory?.length).toBe(3)
  })
})
