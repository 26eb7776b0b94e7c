// The client's rules for four text fields, as the protocol notes and the contract give them: a
// thinkingBudget alone on a 3-class zeta model (notes §2.6), temperature and top_p of a responses
// body (chat's ranges), a messages-style cache_control.ttl ("5m" or "1h"), and a native function
// declaration's name (a letter or _, then letters, digits, _ . : or -, 128 at most).
import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../../src/core/errors/InvalidRequest.js"
import { buildCountTokensBody, buildMessagesBody } from "../../../src/core/text/messages/Messages.js"
import { buildNativeBody } from "../../../src/core/text/native/Native.js"
import { buildResponsesBody } from "../../../src/core/text/responses/ResponsesBody.js"

const run = <A>(effect: Effect.Effect<A, InvalidRequest>) => Effect.runSync(Effect.result(effect))
const success = <A>(effect: Effect.Effect<A, InvalidRequest>): A => {
  const r = run(effect)
  if (Result.isFailure(r)) throw new Error(`expected success, got: ${r.failure.message}`)
  return r.success
}
const failure = <A>(effect: Effect.Effect<A, InvalidRequest>): InvalidRequest => {
  const r = run(effect)
  if (Result.isSuccess(r)) throw new Error("expected a failure")
  return r.failure
}

const contents = [{ role: "user", parts: [{ text: "hi" }] }]
const thinking = (thinkingConfig: Record<string, unknown>) => ({ contents, generationConfig: { thinkingConfig } })
// 3 Flash and 3.1 Pro are not in umg's catalog; their thinking rules are checked all the same.
const native = (model: string, body: unknown) => buildNativeBody(model, body, { allowUnknownModels: true })

describe("native thinkingBudget on the 3 class (notes §2.6: still accepted, for backward compatibility)", () => {
  it("accepts a budget alone on 3-class models and sends it as given", () => {
    for (const model of ["zeta-3-pro-preview", "zeta-3-flash-preview", "zeta-3.1-pro-preview"])
      for (const budget of [-1, 0, 1024, 32768])
        expect(success(native(model, thinking({ thinkingBudget: budget }))).generationConfig).toEqual({
          thinkingConfig: { thinkingBudget: budget }
        })
    expect(
      success(buildNativeBody("zeta-3-pro-preview", thinking({ thinkingBudget: 2048, includeThoughts: true })))
        .generationConfig?.thinkingConfig
    ).toEqual({ thinkingBudget: 2048, includeThoughts: true })
  })

  it("still refuses a budget and a level together, and a budget below -1", () => {
    const both = failure(
      buildNativeBody("zeta-3-pro-preview", thinking({ thinkingBudget: 1024, thinkingLevel: "LOW" }))
    )
    expect(both.rule).toBe("exclusive")
    expect(both.field).toBe("generationConfig.thinkingConfig")
    expect(failure(buildNativeBody("zeta-3-pro-preview", thinking({ thinkingBudget: -2 }))).rule).toBe("range")
  })

  it("refuses a budget that contradicts a level suffix or -nothinking", () => {
    const e = failure(buildNativeBody("zeta-3-pro-preview-thinking-low", thinking({ thinkingBudget: 1024 })))
    expect(e.rule).toBe("contradiction")
    expect(e.field).toBe("generationConfig.thinkingConfig.thinkingBudget")
    expect(failure(native("zeta-3-flash-preview-nothinking", thinking({ thinkingBudget: 1024 }))).rule).toBe(
      "contradiction"
    )
    expect(
      success(native("zeta-3-flash-preview-nothinking", thinking({ thinkingBudget: 0 }))).generationConfig
    ).toBeDefined()
  })
})

describe("responses temperature and top_p (the ranges chat checks)", () => {
  const base = { model: "gpt-5", input: "hi", max_output_tokens: 64 }

  it("accepts temperature 0 to 2 and top_p 0 to 1", () => {
    for (const temperature of [0, 1, 2])
      expect(success(buildResponsesBody({ ...base, temperature })).temperature).toBe(temperature)
    for (const top_p of [0, 0.5, 1]) expect(success(buildResponsesBody({ ...base, top_p })).top_p).toBe(top_p)
  })

  it("refuses them outside their ranges, naming the field and the range", () => {
    const t = failure(buildResponsesBody({ ...base, temperature: 2.1 }))
    expect(t.field).toBe("temperature")
    expect(t.rule).toBe("range")
    expect(t.message).toBe("temperature: 2.1 is out of range for gpt-5; allowed: 0 to 2")
    expect(failure(buildResponsesBody({ ...base, temperature: -0.1 })).field).toBe("temperature")
    const p = failure(buildResponsesBody({ ...base, top_p: 1.5 }))
    expect(p.field).toBe("top_p")
    expect(p.message).toBe("top_p: 1.5 is out of range for gpt-5; allowed: 0 to 1")
  })
})

describe("messages-style cache_control.ttl (upstream's 5m or 1h)", () => {
  const body = (cache_control: unknown) => ({
    model: "epsilon-sonnet-4-5-20250929",
    max_tokens: 64,
    messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control }] }]
  })

  it("accepts 5m and 1h", () => {
    for (const ttl of ["5m", "1h"])
      expect(success(buildMessagesBody(body({ type: "ephemeral", ttl }))).messages).toHaveLength(1)
  })

  it("refuses any other ttl, naming the field and the allowed values", () => {
    for (const ttl of ["10m", "1H", "", "forever"]) {
      const e = failure(buildMessagesBody(body({ type: "ephemeral", ttl })))
      expect(e.field).toBe("messages[0].content[0].cache_control.ttl")
      expect(e.message).toContain("5m")
      expect(e.message).toContain("1h")
    }
    const top = failure(
      buildCountTokensBody({
        model: "epsilon-sonnet-4-5-20250929",
        messages: [{ role: "user", content: "hi" }],
        cache_control: { type: "ephemeral", ttl: "2h" }
      })
    )
    expect(top.field).toBe("cache_control.ttl")
  })
})

describe("native function declaration names", () => {
  const tools = (name: string) => ({ contents, tools: [{ functionDeclarations: [{ name }] }] })

  it("accepts a letter or _ then letters, digits, _ . : or -, 128 at most", () => {
    for (const name of ["f", "_f", "get_weather", "ns.get:weather-v2", "a".repeat(128)])
      expect(success(buildNativeBody("zeta-2.5-flash", tools(name))).tools).toHaveLength(1)
  })

  it("refuses other names", () => {
    for (const name of ["1f", "-f", "my tool", "f$", "a".repeat(129)]) {
      const e = failure(buildNativeBody("zeta-2.5-flash", tools(name)))
      expect(e.field).toBe("tools[0].functionDeclarations[0].name")
    }
  })
})
