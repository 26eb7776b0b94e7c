/**
 * A slot: one of a batch's `concurrency` workflows, each with at most one line in flight. A slot
 * claims the next pending line, submits it and records its task id as one uninterruptible step
 * (so Ctrl-C waits for an answer instead of leaving a line whose fate is unknown), follows the task
 * with the gateway's shared poller, records the end, and claims again until no line is pending.
 *
 * The durable steps are the store's rows, not workflow activities: polling is idempotent, so a slot
 * re-run after a crash (or on another runner) only turns its own `submitting` line into `unknown`
 * and resumes following its `running` one. Slots are `effect/workflow` workflows run by
 * `effect/cluster`, which restarts them after a crash and moves them when a runner dies.
 */
import { Cause, Clock, Duration, Effect, Exit, Option, Random, Schedule, Schema } from "effect"
import { ClusterSchema, Sharding } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { Workflow } from "effect/workflow"
import { hostname } from "node:os"
import { join } from "node:path"
import { Gateway } from "../adapters/Gateway.js"
import type { VideoInput } from "../adapters/groups/Video.js"
import * as RetryPolicy from "../core/gateway/RetryPolicy.js"
import { videoFamilyOf } from "../core/video/VideoCatalog.js"
import { writeAtomically } from "./AtomicFile.js"
import type { BatchStoreError } from "./BatchError.js"
import * as Store from "./Store.js"

/** This process, as recorded on the lines it claims. */
const runnerName = `${hostname()}:${process.pid}`

/** The workflow of one slot of one round of a batch. @category workflows */
export const SlotWorkflow = Workflow.make("umg/batch/slot", {
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

/**
 * The budgets of the one retry rule (`RetryPolicy`) here. A submit refused before the gateway acted
 * (connection refused, 429) gives its line back and waits 1 s doubling to 30 s (or the wait the
 * gateway asked, up to 60 s), as often as it takes; following a task or downloading its video is
 * tried again five times, on the same transient failures as every gateway request.
 */
/** @category models */
export const submitBudget: RetryPolicy.RetryBudget = {
  maxRetries: Infinity,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000
}
/** @see submitBudget @category models */
export const followBudget: RetryPolicy.RetryBudget = {
  maxRetries: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000
}

/**
 * What becomes of a line whose submit failed: given back to `pending` after a wait (the failure
 * proves nothing was sent or charged), `unknown` (the gateway may have made a task: never resent
 * unless asked) or `failed`.
 * @category models
 */
export type SubmitOutcome =
  { readonly _tag: "GiveBack"; readonly waitMs: number } | { readonly _tag: "Unknown" } | { readonly _tag: "Failed" }

/**
 * The outcome of a submit that failed with `error` after `waits` give-backs in a row: the transport's
 * own retry rule (`RetryPolicy.decideError` for a paid submit, `submitBudget`), read as a line state.
 * @category decisions
 */
export const submitOutcome = (
  error: RetryPolicy.ErrorLike,
  waits: number,
  random: number,
  now: number
): SubmitOutcome => {
  const decision = RetryPolicy.decideError({
    error,
    attempt: waits,
    kind: "paid-submit",
    budget: submitBudget,
    random,
    now
  })
  return decision._tag === "Retry"
    ? { _tag: "GiveBack", waitMs: decision.delayMs }
    : decision.reason === "may-have-acted"
      ? { _tag: "Unknown" }
      : { _tag: "Failed" }
}

const describe = (e: { readonly _tag: string; readonly message?: string }): string =>
  `${e._tag}: ${e.message ?? ""}`.slice(0, 500)

const describeCause = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.findErrorOption(cause), {
    onNone: () => `defect: ${String(Cause.squash(cause)).slice(0, 300)}`,
    onSome: (e) => describe(e as { _tag: string; message?: string })
  })

const modelOf = (input: string): string => {
  const parsed = JSON.parse(input) as { model?: unknown }
  return typeof parsed.model === "string" ? parsed.model : ""
}

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
        .wait(taskId, {
          timeoutMs: settings.taskTimeoutMs,
          ...(settings.intervalMs === undefined ? {} : { intervalMs: settings.intervalMs })
        })
        .pipe((waiting) => RetryPolicy.retrying(waiting, { kind: "idempotent", budget: followBudget }))
    )
    if (Exit.isFailure(waited)) {
      if (Cause.hasInterruptsOnly(waited.cause)) return yield* Effect.interrupt
      const failure = Cause.findErrorOption(waited.cause)
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
        Effect.flatMap(
          RetryPolicy.retrying(gateway.video.download(taskId), { kind: "idempotent", budget: followBudget }),
          (video) => writeAtomically(file, video.bytes)
        )
      )
      if (Exit.isFailure(saved)) {
        if (Cause.hasInterruptsOnly(saved.cause)) return yield* Effect.interrupt
        return yield* Store.finish(batch.id, line, {
          state: "failed",
          error: `the task succeeded but its video was not saved: ${describeCause(saved.cause)}`
        })
      }
      return yield* Store.finish(batch.id, line, { state: "succeeded", file })
    }
    return yield* Store.finish(batch.id, line, {
      state: "succeeded",
      ...(task.url !== undefined ? { url: task.url } : {})
    })
  })

