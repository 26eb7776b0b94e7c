/** The family delta video body: `model`, maybe a top-level `prompt`, and `metadata.content` with one flagged text item and role-tagged images. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import {
  mergeMarkerFlagsResult,
  type MarkerFlags,
  type MarkerFlagName,
  parseMarkerFlagsResult,
  renderMarkerFlags
} from "./MarkerFlags.js"
import { at, describe, fail, type Json, listAllowed, optional } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"
import { nonEmptyArray, OpenObject } from "../validation/FieldRules.js"
import type { VideoModel } from "./VideoCatalog.js"
import { readFlagFields, readImages, type DeltaImage } from "./DeltaInput.js"
import {
  allowedFor,
  readAudioRequest,
  readSwitch,
  readText,
  rejectUnsupported,
  requirePrompt,
  unknownFields,
  videoFamilyFields,
  videoGenericFields,
  videoModeFields
} from "./VideoFields.js"

/** The roles an image of a delta request may take. @category models */
export const deltaImageRoles = ["first_frame", "last_frame", "reference_image"] as const

// Reference image mode (lite image-to-video) renders at 480p or 720p only and takes no --cf (upstream notes).
const referenceResolutions: ReadonlyArray<string> = ["480p", "720p"]

// Objects that keep members umg does not model.
const OpenRecord = Schema.Record(Schema.String, Schema.Unknown)

/** The text item: the prompt with its marker flags. @category models */
export const DeltaTextItem = Schema.StructWithRest(
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  [OpenRecord]
)
/** An image item, a URL or Base64 data URL with an optional role. @category models */
export const DeltaImageItem = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.Literal("image_url"),
    image_url: Schema.StructWithRest(Schema.Struct({ url: Schema.NonEmptyString }), [OpenRecord]),
    role: Schema.optionalKey(Schema.Literals(deltaImageRoles))
  }),
  [OpenRecord]
)
/** One item of `metadata.content`. @category models */
export const DeltaContentItem = Schema.Union([DeltaTextItem, DeltaImageItem])
/** @category models */
export type DeltaContentItem = typeof DeltaContentItem.Type

/** The family delta body (E1 delta section). @category models */
export const DeltaBody = Schema.Struct({
  model: Schema.String,
  prompt: Schema.optionalKey(Schema.String),
  metadata: Schema.StructWithRest(
    Schema.Struct({
      content: Schema.NonEmptyArray(DeltaContentItem),
      return_last_frame: Schema.optionalKey(Schema.Boolean),
      callback_url: Schema.optionalKey(Schema.String),
      generate_audio: Schema.optionalKey(Schema.Boolean)
    }),
    [OpenRecord]
  )
})

/** @category models */
export type DeltaBody = typeof DeltaBody.Type

// `metadata.content` as given: a non-empty list, each item read below.
const ContentGiven = nonEmptyArray(Schema.Unknown)

const flagSpelling: Readonly<Record<MarkerFlagName, string>> = {
  resolution: "rs",
  ratio: "ratio",
  duration: "dur",
  framespersecond: "fps",
  seed: "seed",
  watermark: "wm",
  camerafixed: "cf"
}
const metadataFields = ["content", "return_last_frame", "callback_url", "generate_audio"]
const flagField: Readonly<Record<MarkerFlagName, string>> = {
  resolution: "resolution",
  ratio: "aspect_ratio",
  duration: "duration",
  framespersecond: "fps",
  seed: "seed",
  watermark: "watermark",
  camerafixed: "camera_fixed"
}

/** Builds a delta body for `model` from a validated-object input. @category constructors */
export const buildDeltaBody = (input: Json, model: VideoModel): Effect.Effect<DeltaBody, InvalidRequest> =>
  Effect.suspend(() => Effect.fromResult(deltaBodyOf(input, model)))

