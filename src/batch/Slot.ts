/**
 * A slot: one of a batch's `concurrency` workflows, each with at most one line in flight. A slot
 * claims the next pending line, submits it and records its task id as one uninterruptible step
 * (so Ctrl-C waits for an answer instead of leaving a line whose fate is unknown), follows the task
 * with the gateway's shared poller, records the end, and claims again until no line is pending.
 *
 * The durable steps are the store's rows, not workflow activities: polling is idempotent, so a slot
 * re-run after a crash (or on another runner) only turns its own `submitting` line into `unknown`
 * and resumes following its `running` one. Slots are @effect/workflow workflows run by
 * @effect/cluster, which restarts them after a crash and moves them when a runner dies.
 */
import * as Sharding from "@effect/cluster/Sharding"
import { SqlClient } from "@effect/sql"
import * as Workflow from "@effect/workflow/Workflow"
import { Cause, Duration, Effect, Exit, Option, Schedule, Schema } from "effect"
import { hostname } from "node:os"
import { join } from "node:path"
import { Gateway } from "../adapters/Gateway.js"
import type { VideoInput } from "../adapters/groups/Video.js"
import type { RequestError } from "../core/errors/GatewayError.js"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { errorProvesNotActed } from "../core/gateway/RetryPolicy.js"
import { videoFamilyOf } from "../core/video/VideoCatalog.js"
import { writeAtomically } from "./AtomicFile.js"
import type { BatchStoreError } from "./BatchError.js"
import * as Store from "./Store.js"

/** This process, as recorded on the lines it claims. */
const runnerName = `${hostname()}:${process.pid}`

/** The workflow of one slot of one round of a batch. @category workflows */
export const SlotWorkflow = Workflow.make({
  name: "umg/batch/slot",
  payload: { batchId: Schema.String, round: Schema.Number, slot: Schema.Number },
  success: Schema.Void,
  idempotencyKey: ({ batchId, round, slot }) => `${batchId}/${round}/${slot}`
})

/** How slots follow tasks. @category models */
export interface SlotSettings {
  /** From one query's start to the next (3000–5000 ms, or the gateway's `minPollIntervalMs` for emulators). */
  readonly intervalMs?: number
  /** How long one task may run before its line fails (default 1 hour). */
  readonly taskTimeoutMs: number
}

/** What `video.submit` can fail with. */
type SubmitFailure = RequestError | InvalidRequest

/** A submit failure that proves nothing was sent or charged (the transport's own rule): the line goes back to `pending`. */
const notSent = (e: SubmitFailure): boolean => errorProvesNotActed(e)

/** A submit failure after which the gateway may have made a task: the line becomes `unknown`. */
const maybeSent = (e: SubmitFailure): boolean => e._tag === "TransportError" || e._tag === "TimeoutError" || e._tag === "DecodeError"

const describe = (e: { readonly _tag: string; readonly message?: string }): string => `${e._tag}: ${e.message ?? ""}`.slice(0, 500)

const describeCause = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => `defect: ${String(Cause.squash(cause)).slice(0, 300)}`,
    onSome: (e) => describe(e as { _tag: string; message?: string })
  })

const modelOf = (input: string): string => {
  const parsed = JSON.parse(input) as { model?: unknown }
  return typeof parsed.model === "string" ? parsed.model : ""
}

// Transient failures while following a task (the gateway briefly unreachable): tried again this often.
const followRetries = 5

/** Follows a running line's task to its end and records it. */
const follow = (
  batch: Store.BatchRecord,
  line: number,
  taskId: string,
  model: string,
  settings: SlotSettings
): Effect.Effect<void, BatchStoreError, Gateway | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    const waited = yield* Effect.exit(
      gateway.video
        .wait(taskId, { timeoutMs: settings.taskTimeoutMs, ...(settings.intervalMs === undefined ? {} : { intervalMs: settings.intervalMs }) })
        .pipe(
          Effect.retry({
            times: followRetries,
            schedule: Schedule.exponential(Duration.seconds(1)),
            while: (e) => e._tag === "TransportError" || e._tag === "ServerError" || e._tag === "RateLimited" || (e._tag === "TimeoutError" && e.phase !== "poll")
          })
        )
    )
    if (Exit.isFailure(waited)) {
      if (Cause.isInterruptedOnly(waited.cause)) return yield* Effect.interrupt
      const failure = Cause.failureOption(waited.cause)
      const error =
        Option.isSome(failure) && failure.value._tag === "VideoTaskFailed"
          ? `the task failed (code ${failure.value.code}): ${failure.value.message}`.slice(0, 500)
          : describeCause(waited.cause)
      return yield* Store.finish(batch.id, line, { state: "failed", error })
    }
    const task = waited.value.task
    if (videoFamilyOf(model) === "alpha") {
      const file = join(batch.dir, `line-${line}-${taskId}.mp4`)
      const saved = yield* Effect.exit(
        Effect.flatMap(gateway.video.download(taskId).pipe(Effect.retry({ times: followRetries, schedule: Schedule.exponential(Duration.seconds(1)) })), (video) =>
          writeAtomically(file, video.bytes)
        )
      )
      if (Exit.isFailure(saved)) {
        if (Cause.isInterruptedOnly(saved.cause)) return yield* Effect.interrupt
        return yield* Store.finish(batch.id, line, { state: "failed", error: `the task succeeded but its video was not saved: ${describeCause(saved.cause)}` })
      }
      return yield* Store.finish(batch.id, line, { state: "succeeded", file })
    }
    return yield* Store.finish(batch.id, line, { state: "succeeded", ...(task.url !== undefined ? { url: task.url } : {}) })
  })

