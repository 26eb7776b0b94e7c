import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mergeMarkerFlags, parseMarkerFlags, renderMarkerFlags } from "../../src/core/video/MarkerFlags.js"

const bad = (text: string) => Effect.flip(parseMarkerFlags(text))

describe("parseMarkerFlags", () => {
  it.effect("reads the short spellings and leaves the rest of the prompt", () =>
    Effect.gen(function* () {
      const parsed = yield* parseMarkerFlags(
        "A cat yawns --rs 1080p --ratio 16:9 --dur 5 --fps 24 --wm false --seed 11 --cf false"
      )
      expect(parsed).toEqual({
        prompt: "A cat yawns",
        flags: {
          resolution: "1080p",
          ratio: "16:9",
          duration: 5,
          framespersecond: 24,
          watermark: false,
          seed: 11,
          camerafixed: false
        }
      })
    })
  )

  it.effect("reads the long spellings and --rt as --ratio", () =>
    Effect.gen(function* () {
      const parsed = yield* parseMarkerFlags(
        "--resolution 720p a --rt 9:16 dog --duration 10 --framespersecond 30 --watermark true --camerafixed true"
      )
      expect(parsed).toEqual({
        prompt: "a dog",
        flags: {
          resolution: "720p",
          ratio: "9:16",
          duration: 10,
          framespersecond: 30,
          watermark: true,
          camerafixed: true
        }
      })
    })
  )

  it.effect("reads flag names in any letter case, keeps values as written, and renders them in lower case", () =>
    Effect.gen(function* () {
      const parsed = yield* parseMarkerFlags("a cat --RS 1080p --Dur 5 --RT 9:16 --FramesPerSecond 30 --WM true")
      expect(parsed).toEqual({
        prompt: "a cat",
        flags: { resolution: "1080p", duration: 5, ratio: "9:16", framespersecond: 30, watermark: true }
      })
      expect(renderMarkerFlags(parsed.prompt, parsed.flags)).toBe(
        "a cat --rs 1080p --ratio 9:16 --dur 5 --fps 30 --wm true"
      )
      expect(yield* bad("x --RS 4k")).toMatchObject({
        message: 'prompt: --RS "4k" is not allowed; allowed: 480p, 720p, 1080p'
      })
      expect((yield* bad("x --rs 1080P")).message).toContain('"1080P" is not allowed')
      expect((yield* bad("x --CF TRUE")).message).toContain("allowed: true, false")
      expect((yield* bad("x --Dur 5 --dur 6")).rule).toBe("marker-flag-conflict")
      expect((yield* parseMarkerFlags("x --DUR 5 --duration 5")).flags).toEqual({ duration: 5 })
    })
  )

  it.effect("refuses a --word in a flag's place that names no flag, naming the flags (as the emulator does)", () =>
    Effect.gen(function* () {
      expect(yield* bad("x --frames 29 y")).toMatchObject({
        field: "prompt",
        rule: "marker-flag",
        message:
          "prompt: --frames is not a marker flag; allowed: --rs, --resolution, --ratio, --rt, --dur, --duration, --fps, --framespersecond, --seed, --wm, --watermark, --cf, --camerafixed"
      })
      expect((yield* bad("x --rs 720p --Seedling 3")).message).toContain("--Seedling is not a marker flag")
      expect((yield* bad("--resolutoin 720p a cat")).message).toContain("--resolutoin is not a marker flag")
      expect((yield* bad("a cat --cinematic")).message).toContain("--cinematic is not a marker flag")
    })
  )

  it.effect("leaves words that only start like a flag in the prompt", () =>
    Effect.gen(function* () {
      for (const text of ["x--rs 720p", "a --4k cat", "a --no-audio cat", "a -- b", "a —rs 720p", "a --rs: b"])
        expect(yield* parseMarkerFlags(text)).toEqual({ prompt: text, flags: {} })
      expect(yield* parseMarkerFlags("")).toEqual({ prompt: "", flags: {} })
    })
  )

  it.effect("refuses a value outside the contract's list, naming the flag and the allowed values", () =>
    Effect.gen(function* () {
      expect(yield* bad("x --rs 4k")).toMatchObject({
        field: "prompt",
        rule: "marker-flag",
        message: 'prompt: --rs "4k" is not allowed; allowed: 480p, 720p, 1080p'
      })
      expect((yield* bad("x --ratio 21:9")).message).toContain("allowed: 16:9, 9:16, 1:1, 4:3, 3:4, adaptive")
      expect((yield* bad("x --dur five")).message).toContain("an integer")
      expect((yield* bad("x --fps 25")).message).toContain("allowed: 24, 30")
      expect((yield* bad("x --seed 1.5")).message).toContain("an integer")
      expect((yield* bad("x --wm yes")).message).toContain("true, false")
      expect((yield* bad("x --cf 1")).message).toContain("true, false")
    })
  )

  it.effect("refuses a flag without a value", () =>
    Effect.gen(function* () {
      expect((yield* bad("x --cf")).message).toBe("prompt: --cf needs a value; allowed: true, false")
      expect((yield* bad("x --dur --seed 1")).message).toContain("--dur needs a value")
    })
  )

  it.effect("accepts a flag repeated with the same value and refuses one repeated with another", () =>
    Effect.gen(function* () {
      expect((yield* parseMarkerFlags("x --dur 5 --duration 5")).flags).toEqual({ duration: 5 })
      expect(yield* Effect.flip(parseMarkerFlags("x --dur 5 --duration 6", "metadata.content[0].text"))).toMatchObject({
        field: "metadata.content[0].text",
        rule: "marker-flag-conflict"
      })
    })
  )
})

describe("renderMarkerFlags", () => {
  it("appends each flag once, short spellings in a fixed order", () => {
    expect(renderMarkerFlags("a cat", { seed: 1, resolution: "720p", camerafixed: false })).toBe(
      "a cat --rs 720p --seed 1 --cf false"
    )
    expect(renderMarkerFlags("a cat", {})).toBe("a cat")
    expect(renderMarkerFlags("", { duration: 5 })).toBe("--dur 5")
  })

  it.effect("renders text that parses back to the same prompt and flags", () =>
    Effect.gen(function* () {
      const flags = {
        resolution: "480p",
        ratio: "adaptive",
        duration: 12,
        framespersecond: 30,
        seed: -1,
        watermark: true,
        camerafixed: true
      } as const
      expect(yield* parseMarkerFlags(renderMarkerFlags("a [图1] b", flags))).toEqual({ prompt: "a [图1] b", flags })
    })
  )
})

describe("mergeMarkerFlags", () => {
  it.effect("joins two sources and fails on the field of a setting they disagree on", () =>
    Effect.gen(function* () {
      expect(yield* mergeMarkerFlags({ duration: 5 }, { duration: 5, seed: 1 }, (n) => n)).toEqual({
        duration: 5,
        seed: 1
      })
      const e = yield* Effect.flip(mergeMarkerFlags({ ratio: "16:9" }, { ratio: "9:16" }, () => "aspect_ratio"))
      expect(e).toMatchObject({
        field: "aspect_ratio",
        message: 'aspect_ratio: "9:16" disagrees with --ratio 16:9 in the prompt'
      })
    })
  )
})
