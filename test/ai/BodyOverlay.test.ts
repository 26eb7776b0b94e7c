import { Effect, Layer, Schema } from "effect"
import { LanguageModel } from "effect/ai"
import { describe, expect, it } from "vitest"
import { UmgLanguageModel } from "../../src/ai/index.js"
import { overlayBody } from "../../src/ai/text/BodyOverlay.js"
import { proxiedGateway } from "../ai-sdk/CountingProxy.js"

// The one rule every family's builder lays a caller's fields over its body with: plain objects merged
// key by key, at any depth; arrays and other values replace what was built. umg/ai's `config.body`
// goes through it too.
const env = proxiedGateway()
const Paint = Schema.Struct({ colour: Schema.String, shade: Schema.Int })

describe("overlayBody", () => {
  it("merges a nested object into the one built, keeping the fields it does not name", () => {
    const built = { model: "m", generationConfig: { maxOutputTokens: 64, thinkingConfig: { thinkingBudget: 512 } } }
    expect(
      overlayBody(built, { generationConfig: { candidateCount: 1, thinkingConfig: { includeThoughts: false } } })
    ).toEqual({
      model: "m",
      generationConfig: {
        maxOutputTokens: 64,
        candidateCount: 1,
        thinkingConfig: { thinkingBudget: 512, includeThoughts: false }
      }
    })
    expect(built.generationConfig).toEqual({ maxOutputTokens: 64, thinkingConfig: { thinkingBudget: 512 } })
  })

  it("replaces arrays, strings, numbers and null whole, and an object by a value that is not one", () => {
    const built = {
      stop: ["a", "b"],
      temperature: 0.5,
      text: { format: { type: "json_object" } },
      tools: [{ name: "f" }]
    }
    expect(overlayBody(built, { stop: ["c"], temperature: null, text: "plain", tools: [] })).toEqual({
      stop: ["c"],
      temperature: null,
      text: "plain",
      tools: []
    })
  })

  it("adds fields the body does not have, keeps a field whose overlay is undefined, and gives the body itself without an overlay", () => {
    const built = { model: "m", seed: 1 }
    expect(overlayBody(built, { service_tier: "flex", seed: undefined })).toEqual({
      model: "m",
      seed: 1,
      service_tier: "flex"
    })
    expect(overlayBody(built, undefined)).toBe(built)
  })

  it("takes a __proto__ key as a field, never as the body's prototype", () => {
    const overlay = JSON.parse('{"__proto__": {"polluted": true}, "a": {"__proto__": {"x": 1}}}') as Record<
      string,
      unknown
    >
    const out = overlayBody({ a: { b: 1 } }, overlay) as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true)
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    expect(Object.getPrototypeOf(out["a"])).toBe(Object.prototype)
  })
})

describe("umg/ai config.body", () => {
  it("is merged into the built body: generationConfig fields join the built ones and generateObject still works", async () => {
    const layer = UmgLanguageModel.layer({
      model: "zeta-2.5-flash",
      config: { maxOutputTokens: 900, temperature: 0.3, body: { generationConfig: { candidateCount: 1 } } }
    }).pipe(Layer.provide(env.gateway))
    const r = await Effect.runPromise(
      Effect.provide(LanguageModel.generateObject({ prompt: "Pick a paint.", schema: Paint }), layer)
    )
    expect(Schema.decodeUnknownSync(Paint)(r.value)).toEqual(r.value)
    const body = JSON.parse(env.proxy.requests[0]!.body) as { generationConfig: unknown }
    expect(body.generationConfig).toMatchObject({
      candidateCount: 1,
      maxOutputTokens: 900,
      temperature: 0.3,
      responseJsonSchema: expect.any(Object)
    })
  })
})
