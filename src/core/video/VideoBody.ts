/** `buildVideoBody`: validates an E1 video request (generic, mode or native fields) and returns the body of its model's family. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import type { RoutingOptions } from "../gateway/Catalog.js"
import { ensureRoute } from "../gateway/Routing.js"
import { readExtra, readModel, refuseUnknownFields, sendable, type WithExtra } from "../validation/Closed.js"
import { conform } from "../validation/Conform.js"
import { OpenObject } from "../validation/FieldRules.js"
import { describe, fail, type Json } from "../validation/Rules.js"
import { AlphaBody, alphaBodyOf } from "./Alpha.js"
import { BetaBody, betaBodyOf } from "./Beta.js"
import { DeltaBody, deltaBodyOf } from "./Delta.js"
import { GammaBody, gammaBodyOf } from "./Gamma.js"
import { rejectForeignFields, videoFamilyFields, videoGenericFields, videoModeFields } from "./VideoFields.js"
import {
  defaultVideoCatalog,
  lookupVideoModelResult,
  type VideoCatalog,
  type VideoFamily,
  videoModelIds
} from "./VideoCatalog.js"

export { AlphaBody, alphaSizes, buildAlphaBody } from "./Alpha.js"
export { BetaBody, betaPersonGeneration, buildBetaBody } from "./Beta.js"
export { buildDeltaBody, DeltaBody, DeltaContentItem, DeltaImageItem, DeltaTextItem, deltaImageRoles } from "./Delta.js"
export { buildGammaBody, GammaBody, gammaMaxSeed, gammaSizes } from "./Gamma.js"
export {
  foreignVideoFields,
  videoAspectRatios,
  videoFamilyFields,
  videoGenericFields,
  videoModeFields,
  videoResolutions
} from "./VideoFields.js"

/** The body of any video family (what E1 sends). @category models */
export const VideoBody = Schema.Union([AlphaBody, BetaBody, GammaBody, DeltaBody])
/** @category models */
export type VideoBody = AlphaBody | BetaBody | GammaBody | DeltaBody

/** Each family's body Schema, for decoding a body of a known family. @category models */
export const videoBodySchemas = { alpha: AlphaBody, beta: BetaBody, gamma: GammaBody, delta: DeltaBody } as const

/**
 * An E1 request as callers write it, closed: `model`, the generic and mode fields every family
 * understands (or refuses by name), each family's own fields, and `extra` for fields umg does not
 * know yet. A misspelled field is a compile error here and an `InvalidRequest` naming the nearest
 * known field at run time. `metadata` (delta) and reference images stay open, as E1 leaves them.
 * @category models
 */
export type VideoRequest = WithExtra<{
  readonly model: string
  // generic (E1)
  readonly prompt?: string
  readonly image?: string
  readonly duration?: number
  readonly resolution?: string
  readonly aspect_ratio?: string
  // modes
  readonly last_frame?: string
  readonly reference_images?: ReadonlyArray<unknown>
  readonly input_reference?: string
  readonly remix_from_video_id?: string
  readonly seed?: number
  readonly fps?: number
  readonly watermark?: boolean
  readonly camera_fixed?: boolean
  readonly generate_audio?: boolean
  readonly callback_url?: string
  readonly return_last_frame?: boolean
  // family alpha
  readonly seconds?: number | string
  readonly size?: string
  // family beta
  readonly durationSeconds?: number
  readonly aspectRatio?: string
  readonly lastFrame?: string
  readonly generateAudio?: boolean
  readonly personGeneration?: string
  readonly addWatermark?: boolean
  readonly sampleCount?: number
  // family gamma
  readonly smart_rewrite?: boolean
  readonly audio_url?: string
  // family delta
  readonly metadata?: Readonly<Record<string, unknown>>
}>

/**
 * Options of `buildVideoBody`: the one model catalog (`catalog`, which names every family's models)
 * and `allowUnknownModels`, as for every builder, plus `videoCatalog`, the per-model video limits
 * keyed by the same ids (extend it with `makeVideoCatalog` for a new video model).
 * @category models
 */
export interface BuildVideoBodyOptions extends RoutingOptions {
  /** The video limits to check against; the contract's models when absent. */
  readonly videoCatalog?: VideoCatalog
}

const builders = {
  alpha: alphaBodyOf,
  beta: betaBodyOf,
  gamma: gammaBodyOf,
  delta: deltaBodyOf
} as const satisfies Record<VideoFamily, unknown>

const withoutExtra = (obj: Json): Json => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(obj)) if (key !== "extra") out[key] = obj[key]
  return out
}

/**
 * Validates an untrusted E1 request and builds the body of its model's family: generic fields
 * (`duration`, `aspect_ratio`, …) become the family's own (`durationSeconds`, `size`, marker flags, …),
 * native fields are checked, another family's fields are refused by name (in `extra` too), an unknown
 * field is refused naming the nearest known one (fields umg does not know yet go in `extra`, merged into
 * the body), a model of another capability names its family and endpoint, and a video id the catalog
 * does not list is refused unless `allowUnknownModels`. Fails with `InvalidRequest` naming the field, the
 * value and what the model allows; never throws.
 * @category constructors
 */
export const buildVideoBody = (
  input: unknown,
  options: BuildVideoBodyOptions = {}
): Effect.Effect<VideoBody, InvalidRequest> =>
  Effect.suspend(() => {
    try {
      return Effect.fromResult(videoBodyOf(input, options))
    } catch {
      // Input such as a throwing getter or a revoked proxy is not a request; it must not become a defect.
      return Effect.fromResult(fail("(body)", "malformed", "the request could not be read as JSON data"))
    }
  })

const videoBodyOf = (input: unknown, options: BuildVideoBodyOptions): Result.Result<VideoBody, InvalidRequest> =>
  Result.gen(function* () {
    const obj = yield* conform(OpenObject, input, "")
    yield* sendable(obj)
    const catalog = options.videoCatalog ?? defaultVideoCatalog
    const id = yield* readModel(obj)
    // Another capability's model is named by the one catalog; unknown video ids are the video catalog's call.
    yield* ensureRoute(id, "video", { ...options, allowUnknownModels: true })
    if (!Object.hasOwn(catalog.entries, id) && options.allowUnknownModels !== true)
      return yield* fail(
        "model",
        "unknown-model",
        `model: ${describe(id)} is not a video model umg knows; known: ${videoModelIds(catalog).join(", ")}; for a model newer than umg's catalog pass allowUnknownModels: true`
      )
    const model = yield* lookupVideoModelResult(id, catalog)
    yield* rejectForeignFields(obj, model)
    const known = [...new Set([...videoGenericFields, ...videoModeFields, ...videoFamilyFields[model.family]])]
    yield* refuseUnknownFields(obj, known, "", `a ${model.family} video request`)
    const extra = yield* readExtra(obj, known)
    // `extra` is for fields umg does not know yet, not a way round the family check.
    yield* rejectForeignFields(extra, model, "extra")
    const body: VideoBody = yield* builders[model.family](withoutExtra(obj), model)
    return Object.keys(extra).length === 0 ? body : { ...body, ...extra }
  })
