import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  AlphaBody,
  BetaBody,
  buildVideoBody,
  DeltaBody,
  GammaBody,
  videoBodySchemas
} from "../../src/core/video/VideoBody.js"
import { makeVideoCatalog } from "../../src/core/video/VideoCatalog.js"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"

// Read as a plain record: each test knows which family it built, so it reads that family's fields.
const ok = (input: unknown): Effect.Effect<Readonly<Record<string, unknown>>, InvalidRequest> => buildVideoBody(input)
const bad = (input: unknown) => Effect.flip(buildVideoBody(input))
/** Fails on `field`, with a message that contains every given part. */
const failsOn = (input: unknown, field: string, ...parts: Array<string>) =>
  Effect.gen(function* () {
    const e = yield* bad(input)
    expect(e._tag).toBe("InvalidRequest")
    expect(e.field).toBe(field)
    for (const p of parts) expect(e.message).toContain(p)
    return e
  })

const A = "alpha-2"
const B30 = "beta-3.0-fast-generate-001"
const B31 = "beta-3.1-fast-generate-001"
const GT = "gamma2.5-t2v-preview"
const GI = "gamma2.5-i2v-preview"
const LT = "delta-1-0-lite-t2v-250428"
const LI = "delta-1-0-lite-i2v-250428"
const P10 = "delta-1-0-pro-250528"
const P15 = "delta-1-5-pro-251215"
const P15S = "delta-1-5-pro-251215-noAudio"

describe("buildVideoBody: any family", () => {
  it.effect("refuses a non-object request, a missing model and a model of no video family", () =>
    Effect.gen(function* () {
      yield* failsOn(null, "(body)", "expected an object")
      yield* failsOn([], "(body)", "expected an object")
      yield* failsOn({ prompt: "x" }, "model", "model is required")
      yield* failsOn(
        { model: "epsilon-opus-4-5", prompt: "x" },
        "model",
        '"epsilon-opus-4-5" is an epsilon (messages-style) model',
        "POST /v1/messages"
      )
      yield* failsOn(
        { model: "my-thing", prompt: "x" },
        "model",
        '"my-thing" is not a video model umg knows',
        "alpha-2"
      )
    })
  )

  it.effect(
    "refuses an id the catalog does not list; with allowUnknownModels routes it by its prefix and that family's limits",
    () =>
      Effect.gen(function* () {
        yield* failsOn(
          { model: "beta-9-new", prompt: "x" },
          "model",
          '"beta-9-new" is not a video model umg knows',
          "allowUnknownModels"
        )
        const unknown = { allowUnknownModels: true }
        const body = yield* buildVideoBody({ model: "beta-9-new", prompt: "x", duration: 6 }, unknown)
        expect(body).toMatchObject({ model: "beta-9-new", durationSeconds: 6 })
        const e = yield* Effect.flip(buildVideoBody({ model: "alpha-3", prompt: "x", duration: 5 }, unknown))
        expect(e.field).toBe("duration")
        expect(e.message).toContain("allowed: 4, 8, 12")
        expect(yield* buildVideoBody({ model: "gamma3-t2v", prompt: "x", duration: 10 }, unknown)).toMatchObject({
          duration: 10
        })
      })
  )

  it.effect("takes a user's catalog entry over the built-in limits", () =>
    Effect.gen(function* () {
      const catalog = makeVideoCatalog({ [B30]: { durations: [8] }, "my-video": { family: "gamma" } })
      yield* Effect.flip(buildVideoBody({ model: B30, prompt: "x", duration: 4 }, { videoCatalog: catalog })).pipe(
        Effect.tap((e) => Effect.sync(() => expect(e.message).toContain("allowed: 8")))
      )
      expect(
        yield* buildVideoBody({ model: "my-video", prompt: "x", duration: 5 }, { videoCatalog: catalog })
      ).toMatchObject({ model: "my-video", duration: 5 })
    })
  )

  it.effect("refuses a field of another family, naming its owner", () =>
    Effect.gen(function* () {
      yield* failsOn({ model: A, prompt: "x", durationSeconds: 4 }, "durationSeconds", "family beta field", "alpha-2")
      yield* failsOn({ model: B31, prompt: "x", seconds: "4" }, "seconds", "family alpha field")
      yield* failsOn({ model: GT, prompt: "x", metadata: { content: [] } }, "metadata", "family delta field")
      yield* failsOn({ model: P15, prompt: "x", audio_url: "https://a" }, "audio_url", "family gamma field")
    })
  )

  it.effect("refuses a field of another family given in extra, as at the top level, naming extra.<field>", () =>
    Effect.gen(function* () {
      const e = yield* failsOn(
        { model: A, prompt: "x", extra: { durationSeconds: 4 } },
        "extra.durationSeconds",
        "extra.durationSeconds is a family beta field; alpha-2 (family alpha) does not take it"
      )
      expect(e.rule).toBe("foreign-field")
      yield* failsOn({ model: B31, prompt: "x", extra: { size: "1280x720" } }, "extra.size", "family alpha field")
      yield* failsOn({ model: GT, prompt: "x", extra: { metadata: {} } }, "extra.metadata", "family delta field")
      yield* failsOn({ model: P15, prompt: "x", extra: { sampleCount: 1 } }, "extra.sampleCount", "family beta field")
      // extra sends a null as it is, so a null there is a field given.
      yield* failsOn(
        { model: A, prompt: "x", extra: { durationSeconds: null } },
        "extra.durationSeconds",
        "family beta"
      )
      // A field no family knows still travels in extra.
      expect((yield* ok({ model: A, prompt: "x", extra: { negative_prompt: "rain" } })).negative_prompt).toBe("rain")
    })
  )

  it.effect("refuses unknown fields naming the nearest, and carries extra fields but never an unsafe key", () =>
    Effect.gen(function* () {
      yield* failsOn(
        { model: "alpha-2", prompt: "x", duraton: 4 },
        "duraton",
        "unknown field `duraton`; did you mean `duration`?"
      )
      const input = JSON.parse(
        '{"model":"alpha-2","prompt":"x","extra":{"negative_prompt":"rain","a":[1,{"__proto__":{"p":1}}],"__proto__":{"polluted":true}}}'
      )
      const body = (yield* ok(input)) as Record<string, unknown>
      expect(body.negative_prompt).toBe("rain")
      expect(body.a).toEqual([1, {}])
      expect(Object.keys(body)).not.toContain("__proto__")
      expect(Object.keys(body)).not.toContain("extra")
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    })
  )
})

