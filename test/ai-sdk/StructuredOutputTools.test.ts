import { Output, generateText, tool } from "ai"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { proxiedUmg } from "./CountingProxy.js"

// Structured output beside tools on a messages-style model, whose output is a forced tool call: the
// tool choice decides which tools go beside the output tool (none for `none`, the named one only for
// a named tool), as the official provider sends them, so no tool the choice forbids can be called.
const env = proxiedUmg()

const calls: Array<string> = []
const weather = tool({
  description: "Weather of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => {
    calls.push(`weather ${city}`)
    return Promise.resolve(`12 °C and windy in ${city}`)
  }
})
const time = tool({
  description: "Local time of a city",
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => {
    calls.push(`time ${city}`)
    return Promise.resolve(`noon in ${city}`)
  }
})
const paint = z.object({ colour: z.string(), shade: z.number().int() })

interface SentBody {
  readonly tools?: ReadonlyArray<{ readonly name: string }>
  readonly tool_choice?: unknown
}
const sent = (): SentBody => JSON.parse(env.proxy.requests[0]!.body) as SentBody

describe("messages-style structured output with tools", () => {
  it("with toolChoice none sends only the output tool, and the answer is the value", async () => {
    calls.length = 0
    const r = await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      output: Output.object({ schema: paint }),
      tools: { weather },
      toolChoice: "none",
      prompt: "Pick a paint."
    })
    expect(paint.parse(r.output)).toEqual(r.output)
    expect(calls).toEqual([])
    expect(sent().tools?.map((t) => t.name)).not.toContain("weather")
    expect(sent().tools).toHaveLength(1)
  })

  it("with a named tool sends that tool beside the output tool, with tool_choice any", async () => {
    calls.length = 0
    const r = await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      output: Output.object({ schema: paint }),
      tools: { weather, time },
      toolChoice: { type: "tool", toolName: "time" },
      prompt: "Pick a paint."
    })
    expect(r.steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(["time"])
    const body = sent()
    expect(body.tools?.map((t) => t.name).slice(0, 1)).toEqual(["time"])
    expect(body.tools).toHaveLength(2)
    expect(body.tool_choice).toEqual({ type: "any" })
  })

  it("with toolChoice auto sends every tool beside the output tool, with tool_choice any", async () => {
    await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      output: Output.object({ schema: paint }),
      tools: { weather, time },
      prompt: "Pick a paint."
    })
    const body = sent()
    expect(body.tools?.map((t) => t.name).slice(0, 2)).toEqual(["weather", "time"])
    expect(body.tools).toHaveLength(3)
    expect(body.tool_choice).toEqual({ type: "any" })
  })
})
