import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { DecodeError } from "../src/core/errors/GatewayError.js"
import { exceedsJsonDepth, parsedTreeDepth } from "../src/core/wire/JsonSafety.js"
import { parseJsonText } from "../src/core/wire/WireJson.js"
import {
  type DecoderCase,
  decoderCases,
  fill,
  findUnsafeKey,
  goodValueFor,
  HOLE,
  runDecoder
} from "../test/support/coreDecoders.js"
import { fingerprint, type Hostile, hostile, hostileText, runs } from "./hostile.js"

const isHostile = (v: unknown): v is Hostile =>
  typeof v === "object" && v !== null && typeof (v as Hostile).build === "function"

// Where a hostile value goes: the whole input, a passed-through field of a valid input, a typed field,
// or (for decoders of text) the JSON text itself.
type Placement = { readonly where: "top" | "hole" | "typed" | "record" | "text"; readonly value: unknown }

const placements = (c: DecoderCase): fc.Arbitrary<Placement> => {
  const value: Array<fc.Arbitrary<Placement>> = [
    hostile.map((value) => ({ where: "top" as const, value })),
    hostile.map((value) => ({ where: "typed" as const, value }))
  ]
  const text = hostileText.map((value) => ({ where: "text" as const, value }))
  switch (c.kind) {
    case "value":
      return fc.oneof(
        ...value,
        hostile.map((value) => ({ where: "hole" as const, value })),
        hostile.map((value) => ({ where: "hole" as const, value }))
      )
    case "frame":
      return fc.oneof(
        ...value,
        hostile.map((value) => ({ where: "hole" as const, value })),
        text
      )
    case "sse":
      return fc.oneof(
        text,
        text,
        hostile.map((value) => ({ where: "record" as const, value })),
        hostile.map((value) => ({ where: "top" as const, value }))
      )
  }
}

const inputFor = (c: DecoderCase, placement: Placement): unknown => {
  const good = goodValueFor[c.name]
  const p = { where: placement.where, value: isHostile(placement.value) ? placement.value.build() : placement.value }
  switch (p.where) {
    case "top":
      return p.value
    case "hole":
      return fill(c.template, p.value, good)
    case "typed":
      return c.kind === "sse" ? p.value : fill(c.template, HOLE, p.value)
    case "record":
      return { event: c.event ?? "message", data: p.value }
    case "text":
      return c.kind === "sse" ? { event: c.event ?? "message", data: p.value } : p.value
  }
}

describe.each(decoderCases)("the $name decoder on hostile input", (c) => {
  it("never throws or dies, fails only with a DecodeError, never mutates its input and keeps no unsafe key", () => {
    fc.assert(
      fc.property(placements(c), (placement) => {
        const input = inputFor(c, placement)
        const before = fingerprint(input)
        const result = runDecoder(c, input)
        expect(result).not.toHaveProperty("defect")
        if ("ok" in result && !result.ok) {
          expect(result.error).toBeInstanceOf(DecodeError)
          expect(typeof (result.error as DecodeError).message).toBe("string")
        }
        if ("ok" in result && result.ok) expect(findUnsafeKey(result.value)).toBeUndefined()
        expect(fingerprint(input)).toEqual(before)
      }),
      { numRuns: runs() }
    )
  })
})

describe("the depth bound of the shared decode path", () => {
  it("refuses exactly what nests deeper than the bound it is given, naming the bound", () => {
    const decode = decoderCases.find((c) => c.name === "responses response")!
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 100 }), (bound, depth) => {
        let metadata: unknown = 1
        for (let i = 0; i < depth; i++) metadata = { m: metadata }
        const input = fill(decode.template, metadata, goodValueFor[decode.name])
        const result = runDecoder(decode, input, { maxDepth: bound })
        expect(result).not.toHaveProperty("defect")
        if (exceedsJsonDepth(input, bound)) {
          expect(result).toMatchObject({ ok: false })
          expect((result as { error: DecodeError }).error.message).toContain(`deeper than ${bound} levels`)
        } else expect(result).toMatchObject({ ok: true })
      }),
      { numRuns: runs() }
    )
  })

  it("measures a parsed tree's depth as the general check does, or leaves it to that check", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        (value, bound, poisoned) => {
          const text = poisoned ? `{"a":${JSON.stringify(value)},"__proto__":{}}` : JSON.stringify(value)
          const tree: unknown = JSON.parse(text)
          const depth = parsedTreeDepth(tree, bound)
          const unsafeKey = /"(__proto__|constructor|prototype)":/.test(text)
          if (tree === null || typeof tree !== "object") expect(depth).toBe(0)
          else if (unsafeKey || exceedsJsonDepth(tree, bound)) expect(depth).toBe(-1)
          else {
            // The deepest level itself: within it, and not within one less.
            expect(exceedsJsonDepth(tree, depth)).toBe(false)
            expect(exceedsJsonDepth(tree, depth - 1)).toBe(true)
            // A bound beyond what the walk takes is left to the general checks.
            expect(parsedTreeDepth(tree, 5_000)).toBe(-1)
          }
        }
      ),
      { numRuns: runs() }
    )
  })

  it("parses any text into JSON within the bound or a DecodeError that never quotes the text", () => {
    fc.assert(
      fc.property(
        hostileText,
        fc.string({ minLength: 12 }).map((s) => `sk-${s.replace(/\W/g, "x")}`),
        (text, secret) => {
          const result = parseJsonText(`${text}${secret}`, "openai", "answer")
          if (result._tag === "Failure") {
            expect(result.failure).toBeInstanceOf(DecodeError)
            expect(result.failure.message).not.toContain(secret)
          } else expect(exceedsJsonDepth(result.success)).toBe(false)
        }
      ),
      { numRuns: runs() }
    )
  })
})
