/** The video model catalog as data: each model id's family, modes, media support and allowed values (spec E1). */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { describe, fail } from "../validation/Rules.js"

/** The four video families of the gateway (E1). @category models */
export const VideoFamily = Schema.Literals(["alpha", "beta", "gamma", "delta"])
/** @category models */
export type VideoFamily = typeof VideoFamily.Type

/** Generation modes: text, image (first frame), reference images, video (remix). @category models */
export const VideoMode = Schema.Literals(["t2v", "i2v", "r2v", "v2v"])
/** @category models */
export type VideoMode = typeof VideoMode.Type

/** Whether a model makes sound: never, on request, or always. @category models */
export const VideoAudio = Schema.Literals(["none", "optional", "always"])
/** @category models */
export type VideoAudio = typeof VideoAudio.Type

/** The limits of one video model; every rule of the body builders reads these, never the model id. @category models */
export const VideoModelLimits = Schema.Struct({
  family: VideoFamily,
  modes: Schema.Array(VideoMode),
  /** An image may start the scene (first frame mode). */
  firstFrame: Schema.Boolean,
  /** Two images may fix the start and the end (first/last frame mode). */
  firstLastFrame: Schema.Boolean,
  /** Images may be given as style references (reference image mode). */
  referenceImages: Schema.Boolean,
  durations: Schema.Array(Schema.Int),
  resolutions: Schema.Array(Schema.String),
  /** Empty when the input image sets the ratio and none may be given. */
  aspectRatios: Schema.Array(Schema.String),
  audio: VideoAudio,
  /** delta: the `--cf` flag is accepted (lite models only). */
  cameraFixed: Schema.Boolean,
  /** delta: the body repeats the text as a top-level `prompt` (pro / 1.5 / 2.0 models). */
  topLevelPrompt: Schema.Boolean,
  /** delta: `metadata.return_last_frame` is accepted. */
  returnLastFrame: Schema.Boolean,
  notes: Schema.optionalKey(Schema.String)
})
/** @category models */
export type VideoModelLimits = typeof VideoModelLimits.Type

/** A catalog entry as a user writes it: any subset of the limits (a new id needs a family or a known prefix). @category models */
export type VideoModelEntry = Partial<VideoModelLimits>

/** A resolved model: its id and its limits. @category models */
export interface VideoModel extends VideoModelLimits {
  readonly id: string
}

/** The catalog: entries by id over per-family defaults that serve ids the catalog does not know. @category models */
export interface VideoCatalog {
  readonly entries: Readonly<Record<string, VideoModelEntry>>
  readonly defaults: Readonly<Record<VideoFamily, VideoModelLimits>>
}

const range = (from: number, to: number): ReadonlyArray<number> =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)
const deltaRatios = ["16:9", "9:16", "1:1", "4:3", "3:4", "adaptive"] as const
const none = {
  firstFrame: false,
  firstLastFrame: false,
  referenceImages: false,
  cameraFixed: false,
  topLevelPrompt: false,
  returnLastFrame: false
}

/** Limits of a model of each family that the catalog does not list (lenient where the contract is silent). @category models */
export const videoFamilyDefaults: Readonly<Record<VideoFamily, VideoModelLimits>> = {
  alpha: {
    ...none,
    family: "alpha",
    modes: ["t2v", "i2v", "v2v"],
    firstFrame: true,
    durations: [4, 8, 12],
    resolutions: ["720p"],
    aspectRatios: ["16:9", "9:16"],
    audio: "always"
  },
  beta: {
    ...none,
    family: "beta",
    modes: ["t2v", "i2v"],
    firstFrame: true,
    durations: [4, 6, 8],
    resolutions: ["720p", "1080p"],
    aspectRatios: ["16:9", "9:16"],
    audio: "always"
  },
  gamma: {
    ...none,
    family: "gamma",
    modes: ["t2v", "i2v"],
    firstFrame: true,
    durations: [5, 10],
    resolutions: ["480p", "720p", "1080p"],
    aspectRatios: ["16:9", "9:16", "1:1", "4:3", "3:4"],
    audio: "optional"
  },
  delta: {
    ...none,
    family: "delta",
    modes: ["t2v", "i2v", "r2v"],
    firstFrame: true,
    firstLastFrame: true,
    referenceImages: true,
    durations: range(2, 15),
    resolutions: ["480p", "720p", "1080p"],
    aspectRatios: deltaRatios,
    audio: "optional",
    topLevelPrompt: true,
    returnLastFrame: true
  }
}

const deltaPro15: VideoModelEntry = {
  family: "delta",
  modes: ["t2v", "i2v"],
  firstFrame: true,
  firstLastFrame: true,
  referenceImages: false,
  durations: range(4, 12),
  resolutions: ["480p", "720p"],
  audio: "always",
  cameraFixed: false,
  topLevelPrompt: true,
  returnLastFrame: true
}

