/** The family gamma video body: text-to-video takes a `W*H` size, image-to-video an image and a resolution. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { fail, type Json, optional } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"
import { range } from "../validation/FieldRules.js"
import type { VideoModel } from "./VideoCatalog.js"
import {
  allowedFor,
  readAspectRatio,
  readAudioRequest,
  readDuration,
  readFirstFrame,
  readResolution,
  readSwitch,
  readText,
  rejectUnsupported,
  requireMode,
  promptMissing,
  requirePrompt
} from "./VideoFields.js"

/** The real text-to-video sizes by resolution and aspect ratio (gamma's upstream API). @category models */
export const gammaSizes: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "480p": { "16:9": "832*480", "9:16": "480*832", "1:1": "624*624" },
  "720p": { "16:9": "1280*720", "9:16": "720*1280", "1:1": "960*960", "4:3": "1088*832", "3:4": "832*1088" },
  "1080p": { "16:9": "1920*1080", "9:16": "1080*1920", "1:1": "1440*1440", "4:3": "1632*1248", "3:4": "1248*1632" }
}

/** The largest seed gamma accepts. @category models */
export const gammaMaxSeed = 2147483647

/** The family gamma body (E1 gamma table). @category models */
export const GammaBody = Schema.Struct({
  model: Schema.String,
  prompt: Schema.optionalKey(Schema.String),
  duration: Schema.optionalKey(Schema.Literals([5, 10])),
  resolution: Schema.optionalKey(Schema.Literals(["480p", "720p", "1080p"])),
  size: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^\d+\*\d+$/))),
  smart_rewrite: Schema.optionalKey(Schema.Boolean),
  generate_audio: Schema.optionalKey(Schema.Boolean),
  audio_url: Schema.optionalKey(Schema.String.check(Schema.isStartingWith("https://"))),
  seed: Schema.optionalKey(Schema.Int.pipe(range({ min: 0, max: gammaMaxSeed }))),
  image: Schema.optionalKey(Schema.NonEmptyString)
})
/** @category models */
export type GammaBody = typeof GammaBody.Type

const unsupported = [
  "last_frame",
  "reference_images",
  "remix_from_video_id",
  "fps",
  "watermark",
  "camera_fixed",
  "callback_url",
  "return_last_frame"
]

/** The sizes a model may render: each allowed resolution × aspect ratio that has a real size. */
const sizesOf = (model: VideoModel): ReadonlyArray<string> =>
  model.resolutions.flatMap((r) => model.aspectRatios.flatMap((a) => (gammaSizes[r]?.[a] ? [gammaSizes[r][a]] : [])))

/** Builds a gamma body for `model` from a validated-object input. @category constructors */
export const buildGammaBody = (input: Json, model: VideoModel): Effect.Effect<GammaBody, InvalidRequest> =>
  Effect.suspend(() => Effect.fromResult(gammaBodyOf(input, model)))

/** `buildGammaBody` as a synchronous `Result` (what `buildVideoBody` runs). @internal */
export const gammaBodyOf = (input: Json, model: VideoModel): Result.Result<GammaBody, InvalidRequest> =>
  Result.gen(function* () {
    yield* rejectUnsupported(input, unsupported, model)
    const body: Record<string, unknown> = { model: model.id }
    const prompt = optional(input, "prompt")
    if (prompt !== undefined) body.prompt = yield* readText(prompt, "prompt")
    const duration = optional(input, "duration")
    if (duration !== undefined) body.duration = yield* readDuration(duration, "duration", model)

    const rawResolution = optional(input, "resolution")
    const resolution =
      rawResolution === undefined ? undefined : yield* readResolution(rawResolution, "resolution", model)
    const image = yield* readFirstFrame(input)
    if (image) {
      // Image-to-video: the image sets the ratio; the model takes `resolution`, never `size`.
      yield* requireMode(model, "i2v", image.field, "image-to-video")
      yield* rejectUnsupported(input, ["size"], model, "size is for text-to-video only")
      const ratio = optional(input, "aspect_ratio")
      if (ratio !== undefined) yield* readAspectRatio(ratio, "aspect_ratio", model)
      body.image = image.value
      if (resolution !== undefined) body.resolution = resolution
    } else {
      if (!model.modes.includes("t2v"))
        return yield* fail("image", "required", `image is required for ${model.id} (image-to-video)`)
      if (promptMissing(body.prompt)) yield* requirePrompt(model)
      const size = yield* sizeFor(input, resolution, model)
      if (size !== undefined) body.size = size
    }

    const seed = optional(input, "seed")
    // Its rule (an integer from 0 to gammaMaxSeed) lives in `GammaBody`.
    if (seed !== undefined) body.seed = seed
    const audioUrl = optional(input, "audio_url")
    if (audioUrl !== undefined) {
      const url = yield* readText(audioUrl, "audio_url")
      if (!/^https:\/\/\S+$/i.test(url))
        return yield* fail(
          "audio_url",
          "https",
          `audio_url: ${JSON.stringify(url.slice(0, 60))} is not allowed; allowed: an HTTPS URL`
        )
      body.audio_url = url
    }
    const audio = optional(input, "generate_audio")
    if (audio !== undefined) body.generate_audio = yield* readAudioRequest(audio, "generate_audio", model)
    const rewrite = optional(input, "smart_rewrite")
    if (rewrite !== undefined) body.smart_rewrite = yield* readSwitch(rewrite, "smart_rewrite")

    return yield* conform(GammaBody, body, "", model.id)
  })

/** The text-to-video `size`: given natively, or mapped from resolution × aspect ratio (defaults 720p, 16:9). */
const sizeFor = (
  input: Json,
  resolution: string | undefined,
  model: VideoModel
): Result.Result<string | undefined, InvalidRequest> =>
  Result.gen(function* () {
    const rawRatio = optional(input, "aspect_ratio")
    const ratio = rawRatio === undefined ? undefined : yield* readAspectRatio(rawRatio, "aspect_ratio", model)
    let mapped: string | undefined
    if (ratio !== undefined || resolution !== undefined) {
      const r = resolution ?? "720p"
      const byRatio = gammaSizes[r] ?? {}
      mapped = byRatio[ratio ?? "16:9"]
      if (mapped === undefined) {
        const allowed = model.aspectRatios.filter((a) => byRatio[a] !== undefined)
        return yield* allowedFor(ratio ?? "16:9", "aspect_ratio", allowed, { ...model, id: `${model.id} at ${r}` })
      }
    }
    const rawSize = optional(input, "size")
    if (rawSize === undefined) return mapped
    const size = yield* allowedFor(yield* readText(rawSize, "size"), "size", sizesOf(model), model)
    if (mapped !== undefined && mapped !== size)
      return yield* fail(
        "size",
        "conflict",
        `size: "${size}" disagrees with resolution × aspect_ratio (${mapped}); give one of them`
      )
    return size
  })
