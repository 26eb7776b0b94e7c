/** Schemas of the video task responses (E1 submit, E2 query, E3 alpha download) and a strict decoder of the downloaded video. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Base64 from "../wire/Base64.js"
import { DecodeError } from "../errors/GatewayError.js"
import { type DecodeOptions, decodeWith } from "../wire/WireJson.js"

/** Every state a video task reports: `submitted` on submit, then `queued`, `in_progress`, `succeeded` or `failed`. @category models */
export const VideoTaskStatus = Schema.Literals(["submitted", "queued", "in_progress", "succeeded", "failed"])
/** @category models */
export type VideoTaskStatus = typeof VideoTaskStatus.Type

/** The failure a failed task carries (`error.code` is an integer). @category models */
export const VideoTaskError = Schema.Struct({ code: Schema.Int, message: Schema.String })
/** @category models */
export type VideoTaskError = typeof VideoTaskError.Type

/** E1: the answer to a submit. @category models */
export const VideoSubmitResponse = Schema.Struct({
  task_id: Schema.NonEmptyString,
  status: Schema.Literal("submitted"),
  format: Schema.Literal("mp4")
})
/** @category models */
export type VideoSubmitResponse = typeof VideoSubmitResponse.Type

/** E2: the answer to a query; `url` when a beta or gamma task succeeded, `error` when it failed. @category models */
export const VideoQueryResponse = Schema.Struct({
  task_id: Schema.NonEmptyString,
  status: VideoTaskStatus,
  format: Schema.optionalKey(Schema.Literal("mp4")),
  url: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(VideoTaskError)
})
/** @category models */
export type VideoQueryResponse = typeof VideoQueryResponse.Type

/** True once a task will not change again. @category predicates */
export const isVideoTaskFinal = (status: VideoTaskStatus): boolean => status === "succeeded" || status === "failed"

/** E3: the alpha download result, as sent. @category models */
export const VideoDownloadResult = Schema.Struct({
  success: Schema.Boolean,
  generation_id: Schema.String,
  task_id: Schema.String,
  format: Schema.Literal("mp4"),
  size: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  base64: Schema.String,
  data_url: Schema.String
})
/** @category models */
export type VideoDownloadResult = typeof VideoDownloadResult.Type

/** A downloaded video: its bytes, checked against the declared size and data URL. @category models */
export interface VideoDownload {
  readonly bytes: Uint8Array
  readonly taskId: string
  readonly generationId: string
  readonly format: "mp4"
  readonly size: number
  readonly dataUrl: string
}

const decodeError = (message: string) => new DecodeError({ family: "video", what: "video download", message })
const decodeResult = decodeWith(VideoDownloadResult, "video", "video download")

/**
 * Decodes an E3 download result: the JSON must match the Schema, report success, carry strict base64
 * whose byte length equals `size`, and a `data_url` of `data:video/mp4;base64,` plus the same data.
 * Never throws; every failure is a `DecodeError` of family `video`.
 * @category decoding
 */
export const decodeVideoDownload = (
  json: unknown,
  options?: DecodeOptions
): Effect.Effect<VideoDownload, DecodeError> =>
  Effect.suspend(() => {
    const parsed = decodeResult(json, options)
    if (Result.isFailure(parsed)) return Effect.fail(parsed.failure)
    const result = parsed.success
    if (!result.success) return Effect.fail(decodeError("the download reported success: false"))
    const bytes = Base64.decode(result.base64)
    if (Result.isFailure(bytes)) return Effect.fail(decodeError(`base64 is not valid: ${bytes.failure}`))
    if (bytes.success.length !== result.size)
      return Effect.fail(decodeError(`size says ${result.size} bytes but base64 holds ${bytes.success.length}`))
    if (result.data_url !== `data:video/mp4;base64,${result.base64}`)
      return Effect.fail(decodeError("data_url is not data:video/mp4;base64, followed by the same data as base64"))
    return Effect.succeed<VideoDownload>({
      bytes: bytes.success,
      taskId: result.task_id,
      generationId: result.generation_id,
      format: result.format,
      size: result.size,
      dataUrl: result.data_url
    })
  }).pipe(Effect.catchDefect(() => Effect.fail(decodeError("the download result could not be read"))))