/** `buildDeltaBody` as a synchronous `Result` (what `buildVideoBody` runs). @internal */
export const deltaBodyOf = (input: Json, model: VideoModel): Result.Result<DeltaBody, InvalidRequest> =>
  Result.gen(function* () {
    yield* rejectUnsupported(input, ["remix_from_video_id"], model)
    const rawMetadata = optional(input, "metadata")
    const metadata = rawMetadata === undefined ? {} : yield* conform(OpenObject, rawMetadata, "metadata")
    const rawContent = optional(metadata, "content")
    const content = rawContent === undefined ? [] : yield* conform(ContentGiven, rawContent, "metadata.content")

    // The text: the top-level prompt and/or the content's one text item, which must say the same.
    let text: { readonly prompt: string; readonly flags: MarkerFlags; readonly field: string } | undefined
    const prompt = optional(input, "prompt")
    if (prompt !== undefined)
      text = { ...(yield* parseMarkerFlagsResult(yield* readText(prompt, "prompt"), "prompt")), field: "prompt" }
    for (let i = 0; i < content.length; i++) {
      const item = yield* conform(OpenObject, content[i], at("metadata.content", i))
      if (item.type !== "text") continue
      const field = at(at("metadata.content", i), "text")
      if (text?.field.startsWith("metadata"))
        return yield* fail(
          at("metadata.content", i),
          "one-text-item",
          `metadata.content[${i}]: a second text item; allowed: one text item`
        )
      const parsed = yield* parseMarkerFlagsResult(yield* readText(item.text, field), field)
      if (text === undefined) text = { ...parsed, field }
      else {
        if (parsed.prompt !== text.prompt)
          return yield* fail("prompt", "conflict", `prompt must repeat the text of ${field}; they differ`)
        text = {
          prompt: text.prompt,
          flags: yield* mergeMarkerFlagsResult(text.flags, parsed.flags, () => field, "prompt"),
          field
        }
      }
    }

    // Settings given as fields join the prompt's flags; both given must agree.
    const fieldFlags = yield* readFlagFields(input, model)
    const flags = yield* mergeMarkerFlagsResult(text?.flags ?? {}, fieldFlags, (name) => flagField[name])
    // A value that came from a field fails on that field; one written in the text fails on the text, naming its flag.
    const check = <A extends string | number>(
      name: MarkerFlagName,
      value: A | undefined,
      allowed: ReadonlyArray<A>
    ): Result.Result<unknown, InvalidRequest> => {
      if (value === undefined || allowed.includes(value)) return Result.void
      if (fieldFlags[name] !== undefined) return allowedFor(value, flagField[name], allowed, model)
      const field = text?.field ?? "prompt"
      return fail(
        field,
        "one-of",
        `${field}: --${flagSpelling[name]} ${String(value)} is not allowed for ${model.id}; allowed: ${allowed.length === 0 ? "none" : listAllowed(allowed)}`
      )
    }
    yield* check("resolution", flags.resolution, model.resolutions)
    yield* check("ratio", flags.ratio, model.aspectRatios)
    yield* check("duration", flags.duration, model.durations)
    if (flags.seed !== undefined && (flags.seed < -1 || flags.seed > 4294967295)) {
      const field = fieldFlags.seed !== undefined ? "seed" : (text?.field ?? "prompt")
      return yield* fail(
        field,
        "range",
        `${field}: seed ${flags.seed} is out of range for ${model.id}; allowed: -1 to 4294967295`
      )
    }
    if (flags.camerafixed !== undefined && !model.cameraFixed) {
      const field = fieldFlags.camerafixed !== undefined ? "camera_fixed" : (text?.field ?? "prompt")
      return yield* fail(
        field,
        "unsupported",
        `${field}: --cf is not supported by ${model.id}; allowed on the lite models only`
      )
    }

    const images = yield* readImages(input, content, model, text?.prompt ?? "")
    if (images.some((i) => i.role === "reference_image")) {
      // A setting from a field fails on that field; one written in the text fails on the text, naming its flag.
      const where = (name: MarkerFlagName) =>
        fieldFlags[name] !== undefined
          ? { field: flagField[name], shown: describe(fieldFlags[name]) }
          : { field: text?.field ?? "prompt", shown: `--${flagSpelling[name]} ${String(flags[name])}` }
      if (flags.resolution !== undefined && !referenceResolutions.includes(flags.resolution)) {
        const { field, shown } = where("resolution")
        return yield* fail(
          field,
          "one-of",
          `${field}: ${shown} is not allowed for ${model.id} in reference image mode; allowed: ${listAllowed(referenceResolutions)}`
        )
      }
      if (flags.camerafixed !== undefined) {
        const { field, shown } = where("camerafixed")
        return yield* fail(
          field,
          "unsupported",
          `${field}: ${shown} is not supported by ${model.id} in reference image mode; allowed: no camera_fixed (--cf) with reference images`
        )
      }
    }
    const plain = text?.prompt ?? ""
    if (plain.trim() === "" && images.length === 0) yield* requirePrompt(model)
    const rendered = renderMarkerFlags(plain, flags)

    const meta: Record<string, unknown> = { ...unknownFields(metadata, metadataFields) }
    meta.content = [...(rendered === "" ? [] : [{ type: "text", text: rendered }]), ...images.map(imageItem)]
    const lastFrame = yield* sameSetting(input, metadata, "return_last_frame", readSwitch)
    if (lastFrame !== undefined) {
      if (!model.returnLastFrame)
        return yield* fail(
          lastFrame.field,
          "unsupported",
          `${lastFrame.field} is not supported by ${model.id}; allowed on the 1.5 pro series`
        )
      meta.return_last_frame = lastFrame.value
    }
    const callback = yield* sameSetting(input, metadata, "callback_url", (v, f) =>
      Result.flatMap(readText(v, f), (s) =>
        /^https?:\/\/\S+$/i.test(s)
          ? Result.succeed(s)
          : fail(f, "url", `${f}: ${JSON.stringify(s.slice(0, 60))} is not allowed; allowed: an http(s) URL`)
      )
    )
    if (callback !== undefined) meta.callback_url = callback.value
    const audio = yield* sameSetting(input, metadata, "generate_audio", (v, f) => readAudioRequest(v, f, model))
    if (audio !== undefined) meta.generate_audio = audio.value

    const body: Record<string, unknown> = {
      ...unknownFields(input, [...videoGenericFields, ...videoModeFields, ...videoFamilyFields.delta]),
      model: model.id
    }
    if (model.topLevelPrompt && rendered !== "") body.prompt = rendered
    body.metadata = meta
    return yield* conform(DeltaBody, body, "")
  })

const imageItem = (image: DeltaImage): Record<string, unknown> => ({
  ...image.extra,
  type: "image_url",
  image_url: { ...image.urlExtra, url: image.url },
  ...(image.role === undefined ? {} : { role: image.role })
})

/** A metadata setting that may also be given as a top-level field; both given must agree. */
const sameSetting = <A>(
  input: Json,
  metadata: Json,
  key: string,
  read: (value: unknown, field: string) => Result.Result<A, InvalidRequest>
): Result.Result<{ readonly value: A; readonly field: string } | undefined, InvalidRequest> =>
  Result.gen(function* () {
    const top = optional(input, key)
    const inner = optional(metadata, key)
    const field = `metadata.${key}`
    const a = top === undefined ? undefined : yield* read(top, key)
    const b = inner === undefined ? undefined : yield* read(inner, field)
    if (a !== undefined && b !== undefined && a !== b)
      return yield* fail(field, "conflict", `${field} disagrees with ${key}; give one of them`)
    return b !== undefined ? { value: b, field } : a !== undefined ? { value: a, field: key } : undefined
  })
