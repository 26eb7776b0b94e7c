/**
 * The `video` group: submit (E1, a paid request never repeated unless the gateway provably did not
 * act), query (E2), download (E3, alpha only, strictly decoded and checked against `size` and
 * `data_url`), `poll` as a stream of status changes every 3–5 s with a timeout, and `generate`.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type { RequestError, VideoWaitError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { pathSegment } from "../../core/wire/JsonSafety.js"
import { checkPollSettings } from "../../core/video/PollingRule.js"
import { buildVideoBody, type VideoBody, type VideoRequest } from "../../core/video/VideoBody.js"
import { videoFamilyOf } from "../../core/video/VideoCatalog.js"
import {
  decodeVideoDownload,
  VideoQueryResponse,
  VideoSubmitResponse,
  type VideoDownload
} from "../../core/video/VideoTask.js"
import { decodeWith } from "../../core/wire/WireJson.js"
import * as GroupContext from "../internal/GroupContext.js"
import * as VideoPoller from "../polling/VideoPoller.js"
import type { PollUpdate } from "../polling/VideoPoller.js"

/** An E1 request: `model` plus generic, mode and family-native fields (closed; `extra` for fields umg does not know). @category models */
export type VideoInput = VideoRequest

/** Options of `video.poll`. @category models */
export interface PollOptions {
  /**
   * From one query's start to the next: 3000–5000 ms (default 4000); outside that range the poll
   * fails with `InvalidRequest`. Asked for 5000, queries aim 250 ms early (timers only fire late).
   */
  readonly intervalMs?: number
  /** Gives up with `TimeoutError` (phase `poll`) after this long (default 300 s). */
  readonly timeoutMs?: number
}

/** One answer of a poll: the task, the queries so far and the time since polling began. @category models */
export type VideoPollUpdate = PollUpdate<VideoQueryResponse>

/** Options of `video.wait`. @category models */
export interface WaitOptions extends PollOptions {
  /** Called after every query (progress lines, UIs); `changed` is true when the status is new. */
  readonly onQuery?: (update: VideoPollUpdate, changed: boolean) => void
}

/** Options of `video.generate`. @category models */
export interface GenerateOptions extends WaitOptions {
  /** Called once the task is submitted, before the first query. */
  readonly onSubmitted?: (submitted: VideoSubmitResponse) => void
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
  /**
   * Checks an input as `submit` would and returns the family's body, sending nothing: the check a
   * batch runs over every input before the first submit.
   */
  readonly check: (input: VideoInput) => Effect.Effect<VideoBody, InvalidRequest>
  readonly submit: (input: VideoInput) => Effect.Effect<VideoSubmitResponse, RequestError | InvalidRequest>
  readonly get: (taskId: string) => Effect.Effect<VideoQueryResponse, RequestError | InvalidRequest>
  readonly download: (taskId: string) => Effect.Effect<VideoDownload, RequestError | InvalidRequest>
  /**
   * Queries at once, then every `intervalMs` from each query's start, until the task ends: succeeds
   * with the last update after `succeeded`; fails with `VideoTaskFailed` after `failed`, with
   * `TimeoutError` (phase `poll`) after `timeoutMs`, or with a query's own error. No stream, one
   * shared driver for all the gateway's polls; but each call is run by a fiber of the caller's and
   * has its span, a cost in memory per task (measured in bench/poll.bench.ts): for thousands of
   * tasks use `waitAll` (far less a task) or `follow`.
   */
  readonly wait: (
    taskId: string,
    options?: WaitOptions
  ) => Effect.Effect<VideoPollUpdate, VideoWaitError | InvalidRequest>
  /**
   * `wait` for many tasks with one fiber: each task's outcome in input order (its last update, or
   * its typed error: `VideoTaskFailed`, `TimeoutError`, a query's error). `onQuery` sees every answer
   * of every task. Fails at once (`InvalidRequest`) on bad settings. Interrupting it stops every poll.
   */
  readonly waitAll: (
    taskIds: ReadonlyArray<string>,
    options?: WaitOptions
  ) => Effect.Effect<ReadonlyArray<Result.Result<VideoPollUpdate, VideoWaitError | InvalidRequest>>, InvalidRequest>
  /**
   * Starts `wait` without a fiber of its own (how umg/rx follows thousands of tasks in a few hundred
   * bytes each): succeeds at once with the function that stops the poll; `onEnd` gets the outcome.
   */
  readonly follow: (
    taskId: string,
    options: WaitOptions,
    onEnd: (exit: Exit.Exit<VideoPollUpdate, VideoWaitError | InvalidRequest>) => void
  ) => Effect.Effect<() => void, InvalidRequest>
  /**
   * `wait` as a stream of the task at each status change, each once; ends after `succeeded`; after
   * `failed` it emits that status and then fails with `VideoTaskFailed`.
   */
  readonly poll: (
    taskId: string,
    options?: PollOptions
  ) => Stream.Stream<VideoQueryResponse, VideoWaitError | InvalidRequest>
  /** Submit, poll to the end, and download when the family is alpha. */
  readonly generate: (
    input: VideoInput,
    options?: GenerateOptions
  ) => Effect.Effect<GeneratedVideo, VideoWaitError | InvalidRequest>
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
        new InvalidRequest({
          field: "task_id",
          rule: "path-segment",
          message: "task_id: not a task id (empty, `.`, `..` or holding a slash); it must be one path segment"
        })
      )
    : Effect.succeed(segment)
}

