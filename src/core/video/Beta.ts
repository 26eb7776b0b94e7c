/** The family beta video body: `durationSeconds`, `aspectRatio`, `resolution`, first and last frame, samples and persons. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { fail, type Json, optional } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"
import { oneOf, range } from "../validation/FieldRules.js"
import type { VideoModel } from "./VideoCatalog.js"
import {
  eitherField,
  readAspectRatio,
  readAudioRequest,
  readDuration,
  readFirstFrame,
  readMedia,
  readSwitch,
  readText,
  readResolution,
  rejectUnsupported,
  requireMode,
  promptMissing,
  requirePrompt
} from "./VideoFields.js"

/** Who may appear in a beta video; `allow_all` when not given. @category models */
export const betaPersonGeneration = ["allow_all", "allow_adult", "dont_allow"] as const

/** The family beta body (E1 beta table). @category models */
export const BetaBody = Schema.Struct({
  model: Schema.String,
  prompt: Schema.optionalKey(Schema.String),
  durationSeconds: Schema.optionalKey(Schema.Literals([4, 6, 8])),
  aspectRatio: Schema.optionalKey(Schema.Literals(["16:9", "9:16"])),
  resolution: Schema.optionalKey(Schema.Literals(["720p", "1080p"])),
  fps: Schema.optionalKey(Schema.Int.pipe(range({ min: 1 }))),
  image: Schema.optionalKey(Schema.NonEmptyString),
  lastFrame: Schema.optionalKey(Schema.NonEmptyString),
  generateAudio: Schema.optionalKey(Schema.Boolean),
  personGeneration: Schema.optionalKey(oneOf(...betaPersonGeneration)),
  addWatermark: Schema.optionalKey(Schema.Boolean),
  seed: Schema.optionalKey(Schema.Int.pipe(range({ min: 0, max: 4294967295 }))),
  sampleCount: Schema.optionalKey(Schema.Int.pipe(range({ min: 1, max: 4 })))
})
/** @category models */
export type BetaBody = typeof BetaBody.Type

const unsupported = ["reference_images", "remix_from_video_id", "camera_fixed", "callback_url", "return_last_frame"]

/** Builds a beta body for `model` from a validated-object input. @category constructors */
export const buildBetaBody = (input: Json, model: VideoModel): Effect.Effect<BetaBody, InvalidRequest> =>
  Effect.suspend(() => Effect.fromResult(betaBodyOf(input, model)))

/** `buildBetaBody` as a synchronous `Result` (what `buildVideoBody` runs). @internal */
export const betaBodyOf = (input: Json, model: VideoModel): Result.Result<BetaBody, InvalidRequest> =>
  Result.gen(function* () {
    yield* rejectUnsupported(input, unsupported, model)
    const body: Record<string, unknown> = { model: model.id }
    const prompt = optional(input, "prompt")
    if (prompt !== undefined) body.prompt = yield* readText(prompt, "prompt")

    const duration = yield* eitherField(input, ["duration", "durationSeconds"], (value, field) =>
      readDuration(value, field, model)
    )
    if (duration) body.durationSeconds = duration.value
    const ratio = yield* eitherField(input, ["aspect_ratio", "aspectRatio"], (v, f) => readAspectRatio(v, f, model))
    if (ratio) body.aspectRatio = ratio.value
    const resolution = optional(input, "resolution")
    if (resolution !== undefined) body.resolution = yield* readResolution(resolution, "resolution", model)

    const image = yield* readFirstFrame(input)
    if (image) {
      yield* requireMode(model, "i2v", image.field, "a first frame image")
      body.image = image.value
    } else if (promptMissing(body.prompt)) yield* requirePrompt(model)
    const last = yield* eitherField(input, ["last_frame", "lastFrame"], readMedia)
    if (last) {
      if (!model.firstLastFrame)
        return yield* fail(
          last.field,
          "unsupported",
          `${last.field} is not supported by ${model.id}; first/last frame mode needs a model that has it`
        )
      if (!image) return yield* fail(last.field, "requires", `${last.field} needs image as the first frame`)
      body.lastFrame = last.value
    }

    // fps, seed and sampleCount: their rules live in `BetaBody`.
    const fps = optional(input, "fps")
    if (fps !== undefined) body.fps = fps
    const seed = optional(input, "seed")
    if (seed !== undefined) body.seed = seed
    const watermark = yield* eitherField(input, ["watermark", "addWatermark"], readSwitch)
    if (watermark) body.addWatermark = watermark.value
    // The fast models ignore generateAudio and always include audio (E1 beta table): false is no error there
    // and is sent as given, under either name; a silent model of a user's catalog still refuses true.
    const audio = yield* eitherField(input, ["generate_audio", "generateAudio"], (v, f) =>
      model.audio === "always" ? readSwitch(v, f) : readAudioRequest(v, f, model)
    )
    if (audio) body.generateAudio = audio.value
    const samples = optional(input, "sampleCount")
    if (samples !== undefined) body.sampleCount = samples
    // Its rule (one of betaPersonGeneration) lives in `BetaBody`.
    body.personGeneration = optional(input, "personGeneration") ?? "allow_all"

    return yield* conform(BetaBody, body, "", model.id)
  })
