/** The fields a video request may carry (generic, mode and each family's native ones) and the checks every family shares. */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { conform } from "../validation/Conform.js"
import { Integer, NonBlank } from "../validation/FieldRules.js"
import { at, copyFields, describe, fail, type Json, listAllowed, notAllowed, optional } from "../validation/Rules.js"
import type { VideoFamily, VideoModel } from "./VideoCatalog.js"

/** The generic E1 fields. @category models */
export const videoGenericFields = ["model", "prompt", "image", "duration", "resolution", "aspect_ratio"] as const

/** The mode fields every family understands (or refuses by name). @category models */
export const videoModeFields = [
  "last_frame",
  "reference_images",
  "input_reference",
  "remix_from_video_id",
  "seed",
  "fps",
  "watermark",
  "camera_fixed",
  "generate_audio",
  "callback_url",
  "return_last_frame"
] as const

/** Each family's own body fields (E1 family tables). A body holds its family's and never another's. @category models */
export const videoFamilyFields: Readonly<Record<VideoFamily, ReadonlyArray<string>>> = {
  alpha: ["model", "prompt", "seconds", "size", "input_reference", "remix_from_video_id"],
  beta: [
    "model",
    "prompt",
    "durationSeconds",
    "aspectRatio",
    "resolution",
    "fps",
    "image",
    "lastFrame",
    "generateAudio",
    "personGeneration",
    "addWatermark",
    "seed",
    "sampleCount"
  ],
  gamma: [
    "model",
    "prompt",
    "duration",
    "resolution",
    "size",
    "smart_rewrite",
    "generate_audio",
    "audio_url",
    "seed",
    "image"
  ],
  delta: ["model", "prompt", "metadata"]
}

const families: ReadonlyArray<VideoFamily> = ["alpha", "beta", "gamma", "delta"]
const shared = new Set<string>([...videoGenericFields, ...videoModeFields])

/** Fields that belong to another family only: the ones a body of `family` must never carry. @category models */
export const foreignVideoFields = (family: VideoFamily): ReadonlyArray<string> => {
  const own = new Set(videoFamilyFields[family])
  const out = new Set<string>()
  for (const other of families)
    if (other !== family) for (const f of videoFamilyFields[other]) if (!own.has(f)) out.add(f)
  return [...out]
}

/**
 * Fails when the input carries a field of another family (`durationSeconds` sent for an alpha model). `path`
 * is where the fields sit: `extra` is checked too, since one family's field must not reach another's body
 * that way either.
 */
export const rejectForeignFields = (input: Json, model: VideoModel, path = ""): Result.Result<void, InvalidRequest> => {
  for (const key of foreignVideoFields(model.family)) {
    // Null counts as given: `extra` would send it as it is.
    if (shared.has(key) || !Object.hasOwn(input, key) || input[key] === undefined) continue
    const owner = families.find((f) => f !== model.family && videoFamilyFields[f].includes(key))!
    const field = at(path, key)
    return fail(
      field,
      "foreign-field",
      `${field} is a family ${owner} field; ${model.id} (family ${model.family}) does not take it`
    )
  }
  return Result.void
}

/** Fails on the first of `keys` present in the input: mode fields this model's family cannot express. */
export const rejectUnsupported = (
  input: Json,
  keys: ReadonlyArray<string>,
  model: VideoModel,
  why = ""
): Result.Result<void, InvalidRequest> => {
  for (const key of keys)
    if (optional(input, key) !== undefined)
      return fail(
        key,
        "unsupported",
        `${key} is not supported by ${model.id} (family ${model.family})${why ? `; ${why}` : ""}`
      )
  return Result.void
}

/** Reads one setting that may be given under two names (generic and native); both given must agree. */
export const eitherField = <A>(
  input: Json,
  names: readonly [generic: string, native: string],
  read: (value: unknown, field: string) => Result.Result<A, InvalidRequest>
): Result.Result<{ readonly value: A; readonly field: string; readonly given: unknown } | undefined, InvalidRequest> =>
  Result.gen(function* () {
    const [g, n] = names
    const gv = optional(input, g)
    const nv = g === n ? undefined : optional(input, n)
    const ga = gv === undefined ? undefined : yield* read(gv, g)
    const na = nv === undefined ? undefined : yield* read(nv, n)
    if (ga !== undefined && na !== undefined && ga !== na)
      return yield* fail(n, "conflict", `${n}: ${describe(nv)} disagrees with ${g}: ${describe(gv)}; give one of them`)
    if (na !== undefined) return { value: na, field: n, given: nv }
    return ga === undefined ? undefined : { value: ga, field: g, given: gv }
  })

/** Checks a value against the model's allowed list: `durationSeconds: 5 is not allowed for M; allowed: 4, 6, 8`. */
export const allowedFor = <A extends string | number>(
  value: A,
  field: string,
  allowed: ReadonlyArray<A>,
  model: VideoModel,
  none = "none",
  given: unknown = value
): Result.Result<A, InvalidRequest> =>
  allowed.includes(value)
    ? Result.succeed(value)
    : notAllowed(field, given, allowed.length === 0 ? none : allowed, model.id)

/** A string of media: a URL or a Base64 data URL, not empty. @category schemas */
export const VideoMedia = NonBlank

/** An integer, never a string of digits: "seed: expected an integer, got \"8\"". */
export const readInteger = (value: unknown, field: string): Result.Result<number, InvalidRequest> =>
  conform(Integer, value, field)

const allowedDurations = (model: VideoModel): string =>
  model.durations.length === 0 ? "none" : listAllowed(model.durations)

