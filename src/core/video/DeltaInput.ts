/** Reads a delta request's settings fields into marker flags and its images (generic or native) into role-tagged images, checking the model's modes. */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { conform } from "../validation/Conform.js"
import { nonEmptyArray, oneOf, OpenObject } from "../validation/FieldRules.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { markerFrameRates, type MarkerFlags, markerRatios, markerResolutions } from "./MarkerFlags.js"
import { at, copyFields, fail, type Json, listAllowed, optional } from "../validation/Rules.js"
import type { VideoModel } from "./VideoCatalog.js"
import { readAspectRatio, readDuration, readInteger, readMedia, readResolution, readSwitch } from "./VideoFields.js"

/** An image of a delta request, where it came from, and any extra keys its item carried. */
export interface DeltaImage {
  readonly url: string
  readonly role: "first_frame" | "last_frame" | "reference_image" | undefined
  readonly field: string
  readonly extra: Record<string, unknown>
  readonly urlExtra: Record<string, unknown>
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

// The values a delta flag can carry at all (after the model's own list).
const FlagResolution = oneOf(...markerResolutions)
const FlagRatio = oneOf(...markerRatios)
const FlagFrameRate = oneOf(...markerFrameRates)

/** The generic settings fields (`resolution`, `aspect_ratio`, `duration`, `fps`, `seed`, `watermark`, `camera_fixed`) as flags. */
export const readFlagFields = (input: Json, model: VideoModel): Result.Result<MarkerFlags, InvalidRequest> =>
  Result.gen(function* () {
    const flags: Mutable<MarkerFlags> = {}
    const resolution = optional(input, "resolution")
    // The model's list first (the clearer message), then the values a delta flag can carry at all.
    if (resolution !== undefined)
      flags.resolution = yield* conform(
        FlagResolution,
        yield* readResolution(resolution, "resolution", model),
        "resolution",
        model.id
      )
    const ratio = optional(input, "aspect_ratio")
    if (ratio !== undefined)
      flags.ratio = yield* conform(
        FlagRatio,
        yield* readAspectRatio(ratio, "aspect_ratio", model),
        "aspect_ratio",
        model.id
      )
    const duration = optional(input, "duration")
    if (duration !== undefined) flags.duration = yield* readDuration(duration, "duration", model)
    const fps = optional(input, "fps")
    if (fps !== undefined) flags.framespersecond = yield* conform(FlagFrameRate, fps, "fps", model.id)
    const seed = optional(input, "seed")
    if (seed !== undefined) flags.seed = yield* readInteger(seed, "seed")
    const watermark = optional(input, "watermark")
    if (watermark !== undefined) flags.watermark = yield* readSwitch(watermark, "watermark")
    const cameraFixed = optional(input, "camera_fixed")
    if (cameraFixed !== undefined) flags.camerafixed = yield* readSwitch(cameraFixed, "camera_fixed")
    return flags
  })

const ImageRole = oneOf("first_frame", "last_frame", "reference_image")
const ItemType = oneOf("text", "image_url")
const ReferenceImages = nonEmptyArray(Schema.Unknown)

/** The images of `metadata.content` (native form). */
const nativeImages = (content: ReadonlyArray<unknown>): Result.Result<ReadonlyArray<DeltaImage>, InvalidRequest> =>
  Result.gen(function* () {
    const out: Array<DeltaImage> = []
    for (let i = 0; i < content.length; i++) {
      const path = at("metadata.content", i)
      const item = yield* conform(OpenObject, content[i], path)
      const type = yield* conform(ItemType, item.type, at(path, "type"))
      if (type !== "image_url") continue
      const imageUrl = yield* conform(OpenObject, optional(item, "image_url"), at(path, "image_url"))
      const url = yield* readMedia(optional(imageUrl, "url"), at(at(path, "image_url"), "url"))
      const rawRole = optional(item, "role")
      const role = rawRole === undefined ? undefined : yield* conform(ImageRole, rawRole, at(path, "role"))
      const extra = copyFields(item, ["type", "image_url", "role"])
      const urlExtra = copyFields(imageUrl, ["url"])
      out.push({ url, role, field: path, extra, urlExtra })
    }
    return out
  })

/** The images given as generic fields: `image` (or `input_reference`) first frame, `last_frame`, `reference_images`. */
const genericImages = (input: Json): Result.Result<ReadonlyArray<DeltaImage>, InvalidRequest> =>
  Result.gen(function* () {
    const out: Array<DeltaImage> = []
    const image = optional(input, "image")
    const ref = optional(input, "input_reference")
    const first = image ?? ref
    if (image !== undefined && ref !== undefined && image !== ref)
      return yield* fail("input_reference", "conflict", "input_reference disagrees with image; give one of them")
    const field = image !== undefined ? "image" : "input_reference"
    if (first !== undefined)
      out.push({ url: yield* readMedia(first, field), role: "first_frame", field, extra: {}, urlExtra: {} })
    const last = optional(input, "last_frame")
    if (last !== undefined)
      out.push({
        url: yield* readMedia(last, "last_frame"),
        role: "last_frame",
        field: "last_frame",
        extra: {},
        urlExtra: {}
      })
    const refs = optional(input, "reference_images")
    if (refs !== undefined) {
      const list = yield* conform(ReferenceImages, refs, "reference_images")
      for (let i = 0; i < list.length; i++)
        out.push({
          url: yield* readMedia(list[i], at("reference_images", i)),
          role: "reference_image",
          field: at("reference_images", i),
          extra: {},
          urlExtra: {}
        })
    }
    return out
  })

/** The `[图N]` markers a prompt uses, as numbers. */
const markersIn = (prompt: string): ReadonlyArray<number> =>
  [...prompt.matchAll(/\[图(\d+)\]/g)].map((m) => Number(m[1]))

/** The images of a request (generic fields or `metadata.content`, not both), checked against the model's modes. */
export const readImages = (
  input: Json,
  content: ReadonlyArray<unknown>,
  model: VideoModel,
  prompt: string
): Result.Result<ReadonlyArray<DeltaImage>, InvalidRequest> =>
  Result.gen(function* () {
    const native = yield* nativeImages(content)
    const generic = yield* genericImages(input)
    if (native.length > 0 && generic.length > 0)
      return yield* fail(
        generic[0]!.field,
        "conflict",
        `${generic[0]!.field} cannot be combined with image items in metadata.content; give images one way`
      )
    const images = native.length > 0 ? native : generic
    const refs = images.filter((i) => i.role === "reference_image")
    const lasts = images.filter((i) => i.role === "last_frame")
    const firsts = images.filter((i) => i.role !== "reference_image" && i.role !== "last_frame")
    const markers = markersIn(prompt)

    if (images.length === 0) {
      if (!model.modes.includes("t2v"))
        return yield* fail(
          "image",
          "required",
          `image is required for ${model.id}; its modes: ${listAllowed(model.modes)}`
        )
      if (markers.length > 0)
        return yield* fail(
          "prompt",
          "reference-markers",
          `prompt: [图${markers[0]}] refers to a reference image, but none was given`
        )
      return images
    }
    const noImages = !model.firstFrame && !model.referenceImages
    if (noImages)
      return yield* fail(
        images[0]!.field,
        "unsupported",
        `${images[0]!.field}: image input is not supported by ${model.id} (text-to-video only)`
      )

    if (refs.length > 0) {
      if (!model.referenceImages)
        return yield* fail(
          refs[0]!.field,
          "unsupported",
          `${refs[0]!.field}: reference images are not supported by ${model.id}`
        )
      const other = images.find((i) => i.role !== "reference_image")
      if (other)
        return yield* fail(
          other.field,
          "conflict",
          `${other.field}: reference images cannot be combined with frame images`
        )
      if (refs.length > 4)
        return yield* fail(refs[4]!.field, "max-items", `${refs.length} reference images given; allowed: 1 to 4`)
      const missing = markers.find((n) => n < 1 || n > refs.length)
      if (missing !== undefined)
        return yield* fail(
          "prompt",
          "reference-markers",
          `prompt: [图${missing}] has no image; ${refs.length} reference image(s) given, allowed markers: ${refs.map((_, i) => `[图${i + 1}]`).join(", ")}`
        )
      const unused = refs.findIndex((_, i) => !markers.includes(i + 1))
      if (unused !== -1)
        return yield* fail(
          "prompt",
          "reference-markers",
          `prompt must refer to every reference image; [图${unused + 1}] is missing`
        )
      return images
    }
    if (markers.length > 0)
      return yield* fail(
        "prompt",
        "reference-markers",
        `prompt: [图${markers[0]}] refers to a reference image, but none was given`
      )
    if (!model.firstFrame)
      return yield* fail(
        images[0]!.field,
        "unsupported",
        `${images[0]!.field}: first frame mode is not supported by ${model.id}`
      )
    if (firsts.length > 1)
      return yield* fail(
        firsts[1]!.field,
        "max-items",
        `${firsts[1]!.field}: a second first frame; allowed: one first frame`
      )
    if (lasts.length > 0) {
      if (!model.firstLastFrame)
        return yield* fail(
          lasts[0]!.field,
          "unsupported",
          `${lasts[0]!.field}: first/last frame mode is not supported by ${model.id}`
        )
      if (lasts.length > 1)
        return yield* fail(
          lasts[1]!.field,
          "max-items",
          `${lasts[1]!.field}: a second last frame; allowed: one last frame`
        )
      if (firsts[0]?.role !== "first_frame")
        return yield* fail(
          lasts[0]!.field,
          "requires",
          `${lasts[0]!.field}: a last frame needs an image with role first_frame`
        )
    }
    return images
  })
