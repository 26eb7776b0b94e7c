import { describe, expect, it } from "vitest"
import { DecodeError } from "../../src/core/errors/GatewayError.js"
import { defaultMaxJsonDepth, exceedsJsonDepth, findUnsendable } from "../../src/core/wire/JsonSafety.js"
import { parseJsonText } from "../../src/core/wire/WireJson.js"
import { sanitize } from "../../src/core/validation/Rules.js"
import {
  BAD,
  decoderCases,
  deepArrayText,
  fill,
  findUnsafeKey,
  goodValueFor,
  HOLE,
  holeDepth,
  inputOf,
  protoAtDepthText,
  runDecoder
} from "../support/coreDecoders.js"
import { expectNoSecret } from "../support/secrets.js"

const secret = "sk-live-0123456789abcdefDECODE"

describe.each(decoderCases)("the $name decoder", (c) => {
  it("decodes its valid template (so the hostile cases below reach the field they aim at)", () => {
    const result = runDecoder(c, inputOf(c, '{"k":[1,"x",null]}'))
    expect(result).toMatchObject({ ok: true })
  })

  it("fails with a DecodeError naming the depth bound on 100,000 nested arrays, never a RangeError", () => {
    const result = runDecoder(c, inputOf(c, deepArrayText(100_000)))
    expect(result).toMatchObject({ ok: false })
    const error = (result as { error: unknown }).error
    expect(error).toBeInstanceOf(DecodeError)
    expect((error as DecodeError).message).toContain(`deeper than ${defaultMaxJsonDepth} levels`)
  })

  it("accepts input exactly as deep as the bound and refuses one level more", () => {
    const levelsAtHole = defaultMaxJsonDepth - holeDepth(c) + 1
    expect(runDecoder(c, inputOf(c, deepArrayText(levelsAtHole)))).toMatchObject({ ok: true })
    const deeper = runDecoder(c, inputOf(c, deepArrayText(levelsAtHole + 1)))
    expect(deeper).toMatchObject({ ok: false })
    expect((deeper as { error: DecodeError }).error.message).toContain(`deeper than ${defaultMaxJsonDepth} levels`)
  })

  it("fails the same way on 100,000 nested arrays given as a value at the top level", () => {
    const deep = JSON.parse(deepArrayText(100_000))
    const result = runDecoder(c, c.kind === "sse" ? { event: "message", data: deepArrayText(100_000) } : deep)
    expect(result).toMatchObject({ ok: false })
    expect((result as { error: unknown }).error).toBeInstanceOf(DecodeError)
  })

  it("refuses __proto__ at depth 70 by the bound, and drops it when a larger bound lets it through", () => {
    const refused = runDecoder(c, inputOf(c, protoAtDepthText(70)))
    expect(refused).toMatchObject({ ok: false })
    const allowed = runDecoder(c, inputOf(c, protoAtDepthText(70)), { maxDepth: 200 })
    if ("ok" in allowed && allowed.ok) {
      expect(findUnsafeKey(allowed.value)).toBeUndefined()
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    } else {
      // Decoders that drop unknown fields never hold it; they still must not die.
      expect(allowed).toMatchObject({ ok: false })
    }
  })

  it("does not echo a secret-looking value that fails its schema", () => {
    // An array holding the secret fails every typed field, and a formatter would print it whole.
    const result = runDecoder(c, inputOf(c, "1", [secret, { token: secret }]))
    expect(result).toMatchObject({ ok: false })
    const error = (result as { error: unknown }).error
    expect(error).toBeInstanceOf(DecodeError)
    expect((error as DecodeError).message.length).toBeGreaterThan(0)
    expectNoSecret(error, [secret])
  })
})

describe("the shared decode path", () => {
  it("never quotes text that is not JSON (the parser's own message does)", () => {
    const result = parseJsonText(`{"key": ${secret}}`, "openai", "answer")
    expect(result._tag).toBe("Failure")
    expectNoSecret(result, [secret])
  })

  it("names the path and the expected type of refinement and literal failures, never the value", () => {
    const cases: Array<[string, unknown, string]> = [
      [
        "platform token response",
        { code: 200, msg: "ok", data: `Bearer ${secret} and more` },
        "data: Expected a string matching the pattern"
      ],
      ["video task", { task_id: "t", status: secret }, 'status: Expected "submitted" | "queued"'],
      [
        "rerank response",
        { results: [{ index: 0, relevance_score: 7 }] },
        "results[0].relevance_score: Expected a number between 0 and 1"
      ]
    ]
    for (const [name, input, expected] of cases) {
      const result = runDecoder(
        decoderCases.find((c) => c.name === name)!,
        input
      )
      const error = (result as { error: DecodeError }).error
      expect(error).toBeInstanceOf(DecodeError)
      expect(error.message).toContain(expected)
      expect(error.message).not.toContain("actual")
      expectNoSecret(error, [secret])
    }
  })

  it("keeps a __proto__ key 1,000 levels deep out of a sanitized copy, without recursion", () => {
    const parsed = JSON.parse(protoAtDepthText(1_000))
    expect(findUnsafeKey(parsed)).toBe("__proto__")
    expect(findUnsafeKey(sanitize(parsed))).toBeUndefined()
  })

  it("walks shared references once: 40 levels of them (2^40 paths) decode, and JSON checks stay linear", () => {
    let shared: unknown = { leaf: 1 }
    for (let i = 0; i < 40; i++) shared = { l: shared, r: shared }
    const responses = decoderCases.find((c) => c.name === "responses response")!
    expect(runDecoder(responses, fill(responses.template, shared, 1), { maxDepth: 100 })).toMatchObject({ ok: true })
    expect(findUnsendable(shared)).toBeUndefined()
    let withBigInt: unknown = { leaf: 1n }
    for (let i = 0; i < 40; i++) withBigInt = { l: withBigInt, r: withBigInt }
    expect(findUnsendable(withBigInt)?.reason).toMatch(/BigInt/)
  })

  it("still refuses a shared object met again deeper than the bound", () => {
    const s = { x: 1 }
    let deep: unknown = s
    for (let i = 0; i < 70; i++) deep = [deep]
    for (const value of [
      { a: s, b: deep },
      { b: deep, a: s }
    ]) {
      expect(exceedsJsonDepth(value)).toBe(true)
      expect(findUnsendable(value)?.reason).toMatch(/deeper than 64/)
    }
  })

  it("ignores a maxDepth that is not a positive integer (and an index when used as a map callback)", () => {
    const responses = decoderCases.find((c) => c.name === "responses response")!
    const at64 = inputOf(responses, deepArrayText(defaultMaxJsonDepth - holeDepth(responses) + 1))
    for (const options of [{ maxDepth: -1 }, { maxDepth: Number.NaN }, { maxDepth: 1.5 }, 3, "x", null]) {
      expect(runDecoder(responses, at64, options as never)).toMatchObject({ ok: true })
    }
    expect(runDecoder(responses, at64, { maxDepth: 10 })).toMatchObject({ ok: false })
  })

  it("fills templates as the tests above assume", () => {
    expect(fill({ a: [HOLE, BAD] }, 1, 2)).toEqual({ a: [1, 2] })
    expect(Object.keys(goodValueFor).sort()).toEqual(decoderCases.map((c) => c.name).sort())
  })
})
