/** The `video` group of `umg/rx`: submit, query, download (whole or streamed), `poll$` and `generate$` (with progress a UI can bind to) as projections of the Effect `video` group. */
import type { Exit } from "effect"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { CallOptions } from "../adapters/CallOptions.js"
import type { GatewayService } from "../adapters/Gateway.js"
import type { GeneratedVideo, PollOptions, VideoInput } from "../adapters/groups/Video.js"
import type { VideoDownload, VideoQueryResponse, VideoSubmitResponse } from "../core/video/VideoTask.js"
import type { RequestError, VideoWaitError } from "../core/errors/GatewayError.js"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import type { GatewayDisposed } from "./GatewayDisposed.js"
import type { TypedObservable } from "./TypedObservable.js"
import { progressOf, type VideoProgress } from "./videoProgress.js"

/** Options of `poll$` and `generate$` (`intervalMs` 3000–5000, default 4000; `timeoutMs` default 300 s). @category models */
export type VideoPollOptions = PollOptions

/**
 * What `generate$` emits: `submitted` once, a `progress` per status change, then `done` with the
 * result (for alpha, the downloaded video).
 * @category models
 */
export type VideoGenerateEvent =
  | { readonly type: "submitted"; readonly taskId: string }
  | ({ readonly type: "progress" } & VideoProgress)
  | { readonly type: "done"; readonly taskId: string; readonly result: GeneratedVideo }

/** The `video` calls of `umg/rx`, each erroring with its Effect call's union plus `GatewayDisposed`. @category models */
export interface RxVideoGroup {
  readonly submit$: (
    input: VideoInput,
    options?: CallOptions
  ) => TypedObservable<VideoSubmitResponse, RequestError | InvalidRequest | GatewayDisposed>
  readonly get$: (
    taskId: string,
    options?: CallOptions
  ) => TypedObservable<VideoQueryResponse, RequestError | InvalidRequest | GatewayDisposed>
  readonly download$: (
    taskId: string,
    options?: CallOptions
  ) => TypedObservable<VideoDownload, RequestError | InvalidRequest | GatewayDisposed>
  /**
   * `video.downloadStream`: the video's bytes as they arrive, decoded with the same checks as
   * `download$` (memory bounded by a chunk, not the video); unsubscribing closes the connection.
   */
  readonly downloadStream$: (
    taskId: string,
    options?: CallOptions
  ) => TypedObservable<Uint8Array, RequestError | InvalidRequest | GatewayDisposed>
  /**
   * Each status change once (`video.follow`); completes after `succeeded`, errors with `VideoTaskFailed`
   * after `failed` (with `Aborted` when the call's signal aborts).
   */
  readonly poll$: (
    taskId: string,
    options?: VideoPollOptions,
    callOptions?: CallOptions
  ) => TypedObservable<VideoQueryResponse, VideoWaitError | InvalidRequest | GatewayDisposed>
  /** `video.generate`: submit, poll (with progress) and, for alpha, download. */
  readonly generate$: (
    input: VideoInput,
    options?: VideoPollOptions,
    callOptions?: CallOptions
  ) => TypedObservable<VideoGenerateEvent, VideoWaitError | InvalidRequest | GatewayDisposed>
}

/**
 * Builds the group over three runners of gateway effects: `call` (one value, the effect's result),
 * `emitting` (the values the effect emits as it runs; it completes when the effect succeeds) and
 * `registering` (work the effect registers with a shared driver, stopped on unsubscribe).
 * @category constructors
 */
export const makeVideoGroup = (
  call: <A, E>(f: (g: GatewayService) => Effect.Effect<A, E>) => TypedObservable<A, E | GatewayDisposed>,
  emitting: <A, E>(
    f: (g: GatewayService, emit: (a: A) => void) => Effect.Effect<unknown, E>
  ) => TypedObservable<A, E | GatewayDisposed>,
  registering: <A, B, E>(
    f: (g: GatewayService, emit: (a: A) => void, end: (exit: Exit.Exit<B, E>) => void) => Effect.Effect<() => void, E>
  ) => TypedObservable<A, E | GatewayDisposed>
): RxVideoGroup => ({
  submit$: (input, options) => call((g) => g.video.submit(input, options)),
  get$: (taskId, options) => call((g) => g.video.get(taskId, options)),
  download$: (taskId, options) => call((g) => g.video.download(taskId, options)),
  downloadStream$: (taskId, options) =>
    emitting((g, emit: (chunk: Uint8Array) => void) =>
      Stream.runForEach(g.video.downloadStream(taskId, options), (chunk) => Effect.sync(() => emit(chunk)))
    ),
  // `follow`, not the `poll` stream: no fiber and no stream per poll, so thousands of polls stay small.
  poll$: (taskId, options, callOptions) =>
    registering(
      (
        g,
        emit: (task: VideoQueryResponse) => void,
        end: (exit: Exit.Exit<unknown, VideoWaitError | InvalidRequest>) => void
      ) =>
        g.video.follow(
          taskId,
          { ...options, onQuery: (u, changed) => (changed ? emit(u.task) : undefined) },
          end,
          callOptions
        )
    ),
  generate$: (input, options, callOptions) =>
    emitting((g, emit: (event: VideoGenerateEvent) => void) =>
      Effect.tap(
        g.video.generate(
          input,
          {
            ...options,
            onSubmitted: (s) => emit({ type: "submitted", taskId: s.task_id }),
            onQuery: (u, changed) => (changed ? emit({ type: "progress", ...progressOf(u) }) : undefined)
          },
          callOptions
        ),
        (result) => Effect.sync(() => emit({ type: "done", taskId: result.task.task_id, result }))
      )
    )
})
