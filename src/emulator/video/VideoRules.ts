/**
 * The emulator's own check of an E1 video submit body: the model catalog, key access outcomes and
 * each family's field rules as the contract states them (written independently of src/core).
 */
import type { KeyProfile } from "../server/Context.js"
import { checkDeltaBody } from "./VideoDeltaRules.js"
import {
  type AcceptedVideo,
  invalid,
  MAX_MEDIA_CHARS,
  MAX_PROMPT_CHARS,
  type VideoCheck,
  type VideoFamily,
  type VideoRejection
} from "./VideoCheck.js"

export {
  type AcceptedVideo,
  invalid,
  MAX_MEDIA_CHARS,
  MAX_PROMPT_CHARS,
  type VideoCheck,
  type VideoFamily,
  type VideoRejection
}

/** The video models the emulator knows, with their family. */
export const VIDEO_MODELS: ReadonlyMap<string, VideoFamily> = new Map([
  ["alpha-2", "alpha"],
  ["beta-3.0-fast-generate-001", "beta"],
  ["beta-3.1-fast-generate-001", "beta"],
  ["beta-3.0-generate-preview", "beta"],
  ["gamma2.5-t2v-preview", "gamma"],
  ["gamma2.5-i2v-preview", "gamma"],
  ["delta-1-0-lite-t2v-250428", "delta"],
  ["delta-1-0-lite-i2v-250428", "delta"],
  ["delta-1-0-pro-250528", "delta"],
  ["delta-1-5-pro-251215", "delta"],
  ["delta-1-5-pro-251215-noAudio", "delta"]
])

/** Models the restricted key gets a 404 "not found / no access" for (the contract's access outcomes). */
const RESTRICTED_404: ReadonlySet<string> = new Set([
  "delta-1-0-lite-t2v-250428",
  "delta-1-0-lite-i2v-250428",
  "beta-3.0-generate-preview"
])

type Body = Readonly<Record<string, unknown>>
type Problem = VideoCheck | undefined

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v)
const oneOf = (allowed: ReadonlyArray<string | number>, v: unknown): boolean => allowed.includes(v as string | number)
const fmt = (allowed: ReadonlyArray<string | number>): string => allowed.join(", ")

/** Checks an optional field with `ok`; `what` describes the rule for the message. */
const optional = (body: Body, field: string, ok: (v: unknown) => boolean, what: string): Problem =>
  body[field] === undefined || ok(body[field]) ? undefined : invalid(field, `${field} must be ${what}`)

const mediaString = (v: unknown): boolean => typeof v === "string" && v.length > 0 && v.length <= MAX_MEDIA_CHARS
const anyInt = (lo: number, hi: number) => (v: unknown) => isInt(v) && v >= lo && v <= hi
const bool = (v: unknown): boolean => typeof v === "boolean"
const inList = (allowed: ReadonlyArray<string | number>) => (v: unknown) => oneOf(allowed, v)

const first = (...problems: ReadonlyArray<() => Problem>): Problem => {
  for (const p of problems) {
    const r = p()
    if (r !== undefined) return r
  }
  return undefined
}

/** The generic E1 fields, checked for type and the generic allowed values on every family but delta. */
const checkGeneric = (b: Body): Problem =>
  first(
    () =>
      optional(
        b,
        "prompt",
        (v) => typeof v === "string" && v.length <= MAX_PROMPT_CHARS,
        `a string of at most ${MAX_PROMPT_CHARS} characters`
      ),
    () => optional(b, "image", mediaString, "a non-empty string (URL or base64 data URL)"),
    () => optional(b, "duration", (v) => isInt(v) && v > 0 && v <= 60, "a positive integer number of seconds"),
    () =>
      optional(
        b,
        "resolution",
        inList(["480p", "720p", "1080p", "4k"]),
        `one of ${fmt(["480p", "720p", "1080p", "4k"])}`
      ),
    () =>
      optional(
        b,
        "aspect_ratio",
        inList(["16:9", "9:16", "1:1", "4:3", "3:4", "21:9", "adaptive"]),
        "one of 16:9, 9:16, 1:1, 4:3, 3:4, 21:9, adaptive"
      )
  )

