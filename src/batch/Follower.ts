/**
 * How a runner follows its batches' running tasks: all of them on the gateway's shared poller
 * (`video.follow`: no fiber per task), up to a bound per runner (`maxFollowed`). A slot hands each
 * task it submitted to its `Tracker` and goes on submitting; when a task ends, a short fiber records
 * it (an alpha video is first downloaded to its file, a few at a time per runner) and gives its
 * room back. A query that fails transiently is followed again after the one retry rule's wait; one the
 * gateway refuses for the key or account (`haltReasonOf`) halts the batch with the line still `running`.
 */
import {
  Cause,
  Clock,
  Context,
  Duration,
  Effect,
  Exit,
  FiberSet,
  Layer,
  Option,
  Random,
  Schedule,
  Semaphore
} from "effect"
import type { Scope } from "effect"
import { join } from "node:path"
import { errorAnswerOf } from "../adapters/CallOptions.js"
import { Gateway } from "../adapters/Gateway.js"
import type { VideoPollUpdate } from "../adapters/groups/Video.js"
import type { VideoWaitError } from "../core/errors/GatewayError.js"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import * as RetryPolicy from "../core/gateway/RetryPolicy.js"
import { videoFamilyOf } from "../core/video/VideoCatalog.js"
import { writeAtomically } from "./AtomicFile.js"
import { haltReasonOf } from "./BatchError.js"
import { Journal } from "./Journal.js"
import { defaultMaxFollowed } from "./Settings.js"
import * as Store from "./Store.js"

/** The runner's bounds. @category models */
export interface FollowerOptions {
  /** Tasks this runner follows at once, over all its batches and slots (default 10,000). */
  readonly maxFollowed?: number
  /** Alpha videos downloaded at once by this runner (default 8). */
  readonly maxDownloads?: number
  /** From one query's start to the next (3000–5000 ms, or the gateway's `minPollIntervalMs` for emulators). */
  readonly intervalMs?: number
  /** How long one task may run before its line fails (default 1 hour). */
  readonly taskTimeoutMs?: number
}

/** The runner's follower. @category models */
export interface FollowerService {
  readonly maxFollowed: number
  readonly intervalMs: number | undefined
  readonly taskTimeoutMs: number
  /** Waits for room to follow one more task. */
  readonly reserve: Effect.Effect<void>
  /** Gives room back (a reserved task that was not followed). */
  readonly unreserve: Effect.Effect<void>
  /** Runs an alpha download under the runner's bound. */
  readonly downloading: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Tasks followed now (reserved room included). */
  readonly followed: () => number
}

/** The follower's tag. @category tags */
export class Follower extends Context.Service<Follower, FollowerService>()("umg/batch/Follower") {}

/** Default bound of the tasks one runner follows. @category constants */
export { defaultMaxFollowed }

/** The follower of this runner. @category layers */
export const layer = (options: FollowerOptions = {}): Layer.Layer<Follower> =>
  Layer.sync(Follower, () => {
    const maxFollowed = Math.max(1, Math.floor(options.maxFollowed ?? defaultMaxFollowed))
    const room = Semaphore.makeUnsafe(maxFollowed)
    const downloads = Semaphore.makeUnsafe(Math.max(1, Math.floor(options.maxDownloads ?? 8)))
    let taken = 0
    return Follower.of({
      maxFollowed,
      intervalMs: options.intervalMs,
      taskTimeoutMs: options.taskTimeoutMs ?? 3_600_000,
      reserve: Effect.map(room.take(1), () => void taken++),
      unreserve: Effect.suspend(() => {
        taken--
        return Effect.asVoid(room.release(1))
      }),
      downloading: downloads.withPermit,
      followed: () => taken
    })
  })

/** The retry budget of following a task and downloading its video: five tries on transient failures. @category models */
export const followBudget: RetryPolicy.RetryBudget = {
  maxRetries: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000
}

const describe = (e: { readonly _tag: string; readonly message?: string }): string =>
  `${e._tag}: ${e.message ?? ""}`.slice(0, 500)

/** A cause as one line for a line's `error`. @category getters */
export const describeCause = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.findErrorOption(cause), {
    onNone: () => `defect: ${String(Cause.squash(cause)).slice(0, 300)}`,
    onSome: (e) => describe(e as { _tag: string; message?: string })
  })

