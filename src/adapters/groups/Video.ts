/**
 * The `video` group: submits, queries, downloads and polls video tasks, and `generate` runs a task
 * from submit to result. Submit (E1) is a paid request, never repeated unless the gateway provably did
 * not act; query is E2; download (E3) is alpha only, strictly decoded and checked against `size` and
 * `data_url`; an answer for another task than the one asked (E2 `task_id`, E3 `generation_id`) is a
 * `DecodeError`; `poll` is a stream of status changes every 3–5 s with a timeout.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type { Aborted, RequestError, VideoWaitError } from "../../core/errors/GatewayError.js"
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
import type { CallOptions } from "../CallOptions.js"
import { abortedError, isSignal } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import * as VideoPoller from "../polling/VideoPoller.js"
import { downloadStream } from "./VideoDownloadStream.js"
import { checkDownloadedVideo, checkQueriedTask } from "./VideoTaskId.js"
import type { PollUpdate } from "../polling/VideoPoller.js"
import { redactText } from "../../core/errors/Redact.js"
import { secretsOf } from "../internal/Secrets.js"

/** An E1 request: `model` plus generic, mode and family-native fields (closed; `extra` for fields umg does not know). @category models */
export type VideoInput = VideoRequest

/** Options of `video.poll`. @category models */
export interface PollOptions {
  /**
   * From one query's start to the next: 3000–5000 ms (default 4000); outside that range the poll
   * fails with `InvalidRequest`. Asked for 5000, queries aim 250 ms early (timers only fire late).
   */
  readonly intervalMs?: number | undefined
  /** Gives up with `TimeoutError` (phase `poll`) after this long (default 300 s). */
  readonly timeoutMs?: number | undefined
}

/** One answer of a poll: the task, the queries so far and the time since polling began. @category models */
export type VideoPollUpdate = PollUpdate<VideoQueryResponse>

/** Options of `video.wait`. @category models */
export interface WaitOptions extends PollOptions {
  /** Called after every query (progress lines, UIs); `changed` is true when the status is new. */
  readonly onQuery?: ((update: VideoPollUpdate, changed: boolean) => void) | undefined
}

/** Options of `video.generate`. @category models */
export interface GenerateOptions extends WaitOptions {
  /** Called once the task is submitted, before the first query. */
  readonly onSubmitted?: ((submitted: VideoSubmitResponse) => void) | undefined
}

/** What `video.generate` ends with: the succeeded task, and for alpha the downloaded video. @category models */
export interface GeneratedVideo {
  readonly task: VideoQueryResponse
  /** The URL of a beta or gamma video. */
  readonly url?: string
  /** The alpha video's bytes (E3). */
  readonly download?: VideoDownload
}

/**
 * The `video` calls. Each takes the call's own `CallOptions` last: a wait's queries all carry its
 * headers, time limit (of one query; the wait's own is `timeoutMs` of its poll options) and retries,
 * `onResponse` sees each answer, and its signal aborts the whole wait.
 * @category models
 */
