/** `videoProgress()`: poll updates as the flat record a progress bar or status line binds to. */
import { map, type OperatorFunction } from "rxjs"
import type { PollableTask, PollUpdate } from "./pollTask.js"

/** What a UI shows of a polling task. @category models */
export interface VideoProgress {
  readonly taskId: string
  readonly status: string
  /** Milliseconds since polling began. */
  readonly elapsedMs: number
  /** Queries made so far. */
  readonly polls: number
  /** True once the status is `succeeded` or `failed`. */
  readonly done: boolean
}

/** The progress record of one update. @category getters */
export const progressOf = <T extends PollableTask>(update: PollUpdate<T>): VideoProgress => ({
  taskId: update.task.task_id,
  status: update.task.status,
  elapsedMs: update.elapsedMs,
  polls: update.polls,
  done: update.task.status === "succeeded" || update.task.status === "failed"
})

/**
 * Maps `pollTask$` updates to `VideoProgress` records (one per status change); errors pass through.
 * @category operators
 */
export const videoProgress = <T extends PollableTask>(): OperatorFunction<PollUpdate<T>, VideoProgress> =>
  map(progressOf)
