/**
 * A slot: one of a batch's `concurrency` workflows, each with at most one submit in flight. A slot
 * claims the next pending line, submits it and records its task id as one uninterruptible step (so
 * Ctrl-C waits for an answer instead of leaving a line whose fate is unknown), hands the task to
 * its tracker (the runner's follower polls it on the shared poller and records its end) and claims
 * again, as long as the runner has room to follow one more task. It ends once no line is pending
 * (or the batch is cancelled or halted) and every task it handed over is recorded. A submit the
 * gateway refuses for the whole key or account (401, 403, 402, out of quota) proves nothing was made:
 * its line goes back to `pending` and the batch halts, so no other line is sent to the same refusal
 * (a task's poll so refused halts it too, its line left `running`: see `Follower`).
 *
 * The durable steps are the journal's rows, not workflow activities: polling is idempotent, so a
 * slot re-run after a crash (or on another runner, when the runner holding its shard died) only
 * turns the `submitting` line it claimed itself (same slot number, same round) into `unknown` and
 * follows its `running` ones again. Slots are
 * `effect/workflow` workflows run by `effect/cluster`, which restarts them after a crash and moves
 * them when a runner dies (its shard leases expire).
 */
import {
  Cause,
  Clock,
  Deferred,
  Duration,
  Effect,
  Exit,
  Layer,
  Option,
  Random,
  References,
  Schedule,
  Schema
} from "effect"
import { ClusterSchema, Sharding } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { Workflow } from "effect/workflow"
import { hostname } from "node:os"
import { Gateway } from "../adapters/Gateway.js"
import { errorAnswerOf } from "../adapters/CallOptions.js"
import type { VideoInput } from "../adapters/groups/Video.js"
import * as RetryPolicy from "../core/gateway/RetryPolicy.js"
import { Admission } from "./Admission.js"
import { type BatchStoreError, type HaltReason, haltReasonOf } from "./BatchError.js"
import { describeCause, Follower, track } from "./Follower.js"
import { Journal } from "./Journal.js"
import * as Store from "./Store.js"

export { followBudget } from "./Follower.js"
export { haltReasonOf } from "./BatchError.js"

/** This process, as recorded on the lines it claims. */
const runnerName = `${hostname()}:${process.pid}`

/** The workflow of one slot of one round of a batch. @category workflows */
export const SlotWorkflow = Workflow.make("umg/batch/slot", {
  payload: { batchId: Schema.String, round: Schema.Number, slot: Schema.Number },
  success: Schema.Void,
  idempotencyKey: ({ batchId, round, slot }) => `${batchId}/${round}/${slot}`
})

/**
 * The budget of a submit refused before the gateway acted (connection refused, 429) under the one
 * retry rule (`RetryPolicy`): its line is given back and waited for, 1 s doubling to 30 s (or the
 * wait the gateway asked, up to 60 s), as often as it takes.
 * @category models
 */
export const submitBudget: RetryPolicy.RetryBudget = {
  maxRetries: Infinity,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000
}

/**
 * What becomes of a line whose submit failed: given back to `pending` after a wait (the failure
 * proves nothing was sent or charged), given back with the batch halted (the gateway refused the key
 * or account: nothing was made, and every other submit would be refused alike), `unknown` (the
 * gateway may have made a task: never resent unless asked) or `failed`.
 * @category models
 */
export type SubmitOutcome =
  | { readonly _tag: "GiveBack"; readonly waitMs: number }
  | { readonly _tag: "Halt"; readonly reason: HaltReason }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Failed" }

/**
 * The outcome of a submit that failed with `error` after `waits` give-backs in a row: a refusal of
 * the key or account halts the batch (`haltReasonOf`); otherwise the transport's own retry rule
 * (`RetryPolicy.decideError` for a paid submit, `submitBudget`, with the answer's headers when it
 * had some: `x-should-retry`), read as a line state.
 * @category decisions
 */