type Step =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Stopping" }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Wait"; readonly ms: number }
  | { readonly _tag: "Running"; readonly line: number; readonly taskId: string; readonly model: string }

/**
 * Claim, submit, record — one step that is never interrupted halfway, so that after Ctrl-C every
 * line is either still `pending` or has its answer recorded. Nothing is claimed once `stopping`.
 */
const submitNext = (
  batchId: string,
  slot: number,
  stopping: Effect.Effect<boolean>,
  waits: number
): Effect.Effect<Step, BatchStoreError, Gateway | SqlClient.SqlClient> =>
  Effect.uninterruptible(
    Effect.gen(function* () {
      const gateway = yield* Gateway
      if (yield* stopping) return { _tag: "Stopping" } as const
      const claimed = yield* Store.claim(batchId, slot, runnerName)
      if (Option.isNone(claimed)) return { _tag: "Done" } as const
      const { line, input } = claimed.value
      const sent = yield* Effect.exit(gateway.video.submit(JSON.parse(input) as VideoInput))
      if (Exit.isSuccess(sent)) {
        yield* Store.started(batchId, line, sent.value.task_id).pipe(
          Effect.retry({ times: 5, schedule: Schedule.exponential(Duration.millis(100)) })
        )
        return { _tag: "Running", line, taskId: sent.value.task_id, model: modelOf(input) } as const
      }
      const failure = Cause.findErrorOption(sent.cause)
      const next: SubmitOutcome = Option.isSome(failure)
        ? submitOutcome(failure.value, waits, yield* Random.next, yield* Clock.currentTimeMillis)
        : { _tag: "Failed" }
      if (next._tag === "GiveBack") {
        yield* Store.release(batchId, line)
        return { _tag: "Wait", ms: next.waitMs } as const
      }
      const outcome: Store.Outcome =
        Option.isSome(failure) && next._tag === "Unknown"
          ? { state: "unknown", error: `the gateway may have made a task: ${describe(failure.value)}` }
          : { state: "failed", error: describeCause(sent.cause) }
      yield* Store.finish(batchId, line, outcome)
      return { _tag: "Ended" } as const
    })
  )

/**
 * Runs one slot until no line of the batch is pending and its own line has ended. Once `stopping`
 * answers true (the runner shuts down) it claims nothing more and waits to be interrupted.
 * @category workflows
 */
export const runSlot = (
  batchId: string,
  slot: number,
  settings: SlotSettings,
  stopping: Effect.Effect<boolean> = Effect.succeed(false)
): Effect.Effect<void, BatchStoreError, Gateway | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const batch = yield* Effect.orDie(Store.get(batchId))
    for (const running of yield* Store.openSlot(batchId, slot))
      yield* follow(batch, running.line, running.taskId, modelOf(running.input), settings)
    // Lines given back in a row: the retry number of the policy's doubling back-off.
    let waits = 0
    for (;;) {
      const step = yield* submitNext(batchId, slot, stopping, waits)
      if (step._tag === "Done") return
      // Not done: the slot must not complete, or its workflow would end with lines still pending.
      if (step._tag === "Stopping") return yield* Effect.never
      if (step._tag === "Wait") {
        // The gateway could not be reached or asked to slow down: nothing was sent; back off.
        waits++
        yield* Effect.sleep(Duration.millis(step.ms))
        continue
      }
      waits = 0
      if (step._tag === "Running") yield* follow(batch, step.line, step.taskId, step.model, settings)
    }
  })

/** Completes once this process's cluster runner begins to shut down (Ctrl-C, the scope closing). */
const shutdownStarted = (sharding: Sharding.Sharding["Service"]) =>
  Effect.repeat(sharding.isShutdown, { until: (stopped) => stopped, schedule: Schedule.spaced(Duration.millis(100)) })

/**
 * Interrupts the fiber running `effect` once the runner shuts down, as the cluster abandons a run
 * it can no longer serve: the slot's workflow gets no result and is run again on the next start
 * (or by another runner). A plain interrupt would be stored as the workflow's end.
 */
const abandonOnShutdown = <A, E, R>(
  sharding: Sharding.Sharding["Service"],
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) =>
    Effect.raceFirst(
      effect,
      Effect.andThen(
        shutdownStarted(sharding),
        Effect.suspend(() => {
          fiber.interruptUnsafe(fiber.id, ClusterSchema.Abandon.annotation)
          return Effect.never
        })
      )
    )
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
    Effect.gen(function* () {
      const sharding = yield* Sharding.Sharding
      return yield* abandonOnShutdown(sharding, runSlot(batchId, slot, settings, sharding.isShutdown)).pipe(
        Effect.tapError((e) => Effect.logWarning(`batch ${batchId} slot ${slot}: ${e.message}; trying again`)),
        Effect.retry(Schedule.min([Schedule.exponential(Duration.millis(500)), Schedule.spaced(Duration.seconds(30))])),
        Effect.orDie
      )
    })
  )