describe("buildVideoBody: a duration is a number", () => {
  it.effect(
    "refuses a duration written as a string, for every family, naming the field and what the model allows",
    () =>
      Effect.gen(function* () {
        for (const [model, allowed] of [
          [A, "4, 8, 12"],
          [B31, "4, 6, 8"],
          [GT, "5, 10"],
          [P15, "4, 5, 6, 7, 8, 9, 10, 11, 12"]
        ] as const) {
          const e = yield* failsOn(
            { model, prompt: "x", duration: "8" },
            "duration",
            `duration: expected an integer, got a string "8"; allowed for ${model}: ${allowed}`
          )
          expect(e.message).not.toContain("is not allowed")
          expect(e.rule).toBe("one-of")
        }
        // The same number is taken.
        expect((yield* ok({ model: B31, prompt: "x", duration: 8 })).durationSeconds).toBe(8)
        expect((yield* ok({ model: P15, prompt: "x", duration: 8 })).prompt).toBe("x --dur 8")
      })
  )

  it.effect("refuses beta's durationSeconds as a string too, and any duration that is not an integer", () =>
    Effect.gen(function* () {
      yield* failsOn(
        { model: B31, prompt: "x", durationSeconds: "8" },
        "durationSeconds",
        `durationSeconds: expected an integer, got a string "8"; allowed for ${B31}: 4, 6, 8`
      )
      for (const duration of ["eight", " 10 ", ""])
        yield* failsOn({ model: GT, prompt: "x", duration }, "duration", "expected an integer, got a string", "5, 10")
      for (const duration of [true, [10], { s: 10 }])
        yield* failsOn({ model: GT, prompt: "x", duration }, "duration", "expected an integer, got", "5, 10")
      yield* failsOn(
        { model: GT, prompt: "x", duration: 10.5 },
        "duration",
        `10.5 is not allowed for ${GT}; allowed: 5, 10`
      )
    })
  )

  it.effect("takes alpha's own seconds as a string or an integer (the E1 alpha table), and nothing else", () =>
    Effect.gen(function* () {
      expect((yield* ok({ model: A, prompt: "x", seconds: "8" })).seconds).toBe("8")
      expect((yield* ok({ model: A, prompt: "x", seconds: 8 })).seconds).toBe("8")
      for (const seconds of [" 8", "08", "8.0", 8.5, true])
        yield* failsOn({ model: A, prompt: "x", seconds }, "seconds", `is not allowed for ${A}; allowed: 4, 8, 12`)
      // The generic duration stays an integer, on alpha too.
      yield* failsOn(
        { model: A, prompt: "x", duration: "8", seconds: "8" },
        "duration",
        'duration: expected an integer, got a string "8"'
      )
    })
  )
})