/** What each model allows of the generic E1 fields (spec E1 and the family tables), by model id. */
const genericLimits = (
  model: string,
  family: VideoFamily
): { durations: ReadonlyArray<number>; resolutions: ReadonlyArray<string>; ratios: ReadonlyArray<string> } => {
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
  const five = ["16:9", "9:16", "1:1", "4:3", "3:4"]
  switch (family) {
    case "alpha":
      return { durations: [4, 8, 12], resolutions: ["720p"], ratios: ["16:9", "9:16"] }
    case "beta":
      return { durations: [4, 6, 8], resolutions: ["720p", "1080p"], ratios: ["16:9", "9:16"] }
    case "gamma":
      // The image-to-video model takes its ratio from the image.
      return { durations: [5, 10], resolutions: ["480p", "720p", "1080p"], ratios: model.includes("i2v") ? [] : five }
    case "delta":
      if (model.startsWith("delta-1-5-pro"))
        return { durations: range(4, 12), resolutions: ["480p", "720p"], ratios: [...five, "adaptive"] }
      return {
        durations: range(2, 12),
        resolutions: ["480p", "720p", "1080p"],
        ratios: model.includes("lite-t2v") ? five : [...five, "adaptive"]
      }
  }
}

/** The generic fields against the model's own allowed values (a generic field is translated to the family's). */
const checkGenericFor = (model: string, family: VideoFamily, b: Body): Problem => {
  const limits = genericLimits(model, family)
  return first(
    () => optional(b, "duration", inList(limits.durations), `one of ${fmt(limits.durations)} for ${model}`),
    () => optional(b, "resolution", inList(limits.resolutions), `one of ${fmt(limits.resolutions)} for ${model}`),
    () =>
      limits.ratios.length === 0 && b.aspect_ratio !== undefined
        ? invalid("aspect_ratio", `${model} takes its aspect ratio from the image`, "unsupported_parameter")
        : optional(b, "aspect_ratio", inList(limits.ratios), `one of ${fmt(limits.ratios)} for ${model}`),
    // 480p sizes exist only for the wide and square ratios of the text-to-video model.
    () =>
      family === "gamma" && b.resolution === "480p" && (b.aspect_ratio === "4:3" || b.aspect_ratio === "3:4")
        ? invalid("aspect_ratio", `${String(b.aspect_ratio)} has no 480p size for ${model}`)
        : undefined
  )
}

/** Text-to-video (or `mode`) needs a prompt; a request with an image may leave it out. */
const needPrompt = (b: Body, hasImage: boolean, mode = "text-to-video"): Problem =>
  hasImage || (typeof b.prompt === "string" && b.prompt.trim() !== "")
    ? undefined
    : invalid("prompt", `prompt is required for ${mode}`, "missing_required_parameter")

const ALPHA_SECONDS = [4, 8, 12] as const
const checkAlpha = (b: Body): Problem =>
  first(
    () =>
      optional(
        b,
        "seconds",
        // As a string, one of upstream's enum values exactly ("4", not "04").
        (v) => (typeof v === "string" ? ALPHA_SECONDS.map(String).includes(v) : oneOf(ALPHA_SECONDS, v)),
        "4, 8 or 12 (string or integer)"
      ),
    () => optional(b, "size", inList(["720x1280", "1280x720"]), "720x1280 or 1280x720"),
    () => optional(b, "input_reference", mediaString, "a non-empty string (URL or base64)"),
    () =>
      optional(
        b,
        "remix_from_video_id",
        // The contract's rule (a task id starting with video_), with something after the prefix.
        (v) => typeof v === "string" && v.startsWith("video_") && v.length > 6 && v.length <= MAX_MEDIA_CHARS,
        "a video id starting with video_"
      ),
    () =>
      b.remix_from_video_id !== undefined && (b.input_reference !== undefined || b.image !== undefined)
        ? invalid("remix_from_video_id", "remix_from_video_id cannot be combined with an input image")
        : undefined,
    // Remix rewrites a video from a new prompt, so it needs the prompt too.
    () =>
      b.remix_from_video_id === undefined
        ? needPrompt(b, b.input_reference !== undefined || b.image !== undefined)
        : needPrompt(b, false, "a remix (video-to-video)")
  )

