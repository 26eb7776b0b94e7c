/**
 * The `video` group: submit (E1, a paid request never repeated unless the gateway provably did not
 * act), query (E2), download (E3, alpha only, strictly decoded and checked against `size` and
 * `data_url`), `poll` as a stream of status changes every 3–5 s with a timeout, and `generate`.
 */
import { Clock, Duration, Effect, Option, Stream } from "effect"
import { TimeoutError, VideoTaskFailed, type GatewayError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { pathSegment } from "../../core/wire/JsonSafety.js"
import { checkPollSettings } from "../../core/video/PollingRule.js"
import { buildVideoBody, type VideoRequest } from "../../core/video/VideoBody.js"
import { videoFamilyOf } from "../../core/video/VideoCatalog.js"
import {
  decodeVideoDownload,
  isVideoTaskFinal,
  VideoQueryResponse,
  VideoSubmitResponse,
  type VideoDownload
} from "../../core/video/VideoTask.js"
import { decodeWith } from "../../core/wire/WireJson.js"
import * as GroupContext from "../GroupContext.js"

/** An E1 request: `model` plus generic, mode and family-native fields (closed; `extra` for fields umg does not know). @category models */
export type VideoInput = VideoRequest

/** Options of `video.poll`. @category models */
export interface PollOptions {
  /** Between two queries: 3000–5000 ms (default 5000); outside that range the poll fails with `InvalidRequest`. */
  readonly intervalMs?: number
  /** Gives up with `TimeoutError` (phase `poll`) after this long (default 300 s). */
  readonly timeoutMs?: number
}

/** What `video.generate` ends with: the succeeded task, and for alpha the downloaded video. @category models */
export interface GeneratedVideo {
  readonly task: VideoQueryResponse
  /** The URL of a beta or gamma video. */
  readonly url?: string
  /** The alpha video's bytes (E3). */
  readonly download?: VideoDownload
}

/** The `video` calls. @category models */
export interface VideoGroup {
  readonly submit: (input: VideoInput) => Effect.Effect<VideoSubmitResponse, GatewayError | InvalidRequest>
  readonly get: (taskId: string) => Effect.Effect<VideoQueryResponse, GatewayError | InvalidRequest>
  readonly download: (taskId: string) => Effect.Effect<VideoDownload, GatewayError | InvalidRequest>
  /**
   * Queries every `intervalMs` and emits each status change once; ends after `succeeded`; after
   * `failed` it emits that status and then fails with `VideoTaskFailed`.
   */
  readonly poll: (taskId: string, options?: PollOptions) => Stream.Stream<VideoQueryResponse, GatewayError | InvalidRequest>
  /** Submit, poll to the end, and download when the family is alpha. */
  readonly generate: (input: VideoInput, options?: PollOptions) => Effect.Effect<GeneratedVideo, GatewayError | InvalidRequest>
}

const decodeSubmit = decodeWith(VideoSubmitResponse, "video", "video submit response")
const decodeQuery = decodeWith(VideoQueryResponse, "video", "video task")

/**
 * A task id as one URL path segment: `.`, `..` and ids with slashes (typed by a user or returned by a
 * submit answer) would move the request out of `/v1/video/generations/{id}`, so they are refused.
 */
const taskSegment = (taskId: unknown): Effect.Effect<string, InvalidRequest> => {
  const segment = typeof taskId === "string" ? pathSegment(taskId) : undefined
  return segment === undefined
    ? Effect.fail(
        new InvalidRequest({ field: "task_id", rule: "path-segment", message: "task_id: not a task id (empty, `.`, `..` or holding a slash); it must be one path segment" })
      )
    : Effect.succeed(segment)
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): VideoGroup => {
  const submit = (input: VideoInput) =>
    Effect.gen(function* () {
      const body = yield* buildVideoBody(input, { allowUnknownModels: ctx.config.allowUnknownModels })
      const answer = yield* ctx.transport.json({
        ...GroupContext.post(ctx, "video", "/v1/video/generations", body),
        kind: "paid-submit"
      })
      return yield* decodeSubmit(answer.body)
    })

  const get = (taskId: string) =>
    Effect.gen(function* () {
      const segment = yield* taskSegment(taskId)
      const answer = yield* ctx.transport.json({
        family: "video",
        method: "GET",
        url: ctx.gatewayUrl(`/v1/video/generations/${segment}`),
        auth: ctx.apiAuth,
        kind: "idempotent"
      })
      return yield* decodeQuery(answer.body)
    })

  const download = (taskId: string) =>
    Effect.gen(function* () {
      const segment = yield* taskSegment(taskId)
      const answer = yield* ctx.transport.json({
        family: "video",
        method: "GET",
        url: ctx.gatewayUrl(`/v1/video/generations/download?id=${segment}`),
        auth: ctx.apiAuth,
        kind: "idempotent",
        // The E3 answer carries the whole video as base64 (4/3 of its size, twice: base64 and data_url).
        maxBytes: ctx.config.limits.maxDownloadBytes
      })
      return yield* decodeVideoDownload(answer.body)
    })

  const poll = (taskId: string, options: PollOptions = {}): Stream.Stream<VideoQueryResponse, GatewayError | InvalidRequest> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const { intervalMs, timeoutMs } = yield* checkPollSettings(options, ctx.config.minPollIntervalMs)
        const start = yield* Clock.currentTimeMillis
        const timedOut = new TimeoutError({
          family: "video",
          phase: "poll",
          timeoutMs,
          message: `task ${taskId} did not finish within ${timeoutMs} ms`
        })
        type State = { readonly first: boolean; readonly last: string | undefined; readonly done: boolean }
        // One query per step; a step emits the task only when its status changed.
        const step = (state: State): Effect.Effect<Option.Option<readonly [Option.Option<VideoQueryResponse>, State]>, GatewayError | InvalidRequest> =>
          Effect.gen(function* () {
            if (state.done) return Option.none()
            if (!state.first) yield* Effect.sleep(Duration.millis(intervalMs))
            const remaining = start + timeoutMs - (yield* Clock.currentTimeMillis)
            if (remaining <= 0) return yield* Effect.fail(timedOut)
            const task = yield* Effect.timeoutFail(get(taskId), { duration: Duration.millis(remaining), onTimeout: () => timedOut })
            const changed = task.status !== state.last
            const next: State = { first: false, last: task.status, done: isVideoTaskFinal(task.status) }
            return Option.some([changed ? Option.some(task) : Option.none(), next] as const)
          })
        const failedToError = (task: VideoQueryResponse) =>
          task.status === "failed"
            ? Stream.fail(
                new VideoTaskFailed({
                  family: "video",
                  taskId: task.task_id,
                  code: task.error?.code ?? 0,
                  message: task.error?.message ?? "the video task failed"
                })
              )
            : Stream.empty
        let lastTask: VideoQueryResponse | undefined
        const initial: State = { first: true, last: undefined, done: false }
        const changes = Stream.unfoldEffect(initial, step).pipe(
          Stream.filterMap((o) => o),
          Stream.tap((task) => Effect.sync(() => (lastTask = task)))
        )
        return Stream.concat(changes, Stream.suspend(() => (lastTask === undefined ? Stream.empty : failedToError(lastTask))))
      })
    )

  const generate = (input: VideoInput, options?: PollOptions) =>
    Effect.gen(function* () {
      const submitted = yield* submit(input)
      const last = yield* Stream.runLast(poll(submitted.task_id, options))
      const task = Option.getOrThrow(last)
      if (videoFamilyOf(input.model) === "alpha") {
        const video = yield* download(task.task_id)
        return { task, download: video } satisfies GeneratedVideo
      }
      return { task, ...(task.url !== undefined ? { url: task.url } : {}) } satisfies GeneratedVideo
    })

  return { submit, get, download, poll, generate }
}