describe("buildVideoBody: alpha", () => {
  it.effect("maps duration to seconds as a string and accepts seconds as a string or an integer", () =>
    Effect.gen(function* () {
      expect(yield* ok({ model: A, prompt: "x", duration: 8 })).toEqual({ model: A, prompt: "x", seconds: "8" })
      expect((yield* ok({ model: A, prompt: "x", seconds: "12" })).seconds).toBe("12")
      expect((yield* ok({ model: A, prompt: "x", seconds: 4 })).seconds).toBe("4")
      yield* failsOn(
        { model: A, prompt: "x", seconds: "5" },
        "seconds",
        'seconds: "5" is not allowed for alpha-2; allowed: 4, 8, 12'
      )
      yield* failsOn({ model: A, prompt: "x", duration: 10 }, "duration", "allowed: 4, 8, 12")
      yield* failsOn({ model: A, prompt: "x", duration: 4, seconds: "8" }, "seconds", "disagrees with duration")
    })
  )

  it.effect("maps 16:9 and 9:16 at 720p to size and refuses other ratios and resolutions", () =>
    Effect.gen(function* () {
      expect((yield* ok({ model: A, prompt: "x", aspect_ratio: "16:9", resolution: "720p" })).size).toBe("1280x720")
      expect((yield* ok({ model: A, prompt: "x", aspect_ratio: "9:16" })).size).toBe("720x1280")
      expect((yield* ok({ model: A, prompt: "x", size: "1280x720" })).size).toBe("1280x720")
      yield* failsOn({ model: A, prompt: "x", size: "1792x1024" }, "size", "allowed: 1280x720, 720x1280")
      yield* failsOn({ model: A, prompt: "x", aspect_ratio: "1:1" }, "aspect_ratio", "allowed: 16:9, 9:16")
      yield* failsOn({ model: A, prompt: "x", resolution: "1080p" }, "resolution", "allowed: 720p")
      yield* failsOn({ model: A, prompt: "x", aspect_ratio: "16:9", size: "720x1280" }, "size", "disagrees")
    })
  )

  it.effect("sends an image as input_reference for image-to-video", () =>
    Effect.gen(function* () {
      expect(yield* ok({ model: A, prompt: "x", image: "https://i/a.png" })).toEqual({
        model: A,
        prompt: "x",
        input_reference: "https://i/a.png"
      })
      expect((yield* ok({ model: A, input_reference: "data:image/png;base64,AAAA" })).input_reference).toBe(
        "data:image/png;base64,AAAA"
      )
      yield* failsOn({ model: A, image: "a", input_reference: "b" }, "input_reference", "disagrees")
      yield* failsOn({ model: A, image: "" }, "image", "must not be empty")
    })
  )

  it.effect("remixes only from an id that starts with video_", () =>
    Effect.gen(function* () {
      expect((yield* ok({ model: A, prompt: "x", remix_from_video_id: "video_123" })).remix_from_video_id).toBe(
        "video_123"
      )
      yield* failsOn(
        { model: A, prompt: "x", remix_from_video_id: "task_123" },
        "remix_from_video_id",
        '"task_123"',
        "starting with video_"
      )
      yield* failsOn(
        { model: A, prompt: "x", remix_from_video_id: "video_1", image: "https://i" },
        "remix_from_video_id",
        "cannot be combined"
      )
    })
  )

  it.effect("refuses the mode fields alpha cannot express and needs a prompt for text-to-video", () =>
    Effect.gen(function* () {
      for (const field of [
        "last_frame",
        "reference_images",
        "seed",
        "fps",
        "watermark",
        "camera_fixed",
        "callback_url",
        "return_last_frame"
      ])
        yield* failsOn(
          { model: A, prompt: "x", [field]: field === "reference_images" ? ["a"] : 1 },
          field,
          "not supported by alpha-2"
        )
      yield* failsOn({ model: A, duration: 4 }, "prompt", "prompt is required for text-to-video with alpha-2")
    })
  )

  it.effect("names the remix as the mode that needs a prompt when a remix comes without one", () =>
    Effect.gen(function* () {
      const e = yield* failsOn(
        { model: A, remix_from_video_id: "video_abc" },
        "prompt",
        "prompt is required for a remix (video-to-video) with alpha-2"
      )
      expect(e.message).not.toContain("text-to-video")
      yield* failsOn({ model: A, prompt: " ", remix_from_video_id: "video_abc" }, "prompt", "for a remix")
    })
  )
})