const checkBeta = (model: string, b: Body): Problem =>
  first(
    () => optional(b, "durationSeconds", inList([4, 6, 8]), "one of 4, 6, 8"),
    () => optional(b, "aspectRatio", inList(["16:9", "9:16"]), "16:9 or 9:16"),
    () => optional(b, "resolution", inList(["720p", "1080p"]), "720p or 1080p"),
    // The contract shows no allowed values for fps (nor do the upstream notes), so any positive integer.
    () => optional(b, "fps", anyInt(1, Number.MAX_SAFE_INTEGER), "a positive integer"),
    () => optional(b, "lastFrame", mediaString, "a non-empty string (URL or base64)"),
    () =>
      b.lastFrame !== undefined && !model.startsWith("beta-3.1")
        ? invalid("lastFrame", `lastFrame is supported only by the 3.1 model, not ${model}`, "unsupported_parameter")
        : undefined,
    () =>
      b.lastFrame !== undefined && b.image === undefined
        ? invalid("lastFrame", "lastFrame needs image as the first frame")
        : undefined,
    () => optional(b, "generateAudio", bool, "a boolean"),
    () => optional(b, "addWatermark", bool, "a boolean"),
    () =>
      optional(
        b,
        "personGeneration",
        inList(["allow_all", "allow_adult", "dont_allow"]),
        "one of allow_all, allow_adult, dont_allow"
      ),
    () => optional(b, "seed", anyInt(0, 4_294_967_295), "an integer 0-4294967295"),
    () => optional(b, "sampleCount", anyInt(1, 4), "an integer 1-4"),
    () => needPrompt(b, b.image !== undefined)
  )

/** The text-to-video sizes upstream lists (protocol notes §6.3): 480P, 720P and 1080P, by ratio. */
const GAMMA_SIZES = [
  ...["832*480", "480*832", "624*624"],
  ...["1280*720", "720*1280", "960*960", "1088*832", "832*1088"],
  ...["1920*1080", "1080*1920", "1440*1440", "1632*1248", "1248*1632"]
]

const checkGamma = (model: string, b: Body): Problem => {
  const i2v = model.includes("i2v")
  return first(
    () => optional(b, "duration", inList([5, 10]), "5 or 10"),
    () => optional(b, "seed", anyInt(0, 2_147_483_647), "an integer 0-2147483647"),
    () => optional(b, "smart_rewrite", bool, "a boolean"),
    () => optional(b, "generate_audio", bool, "a boolean"),
    () =>
      optional(
        b,
        "audio_url",
        (v) => typeof v === "string" && /^https:\/\/[^\s/]+\S*$/.test(v) && v.length <= 4096,
        "an https URL"
      ),
    () =>
      i2v
        ? first(
            () =>
              b.size !== undefined
                ? invalid(
                    "size",
                    `size is for the text-to-video model; ${model} takes resolution`,
                    "unsupported_parameter"
                  )
                : undefined,
            () => optional(b, "resolution", inList(["480p", "720p", "1080p"]), "480p, 720p or 1080p"),
            () =>
              b.image === undefined
                ? invalid("image", `${model} is image-to-video: image is required`, "missing_required_parameter")
                : undefined
          )
        : first(
            () =>
              b.image !== undefined
                ? invalid("image", `${model} is text-to-video and takes no image`, "unsupported_parameter")
                : undefined,
            () =>
              b.resolution !== undefined
                ? invalid(
                    "resolution",
                    `resolution is for the image-to-video model; ${model} takes size as width*height`,
                    "unsupported_parameter"
                  )
                : undefined,
            () => optional(b, "size", inList(GAMMA_SIZES), `one of ${fmt(GAMMA_SIZES)} (width*height)`),
            () => needPrompt(b, false)
          )
  )
}

/**
 * Checks a submit body for `profile`: unknown models are 400 for every key, the restricted key gets the
 * contract's access outcomes, then the family's rules apply.
 */
export const checkVideoBody = (json: unknown, profile: KeyProfile): VideoCheck => {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return invalid(null, "request body must be a JSON object", "invalid_json")
  const b = json as Body
  if (typeof b.model !== "string" || b.model === "")
    return invalid("model", "model is required", "missing_required_parameter")
  const model = b.model
  const family = VIDEO_MODELS.get(model)
  if (family === undefined) return invalid("model", `model not found: ${model.slice(0, 200)}`, "model_not_found")
  if (profile === "restricted") {
    if (model === "alpha-2") return invalid("model", "invalid api platform: 3", null)
    if (RESTRICTED_404.has(model))
      return {
        ok: false,
        status: 404,
        message: `model ${model} not found or no access`,
        param: "model",
        code: "model_not_found"
      }
  }
  const generic = first(
    () => checkGeneric(b),
    () => checkGenericFor(model, family, b)
  )
  if (generic !== undefined) return generic
  if (family === "delta") return checkDeltaBody(model, b)
  const problem = first(() =>
    family === "alpha" ? checkAlpha(b) : family === "beta" ? checkBeta(model, b) : checkGamma(model, b)
  )
  if (problem !== undefined) return problem
  return { ok: true, value: { model, family, prompt: typeof b.prompt === "string" ? b.prompt : "" } }
}
