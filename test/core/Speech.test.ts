import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  buildSpeechBody,
  speechContentType,
  speechFormatOf,
  speechFormats,
  speechVoices
} from "../../src/core/media/Speech.js"

const base = { model: "gpt-4o-mini-tts", input: "Hello there", voice: "alloy" }
const bad = (input: unknown) => Effect.flip(buildSpeechBody(input))

describe("buildSpeechBody", () => {
  it.effect("builds the minimal body and leaves format and speed to the gateway's defaults", () =>
    Effect.gen(function* () {
      const body = yield* buildSpeechBody(base)
      expect(body).toEqual(base)
      expect(speechFormatOf(body)).toBe("mp3")
    })
  )

  it.effect("accepts each of the six voices and six formats", () =>
    Effect.gen(function* () {
      for (const voice of speechVoices) expect((yield* buildSpeechBody({ ...base, voice })).voice).toBe(voice)
      for (const response_format of speechFormats) {
        const body = yield* buildSpeechBody({ ...base, response_format })
        expect(speechFormatOf(body)).toBe(response_format)
      }
    })
  )

  it.effect("refuses another voice, naming the six", () =>
    Effect.gen(function* () {
      const e = yield* bad({ ...base, voice: "marin" })
      expect(e).toMatchObject({ field: "voice", rule: "one-of" })
      expect(e.message).toContain('"marin"')
      expect(e.message).toContain("alloy, echo, fable, onyx, nova, shimmer")
      expect(yield* bad({ model: "gpt-4o-mini-tts", input: "x" })).toMatchObject({ field: "voice", rule: "required" })
    })
  )

  it.effect("refuses another format", () =>
    Effect.gen(function* () {
      const e = yield* bad({ ...base, response_format: "ogg" })
      expect(e).toMatchObject({ field: "response_format", rule: "one-of" })
      expect(e.message).toContain("mp3, opus, aac, flac, wav, pcm")
    })
  )

  it.effect("keeps speed within 0.25 and 4.0", () =>
    Effect.gen(function* () {
      expect((yield* buildSpeechBody({ ...base, speed: 0.25 })).speed).toBe(0.25)
      expect((yield* buildSpeechBody({ ...base, speed: 4 })).speed).toBe(4)
      expect(yield* bad({ ...base, speed: 0.24 })).toMatchObject({ field: "speed", rule: "range" })
      expect(yield* bad({ ...base, speed: 4.01 })).toMatchObject({ field: "speed", rule: "range" })
      expect(yield* bad({ ...base, speed: "fast" })).toMatchObject({ field: "speed", rule: "type" })
    })
  )

  it.effect("counts input in characters (code points), as upstream's 4,096 limit does", () =>
    Effect.gen(function* () {
      expect((yield* buildSpeechBody({ ...base, input: "😀".repeat(4096) })).input).toHaveLength(8192)
      const e = yield* bad({ ...base, input: "😀".repeat(4097) })
      expect(e).toMatchObject({ field: "input", rule: "max-length" })
      expect(e.message).toBe("input: 4097 characters is too long; allowed: at most 4096")
      // A lone surrogate is one character too.
      expect((yield* bad({ ...base, input: `${"a".repeat(4096)}\ud800` })).message).toContain("4097 characters")
    })
  )

  it.effect("requires model and a non-empty input, and passes unknown fields through", () =>
    Effect.gen(function* () {
      expect(yield* bad({ ...base, input: "" })).toMatchObject({ field: "input" })
      expect(yield* bad({ ...base, model: 3 })).toMatchObject({ field: "model", rule: "type" })
      expect((yield* buildSpeechBody({ ...base, instructions: "cheerful" })).instructions).toBe("cheerful")
    })
  )
})

describe("speechContentType", () => {
  it("labels every format and defaults to mp3", () => {
    expect(speechContentType()).toBe("audio/mpeg")
    expect(speechFormats.map((f) => speechContentType(f))).toEqual([
      "audio/mpeg",
      "audio/opus",
      "audio/aac",
      "audio/flac",
      "audio/wav",
      "audio/pcm"
    ])
  })
})