export interface VideoGroup {
  /**
   * Checks an input as `submit` would and returns the family's body, sending nothing: the check a
   * batch runs over every input before the first submit.
   */
  readonly check: (input: VideoInput) => Effect.Effect<VideoBody, InvalidRequest>
  readonly submit: (
    input: VideoInput,
    options?: CallOptions
  ) => Effect.Effect<VideoSubmitResponse, RequestError | InvalidRequest>
  /** E2: the task as it is now; an answer for another task (its `task_id`) is a `DecodeError`. */
  readonly get: (
    taskId: string,
    options?: CallOptions
  ) => Effect.Effect<VideoQueryResponse, RequestError | InvalidRequest>
  /** E3 (alpha): the video, checked; an answer whose `generation_id` is not `taskId` is a `DecodeError`. */
  readonly download: (
    taskId: string,
    options?: CallOptions
  ) => Effect.Effect<VideoDownload, RequestError | InvalidRequest>
  /**
   * `download` as a stream of the video's bytes, decoded as the answer arrives (memory bounded by a
   * chunk, not the video), with the same checks as `download`; a bad answer fails the stream.
   */
  readonly downloadStream: (
    taskId: string,
    options?: CallOptions
  ) => Stream.Stream<Uint8Array, RequestError | InvalidRequest>
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
    options?: WaitOptions,
    callOptions?: CallOptions
  ) => Effect.Effect<VideoPollUpdate, VideoWaitError | InvalidRequest>
  /**
   * `wait` for many tasks with one fiber: each task's outcome in input order (its last update, or
   * its typed error: `VideoTaskFailed`, `TimeoutError`, a query's error). `onQuery` sees every answer
   * of every task. Fails at once (`InvalidRequest`) on bad settings. Interrupting it stops every poll.
   */
  readonly waitAll: (
    taskIds: ReadonlyArray<string>,
    options?: WaitOptions,
    callOptions?: CallOptions
  ) => Effect.Effect<ReadonlyArray<Result.Result<VideoPollUpdate, VideoWaitError | InvalidRequest>>, InvalidRequest>
  /**
   * Starts `wait` without a fiber of its own (how umg/rx follows thousands of tasks in a few hundred
   * bytes each): succeeds at once with the function that stops the poll; `onEnd` gets the outcome
   * (`Aborted` when the call's signal aborts).
   */
  readonly follow: (
    taskId: string,
    options: WaitOptions,
    onEnd: (exit: Exit.Exit<VideoPollUpdate, VideoWaitError | InvalidRequest>) => void,
    callOptions?: CallOptions
  ) => Effect.Effect<() => void, InvalidRequest>
  /**
   * `wait` as a stream of the task at each status change, each once; ends after `succeeded`; after
   * `failed` it emits that status and then fails with `VideoTaskFailed`.
   */
  readonly poll: (
    taskId: string,
    options?: PollOptions,
    callOptions?: CallOptions
  ) => Stream.Stream<VideoQueryResponse, VideoWaitError | InvalidRequest>
  /** Submit, poll to the end, and download when the family is alpha. */
  readonly generate: (
    input: VideoInput,
    options?: GenerateOptions,
    callOptions?: CallOptions
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

/**
 * Work registered with the poller (`start` gives the function that stops it) under a call's signal:
 * when the signal aborts, the work is stopped and `onEnd` gets `Aborted` — at once, nothing started,
 * when it already has. (A signal of the wrong kind is left to the queries' options check.)
 */
const onSignal = <A, E>(
  signal: AbortSignal | undefined,
  onEnd: (exit: Exit.Exit<A, E | Aborted>) => void,
  start: (end: (exit: Exit.Exit<A, E | Aborted>) => void) => () => void
): (() => void) => {
  if (signal === undefined || !isSignal(signal)) return start(onEnd)
  if (signal.aborted) {
    onEnd(Exit.fail(abortedError("video")))
    return () => {}
  }
  // `onEnd` once, whichever comes first; `started`: the work's stop, once `start` has returned.
  let ended = false
  let started: (() => void) | undefined
  const end = (exit: Exit.Exit<A, E | Aborted>) => {
    if (ended) return
    ended = true
    signal.removeEventListener("abort", abort)
    onEnd(exit)
  }
  const abort = () => {
    started?.()
    end(Exit.fail(abortedError("video")))
  }
  signal.addEventListener("abort", abort, { once: true })
  const stop = start(end)
  started = stop
  return () => {
    signal.removeEventListener("abort", abort)
    stop()
  }
}

/** `waitAll` with its settings checked: one registration per task; the signal stops them all, each ending with `Aborted`. */
const waitAllWith = (
  poller: VideoPoller.Poller,
  get: (taskId: string, options?: CallOptions) => Effect.Effect<VideoQueryResponse, RequestError | InvalidRequest>,
  taskIds: ReadonlyArray<string>,
  options: WaitOptions,
  callOptions: CallOptions | undefined,
  intervalMs: number,
  timeoutMs: number
) =>
  Effect.flatMap(Effect.context<never>(), (services) =>
    Effect.callback<ReadonlyArray<Result.Result<VideoPollUpdate, VideoWaitError | InvalidRequest>>>((resume) => {
      const results = new Array<Result.Result<VideoPollUpdate, VideoWaitError | InvalidRequest>>(taskIds.length)
      let left = taskIds.length
      if (left === 0) return resume(Effect.succeed(results))
      const stops: Array<() => void> = []
      const stopAll = () => {
        for (const stop of stops) stop()
      }
      const query = GroupContext.perRequest(callOptions)
      taskIds.forEach((taskId, i) => {
        const onEnd = (exit: Exit.Exit<VideoPollUpdate, VideoWaitError | InvalidRequest>) => {
          if (left < 0) return
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
        stops.push(
          onSignal(callOptions?.signal, onEnd, (end) =>
            poller.start<VideoQueryResponse, VideoWaitError | InvalidRequest>(
              services,
              {
                query: get(taskId, query),
                intervalMs,
                timeoutMs,
                taskId,
                ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery })
              },
              end
            )
          )
        )
      })
      return Effect.sync(stopAll)
    })
  )

