import { Effect, Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type MarkerFlags,
  markerFrameRates,
  markerRatios,
  markerResolutions,
  parseMarkerFlags,
  renderMarkerFlags
} from "../src/core/video/MarkerFlags.js"

const parse = (text: string) => Effect.runSync(Effect.result(parseMarkerFlags(text)))

const flags: fc.Arbitrary<MarkerFlags> = fc.record(
  {
    resolution: fc.constantFrom(...markerResolutions),
    ratio: fc.constantFrom(...markerRatios),
    duration: fc.integer({ min: -20, max: 1_000_000 }),
    framespersecond: fc.constantFrom(...markerFrameRates),
    seed: fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }),
    watermark: fc.boolean(),
    camerafixed: fc.boolean()
  },
  { requiredKeys: [] }
)

// Prompts mixing ordinary text with flag-like words; kept only when they are already canonical
// (parsing them yields themselves and no flags), which is the domain where render is invertible.
const word = fc.oneof(
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.constantFrom("--", "--x", "--frames", "--seedling", "[图1]", "-rs", "—", "\t", "--rsx")
)
const prompt = fc
  .array(word, { maxLength: 8 })
  .map((ws) => ws.join(" "))
  .filter((p) => {
    const r = parse(p)
    return Result.isSuccess(r) && r.success.prompt === p && Object.keys(r.success.flags).length === 0
  })

const shortOf: Record<keyof MarkerFlags, string> = {
  resolution: "rs",
  ratio: "ratio",
  duration: "dur",
  framespersecond: "fps",
  seed: "seed",
  watermark: "wm",
  camerafixed: "cf"
}

describe("marker flag properties", () => {
  it("parses what it renders back to the same prompt and flags", () => {
    fc.assert(
      fc.property(prompt, flags, (p, f) => {
        const text = renderMarkerFlags(p, f)
        const back = parse(text)
        expect(back).toEqual(Result.succeed({ prompt: p, flags: f }))
      })
    )
  })

  it("renders each flag once, however often and in whichever spelling the text gave it", () => {
    fc.assert(
      fc.property(prompt, flags, fc.boolean(), (p, f, long) => {
        const spell = (k: string) => (long ? k : shortOf[k as keyof MarkerFlags])
        const spelled = Object.entries(f)
          .map(([k, v]) => `--${spell(k)} ${String(v)}`)
          .join(" ")
        const parsed = parse(`${spelled} ${p} ${spelled}`)
        expect(Result.isSuccess(parsed)).toBe(true)
        if (Result.isSuccess(parsed)) {
          expect(parsed.success).toEqual({ prompt: p, flags: f })
          const words = renderMarkerFlags(parsed.success.prompt, parsed.success.flags).split(/\s+/)
          for (const k of Object.keys(f))
            expect(words.filter((w) => w === `--${shortOf[k as keyof MarkerFlags]}`)).toHaveLength(1)
        }
      })
    )
  })
})