export const submitOutcome = (
  error: RetryPolicy.ErrorLike,
  waits: number,
  random: number,
  now: number
): SubmitOutcome => {
  const reason = haltReasonOf(error)
  if (reason !== undefined) return { _tag: "Halt", reason }
  const decision = RetryPolicy.decideError({
    error,
    headers: errorAnswerOf(error)?.headers,
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

const modelOf = (input: string): string => {
  const parsed = JSON.parse(input) as { model?: unknown }
  return typeof parsed.model === "string" ? parsed.model : ""
}

type Step =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Stopping" }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Wait"; readonly ms: number }
  | { readonly _tag: "Running"; readonly line: number; readonly taskId: string; readonly model: string }

/** A store write that failed is tried again a few times before the slot gives up (and is run again). */
const persist = <A>(effect: Effect.Effect<A, BatchStoreError>) =>
  effect.pipe(Effect.retry({ times: 5, schedule: Schedule.exponential(Duration.millis(100)) }))

/**
 * A task id the gateway gave is written down whatever it takes: tried again for about ten minutes
 * (a database failing over, a disk full for a while), and should the store still refuse it, the id is
 * logged before the slot fails, so that it is never lost unseen.
 */
const persistTaskId = <A>(
  effect: Effect.Effect<A, BatchStoreError>,
  batchId: string,
  line: number,
  taskId: string
): Effect.Effect<A, BatchStoreError> =>
  effect.pipe(
    Effect.retry({
      times: 120,
      schedule: Schedule.min([Schedule.exponential(Duration.millis(100)), Schedule.spaced(Duration.seconds(5))])
    }),
    Effect.tapError((e) =>
      Effect.logError(
        `batch ${batchId} line ${line}: the gateway made task ${taskId}, which could not be recorded (${e.message}); the line will be reported unknown`
      )
    )
  )

// Lines of this process claimed for a submit whose answer is not recorded yet.
let inFlight = 0

/**
 * The submits of this process in flight: lines claimed whose answer is not recorded yet. A runner
 * shutting down (Ctrl-C) waits for them (see `submitNext`).
 * @category getters
 */
export const submitsInFlight = (): number => inFlight

/**
 * Claim, submit, record — one step that is never interrupted halfway, so that after Ctrl-C every
 * line is either still `pending` or has its answer recorded. Nothing is claimed once `stopping`, nor
 * once the batch's round is not this slot's any more. The gateway's answer is recorded against the
 * claim, whatever became of the line meanwhile (see `Store.startedOp`).
 */
const submitNext = (
  batchId: string,
  by: Store.Claimer,
  stopping: Effect.Effect<boolean>,
  waits: number
): Effect.Effect<Step, BatchStoreError, Gateway | Journal> => {
  let counted = false
  return Effect.uninterruptible(
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const journal = yield* Journal
      if (yield* stopping) return { _tag: "Stopping" } as const
      const claimed = yield* journal.run("claiming a line", Store.claimOp(batchId, by, 1))
      const first = claimed[0]
      if (first === undefined) return { _tag: "Done" } as const
      counted = true
      inFlight++
      const { line, input, claim } = first
      const sent = yield* Effect.exit(gateway.video.submit(JSON.parse(input) as VideoInput))
      if (Exit.isSuccess(sent)) {
        const taskId = sent.value.task_id
        const recorded = yield* persistTaskId(
          journal.run("recording a task id", Store.startedOp(batchId, line, claim, taskId)),
          batchId,
          line,
          taskId
        )
        if (recorded) return { _tag: "Running", line, taskId, model: modelOf(input) } as const
        // Claimed again since: this claim was given up for dead and its `unknown` resubmitted on request.
        yield* Effect.logWarning(
          `batch ${batchId} line ${line}: the gateway made task ${taskId} for a submit given up for dead, after the line was resubmitted; that task is not followed`
        )
        return { _tag: "Ended" } as const
      }
      const failure = Cause.findErrorOption(sent.cause)
      const next: SubmitOutcome = Option.isSome(failure)
        ? submitOutcome(failure.value, waits, yield* Random.next, yield* Clock.currentTimeMillis)
        : { _tag: "Failed" }
      if (next._tag === "GiveBack") {
        yield* persist(journal.run("releasing a line", Store.releaseOp(batchId, line, claim)))
        return { _tag: "Wait", ms: next.waitMs } as const
      }
      if (next._tag === "Halt" && Option.isSome(failure)) {
        const e: RetryPolicy.ErrorLike & { readonly message: string } = failure.value
        const halt: Store.Halt = {
          line,
          step: "submit",
          reason: next.reason,
          status: e.status ?? null,
          type: e.type ?? null,
          message: `${e._tag}: ${e.message}`.slice(0, 500)
        }
        yield* persist(journal.run("halting the batch", Store.haltOp(batchId, line, claim, by.round, halt)))
        return { _tag: "Ended" } as const
      }
      const outcome =
        Option.isSome(failure) && next._tag === "Unknown"
          ? ({
              state: "unknown",
              error: `the gateway may have made a task: ${`${failure.value._tag}: ${failure.value.message}`.slice(0, 500)}`
            } as const)
          : ({ state: "failed", error: describeCause(sent.cause) } as const)
      yield* persist(journal.run("recording a result", Store.submitEndedOp(batchId, line, claim, outcome)))
      return { _tag: "Ended" } as const
    }).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          if (counted) inFlight--
        })
      )
    )
  )
}