/** The checked poll settings (`checkPollSettings` is the core's pure rule). */
const pollSettings = (options: PollOptions, minIntervalMs: number) =>
  Effect.fromResult(checkPollSettings(options, minIntervalMs))

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): VideoGroup => {
  const check = (input: VideoInput) => buildVideoBody(input, { allowUnknownModels: ctx.config.allowUnknownModels })

  const submit = Effect.fnUntraced(function* (input: VideoInput) {
    const body = yield* check(input)
    const answer = yield* ctx.transport.json({
      ...GroupContext.post(ctx, "video", "/v1/video/generations", body),
      kind: "paid-submit"
    })
    return yield* Effect.fromResult(decodeSubmit(answer.body))
  })

  const get = Effect.fnUntraced(function* (taskId: string) {
    const segment = yield* taskSegment(taskId)
    const answer = yield* ctx.transport.json({
      family: "video",
      method: "GET",
      url: ctx.gatewayUrl(`/v1/video/generations/${segment}`),
      auth: ctx.apiAuth,
      kind: "idempotent"
    })
    return yield* Effect.fromResult(decodeQuery(answer.body))
  })

  const download = Effect.fnUntraced(function* (taskId: string) {
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

  // One poller per gateway: every poll of this gateway shares its driver and its bound on queries in flight.
  const poller = VideoPoller.make()

  const wait = (
    taskId: string,
    options: WaitOptions = {}
  ): Effect.Effect<VideoPollUpdate, VideoWaitError | InvalidRequest> =>
    Effect.flatMap(pollSettings(options, ctx.config.minPollIntervalMs), ({ intervalMs, timeoutMs }) =>
      poller.watch({
        query: get(taskId),
        intervalMs,
        timeoutMs,
        taskId,
        ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery })
      })
    )

  const follow = (
    taskId: string,
    options: WaitOptions,
    onEnd: (exit: Exit.Exit<VideoPollUpdate, VideoWaitError | InvalidRequest>) => void
  ): Effect.Effect<() => void, InvalidRequest> =>
    Effect.flatMap(pollSettings(options, ctx.config.minPollIntervalMs), ({ intervalMs, timeoutMs }) =>
      Effect.map(Effect.context<never>(), (services) =>
        poller.start<VideoQueryResponse, VideoWaitError | InvalidRequest>(
          services,
          {
            query: get(taskId),
            intervalMs,
            timeoutMs,
            taskId,
            ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery })
          },
          onEnd
        )
      )
    )

  const waitAll = (taskIds: ReadonlyArray<string>, options: WaitOptions = {}) =>
    Effect.flatMap(pollSettings(options, ctx.config.minPollIntervalMs), ({ intervalMs, timeoutMs }) =>
      Effect.flatMap(Effect.context<never>(), (services) =>
        Effect.callback<ReadonlyArray<Result.Result<VideoPollUpdate, VideoWaitError | InvalidRequest>>>((resume) => {
          const results = new Array<Result.Result<VideoPollUpdate, VideoWaitError | InvalidRequest>>(taskIds.length)
          let left = taskIds.length
          if (left === 0) return resume(Effect.succeed(results))
          const stops: Array<() => void> = []
          const stopAll = () => {
            for (const stop of stops) stop()
          }
          taskIds.forEach((taskId, i) => {
            stops.push(
              poller.start<VideoQueryResponse, VideoWaitError | InvalidRequest>(
                services,
                {
                  query: get(taskId),
                  intervalMs,
                  timeoutMs,
                  taskId,
                  ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery })
                },
                (exit: Exit.Exit<VideoPollUpdate, VideoWaitError | InvalidRequest>) => {
                  if (Exit.isSuccess(exit)) results[i] = Result.succeed(exit.value)
                  else {
                    const failure = Cause.findErrorOption(exit.cause)
                    // A defect (an `onQuery` that threw) ends the whole wait, as it would a single one.
                    if (Option.isNone(failure)) {
                      left = -1
                      stopAll()
                      return resume(Effect.failCause(exit.cause as Cause.Cause<never>))
                    }
                    results[i] = Result.fail(failure.value)
                  }
                  if (--left === 0) resume(Effect.succeed(results))
                }
              )
            )
          })
          return Effect.sync(stopAll)
        })
      )
    )

  const poll = (
    taskId: string,
    options: PollOptions = {}
  ): Stream.Stream<VideoQueryResponse, VideoWaitError | InvalidRequest> =>
    // The wait runs in the stream's scope; its failure fails the queue after the statuses offered.
    Stream.callback<VideoQueryResponse, VideoWaitError | InvalidRequest>((queue) =>
      Effect.andThen(
        wait(taskId, {
          ...options,
          onQuery: (update, changed) => (changed ? void Queue.offerUnsafe(queue, update.task) : undefined)
        }),
        Queue.end(queue)
      )
    )

  const generate = Effect.fnUntraced(function* (input: VideoInput, options: GenerateOptions = {}) {
    const submitted = yield* submit(input)
    options.onSubmitted?.(submitted)
    const { task } = yield* wait(submitted.task_id, options)
    if (videoFamilyOf(input.model) === "alpha") {
      const video = yield* download(task.task_id)
      return { task, download: video } satisfies GeneratedVideo
    }
    return { task, ...(task.url !== undefined ? { url: task.url } : {}) } satisfies GeneratedVideo
  })

  return { check, submit, get, download, wait, waitAll, follow, poll, generate }
}