describe("buildVideoBody: beta", () => {
  it.effect("maps the generic fields to durationSeconds, aspectRatio and resolution", () =>
    Effect.gen(function* () {
      const body = yield* ok({ model: B31, prompt: "x", duration: 8, aspect_ratio: "9:16", resolution: "1080p" })
      expect(body).toEqual({
        model: B31,
        prompt: "x",
        durationSeconds: 8,
        aspectRatio: "9:16",
        resolution: "1080p",
        personGeneration: "allow_all"
      })
      expect(yield* Schema.decodeUnknownEffect(BetaBody)(body)).toEqual(body)
    })
  )

  it.effect("allows only 4, 6 or 8 seconds, 16:9 or 9:16, 720p or 1080p", () =>
    Effect.gen(function* () {
      yield* failsOn(
        { model: B31, prompt: "x", durationSeconds: 5 },
        "durationSeconds",
        "durationSeconds: 5 is not allowed for beta-3.1-fast-generate-001; allowed: 4, 6, 8"
      )
      // The unified `duration` (the README's example) is named as the caller wrote it.
      yield* failsOn(
        { model: B31, prompt: "x", duration: 5 },
        "duration",
        "duration: 5 is not allowed for beta-3.1-fast-generate-001; allowed: 4, 6, 8"
      )
      yield* failsOn({ model: B30, prompt: "x", aspectRatio: "1:1" }, "aspectRatio", "allowed: 16:9, 9:16")
      yield* failsOn({ model: B30, prompt: "x", resolution: "480p" }, "resolution", "allowed: 720p, 1080p")
      yield* failsOn({ model: B30, prompt: "x", resolution: "4k" }, "resolution", '"4k"')
    })
  )

  it.effect("checks sampleCount 1-4 and personGeneration, which defaults to allow_all", () =>
    Effect.gen(function* () {
      expect(yield* ok({ model: B30, prompt: "x", sampleCount: 4, personGeneration: "dont_allow" })).toMatchObject({
        sampleCount: 4,
        personGeneration: "dont_allow"
      })
      expect((yield* ok({ model: B30, prompt: "x" })).personGeneration).toBe("allow_all")
      yield* failsOn({ model: B30, prompt: "x", sampleCount: 5 }, "sampleCount", "allowed: 1 to 4")
      yield* failsOn({ model: B30, prompt: "x", sampleCount: 0 }, "sampleCount", "allowed: 1 to 4")
      yield* failsOn(
        { model: B30, prompt: "x", personGeneration: "everyone" },
        "personGeneration",
        "allow_all, allow_adult, dont_allow"
      )
    })
  )

  it.effect("takes an image as the first frame and a lastFrame only on the 3.1 model", () =>
    Effect.gen(function* () {
      expect(yield* ok({ model: B31, prompt: "x", image: "https://f", last_frame: "https://l" })).toMatchObject({
        image: "https://f",
        lastFrame: "https://l"
      })
      expect((yield* ok({ model: B30, prompt: "x", input_reference: "https://f" })).image).toBe("https://f")
      yield* failsOn(
        { model: B30, prompt: "x", image: "https://f", lastFrame: "https://l" },
        "lastFrame",
        "not supported by beta-3.0-fast-generate-001"
      )
      yield* failsOn({ model: B31, prompt: "x", lastFrame: "https://l" }, "lastFrame", "needs image")
    })
  )

  it.effect("maps watermark, seed, fps and generate_audio to the beta names and refuses delta-only settings", () =>
    Effect.gen(function* () {
      const body = yield* ok({ model: B31, prompt: "x", watermark: false, seed: 7, fps: 24, generate_audio: true })
      expect(body).toMatchObject({ addWatermark: false, seed: 7, fps: 24, generateAudio: true })
      yield* failsOn({ model: B31, prompt: "x", seed: -1 }, "seed", "allowed: 0 to 4294967295")
      yield* failsOn({ model: B31, prompt: "x", camera_fixed: true }, "camera_fixed", "not supported")
      yield* failsOn({ model: B31, prompt: "x", reference_images: ["a"] }, "reference_images", "not supported")
    })
  )

  it.effect("sends generate_audio and generateAudio alike, false too, which the fast models ignore", () =>
    Effect.gen(function* () {
      for (const model of [B30, B31])
        for (const field of ["generate_audio", "generateAudio"])
          for (const value of [true, false])
            expect((yield* ok({ model, prompt: "x", [field]: value })).generateAudio).toBe(value)
      yield* failsOn(
        { model: B31, prompt: "x", generate_audio: false, generateAudio: true },
        "generateAudio",
        "disagrees with generate_audio"
      )
      yield* failsOn({ model: B31, prompt: "x", generate_audio: "no" }, "generate_audio", "expected true or false")
    })
  )
})