/**
 * A duration in seconds the model allows. E1's `duration` and the families' own duration fields are
 * integers (alpha's `seconds` alone is a string or an integer: `readAlphaSeconds`), so a value of another
 * type, `"8"` too, is refused as such, with the model's durations: `duration: expected an integer, got a
 * string "8"; allowed for M: 4, 6, 8`; a number the model does not list is `not allowed`.
 */
export const readDuration = (
  value: unknown,
  field: string,
  model: VideoModel
): Result.Result<number, InvalidRequest> => {
  if (typeof value !== "number")
    // The rule stays "one-of" (what a caller matching on the rule already handles); the message says the type.
    return fail(
      field,
      "one-of",
      `${field}: expected an integer, got ${typeof value === "string" ? `a string ${describe(value)}` : describe(value)}; allowed for ${model.id}: ${allowedDurations(model)}`
    )
  return model.durations.includes(value)
    ? Result.succeed(value)
    : notAllowed(field, value, allowedDurations(model), model.id)
}

/**
 * Alpha's own `seconds`, a string or an integer (E1 alpha table): `8` or `"8"`, for a duration the model
 * allows. Since a string is a valid type here, any other value is simply `not allowed`.
 */
export const readAlphaSeconds = (
  value: unknown,
  field: string,
  model: VideoModel
): Result.Result<number, InvalidRequest> => {
  if (typeof value === "number") return readDuration(value, field, model)
  const listed = typeof value === "string" ? model.durations.find((d) => String(d) === value) : undefined
  return listed !== undefined ? Result.succeed(listed) : notAllowed(field, value, allowedDurations(model), model.id)
}

/** A string: "prompt: expected a string, got 5". */
export const readText = (value: unknown, field: string): Result.Result<string, InvalidRequest> =>
  conform(Schema.String, value, field)

/** A boolean: "watermark: expected true or false, got \"yes\"". */
export const readSwitch = (value: unknown, field: string): Result.Result<boolean, InvalidRequest> =>
  conform(Schema.Boolean, value, field)

/** A string of media: a URL or a Base64 data URL, not empty. */
export const readMedia = (value: unknown, field: string): Result.Result<string, InvalidRequest> =>
  conform(VideoMedia, value, field)

/** The first-frame image of i2v, given as `image` or `input_reference` (the same image twice is fine). */
export const readFirstFrame = (
  input: Json,
  nativeName = "image"
): Result.Result<
  { readonly value: string; readonly field: string; readonly given: unknown } | undefined,
  InvalidRequest
> => eitherField(input, nativeName === "image" ? ["input_reference", "image"] : ["image", nativeName], readMedia)

/** The generic resolution values (E1). @category models */
export const videoResolutions = ["480p", "720p", "1080p", "4k"] as const
/** The generic aspect ratios (E1). @category models */
export const videoAspectRatios = ["16:9", "9:16", "1:1", "4:3", "3:4", "21:9", "adaptive"] as const

/** A resolution the model allows (checked against the model, then against the generic E1 list). */
export const readResolution = (
  value: unknown,
  field: string,
  model: VideoModel
): Result.Result<string, InvalidRequest> =>
  Result.flatMap(readText(value, field), (v) =>
    Result.flatMap(allowedFor(v, field, model.resolutions, model), () =>
      allowedFor(v, field, videoResolutions as ReadonlyArray<string>, model)
    )
  )

/** An aspect ratio the model allows (an empty model list means the image sets the ratio). */
export const readAspectRatio = (
  value: unknown,
  field: string,
  model: VideoModel
): Result.Result<string, InvalidRequest> =>
  Result.flatMap(readText(value, field), (v) =>
    Result.flatMap(allowedFor(v, field, model.aspectRatios, model, "none (the image sets the ratio)"), () =>
      allowedFor(v, field, videoAspectRatios as ReadonlyArray<string>, model)
    )
  )

/** `generate_audio` checked against what the model can do (sound always, never, or on request). */
export const readAudioRequest = (
  value: unknown,
  field: string,
  model: VideoModel
): Result.Result<boolean, InvalidRequest> =>
  Result.flatMap(readSwitch(value, field), (v) =>
    model.audio === "always" && !v
      ? fail(
          field,
          "audio",
          `${field}: false is not allowed for ${model.id}, which always generates audio; allowed: true`
        )
      : model.audio === "none" && v
        ? fail(
            field,
            "audio",
            `${field}: true is not allowed for ${model.id}, which makes silent video; allowed: false`
          )
        : Result.succeed(v)
  )

/** Checks that the model has a mode (`i2v` for an image, `v2v` for a remix, …). */
export const requireMode = (
  model: VideoModel,
  mode: VideoModel["modes"][number],
  field: string,
  what: string
): Result.Result<void, InvalidRequest> =>
  model.modes.includes(mode)
    ? Result.void
    : fail(field, "mode", `${field}: ${what} is not supported by ${model.id}; its modes: ${listAllowed(model.modes)}`)

/** Whether a prompt is missing for text-to-video: absent, or only white space. */
export const promptMissing = (prompt: unknown): boolean => typeof prompt !== "string" || prompt.trim() === ""

/**
 * A mode that needs a prompt fails on `prompt` without one, naming the mode: text-to-video (neither prompt
 * nor media to start from) unless `mode` says otherwise (`"a remix (video-to-video)"`).
 */
export const requirePrompt = (model: VideoModel, mode = "text-to-video"): Result.Result<never, InvalidRequest> =>
  fail("prompt", "required", `prompt is required for ${mode} with ${model.id}`)

/** The fields no family rule knows, copied untouched (unsafe keys dropped at every depth). */
export const unknownFields = (input: Json, known: Iterable<string>): Record<string, unknown> => copyFields(input, known)
