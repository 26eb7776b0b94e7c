/** `buildVideoBody`: validates an E1 video request (generic, mode or native fields) and returns the body of its model's family. */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { fail, record, requiredString } from "../validation/Rules.js"
import { AlphaBody, buildAlphaBody } from "./Alpha.js"
import { BetaBody, buildBetaBody } from "./Beta.js"
import { buildDeltaBody, DeltaBody } from "./Delta.js"
import { buildGammaBody, GammaBody } from "./Gamma.js"
import { rejectForeignFields } from "./VideoFields.js"
import { defaultVideoCatalog, lookupVideoModel, type VideoCatalog, type VideoFamily } from "./VideoCatalog.js"

export { AlphaBody, alphaSizes, buildAlphaBody } from "./Alpha.js"
export { BetaBody, betaPersonGeneration, buildBetaBody } from "./Beta.js"
export { buildDeltaBody, DeltaBody, DeltaContentItem, DeltaImageItem, DeltaTextItem, deltaImageRoles } from "./Delta.js"
export { buildGammaBody, GammaBody, gammaMaxSeed, gammaSizes } from "./Gamma.js"
export { foreignVideoFields, videoAspectRatios, videoFamilyFields, videoGenericFields, videoModeFields, videoResolutions } from "./VideoFields.js"

/** The body of any video family (what E1 sends). @category models */
export const VideoBody = Schema.Union(AlphaBody, BetaBody, GammaBody, DeltaBody)
/** @category models */
export type VideoBody = AlphaBody | BetaBody | GammaBody | DeltaBody

/** Each family's body Schema, for decoding a body of a known family. @category models */
export const videoBodySchemas = { alpha: AlphaBody, beta: BetaBody, gamma: GammaBody, delta: DeltaBody } as const

/** Options of `buildVideoBody`. @category models */
export interface BuildVideoBodyOptions {
  /** The model catalog to check against; the spec's models when absent. */
  readonly catalog?: VideoCatalog
}

const builders = {
  alpha: buildAlphaBody,
  beta: buildBetaBody,
  gamma: buildGammaBody,
  delta: buildDeltaBody
} as const satisfies Record<VideoFamily, unknown>

/**
 * Validates an untrusted E1 request and builds the body of its model's family: generic fields
 * (`duration`, `aspect_ratio`, …) become the family's own (`durationSeconds`, `size`, marker flags, …),
 * native fields are checked, another family's fields are refused, and unknown fields pass through.
 * Fails with `InvalidRequest` naming the field, the value and what the model allows; never throws.
 * @category constructors
 */
export const buildVideoBody = (input: unknown, options: BuildVideoBodyOptions = {}): Effect.Effect<VideoBody, InvalidRequest> =>
  Effect.gen(function* () {
    const obj = yield* record(input, "")
    const model = yield* lookupVideoModel(yield* requiredString(obj, "model"), options.catalog ?? defaultVideoCatalog)
    yield* rejectForeignFields(obj, model)
    return yield* builders[model.family](obj, model)
  }).pipe(
    // Input such as a throwing getter or a revoked proxy is not a request; it must not become a defect.
    Effect.catchAllDefect(() => fail("(body)", "malformed", "the request could not be read as JSON data"))
  )