/** The group's single requests: check (nothing sent), submit (E1), query (E2), download (E3). */
const requestsOf = (ctx: GroupContext.GroupContext) => {
  const check = (input: VideoInput) => buildVideoBody(input, { allowUnknownModels: ctx.config.allowUnknownModels })

  const submit = Effect.fnUntraced(function* (input: VideoInput, options?: CallOptions) {
    const body = yield* check(input)
    const answer = yield* ctx.transport.json({
      ...GroupContext.post(ctx, "video", "/v1/video/generations", body, options),
      kind: "paid-submit"
    })
    return yield* Effect.fromResult(decodeSubmit(answer.body))
  })

  const get = Effect.fnUntraced(function* (taskId: string, options?: CallOptions) {
    const segment = yield* taskSegment(taskId)
    const answer = yield* ctx.transport.json({
      family: "video",
      method: "GET",
      url: ctx.gatewayUrl(`/v1/video/generations/${segment}`),
      auth: ctx.apiAuth,
      kind: "idempotent",
      options
    })
    const task = yield* Effect.fromResult(decodeQuery(answer.body))
    yield* checkQueriedTask(taskId, task.task_id)
    // A failed task's message is the gateway's text, which becomes a `VideoTaskFailed`: no secret in it.
    const error = task.error
    if (error === undefined) return task
    const message = redactText(error.message, [...secretsOf(ctx.config), ...Object.values(options?.headers ?? {})])
    return message === error.message ? task : { ...task, error: { ...error, message } }
  })

  const download = Effect.fnUntraced(function* (taskId: string, options?: CallOptions) {
    const segment = yield* taskSegment(taskId)
    const answer = yield* ctx.transport.json({
      family: "video",
      method: "GET",
      url: ctx.gatewayUrl(`/v1/video/generations/download?id=${segment}`),
      auth: ctx.apiAuth,
      kind: "idempotent",
      options,
      // The E3 answer carries the whole video as base64 (4/3 of its size, twice: base64 and data_url).
      maxBytes: ctx.config.limits.maxDownloadBytes
    })
    const video = yield* decodeVideoDownload(answer.body)
    yield* checkDownloadedVideo(taskId, video.generationId)
    return video
  })

  return {
    check,
    submit,
    get,
    download,
    downloadStream: (taskId: string, options?: CallOptions) => downloadStream(ctx, taskId, options)
  }
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): VideoGroup => {
  const { check, submit, get, download, downloadStream: downloadStreamOf } = requestsOf(ctx)

  // One poller per gateway: every poll of this gateway shares its driver and its bound on queries in
  // flight, and ends with the gateway's layer.
  const poller = VideoPoller.make()
  ctx.onClose(poller.close)

  const wait = (
    taskId: string,
    options: WaitOptions = {},
    callOptions?: CallOptions
  ): Effect.Effect<VideoPollUpdate, VideoWaitError | InvalidRequest> =>
    Effect.flatMap(pollSettings(options, ctx.config.minPollIntervalMs), ({ intervalMs, timeoutMs }) =>
      GroupContext.abortable(
        "video",
        callOptions,
        poller.watch({
          query: get(taskId, GroupContext.perRequest(callOptions)),
          intervalMs,
          timeoutMs,
          taskId,
          ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery })
        })
      )
    )

  const follow = (
    taskId: string,
    options: WaitOptions,
    onEnd: (exit: Exit.Exit<VideoPollUpdate, VideoWaitError | InvalidRequest>) => void,
    callOptions?: CallOptions
  ): Effect.Effect<() => void, InvalidRequest> =>
    Effect.flatMap(pollSettings(options, ctx.config.minPollIntervalMs), ({ intervalMs, timeoutMs }) =>
      Effect.map(Effect.context<never>(), (services) =>
        onSignal(callOptions?.signal, onEnd, (end) =>
          poller.start<VideoQueryResponse, VideoWaitError | InvalidRequest>(
            services,
            {
              query: get(taskId, GroupContext.perRequest(callOptions)),
              intervalMs,
              timeoutMs,
              taskId,
              ...(options.onQuery === undefined ? {} : { onQuery: options.onQuery })
            },
            end
          )
        )
      )
    )

  const waitAll = (taskIds: ReadonlyArray<string>, options: WaitOptions = {}, callOptions?: CallOptions) =>
    Effect.flatMap(pollSettings(options, ctx.config.minPollIntervalMs), ({ intervalMs, timeoutMs }) =>
      waitAllWith(poller, get, taskIds, options, callOptions, intervalMs, timeoutMs)
    )

  const poll = (
    taskId: string,
    options: PollOptions = {},
    callOptions?: CallOptions
  ): Stream.Stream<VideoQueryResponse, VideoWaitError | InvalidRequest> =>
    // The wait runs in the stream's scope; its failure fails the queue after the statuses offered.
    Stream.callback<VideoQueryResponse, VideoWaitError | InvalidRequest>((queue) =>
      Effect.andThen(
        wait(
          taskId,
          {
            ...options,
            onQuery: (update, changed) => (changed ? void Queue.offerUnsafe(queue, update.task) : undefined)
          },
          callOptions
        ),
        Queue.end(queue)
      )
    )

  const generateOf = Effect.fnUntraced(function* (
    input: VideoInput,
    options: GenerateOptions,
    callOptions: CallOptions | undefined
  ) {
    const submitted = yield* submit(input, callOptions)
    options.onSubmitted?.(submitted)
    const { task } = yield* wait(submitted.task_id, options, callOptions)
    if (videoFamilyOf(input.model) === "alpha") {
      const video = yield* download(task.task_id, callOptions)
      return { task, download: video } satisfies GeneratedVideo
    }
    return { task, ...(task.url !== undefined ? { url: task.url } : {}) } satisfies GeneratedVideo
  })

  const generate = (input: VideoInput, options: GenerateOptions = {}, callOptions?: CallOptions) =>
    GroupContext.abortable("video", callOptions, generateOf(input, options, GroupContext.perRequest(callOptions)))

  return { check, submit, get, download, downloadStream: downloadStreamOf, wait, waitAll, follow, poll, generate }
}