/** Every video model id of spec E1 with its limits. @category models */
export const videoModels: Readonly<Record<string, VideoModelEntry>> = {
  "alpha-2": { family: "alpha", notes: "remix needs a `video_` id" },
  "beta-3.0-fast-generate-001": { family: "beta" },
  "beta-3.1-fast-generate-001": { family: "beta", firstLastFrame: true },
  "gamma2.5-t2v-preview": {
    family: "gamma",
    modes: ["t2v"],
    firstFrame: false,
    notes: "`size` W*H from resolution × ratio (4:3 and 3:4 not at 480p)"
  },
  "gamma2.5-i2v-preview": {
    family: "gamma",
    modes: ["i2v"],
    aspectRatios: [],
    notes: "image required; the image sets the ratio"
  },
  "delta-1-0-lite-t2v-250428": {
    family: "delta",
    modes: ["t2v"],
    firstFrame: false,
    firstLastFrame: false,
    referenceImages: false,
    durations: range(2, 12),
    aspectRatios: ["16:9", "9:16", "1:1", "4:3", "3:4"],
    audio: "none",
    cameraFixed: true,
    topLevelPrompt: false,
    returnLastFrame: false,
    notes: "no image input; no `adaptive`"
  },
  "delta-1-0-lite-i2v-250428": {
    family: "delta",
    modes: ["i2v", "r2v"],
    durations: range(2, 12),
    audio: "none",
    cameraFixed: true,
    topLevelPrompt: false,
    returnLastFrame: false,
    notes: "reference images with [图1]… markers"
  },
  "delta-1-0-pro-250528": {
    family: "delta",
    modes: ["t2v", "i2v"],
    firstLastFrame: false,
    referenceImages: false,
    durations: range(2, 12),
    audio: "none",
    returnLastFrame: false,
    notes: "first frame mode only"
  },
  "delta-1-5-pro-251215": { ...deltaPro15, notes: "generates audio" },
  "delta-1-5-pro-251215-noAudio": { ...deltaPro15, audio: "none", notes: "silent video" }
}

/** The catalog with the contract's models and the family defaults. @category constructors */
export const defaultVideoCatalog: VideoCatalog = { entries: videoModels, defaults: videoFamilyDefaults }

const mergeEntries = (
  base: Readonly<Record<string, VideoModelEntry>>,
  extra: Readonly<Record<string, VideoModelEntry>>
): Record<string, VideoModelEntry> => {
  // A null-prototype map: a user's id such as "__proto__" is just an id, never a prototype.
  const out: Record<string, VideoModelEntry> = Object.create(null)
  for (const id of Object.keys(base)) out[id] = base[id]!
  for (const id of Object.keys(extra)) out[id] = { ...(Object.hasOwn(out, id) ? out[id] : {}), ...extra[id] }
  return out
}

/** Adds or overrides entries (partial entries merge over what the catalog had). @category combinators */
export const withVideoModels = (
  catalog: VideoCatalog,
  entries: Readonly<Record<string, VideoModelEntry>>
): VideoCatalog => ({
  entries: mergeEntries(catalog.entries, entries),
  defaults: catalog.defaults
})

/** The default catalog plus the given entries. @category constructors */
export const makeVideoCatalog = (entries: Readonly<Record<string, VideoModelEntry>> = {}): VideoCatalog =>
  withVideoModels(defaultVideoCatalog, entries)

/** The family a model id's prefix names (`alpha-`, `beta-`, `gamma`, `delta-`), if any. @category routing */
export const videoFamilyFromPrefix = (model: string): VideoFamily | undefined =>
  model.startsWith("alpha-")
    ? "alpha"
    : model.startsWith("beta-")
      ? "beta"
      : model.startsWith("gamma")
        ? "gamma"
        : model.startsWith("delta-")
          ? "delta"
          : undefined

/** The family of a video model id: its catalog entry's, else its prefix's; `undefined` for a non-video id. @category routing */
export const videoFamilyOf = (model: string, catalog: VideoCatalog = defaultVideoCatalog): VideoFamily | undefined => {
  const entry = Object.hasOwn(catalog.entries, model) ? catalog.entries[model] : undefined
  return entry?.family ?? videoFamilyFromPrefix(model)
}

const knownFamilies = "an id of the catalog or one starting with alpha-, beta-, gamma or delta-"

/** Resolves a model id to its limits, or fails on `model` when it is no video model. @category routing */
export const lookupVideoModel = (
  model: string,
  catalog: VideoCatalog = defaultVideoCatalog
): Effect.Effect<VideoModel, InvalidRequest> =>
  Effect.suspend(() => Effect.fromResult(lookupVideoModelResult(model, catalog)))

/** `lookupVideoModel` as a synchronous `Result` (what `buildVideoBody` runs). @internal */
export const lookupVideoModelResult = (
  model: string,
  catalog: VideoCatalog = defaultVideoCatalog
): Result.Result<VideoModel, InvalidRequest> => {
  const family = videoFamilyOf(model, catalog)
  if (family === undefined)
    return fail("model", "video-model", `model: ${describe(model)} is not a video model; allowed: ${knownFamilies}`)
  const entry = Object.hasOwn(catalog.entries, model) ? catalog.entries[model] : undefined
  return Result.succeed({ ...catalog.defaults[family], ...entry, family, id: model })
}

/** The ids the catalog lists, in catalog order. @category models */
export const videoModelIds = (catalog: VideoCatalog = defaultVideoCatalog): ReadonlyArray<string> =>
  Object.keys(catalog.entries)

/** The catalog's constructors and lookups under one name. @category constructors */
export const VideoCatalog = {
  default: defaultVideoCatalog,
  make: makeVideoCatalog,
  withModels: withVideoModels,
  familyOf: videoFamilyOf,
  lookup: lookupVideoModel,
  ids: videoModelIds
} as const
