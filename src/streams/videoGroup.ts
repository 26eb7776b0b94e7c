/** The `video` group of `umg/rx`: submit, query, download, the shared-timer poll loop, and `generate$` with progress a UI can bind to. */
import { Effect } from "effect"
import { concat, defer, map, mergeMap, type Observable, of, tap } from "rxjs"
import type { GatewayService } from "../adapters/Gateway.js"
import type { GeneratedVideo, VideoInput } from "../adapters/groups/Video.js"
import { videoFamilyOf } from "../core/video/VideoCatalog.js"
import type { VideoDownload, VideoQueryResponse, VideoSubmitResponse } from "../core/video/VideoTask.js"
import { pollTask$, type PollTaskOptions } from "./pollTask.js"
import { progressOf, type VideoProgress } from "./videoProgress.js"

/** Options of `poll$` and `generate$` (`intervalMs` 3000–5000, default 5000; `timeoutMs` default 300 s). @category models */
export type VideoPollOptions = Omit<PollTaskOptions, "minIntervalMs">

/**
 * What `generate$` emits: `submitted` once, a `progress` per status change, then `done` with the
 * result (for alpha, the downloaded video).
 * @category models
 */
export type VideoGenerateEvent =
  | { readonly type: "submitted"; readonly taskId: string }
  | ({ readonly type: "progress" } & VideoProgress)
  | { readonly type: "done"; readonly taskId: string; readonly result: GeneratedVideo }

/** The `video` calls of `umg/rx`. @category models */
export interface RxVideoGroup {
  readonly submit$: (input: VideoInput) => Observable<VideoSubmitResponse>
  readonly get$: (taskId: string) => Observable<VideoQueryResponse>
  readonly download$: (taskId: string) => Observable<VideoDownload>
  /** Each status change once; completes after `succeeded`, errors with `VideoTaskFailed` after `failed`. */
  readonly poll$: (taskId: string, options?: VideoPollOptions) => Observable<VideoQueryResponse>
  /** Submit, poll (with progress) and, for alpha, download. */
  readonly generate$: (input: VideoInput, options?: VideoPollOptions) => Observable<VideoGenerateEvent>
}

/** Builds the group over a runner of gateway effects; `minIntervalMs` is the config's `minPollIntervalMs`. @category constructors */
export const makeVideoGroup = (
  call: <A, E>(f: (g: GatewayService) => Effect.Effect<A, E>) => Observable<A>,
  minIntervalMs: number
): RxVideoGroup => {
  const get$ = (taskId: string) => call((g) => g.video.get(taskId))
  const download$ = (taskId: string) => call((g) => g.video.download(taskId))
  const updates = (taskId: string, options: VideoPollOptions = {}) => pollTask$(() => get$(taskId), { ...options, minIntervalMs })
  return {
    submit$: (input) => call((g) => g.video.submit(input)),
    get$,
    download$,
    poll$: (taskId, options) => updates(taskId, options).pipe(map((u) => u.task)),
    generate$: (input, options) =>
      call((g) => g.video.submit(input)).pipe(
        mergeMap((submitted) => {
          const taskId = submitted.task_id
          let last: VideoQueryResponse | undefined
          const finish = defer((): Observable<VideoGenerateEvent> => {
            const task = last!
            if (videoFamilyOf(input.model) === "alpha") {
              return download$(taskId).pipe(map((download) => ({ type: "done" as const, taskId, result: { task, download } })))
            }
            return of({ type: "done" as const, taskId, result: { task, ...(task.url === undefined ? {} : { url: task.url }) } })
          })
          return concat(
            of({ type: "submitted" as const, taskId }),
            updates(taskId, options).pipe(
              tap((u) => (last = u.task)),
              map((u): VideoGenerateEvent => ({ type: "progress", ...progressOf(u) }))
            ),
            finish
          )
        })
      )
  }
}