type Step =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Wait"; readonly ms: number }
  | { readonly _tag: "Running"; readonly line: number; readonly taskId: string; readonly model: string }

/**
 * Claim, submit, record — one step that is never interrupted halfway, so that after Ctrl-C every
 * line is either still `pending` or has its answer recorded.
 */
const submitNext = (batchId: string, slot: number): Effect.Effect<Step, BatchStoreError, Gateway | SqlClient.SqlClient> =>
  Effect.uninterruptible(
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const claimed = yield* Store.claim(batchId, slot, runnerName)
      if (Option.isNone(claimed)) return { _tag: "Done" } as const
      const { line, input } = claimed.value
      const sent = yield* Effect.exit(gateway.video.submit(JSON.parse(input) as VideoInput))
      if (Exit.isSuccess(sent)) {
        yield* Store.started(batchId, line, sent.value.task_id).pipe(Effect.retry({ times: 5, schedule: Schedule.exponential(Duration.millis(100)) }))
        return { _tag: "Running", line, taskId: sent.value.task_id, model: modelOf(input) } as const
      }
      const failure = Cause.failureOption(sent.cause)
      if (Option.isSome(failure) && notSent(failure.value)) {
        yield* Store.release(batchId, line)
        const retryAfter = failure.value._tag === "RateLimited" ? (failure.value.retryAfterMs ?? 0) : 0
        return { _tag: "Wait", ms: Math.max(retryAfter, 1_000) } as const
      }
      const outcome: Store.Outcome =
        Option.isSome(failure) && maybeSent(failure.value)
          ? { state: "unknown", error: `the gateway may have made a task: ${describe(failure.value)}` }
          : { state: "failed", error: describeCause(sent.cause) }
      yield* Store.finish(batchId, line, outcome)
      return { _tag: "Ended" } as const
    })
  )

/** Runs one slot until no line of the batch is pending and its own line has ended. @category workflows */
export const runSlot = (
  batchId: string,
  slot: number,
  settings: SlotSettings
): Effect.Effect<void, BatchStoreError, Gateway | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const batch = yield* Effect.orDie(Store.get(batchId))
    for (const running of yield* Store.openSlot(batchId, slot)) yield* follow(batch, running.line, running.taskId, modelOf(running.input), settings)
    let waitMs = 0
    for (;;) {
      const step = yield* submitNext(batchId, slot)
      if (step._tag === "Done") return
      if (step._tag === "Wait") {
        // The gateway could not be reached or asked to slow down: nothing was sent; back off.
        waitMs = Math.min(Math.max(step.ms, waitMs * 2), 30_000)
        yield* Effect.sleep(Duration.millis(waitMs))
        continue
      }
      waitMs = 0
      if (step._tag === "Running") yield* follow(batch, step.line, step.taskId, step.model, settings)
    }
  })

/** Completes once this process's cluster runner begins to shut down (Ctrl-C, the scope closing). */
const shutdownStarted = Effect.flatMap(Sharding.Sharding, (sharding) =>
  Effect.repeat(sharding.isShutdown, { until: (stopped) => stopped, schedule: Schedule.spaced(Duration.millis(100)) })
)

/**
 * The slot workflow's handler. When the runner shuts down, the slot stops at once instead of being
 * waited for: it claims nothing more, and a submit in flight first gets its answer recorded (that
 * step is uninterruptible), so after Ctrl-C no line is left `submitting`; the cluster re-delivers
 * the slot on the next run. A store that fails a statement is tried again with backoff.
 * @category layers
 */
export const layer = (settings: SlotSettings) =>
  SlotWorkflow.toLayer(({ batchId, slot }) =>
    Effect.raceFirst(Effect.interruptible(runSlot(batchId, slot, settings)), Effect.zipRight(shutdownStarted, Effect.interrupt)).pipe(
      Effect.tapError((e) => Effect.logWarning(`batch ${batchId} slot ${slot}: ${e.message}; trying again`)),
      Effect.retry(Schedule.exponential(Duration.millis(500)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(30))))),
      Effect.orDie
    )
  )