/** The tasks one slot follows. @category models */
export interface Tracker {
  /** Follows the task of a running line; the room for it was reserved (`Follower.reserve`). */
  readonly follow: (line: number, taskId: string, model: string) => Effect.Effect<void>
  /** Completes once no task of this tracker is followed or being recorded. */
  readonly idle: Effect.Effect<void>
  /** Tasks followed or being recorded. */
  readonly size: () => number
  /**
   * The lines this tracker stopped following because the gateway refused their poll or download for
   * the key or account (the batch is halted; they stay `running`), until `refollowed`.
   */
  readonly halted: () => ReadonlySet<number>
  /**
   * Forgets the halted lines (they are followed again) in the batch's round `round` (it was run again):
   * a refusal of a poll begun from now on halts that round.
   */
  readonly refollowed: (round: number) => void
}

type FollowExit = Exit.Exit<VideoPollUpdate, VideoWaitError | InvalidRequest>

/**
 * A journal write tried until it is recorded (or the slot stops), a warning logged at each failure:
 * the error is never seen.
 */
const untilRecorded = <A, E extends { readonly message: string }, R>(
  batchId: string,
  line: number,
  write: Effect.Effect<A, E, R>
): Effect.Effect<A, never, R> =>
  write.pipe(
    Effect.tapError((e) => Effect.logWarning(`batch ${batchId} line ${line}: ${e.message}; trying again`)),
    Effect.retry(Schedule.min([Schedule.exponential(Duration.millis(200)), Schedule.spaced(Duration.seconds(30))])),
    Effect.orDie
  )

// A poll or download refused for the key or account: the halt of the batch, the line left `running`.
const refusal = (line: number, cause: Cause.Cause<RetryPolicy.ErrorLike & { readonly message?: string }>) => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isNone(failure)) return undefined
  const reason = haltReasonOf(failure.value)
  if (reason === undefined) return undefined
  const e = failure.value
  return {
    state: "halted",
    halt: {
      line,
      step: "poll",
      reason,
      status: e.status ?? null,
      type: e.type ?? null,
      message: describe(e)
    }
  } as const
}

/**
 * An alpha task's video streamed into `dir` (memory bounded by a chunk, not the video) under the
 * runner's download bound: the line's outcome, a halt when the download is refused for the key.
 */
const saved = (
  gateway: Context.Service.Shape<typeof Gateway>,
  follower: FollowerService,
  dir: string,
  line: number,
  taskId: string
) =>
  Effect.gen(function* () {
    const file = join(dir, `line-${line}-${taskId}.mp4`)
    const write: Effect.Effect<void, RetryPolicy.ErrorLike> = writeAtomically(
      file,
      gateway.video.downloadStream(taskId)
    )
    const exit = yield* Effect.exit(
      follower.downloading(
        RetryPolicy.retrying(write, {
          kind: "idempotent",
          budget: followBudget,
          headersOf: (error) => errorAnswerOf(error)?.headers
        })
      )
    )
    if (Exit.isSuccess(exit)) return { state: "succeeded", file } satisfies Store.Outcome
    if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
    const refused = refusal(line, exit.cause)
    if (refused !== undefined) return refused
    return {
      state: "failed",
      error: `the task succeeded but its video was not saved: ${describeCause(exit.cause)}`
    } satisfies Store.Outcome
  })

/**
 * A tracker for one slot's run. When its scope closes (the slot stops: Ctrl-C, a runner shutting
 * down, its shard moving) it stops its polls and interrupts its recording fibers; their lines stay
 * `running` in the journal, to be followed by the slot's next run.
 * @category constructors
 */
