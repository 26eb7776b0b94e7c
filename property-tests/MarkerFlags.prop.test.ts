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
import { readFlags } from "../src/emulator/video/VideoDeltaRules.js"

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

const longOf = (k: keyof MarkerFlags): string => k

/** `word` with each letter's case drawn at random: `--rs` may come as `--Rs`, `--RS`, `--rS`. */
const anyCase = (word: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(""))

/** The flags of `f` written once each, in a random spelling and letter case, in a random order. */
const spelledAnyCase = (f: MarkerFlags): fc.Arbitrary<string> =>
  fc
    .tuple(
      ...Object.entries(f).map(([k, v]) =>
        fc
          .constantFrom(shortOf[k as keyof MarkerFlags], longOf(k as keyof MarkerFlags))
          .chain(anyCase)
          .map((name) => `--${name} ${String(v)}`)
      )
    )
    .chain((parts) => fc.shuffledSubarray(parts, { minLength: parts.length }))
    .map((parts) => parts.join(" "))

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

  it("reads a flag name in any letter case as its lower-case spelling and renders it in lower case", () => {
    fc.assert(
      fc.property(
        prompt,
        flags.chain((f) => spelledAnyCase(f).map((text) => ({ f, text }))),
        (p, { f, text }) => {
          const parsed = parse(`${p} ${text}`)
          expect(parsed).toEqual(Result.succeed({ prompt: p, flags: f }))
          if (Result.isSuccess(parsed))
            expect(renderMarkerFlags(parsed.success.prompt, parsed.success.flags)).toBe(renderMarkerFlags(p, f))
        }
      )
    )
  })

  it("recognises the same flags, in any letter case, as the emulator's reader of a delta text item", () => {
    // Values both readers take as values (the emulator reads no value that starts with "-" but -1).
    const readable = flags.map((f) => {
      const out = { ...f }
      if (out.duration !== undefined && out.duration < 0) delete out.duration
      if (out.seed !== undefined && out.seed < -1) delete out.seed
      return out
    })
    // Words without "--" (a --word that names no flag is refused, by the client and the emulator alike).
    const plainWords = fc.array(fc.stringMatching(/^[a-zA-Z1-9图[\]]{1,8}$/), { maxLength: 6 })
    fc.assert(
      fc.property(
        plainWords,
        readable.chain((f) => spelledAnyCase(f).map((text) => ({ f, text }))),
        (ws, { f, text }) => {
          const full = [...ws, text].join(" ")
          const client = parse(full)
          const emulator = readFlags(full)
          expect(Result.isSuccess(client)).toBe(true)
          expect("flags" in emulator).toBe(true)
          if (Result.isSuccess(client) && "flags" in emulator) {
            expect(client.success.flags).toEqual(f)
            expect(Object.fromEntries(emulator.flags)).toEqual(
              Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v)]))
            )
          }
        }
      )
    )
  })
})