describe("buildVideoBody: gamma", () => {
  it.effect("maps resolution × aspect ratio to the real W*H size for text-to-video", () =>
    Effect.gen(function* () {
      expect(yield* ok({ model: GT, prompt: "x", resolution: "720p", aspect_ratio: "16:9" })).toEqual({
        model: GT,
        prompt: "x",
        size: "1280*720"
      })
      expect((yield* ok({ model: GT, prompt: "x", resolution: "1080p", aspect_ratio: "3:4" })).size).toBe("1248*1632")
      expect((yield* ok({ model: GT, prompt: "x", resolution: "480p" })).size).toBe("832*480")
      expect((yield* ok({ model: GT, prompt: "x", aspect_ratio: "1:1" })).size).toBe("960*960")
      expect((yield* ok({ model: GT, prompt: "x", size: "1920*1080" })).size).toBe("1920*1080")
      yield* failsOn(
        { model: GT, prompt: "x", resolution: "480p", aspect_ratio: "4:3" },
        "aspect_ratio",
        "at 480p",
        "allowed: 16:9, 9:16, 1:1"
      )
      yield* failsOn({ model: GT, prompt: "x", size: "1280x720" }, "size", '"1280x720"')
      yield* failsOn({ model: GT, prompt: "x", size: "1920*1080", resolution: "720p" }, "size", "disagrees")
    })
  )

  it.effect("takes no image on text-to-video and needs one on image-to-video, which uses resolution", () =>
    Effect.gen(function* () {
      yield* failsOn({ model: GT, prompt: "x", image: "https://i" }, "image", "not supported by gamma2.5-t2v-preview")
      yield* failsOn({ model: GI, prompt: "x" }, "image", "image is required for gamma2.5-i2v-preview")
      expect(yield* ok({ model: GI, prompt: "x", image: "https://i", resolution: "1080p" })).toEqual({
        model: GI,
        prompt: "x",
        image: "https://i",
        resolution: "1080p"
      })
      yield* failsOn({ model: GI, image: "https://i", size: "1280*720" }, "size", "text-to-video only")
      yield* failsOn(
        { model: GI, image: "https://i", aspect_ratio: "16:9" },
        "aspect_ratio",
        "the image sets the ratio"
      )
    })
  )

  it.effect("allows duration 5 or 10 and seed 0 to 2147483647", () =>
    Effect.gen(function* () {
      expect(yield* ok({ model: GT, prompt: "x", duration: 10, seed: 2147483647 })).toMatchObject({
        duration: 10,
        seed: 2147483647
      })
      expect((yield* ok({ model: GT, prompt: "x", seed: 0 })).seed).toBe(0)
      yield* failsOn({ model: GT, prompt: "x", duration: 8 }, "duration", "allowed: 5, 10")
      yield* failsOn({ model: GT, prompt: "x", seed: 2147483648 }, "seed", "allowed: 0 to 2147483647")
      yield* failsOn({ model: GT, prompt: "x", seed: 1.5 }, "seed", "expected an integer")
    })
  )

  it.effect("accepts audio_url over HTTPS only, and generate_audio and smart_rewrite as booleans", () =>
    Effect.gen(function* () {
      const body = yield* ok({
        model: GT,
        prompt: "x",
        audio_url: "https://a/s.mp3",
        generate_audio: true,
        smart_rewrite: false
      })
      expect(body).toMatchObject({ audio_url: "https://a/s.mp3", generate_audio: true, smart_rewrite: false })
      yield* failsOn({ model: GT, prompt: "x", audio_url: "http://a/s.mp3" }, "audio_url", "HTTPS")
      yield* failsOn({ model: GT, prompt: "x", smart_rewrite: "yes" }, "smart_rewrite", "expected true or false")
      yield* failsOn({ model: GT, prompt: "x", watermark: true }, "watermark", "not supported by gamma2.5-t2v-preview")
    })
  )
})

