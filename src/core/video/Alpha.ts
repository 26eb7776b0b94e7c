/** The family alpha video body: `seconds`, `size`, `input_reference` and remix, from generic or native fields. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { fail, type Json, optional } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"
import type { VideoModel } from "./VideoCatalog.js"
import {
  allowedFor,
  eitherField,
  readAlphaSeconds,
  readAspectRatio,
  readAudioRequest,
  readDuration,
  readFirstFrame,
  readMedia,
  readText,
  readResolution,
  rejectUnsupported,
  requireMode,
  promptMissing,
  requirePrompt
} from "./VideoFields.js"

/** The sizes alpha renders at 720p, by aspect ratio. @category models */
export const alphaSizes: Readonly<Record<string, string>> = { "16:9": "1280x720", "9:16": "720x1280" }

/** The family alpha body (E1 alpha table). @category models */
export const AlphaBody = Schema.Struct({
  model: Schema.String,
  prompt: Schema.optionalKey(Schema.String),
  seconds: Schema.optionalKey(Schema.Literals(["4", "8", "12"])),
  size: Schema.optionalKey(Schema.Literals(["720x1280", "1280x720"])),
  input_reference: Schema.optionalKey(Schema.NonEmptyString),
  remix_from_video_id: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^video_[\s\S]/)))
})
/** @category models */
export type AlphaBody = typeof AlphaBody.Type

const unsupported = [
  "last_frame",
  "reference_images",
  "seed",
  "fps",
  "watermark",
  "camera_fixed",
  "callback_url",
  "return_last_frame"
]

/** Builds an alpha body for `model` from a validated-object input. @category constructors */
export const buildAlphaBody = (input: Json, model: VideoModel): Effect.Effect<AlphaBody, InvalidRequest> =>
  Effect.suspend(() => Effect.fromResult(alphaBodyOf(input, model)))

/** `buildAlphaBody` as a synchronous `Result` (what `buildVideoBody` runs). @internal */
export const alphaBodyOf = (input: Json, model: VideoModel): Result.Result<AlphaBody, InvalidRequest> =>
  Result.gen(function* () {
    yield* rejectUnsupported(input, unsupported, model)
    const body: Record<string, unknown> = { model: model.id }
    const prompt = optional(input, "prompt")
    if (prompt !== undefined) body.prompt = yield* readText(prompt, "prompt")

    // The generic `duration` is an integer; alpha's own `seconds` may be a string too.
    const seconds = yield* eitherField(input, ["duration", "seconds"], (value, field) =>
      field === "seconds" ? readAlphaSeconds(value, field, model) : readDuration(value, field, model)
    )
    if (seconds) body.seconds = String(seconds.value)

    const resolution = optional(input, "resolution")
    if (resolution !== undefined) yield* readResolution(resolution, "resolution", model)
    const ratio = optional(input, "aspect_ratio")
    const ratioSize =
      ratio === undefined ? undefined : yield* sizeOfRatio(yield* readAspectRatio(ratio, "aspect_ratio", model), model)
    const nativeSize = optional(input, "size")
    if (nativeSize !== undefined) {
      const size = yield* readText(nativeSize, "size")
      const allowed = model.aspectRatios.flatMap((r) => (alphaSizes[r] ? [alphaSizes[r]] : []))
      yield* allowedFor(size, "size", allowed, model)
      if (ratioSize !== undefined && ratioSize !== size)
        return yield* fail(
          "size",
          "conflict",
          `size: "${size}" disagrees with aspect_ratio: "${ratio as string}" (${ratioSize}); give one of them`
        )
      body.size = size
    } else if (ratioSize !== undefined) body.size = ratioSize

    const image = yield* readFirstFrame(input, "input_reference")
    if (image) {
      yield* requireMode(model, "i2v", image.field, "image-to-video")
      body.input_reference = image.value
    }
    const remix = optional(input, "remix_from_video_id")
    if (remix !== undefined) {
      const id = yield* readMedia(remix, "remix_from_video_id")
      // A task id: the prefix and something after it (the prefix alone names no task).
      if (!id.startsWith("video_") || id.length === "video_".length)
        return yield* fail(
          "remix_from_video_id",
          "prefix",
          `remix_from_video_id: "${id}" is not allowed; allowed: a task id starting with video_`
        )
      yield* requireMode(model, "v2v", "remix_from_video_id", "remix (video-to-video)")
      if (image)
        return yield* fail(
          "remix_from_video_id",
          "conflict",
          `remix_from_video_id cannot be combined with ${image.field}; a remix starts from the video`
        )
      body.remix_from_video_id = id
    }
    // A remix rewrites the source video from a new prompt, so it needs one as text-to-video does.
    if (promptMissing(body.prompt) && !image)
      yield* requirePrompt(model, body.remix_from_video_id === undefined ? undefined : "a remix (video-to-video)")
    const audio = optional(input, "generate_audio")
    if (audio !== undefined) yield* readAudioRequest(audio, "generate_audio", model)

    return yield* conform(AlphaBody, body, "")
  })

const sizeOfRatio = (ratio: string, model: VideoModel): Result.Result<string, InvalidRequest> => {
  const size = alphaSizes[ratio]
  return size === undefined
    ? fail(
        "aspect_ratio",
        "one-of",
        `aspect_ratio: "${ratio}" has no size for ${model.id}; allowed: ${Object.keys(alphaSizes).join(", ")}`
      )
    : Result.succeed(size)
}