// How long a slot that found no pending line waits before looking again while the input is being stored.
const ingestWaitMs = 200
// How often a slot whose tasks a halt stopped following looks whether the batch is run again.
const haltWaitMs = 1_000

/**
 * Runs one slot of round `round` until no line of the batch is pending and every task it submitted
 * is recorded. It first takes over what its own earlier run left (same slot, same round: that run
 * stopped); a slot of a round that is over claims nothing and ends once it has followed its tasks
 * (the newer round's slots claim the rest). Once `stopping` answers true (the runner shuts down) it
 * claims nothing more and waits to be interrupted. A slot whose tasks' polls the gateway refused for
 * the key or account (the batch halted, those lines `running`) does not end: it waits for the batch to
 * be run again, then follows them again.
 * @category workflows
 */
export const runSlot = (
  batchId: string,
  slot: number,
  round: number,
  stopping: Effect.Effect<boolean> = Effect.succeed(false)
): Effect.Effect<void, BatchStoreError, Gateway | SqlClient.SqlClient | Journal | Follower> =>
  Effect.scoped(
    Effect.gen(function* () {
      const journal = yield* Journal
      const follower = yield* Follower
      const batch = yield* Effect.orDie(Store.get(batchId))
      const by: Store.Claimer = { slot, round, runner: runnerName }
      const tracker = yield* track(batch)
      yield* journal.run("reopening a slot", Store.openSlotOp(batchId, slot, round))
      const followRunning = Effect.gen(function* () {
        for (const running of yield* Store.runningOf(batchId, slot, round)) {
          yield* follower.reserve
          yield* tracker.follow(running.line, running.taskId, modelOf(running.input))
        }
      })
      yield* followRunning
      // Lines given back in a row: the retry number of the policy's doubling back-off.
      let waits = 0
      for (;;) {
        // Room to follow one more task first; a running line's room passes to the tracker.
        const step = yield* Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            yield* restore(follower.reserve)
            const step = yield* Effect.onError(submitNext(batchId, by, stopping, waits), () => follower.unreserve)
            if (step._tag === "Running") yield* tracker.follow(step.line, step.taskId, step.model)
            else yield* follower.unreserve
            return step
          })
        )
        if (step._tag === "Running") {
          waits = 0
          continue
        }
        // Not done: the slot must not complete, or its workflow would end with lines still pending.
        if (step._tag === "Stopping") return yield* Effect.never
        if (step._tag === "Wait") {
          // The gateway could not be reached or asked to slow down: nothing was sent; back off.
          waits++
          yield* Effect.sleep(Duration.millis(step.ms))
          continue
        }
        if (step._tag === "Ended") {
          waits = 0
          continue
        }
        // No line to claim: this slot's round is over, the batch is cancelled or halted, or no line is
        // pending now — more may come while the input is being stored.
        const { ingest, cancelled, halt } = yield* Store.status(batchId)
        const more = !ingest.complete && ingest.refused === null && !cancelled && halt === null
        if (more && (yield* Effect.orDie(Store.get(batchId))).round === round) {
          yield* Effect.sleep(Duration.millis(ingestWaitMs))
          continue
        }
        yield* tracker.idle
        if (tracker.halted().size === 0) return
        // Tasks whose poll the gateway refused for the key or account stay `running`: the slot waits,
        // touching nothing, until the batch is run again (its halt cleared), then follows them again.
        yield* Effect.repeat(Store.status(batchId), {
          until: (s) => s.halt === null,
          schedule: Schedule.spaced(Duration.millis(haltWaitMs))
        })
        tracker.refollowed((yield* Effect.orDie(Store.get(batchId))).round)
        yield* followRunning
      }
    })
  )