describe("buildVideoBody: delta", () => {
  it.effect("puts the prompt with its flags in one text item and repeats it top-level on pro models", () =>
    Effect.gen(function* () {
      const body = yield* ok({
        model: P15,
        prompt: "a cat",
        duration: 6,
        resolution: "720p",
        aspect_ratio: "16:9",
        seed: 3,
        watermark: false,
        fps: 24
      })
      const text = "a cat --rs 720p --ratio 16:9 --dur 6 --fps 24 --seed 3 --wm false"
      expect(body).toEqual({ model: P15, prompt: text, metadata: { content: [{ type: "text", text }] } })
      expect(yield* ok({ model: LT, prompt: "a cat" })).toEqual({
        model: LT,
        metadata: { content: [{ type: "text", text: "a cat" }] }
      })
    })
  )

  it.effect("takes the seed field as an integer only, as beta and gamma do; in the prompt --seed is text", () =>
    Effect.gen(function* () {
      yield* failsOn({ model: P15, prompt: "a cat", seed: "3" }, "seed", 'seed: expected an integer, got "3"')
      expect((yield* ok({ model: P15, prompt: "a cat --seed 3" })).prompt).toBe("a cat --seed 3")
    })
  )

  it.effect("reads flags written in the prompt and refuses a field that disagrees with one", () =>
    Effect.gen(function* () {
      const body = (yield* ok({ model: P15, prompt: "a cat --duration 5 --rt 9:16", duration: 5 })) as DeltaBody
      expect(body.prompt).toBe("a cat --ratio 9:16 --dur 5")
      yield* failsOn({ model: P15, prompt: "a cat --dur 5", duration: 6 }, "duration", "disagrees with --dur 5")
      yield* failsOn({ model: P15, prompt: "a cat --dur 5 --dur 6" }, "prompt", "contradicts")
      yield* failsOn({ model: P15, prompt: "a cat --fps 25" }, "prompt", "allowed: 24, 30")
    })
  )

  it.effect("limits the 1.5 pro series to 4-12 seconds and 480p or 720p", () =>
    Effect.gen(function* () {
      expect(yield* ok({ model: P15S, prompt: "x", duration: 12 })).toEqual({
        model: P15S,
        prompt: "x --dur 12",
        metadata: { content: [{ type: "text", text: "x --dur 12" }] }
      })
      yield* failsOn({ model: P15, prompt: "x", duration: 3 }, "duration", "allowed: 4, 5, 6, 7, 8, 9, 10, 11, 12")
      yield* failsOn({ model: P15S, prompt: "x", resolution: "1080p" }, "resolution", "allowed: 480p, 720p")
      yield* failsOn(
        { model: P15, prompt: "x --rs 1080p" },
        "prompt",
        "--rs 1080p is not allowed for delta-1-5-pro-251215"
      )
    })
  )

  it.effect("refuses images and adaptive on the lite text-to-video model", () =>
    Effect.gen(function* () {
      yield* failsOn(
        { model: LT, prompt: "x", image: "https://i" },
        "image",
        "not supported by delta-1-0-lite-t2v-250428"
      )
      yield* failsOn(
        { model: LT, prompt: "x", aspect_ratio: "adaptive" },
        "aspect_ratio",
        "allowed: 16:9, 9:16, 1:1, 4:3, 3:4"
      )
      yield* failsOn({ model: LT, prompt: "x --ratio adaptive" }, "prompt", "--ratio adaptive")
      // Where adaptive is allowed (pro-250528 with a first frame) it travels as the --ratio flag of the prompt.
      expect(yield* ok({ model: P10, prompt: "x", aspect_ratio: "adaptive", image: "https://i" })).toEqual({
        model: P10,
        prompt: "x --ratio adaptive",
        metadata: {
          content: [
            { type: "text", text: "x --ratio adaptive" },
            { type: "image_url", image_url: { url: "https://i" }, role: "first_frame" }
          ]
        }
      })
    })
  )

  it.effect("allows first/last frame only on the lite image-to-video model and the 1.5 pro series", () =>
    Effect.gen(function* () {
      const body = (yield* ok({ model: LI, prompt: "x", image: "https://f", last_frame: "https://l" })) as DeltaBody
      expect(body.metadata.content.slice(1)).toEqual([
        { type: "image_url", image_url: { url: "https://f" }, role: "first_frame" },
        { type: "image_url", image_url: { url: "https://l" }, role: "last_frame" }
      ])
      expect(
        ((yield* ok({ model: P15, prompt: "x", image: "https://f", last_frame: "https://l" })) as DeltaBody).metadata
          .content
      ).toEqual([
        { type: "text", text: "x" },
        { type: "image_url", image_url: { url: "https://f" }, role: "first_frame" },
        { type: "image_url", image_url: { url: "https://l" }, role: "last_frame" }
      ])
      yield* failsOn(
        { model: P10, prompt: "x", image: "https://f", last_frame: "https://l" },
        "last_frame",
        "not supported by delta-1-0-pro-250528"
      )
      yield* failsOn({ model: P15, prompt: "x", last_frame: "https://l" }, "last_frame", "role first_frame")
    })
  )

  it.effect("allows reference images only on the lite image-to-video model, with markers matching the images", () =>
    Effect.gen(function* () {
      const body = (yield* ok({
        model: LI,
        prompt: "[图1] meets [图2]",
        reference_images: ["https://a", "https://b"]
      })) as DeltaBody
      expect(body.metadata.content.map((c) => ("role" in c ? c.role : c.type))).toEqual([
        "text",
        "reference_image",
        "reference_image"
      ])
      yield* failsOn(
        { model: P15, prompt: "[图1]", reference_images: ["https://a"] },
        "reference_images[0]",
        "not supported by delta-1-5-pro-251215"
      )
      yield* failsOn(
        { model: LI, prompt: "[图1] and [图3]", reference_images: ["https://a", "https://b"] },
        "prompt",
        "[图3] has no image"
      )
      yield* failsOn(
        { model: LI, prompt: "[图1] only", reference_images: ["https://a", "https://b"] },
        "prompt",
        "[图2] is missing"
      )
      yield* failsOn({ model: LI, prompt: "[图1]", image: "https://f" }, "prompt", "none was given")
      yield* failsOn(
        { model: LI, prompt: "[图1]", reference_images: ["https://a"], image: "https://f" },
        "image",
        "cannot be combined"
      )
      yield* failsOn({ model: LI, prompt: "x", reference_images: [] }, "reference_images", "must not be empty")
    })
  )

  it.effect("limits reference image mode to 480p or 720p without --cf, naming the field or the prompt's flag", () =>
    Effect.gen(function* () {
      const refs = { model: LI, prompt: "[图1] dances", reference_images: ["https://a"] }
      expect(((yield* ok({ ...refs, resolution: "720p" })) as DeltaBody).metadata.content[0]).toEqual({
        type: "text",
        text: "[图1] dances --rs 720p"
      })
      expect(((yield* ok({ ...refs, resolution: "480p" })) as DeltaBody).metadata.content[0]).toMatchObject({
        text: "[图1] dances --rs 480p"
      })
      const e = yield* failsOn(
        { ...refs, resolution: "1080p" },
        "resolution",
        `resolution: "1080p" is not allowed for ${LI} in reference image mode; allowed: 480p, 720p`
      )
      expect(e.rule).toBe("one-of")
      yield* failsOn(
        { ...refs, prompt: "[图1] dances --resolution 1080p" },
        "prompt",
        `prompt: --rs 1080p is not allowed for ${LI} in reference image mode; allowed: 480p, 720p`
      )
      for (const camera_fixed of [true, false])
        yield* failsOn(
          { ...refs, camera_fixed },
          "camera_fixed",
          `camera_fixed: ${camera_fixed} is not supported by ${LI} in reference image mode`,
          "allowed: no camera_fixed (--cf)"
        )
      yield* failsOn(
        { ...refs, prompt: "[图1] dances --cf false" },
        "prompt",
        "--cf false is not supported",
        "reference"
      )
      // The native body too: the flag sits in the text item, which the failure names.
      yield* failsOn(
        {
          model: LI,
          metadata: {
            content: [
              { type: "text", text: "[图1] dances --rs 1080p" },
              { type: "image_url", image_url: { url: "https://a" }, role: "reference_image" }
            ]
          }
        },
        "metadata.content[0].text",
        "--rs 1080p is not allowed",
        "reference image mode"
      )
      // The first frame modes of the same model keep 1080p and --cf.
      expect(
        (
          (yield* ok({
            model: LI,
            prompt: "x",
            image: "https://f",
            resolution: "1080p",
            camera_fixed: true
          })) as DeltaBody
        ).metadata.content[0]
      ).toEqual({ type: "text", text: "x --rs 1080p --cf true" })
    })
  )

  it.effect("reads a flag in any letter case and checks it as it checks the lower-case one", () =>
    Effect.gen(function* () {
      yield* failsOn(
        { model: P15, prompt: "a cat --RS 1080p" },
        "prompt",
        "--rs 1080p is not allowed for",
        "480p, 720p"
      )
      yield* failsOn({ model: P15, prompt: "a cat --Dur 5", duration: 6 }, "duration", "disagrees with --dur 5")
      yield* failsOn({ model: P15, prompt: "a cat --Dur 5 --DURATION 6" }, "prompt", "contradicts")
      yield* failsOn({ model: P10, prompt: "a cat --CF true" }, "prompt", "--cf is not supported")
      const body = (yield* ok({ model: P15, prompt: "a cat --Dur 5 --RATIO 9:16", duration: 5 })) as DeltaBody
      expect(body.prompt).toBe("a cat --ratio 9:16 --dur 5")
      expect(body.metadata.content).toEqual([{ type: "text", text: "a cat --ratio 9:16 --dur 5" }])
    })
  )

  it.effect("allows the first frame only on pro-250528, and --cf only on the lite models", () =>
    Effect.gen(function* () {
      expect(((yield* ok({ model: P10, prompt: "x", image: "https://f" })) as DeltaBody).metadata.content).toEqual([
        { type: "text", text: "x" },
        { type: "image_url", image_url: { url: "https://f" }, role: "first_frame" }
      ])
      yield* failsOn({ model: P10, prompt: "x", camera_fixed: true }, "camera_fixed", "lite models only")
      yield* failsOn({ model: P15, prompt: "x --cf false" }, "prompt", "--cf is not supported by delta-1-5-pro-251215")
      expect(((yield* ok({ model: LT, prompt: "x", camera_fixed: true })) as DeltaBody).metadata.content[0]).toEqual({
        type: "text",
        text: "x --cf true"
      })
      yield* failsOn({ model: LI, prompt: "x" }, "image", "image is required for delta-1-0-lite-i2v-250428")
    })
  )

  it.effect("puts return_last_frame and callback_url in metadata", () =>
    Effect.gen(function* () {
      const body = (yield* ok({
        model: P15,
        prompt: "x",
        return_last_frame: true,
        callback_url: "https://hook"
      })) as DeltaBody
      expect(body.metadata).toMatchObject({ return_last_frame: true, callback_url: "https://hook" })
      expect(body).not.toHaveProperty("callback_url")
      yield* failsOn({ model: LT, prompt: "x", return_last_frame: true }, "return_last_frame", "1.5 pro series")
      yield* failsOn({ model: P15, prompt: "x", callback_url: "ftp://x" }, "callback_url", "http(s) URL")
      yield* failsOn(
        { model: P15, prompt: "x", callback_url: "https://a", metadata: { callback_url: "https://b" } },
        "metadata.callback_url",
        "disagrees"
      )
    })
  )

  it.effect("passes unknown top-level and metadata fields through and checks generate_audio against the model", () =>
    Effect.gen(function* () {
      const body = (yield* ok({
        model: P15,
        prompt: "x",
        extra: { service_tier: "flex" },
        metadata: { execution_expires_after: 3600 },
        generate_audio: true
      })) as DeltaBody
      expect(body).toMatchObject({
        service_tier: "flex",
        metadata: { execution_expires_after: 3600, generate_audio: true }
      })
      yield* failsOn({ model: P15S, prompt: "x", generate_audio: true }, "generate_audio", "silent video")
      yield* failsOn(
        { model: P15, prompt: "x", metadata: { generate_audio: false } },
        "metadata.generate_audio",
        "always generates audio"
      )
    })
  )

  it.effect("accepts the native body, checks each content item, and rebuilds it unchanged", () =>
    Effect.gen(function* () {
      const native = {
        model: P15,
        prompt: "x --dur 5",
        metadata: {
          content: [
            { type: "text", text: "x --dur 5" },
            { type: "image_url", image_url: { url: "https://f" }, role: "first_frame" }
          ],
          return_last_frame: false
        }
      }
      expect(yield* ok(native)).toEqual(native)
      const built = yield* ok({ model: LI, prompt: "[图1]", reference_images: ["https://a"], duration: 5 })
      expect(yield* ok(built)).toEqual(built)
      yield* failsOn(
        { model: P15, metadata: { content: [{ type: "image_url", image_url: { url: "https://f" }, role: "middle" }] } },
        "metadata.content[0].role",
        "first_frame, last_frame, reference_image"
      )
      yield* failsOn(
        { model: P15, metadata: { content: [{ type: "video_url" }] } },
        "metadata.content[0].type",
        "text, image_url"
      )
      yield* failsOn(
        {
          model: P15,
          metadata: {
            content: [
              { type: "text", text: "a" },
              { type: "text", text: "b" }
            ]
          }
        },
        "metadata.content[1]",
        "one text item"
      )
      yield* failsOn(
        { model: P15, prompt: "y", metadata: { content: [{ type: "text", text: "x" }] } },
        "prompt",
        "must repeat"
      )
      yield* failsOn(
        {
          model: P15,
          prompt: "x",
          image: "https://f",
          metadata: { content: [{ type: "image_url", image_url: { url: "https://g" } }] }
        },
        "image",
        "give images one way"
      )
    })
  )
})

describe("family body Schemas", () => {
  it.effect("decode each family's built body and reject another family's", () =>
    Effect.gen(function* () {
      const alpha = yield* ok({ model: A, prompt: "x", duration: 12 })
      expect(yield* Schema.decodeUnknownEffect(AlphaBody)(alpha)).toEqual(alpha)
      const gamma = yield* ok({ model: GT, prompt: "x", duration: 5 })
      expect(yield* Schema.decodeUnknownEffect(GammaBody)(gamma)).toEqual(gamma)
      expect(yield* Effect.result(Schema.decodeUnknownEffect(videoBodySchemas.delta)(gamma))).toMatchObject({
        _tag: "Failure"
      })
      expect(
        yield* Effect.result(Schema.decodeUnknownEffect(AlphaBody)({ model: A, remix_from_video_id: "x" }))
      ).toMatchObject({ _tag: "Failure" })
    })
  )
})
