/**
 * The video task store and state machine. A task's state is a pure function of its submit time and
 * the clock, computed when asked, so holding many live tasks costs one small record each and no timers.
 */
import { randomBytes } from "node:crypto"
import type { EmulatorContext } from "../server/Context.js"
import type { VideoFamily } from "./VideoRules.js"

/** States a query reports (`submitted` is only the submit response's status). */
export type VideoStatus = "queued" | "in_progress" | "succeeded" | "failed"

/** One submitted task, as stored. */
export interface VideoTask {
  readonly id: string
  /** The key that created it: tasks are visible to that key only. */
  readonly key: string
  readonly model: string
  readonly family: VideoFamily
  readonly createdAt: number
  /** Decided at submit time by the content rule, revealed when processing ends. */
  readonly rejected: boolean
}

/**
 * The content rule: a prompt containing one of these words (case-insensitive, whole word) fails
 * its task as inappropriate content once processing ends.
 */
export const REJECTED_WORDS: ReadonlyArray<string> = ["inappropriate", "violence", "violent"]

// One regex for all words, compiled once (queries run it 10,000s of times in the bench).
const REJECTED = new RegExp(`(?:^|[^\\p{L}])(?:${REJECTED_WORDS.join("|")})(?:$|[^\\p{L}])`, "iu")

/** The integer `error.code` of a task failed by the content rule. */
export const CONTENT_REJECTED_CODE = 1301
/** The `error.message` of a task failed by the content rule. */
export const CONTENT_REJECTED_MESSAGE = "The prompt was rejected as inappropriate content by the content safety check."

/** Does the content rule reject `prompt`? */
export const violatesContentRule = (prompt: string): boolean => REJECTED.test(prompt)

/**
 * Tasks kept per emulator. Retention is "not shown" in the contract; beyond this many the oldest are
 * forgotten (a query then answers 404), which bounds memory however long the emulator runs.
 */
export const MAX_TASKS = 200_000

/** The tasks of one emulator, with their lazily computed state. */
export class VideoTaskStore {
  private readonly tasks = new Map<string, VideoTask>()
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly maxTasks: number = MAX_TASKS
  ) {}

  /** Creates a task at the current clock time. */
  submit(key: string, model: string, family: VideoFamily, prompt: string): VideoTask {
    // Random ids, so a task URL served without auth (the MP4 file) cannot be guessed.
    const task: VideoTask = {
      id: `video_${randomBytes(12).toString("hex")}`,
      key,
      model,
      family,
      createdAt: this.ctx.clock.now(),
      rejected: violatesContentRule(prompt)
    }
    this.tasks.set(task.id, task)
    if (this.tasks.size > this.maxTasks) {
      const oldest = this.tasks.keys().next()
      if (oldest.done !== true) this.tasks.delete(oldest.value)
    }
    return task
  }

  /** The task with `id`, if it exists and belongs to `key` (any key when `key` is undefined). */
  find(id: string, key: string | undefined): VideoTask | undefined {
    const task = this.tasks.get(id)
    return task !== undefined && (key === undefined || task.key === key) ? task : undefined
  }

  /** The task's state now: queued for `queuedMs`, in progress for `inProgressMs`, then finished. */
  status(task: VideoTask): VideoStatus {
    const { queuedMs, inProgressMs } = this.ctx.options.video
    const elapsed = this.ctx.clock.now() - task.createdAt
    if (elapsed < queuedMs) return "queued"
    if (elapsed < queuedMs + inProgressMs) return "in_progress"
    return task.rejected ? "failed" : "succeeded"
  }

  /** How many tasks are held. */
  get size(): number {
    return this.tasks.size
  }
}

const stores = new WeakMap<EmulatorContext, VideoTaskStore>()

/** The task store of an emulator (one per context, created on first use). */
export const taskStoreOf = (ctx: EmulatorContext): VideoTaskStore => {
  let store = stores.get(ctx)
  if (store === undefined) {
    store = new VideoTaskStore(ctx)
    stores.set(ctx, store)
  }
  return store
}
