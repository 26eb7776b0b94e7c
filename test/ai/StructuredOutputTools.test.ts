import { Effect, Layer, Schema } from "effect"
import { LanguageModel, Tool, Toolkit } from "effect/ai"
import { describe, expect, it } from "vitest"
import { UmgLanguageModel } from "../../src/ai/index.js"
import { proxiedGateway } from "../ai-sdk/CountingProxy.js"

// generateObject beside a toolkit on a messages-style model (its output a forced tool call): the tool
// choice decides which tools go beside the output tool, so a tool the choice forbids is never run.
const env = proxiedGateway()

const ran: Array<string> = []
const Weather = Tool.make("weather", {
  description: "Weather of a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String
})
const Tools = Toolkit.make(Weather)
const ToolsLayer = Tools.toLayer({
  weather: ({ city }) => Effect.sync(() => (ran.push(city), `12 °C and windy in ${city}`))
})
const Paint = Schema.Struct({ colour: Schema.String, shade: Schema.Int })

describe("umg/ai generateObject with a toolkit on a messages-style model", () => {
  it("with toolChoice none runs no tool and sends only the output tool", async () => {
    ran.length = 0
    const layer = Layer.mergeAll(
      UmgLanguageModel.layer({ model: "epsilon-sonnet-4-5-20250929" }).pipe(Layer.provide(env.gateway)),
      ToolsLayer
    )
    const r = await Effect.runPromise(
      Effect.provide(
        LanguageModel.generateObject({ prompt: "Pick a paint.", schema: Paint, toolkit: Tools, toolChoice: "none" }),
        layer
      )
    )
    expect(Schema.decodeUnknownSync(Paint)(r.value)).toEqual(r.value)
    expect(ran).toEqual([])
    const body = JSON.parse(env.proxy.requests[0]!.body) as { tools: ReadonlyArray<{ name: string }> }
    expect(body.tools.map((t) => t.name)).not.toContain("weather")
  })
})
