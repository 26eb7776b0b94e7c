import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as z from "zod"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import {
  families,
  send,
  sendRefused,
  sendStream,
  type Ask,
  type Family,
  type Result,
  type ToolDef,
  type Turn
} from "./TextFamilies.js"

// The emulator's tool-call triggers, the same on the four families (ToolTurns.ts): the tools the
// prompt names are called (all in one turn, or one per turn when asked), a prompt naming none gets
// the first tool once, forced choices call every turn, results come back in each family's shape
// and are paired with their calls, and `[umg:mismatch]` makes the arguments not match.
let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const weather: ToolDef = {
  name: "get_weather",
  schema: {
    type: "object",
    properties: {
      city: { type: "string" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
      days: { type: "integer", minimum: 1, maximum: 7 }
    },
    required: ["city", "unit", "days"],
    additionalProperties: false
  }
}
const time: ToolDef = {
  name: "get_time",
  schema: {
    type: "object",
    properties: { zone: { type: "string" }, at: { type: "string", format: "date-time" } },
    required: ["zone", "at"],
    additionalProperties: false
  }
}
const tools = [weather, time]
const schemaOf = (name: string) =>
  z.fromJSONSchema(tools.find((t) => t.name === name)!.schema as Parameters<typeof z.fromJSONSchema>[0])

const output = (name: string): string => (name === "get_weather" ? "12 degrees and windy" : "half past nine")
const resultsOf = (turn: Turn): Array<Result> =>
  turn.calls.map((c) => ({ id: c.id, name: c.name, output: output(c.name) }))

/** Runs the loop until an answer without calls (at most `max` turns); the calls of each turn. */
const loop = async (f: Family, prompt: string, ask: Ask, max = 5) => {
  let history = f.prompt(prompt)
  const steps: Array<ReadonlyArray<string>> = []
  for (let i = 0; i < max; i++) {
    const turn = await send(emu, f, history, ask)
    steps.push(turn.calls.map((c) => c.name))
    for (const c of turn.calls) expect(schemaOf(c.name).safeParse(c.args).error).toBeUndefined()
    if (turn.calls.length === 0) return { steps, text: turn.text }
    history = [...history, ...f.continueWith(turn, resultsOf(turn))]
  }
  return { steps, text: "" }
}

describe.each(families)("tool calls, $name", (f) => {
  it("calls the tools the prompt names, in the order named, in one turn, then answers with their results", async () => {
    const r = await loop(f, "Check get_time, then get_weather, for Paris.", { tools })
    expect(r.steps).toEqual([["get_time", "get_weather"], []])
    expect(r.text).toContain("half past nine")
    expect(r.text).toContain("12 degrees and windy")
  })

  it("calls one tool per turn when the prompt says one at a time: two tools over three turns", async () => {
    const r = await loop(f, "Use get_weather and get_time for Paris, one at a time.", { tools })
    expect(r.steps).toEqual([["get_weather"], ["get_time"], []])
    expect(r.text).toContain("half past nine")
  })

  it("calls the first tool once when the prompt names none, then answers", async () => {
    const r = await loop(f, "What is it like in Paris?", { tools })
    expect(r.steps).toEqual([["get_weather"], []])
  })

  it("answers with text when the tool choice is none", async () => {
    const r = await loop(f, "Use get_weather for Paris.", { tools, choice: "none" })
    expect(r.steps).toEqual([[]])
    expect(r.text.length).toBeGreaterThan(0)
  })

  it("calls a forced tool every turn, even after its result", async () => {
    const r = await loop(f, "Use get_weather for Paris.", { tools, choice: { tool: "get_time" } }, 3)
    expect(r.steps).toEqual([["get_time"], ["get_time"], ["get_time"]])
  })

  it("calls a tool every turn under any/required: the named ones first, then the first tool", async () => {
    const r = await loop(f, "Use get_time for Paris.", { tools, choice: "any" }, 2)
    expect(r.steps).toEqual([["get_time"], ["get_weather"]])
  })

  it("gives the same arguments for the same request, and sends them in several deltas when streaming", async () => {
    const history = f.prompt("Use get_weather and get_time for Rome.")
    const a = await send(emu, f, history, { tools })
    const b = await send(emu, f, history, { tools })
    expect(a.calls.map((c) => c.args)).toEqual(b.calls.map((c) => c.args))
    const streamed = await sendStream(emu, f, history, { tools })
    expect(streamed.args.map((pieces) => JSON.parse(pieces.join("")) as unknown)).toEqual(a.calls.map((c) => c.args))
    // The native family carries arguments as an object, one part per call; the others split them.
    if (f.name !== "native") for (const pieces of streamed.args) expect(pieces.length).toBeGreaterThan(2)
  })

  it("sends arguments that do not match the tool's schema when the prompt carries [umg:mismatch]", async () => {
    const turn = await send(emu, f, f.prompt("Use get_weather for Oslo. [umg:mismatch]"), { tools })
    expect(turn.calls).toHaveLength(1)
    expect(turn.calls[0]!.args).toMatchObject({ city: 0.5, unit: "celsius" })
    expect(schemaOf("get_weather").safeParse(turn.calls[0]!.args).success).toBe(false)
  })

  it("answers after a tool error", async () => {
    const first = await send(emu, f, f.prompt("Use get_weather for Paris."), { tools })
    const history = [
      ...f.prompt("Use get_weather for Paris."),
      ...f.continueWith(first, [{ id: first.calls[0]!.id, name: "get_weather", output: "boom", isError: true }])
    ]
    const answer = await send(emu, f, history, { tools })
    expect(answer.calls).toEqual([])
    expect(answer.text).toContain("boom")
  })

  it("refuses a result for a call it did not make with the family's 400 naming it", async () => {
    const first = await send(emu, f, f.prompt("Use get_weather for Paris."), { tools })
    const wrong =
      f.name === "native"
        ? { id: undefined, name: "get_time", output: "x" }
        : { id: "call_unknown_42", name: "get_weather", output: "x" }
    const history = [...f.prompt("Use get_weather for Paris."), ...f.continueWith(first, [wrong])]
    expect(await sendRefused(emu, f, f.body(history, { tools }))).toContain(
      f.name === "native" ? '"get_time"' : "call_unknown_42"
    )
  })

  it("refuses a tool whose schema is beyond the bounds, naming the tool's field and the part", async () => {
    const bad: ToolDef = { name: "get_weather", schema: { type: "object", properties: { list: { minItems: 5000 } } } }
    const message = await sendRefused(emu, f, f.body(f.prompt("Use get_weather."), { tools: [bad] }))
    expect(message).toContain("tools[0]")
    expect(message).toContain("#/properties/list/minItems")
  })
})

describe.each(families.filter((f) => f.name !== "native"))("tool calls beyond the native family, $name", (f) => {
  it("calls one tool per turn when the request turns parallel calls off", async () => {
    const r = await loop(f, "Use get_weather and get_time for Paris.", { tools, parallel: false })
    expect(r.steps).toEqual([["get_weather"], ["get_time"], []])
  })

  it("refuses a call left without a result, naming its id", async () => {
    const first = await send(emu, f, f.prompt("Use get_weather and get_time."), { tools })
    const history = [
      ...f.prompt("Use get_weather and get_time."),
      ...f.continueWith(first, resultsOf(first).slice(0, 1))
    ]
    expect(await sendRefused(emu, f, f.body(history, { tools }))).toContain(String(first.calls[1]!.id))
  })
})

describe("tool results in the messages-style family", () => {
  const f = families[0]!
  it("reads is_error on a tool_result and says the tool failed", async () => {
    const first = await send(emu, f, f.prompt("Use get_weather."), { tools })
    const history = [
      ...f.prompt("Use get_weather."),
      ...f.continueWith(first, [{ id: first.calls[0]!.id, name: "get_weather", output: "no such city", isError: true }])
    ]
    expect((await send(emu, f, history, { tools })).text).toMatch(/^The tool returned: an error \(no such city\)\. /)
  })
})