export const track = (
  batch: Store.BatchRecord
): Effect.Effect<Tracker, never, Gateway | Journal | Follower | Scope.Scope> =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    const journal = yield* Journal
    const follower = yield* Follower
    // Ended polls are recorded on fibers of this runtime, with the services of the tracker's scope.
    const runFork = yield* FiberSet.makeRuntime<never>()
    // Lines followed or being recorded, each with the stop of its poll (a no-op once the poll ended).
    const active = new Map<number, { stop: () => void }>()
    const halted = new Set<number>()
    // The batch's round its polls begin in: a refusal halts that round only (see `Store.haltPollOp`).
    let pollRound = batch.round
    let wakeIdle: (() => void) | undefined

    const done = (line: number) =>
      Effect.suspend(() => {
        if (!active.delete(line)) return Effect.void
        if (active.size === 0) wakeIdle?.()
        return follower.unreserve
      })

    const record = (line: number, outcome: Store.Outcome) =>
      untilRecorded(
        batch.id,
        line,
        journal.run("recording a result", Store.finishOp(batch.id, line, "running", outcome))
      )

    // The batch halted: the line is not recorded (it stays `running`) and its room is given back.
    const halt = (line: number, h: Store.Halt) =>
      untilRecorded(batch.id, line, journal.run("halting the batch", Store.haltPollOp(batch.id, pollRound, h))).pipe(
        Effect.andThen(
          Effect.suspend(() => {
            if (active.has(line)) halted.add(line)
            return done(line)
          })
        )
      )

    // What becomes of a poll that ended: recorded, or followed again after a transient failure.
    const ended = (line: number, taskId: string, model: string, attempt: number, deadline: number, exit: FollowExit) =>
      Effect.gen(function* () {
        if (Exit.isSuccess(exit)) {
          const task = exit.value.task
          const outcome =
            videoFamilyOf(model) === "alpha"
              ? yield* saved(gateway, follower, batch.dir, line, taskId)
              : ({ state: "succeeded", ...(task.url !== undefined ? { url: task.url } : {}) } as const)
          if (outcome.state === "halted") return yield* halt(line, outcome.halt)
          return yield* Effect.andThen(record(line, outcome), done(line))
        }
        if (Cause.hasInterruptsOnly(exit.cause)) return yield* done(line)
        const refused = refusal(line, exit.cause)
        if (refused !== undefined) return yield* halt(line, refused.halt)
        const failure = Cause.findErrorOption(exit.cause)
        if (Option.isSome(failure) && failure.value._tag !== "VideoTaskFailed") {
          const decision = RetryPolicy.decideError({
            error: failure.value,
            headers: errorAnswerOf(failure.value)?.headers,
            attempt,
            kind: "idempotent",
            budget: followBudget,
            random: yield* Random.next,
            now: yield* Clock.currentTimeMillis
          })
          if (decision._tag === "Retry") {
            yield* Effect.sleep(Duration.millis(decision.delayMs))
            return yield* start(line, taskId, model, attempt + 1, deadline)
          }
        }
        const error =
          Option.isSome(failure) && failure.value._tag === "VideoTaskFailed"
            ? `the task failed (code ${failure.value.code}): ${failure.value.message}`.slice(0, 500)
            : describeCause(exit.cause)
        return yield* Effect.andThen(record(line, { state: "failed", error }), done(line))
      })

    const start = (
      line: number,
      taskId: string,
      model: string,
      attempt: number,
      deadline: number
    ): Effect.Effect<void> =>
      Effect.gen(function* () {
        const entry = active.get(line)
        if (entry === undefined) return
        const now = yield* Clock.currentTimeMillis
        const stop = yield* Effect.result(
          gateway.video.follow(
            taskId,
            {
              timeoutMs: Math.max(1, deadline - now),
              ...(follower.intervalMs === undefined ? {} : { intervalMs: follower.intervalMs })
            },
            (exit) => {
              entry.stop = () => {}
              runFork(ended(line, taskId, model, attempt, deadline, exit))
            }
          )
        )
        if (stop._tag === "Success") entry.stop = stop.success
        else yield* Effect.andThen(record(line, { state: "failed", error: describe(stop.failure) }), done(line))
      })

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        const lines = [...active.values()]
        active.clear()
        for (const entry of lines) entry.stop()
        return Effect.forEach(lines, () => follower.unreserve, { discard: true })
      })
    )

    return {
      follow: (line, taskId, model) =>
        Effect.suspend(() => {
          active.set(line, { stop: () => {} })
          return Effect.flatMap(Clock.currentTimeMillis, (now) =>
            start(line, taskId, model, 0, now + follower.taskTimeoutMs)
          )
        }),
      idle: Effect.callback<void>((resume) => {
        if (active.size === 0) return resume(Effect.void)
        wakeIdle = () => {
          wakeIdle = undefined
          resume(Effect.void)
        }
        return Effect.sync(() => {
          wakeIdle = undefined
        })
      }),
      size: () => active.size,
      halted: () => halted,
      refollowed: (round) => {
        halted.clear()
        pollRound = round
      }
    } satisfies Tracker
  })