// The runners' shutdown watches: one per runner, awaited by all its slots.
const shutdownWatches = new WeakMap<Sharding.Sharding["Service"], Deferred.Deferred<void>>()

/**
 * Completes once this process's cluster runner begins to shut down (Ctrl-C, the scope closing). One
 * fiber per runner looks every 100 ms (the cluster tells no one); every slot waits on what it finds,
 * rather than each of a batch's hundreds of slots looking ten times a second. The fiber is detached:
 * it outlives the slot that started it, and ends once the runner shuts down.
 */
const shutdownStarted = (sharding: Sharding.Sharding["Service"]): Effect.Effect<void> =>
  Effect.suspend(() => {
    const known = shutdownWatches.get(sharding)
    if (known !== undefined) return Deferred.await(known)
    const watch = Deferred.makeUnsafe<void>()
    shutdownWatches.set(sharding, watch)
    const looking = Effect.repeat(sharding.isShutdown, {
      until: (stopped) => stopped,
      schedule: Schedule.spaced(Duration.millis(100))
    })
    return Effect.andThen(
      Effect.forkDetach(Effect.andThen(looking, Deferred.succeed(watch, undefined))),
      Deferred.await(watch)
    )
  })

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

// The slot workflow's handler (see `layer`).
const handler = ({ batchId, round, slot }: (typeof SlotWorkflow.payloadSchema)["Type"]) =>
  Effect.gen(function* () {
    const sharding = yield* Sharding.Sharding
    const admission = yield* Admission
    const run = runSlot(batchId, slot, round, sharding.isShutdown).pipe(
      Effect.tapError((e) => Effect.logWarning(`batch ${batchId} slot ${slot}: ${e.message}; trying again`)),
      Effect.retry(Schedule.min([Schedule.exponential(Duration.millis(500)), Schedule.spaced(Duration.seconds(30))])),
      Effect.orDie
    )
    return yield* abandonOnShutdown(sharding, Effect.andThen(admission.admitted(batchId), run))
  })

/**
 * The slot workflow's handler. It first waits until its batch may run in this process (`Admission`:
 * on a SQLite store, a slot re-delivered for a batch nobody asked to run waits, touching nothing).
 * When the runner shuts down, the slot stops at once instead of being waited for: it claims nothing
 * more, and a submit in flight first gets its answer recorded (that step is uninterruptible), so
 * after Ctrl-C no line is left `submitting`; the cluster re-delivers the slot on the next run. A
 * store that fails a statement is tried again with backoff. A slot logs at the level of the process
 * that built this layer, not at the cluster's (see `Batch.layer`: the cluster's bookkeeping is quiet).
 * @category layers
 */
export const layer = Layer.unwrap(
  Effect.map(
    Effect.withFiber((fiber) => Effect.succeed(fiber.getRef(References.MinimumLogLevel))),
    (level) =>
      SlotWorkflow.toLayer((payload) => Effect.provideService(handler(payload), References.MinimumLogLevel, level))
  )
)
