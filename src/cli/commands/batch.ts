/**
 * What `umg batch video` and `umg batch worker` do (their flags are in `tree/batch.ts`).
 * `umg batch video FILE` reads the JSON Lines file as a stream (digested first, then checked and
 * stored while the first lines run), runs (or resumes) the batch with a progress bar on stderr and
 * writes one result per line, in line order, as they come (a rerun takes `--concurrency` and `--dir`
 * when given, and keeps the batch's own otherwise; a SQLite process runs only the batch it was asked for);
 * `umg batch worker` runs batches stored in a PostgreSQL database, alongside other workers.
 * `umg batch status` is `batchStatus.ts`, `umg batch cancel` `batchCancel.ts`.
 */
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { writeAtomically } from "../../batch/AtomicFile.js"
import * as Batch from "../../batch/Batch.js"
import { maxFollowedLimit } from "../../batch/Settings.js"
import { submitsInFlight } from "../../batch/Slot.js"
import type { Counts } from "../../batch/Store.js"
import * as Connection from "../support/Connection.js"
import { countsText } from "./batchStatus.js"
import { ensureWritable, isStdout } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** A result as the output line of the command. @category output */
export const resultLine = (r: Batch.BatchResult): string =>
  JSON.stringify({
    line: r.line,
    status: r.status,
    task_id: r.taskId,
    ...(r.url !== undefined ? { url: r.url } : {}),
    ...(r.file !== undefined ? { file: r.file } : {}),
    ...(r.error !== undefined ? { error: r.error } : {})
  })

/** Where a PostgreSQL runner is reached (`--runner-host`, `--runner-port`). @category models */
export interface RunnerOptions {
  readonly runnerHost: Option.Option<string>
  readonly runnerPort: Option.Option<number>
}

const storeConfig = (value: string, o: RunnerOptions): Batch.StoreConfig => {
  const config = Batch.storeOf(value)
  return config._tag === "postgres"
    ? Batch.postgres(config.url, {
        ...Option.match(o.runnerHost, {
          onNone: () => ({}),
          onSome: (runnerHost) => ({ runnerHost, listenHost: runnerHost })
        }),
        ...Option.match(o.runnerPort, { onNone: () => ({}), onSome: (runnerPort) => ({ runnerPort }) })
      })
    : config
}

// Away from a terminal, `Output.progress` writes a line every few seconds and the last at the end.
const showProgress = <E>(progress: Stream.Stream<Counts, E>) =>
  Stream.runForEach(progress, (c) => Output.progress(countsText(c)))

// Results written at once: one chunk of the result stream, at most this many lines.
const linesPerWrite = 1_000

/** `umg batch video` once connected: runs the batch and writes its results as they come. */
const runBatch = (o: BatchVideoOptions, out: Option.Option<string>) =>
  Effect.gen(function* () {
    if (!Number.isInteger(o.maxFollowed) || o.maxFollowed < 1 || o.maxFollowed > maxFollowedLimit)
      return yield* Effect.fail(
        new InvalidRequest({
          field: "--max-followed",
          rule: "range",
          message: `--max-followed: ${o.maxFollowed} is not allowed; a whole number from 1 to ${maxFollowedLimit}`
        })
      )
    // Without --id the batch is named by the digest of its lines (Batch.video's default), so
    // rerunning the same file resumes it.
    const batch = yield* Batch.video({
      ...Option.match(o.id, { onNone: () => ({}), onSome: (id) => ({ id }) }),
      inputs: Batch.jsonLines(o.file),
      ...Option.match(o.concurrency, { onNone: () => ({}), onSome: (concurrency) => ({ concurrency }) }),
      resubmitUnknown: o.resubmitUnknown,
      ...Option.match(o.dir, { onNone: () => ({}), onSome: (dir) => ({ dir }) })
    }).pipe(
      Effect.mapError((e) =>
        e._tag === "BatchInvalidInput" && e.field === "inputs"
          ? new InvalidRequest({
              field: "FILE",
              rule: "non-empty",
              message: "FILE: no input lines (one JSON object per line)"
            })
          : e
      )
    )
    yield* Output.note(
      Output.errColour.dim(
        `batch ${batch.id}: ${batch.total} lines, store ${Batch.describeStore(storeConfig(o.store, o))}`
      )
    )
    const shown = yield* Effect.forkChild(showProgress(batch.progress))
    let total = 0
    let failed = 0
    let cancelled = 0
    const text = batch.resultStream.pipe(
      Stream.rechunk(linesPerWrite),
      Stream.mapArray((results) => {
        total += results.length
        let chunk = ""
        for (const r of results) {
          if (r.status !== "succeeded") failed++
          if (r.status === "cancelled") cancelled++
          chunk += `${resultLine(r)}\n`
        }
        return [chunk]
      })
    )
    const written = Option.isSome(out)
      ? writeAtomically(out.value, Stream.encodeText(text)).pipe(
          Effect.catchTag("FileWriteFailed", (e) =>
            Effect.fail(new InvalidRequest({ field: "--out", rule: "writable", message: `--out: ${e.message}` }))
          )
        )
      : Stream.runForEach(text, Output.writeDrained)
    yield* written.pipe(
      Effect.tapError((e) =>
        e._tag === "BatchInvalidInput" && (e.submitted ?? 0) > 0
          ? Effect.andThen(
              Output.endProgress,
              Output.note(
                `line ${e.line} failed its check after ${e.submitted} lines of batch ${batch.id} were submitted; it and the lines after it were not sent. Fix line ${e.line} and run the same command again: the batch goes on, sending no line twice.`
              )
            )
          : e._tag === "BatchHalted" && (e.reason === "authentication" || e.reason === "permission")
            ? Effect.andThen(
                Output.endProgress,
                Output.note(
                  `UMG_API_KEY was refused: set it to a key that may submit these videos and run the same command again; it goes on, sending no line twice (umg batch status ${batch.id} shows the lines waiting).`
                )
              )
            : Effect.void
      )
    )
    yield* Fiber.join(shown)
    yield* Output.endProgress
    if (failed > 0) {
      const what =
        cancelled === 0 ? "failed or unknown" : `${failed - cancelled} failed or unknown, ${cancelled} cancelled`
      yield* Output.note(`${failed} of ${total} lines did not succeed (${what}); see the results`)
      process.exitCode = 1
    }
  })

/**
 * While the batch runs: the first Ctrl-C stops it (the runtime interrupts the command), and when
 * submits are in flight — their lines are recorded before the process ends, so that none is left
 * half-way — one note says so; a second Ctrl-C ends the process at once (exit 130), those lines left
 * to become `unknown` on the next run. Without this, a submit the gateway is slow to answer would
 * keep Ctrl-C waiting in silence, and a second Ctrl-C would do nothing.
 */
const stopsOnCtrlC = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  let signals = 0
  const onSigint = () => {
    signals++
    const n = submitsInFlight()
    if (signals > 1) {
      if (n > 0)
        Effect.runSync(
          Output.note(
            `stopped now: ${n === 1 ? "1 submit" : `${n} submits`} in flight not recorded (${n === 1 ? "its line becomes" : "their lines become"} unknown on the next run)`
          )
        )
      process.exit(130)
    }
    if (n > 0)
      Effect.runSync(
        Output.note(
          `stopping: waiting for ${n === 1 ? "1 submit" : `${n} submits`} in flight to be recorded (Ctrl-C again to stop now; ${n === 1 ? "that line" : "those lines"} may become unknown)`
        )
      )
  }
  return Effect.acquireUseRelease(
    Effect.sync(() => process.on("SIGINT", onSigint)),
    () => effect,
    () => Effect.sync(() => process.off("SIGINT", onSigint))
  )
}

/** The options of `umg batch video`. @category models */
export interface BatchVideoOptions extends Connection.CommonOptions, RunnerOptions {
  readonly file: string
  readonly id: Option.Option<string>
  readonly store: string
  readonly out: Option.Option<string>
  readonly dir: Option.Option<string>
  readonly concurrency: Option.Option<number>
  readonly resubmitUnknown: boolean
  readonly maxFollowed: number
}

/** Runs `umg batch video`. @category commands */
export const runBatchVideo = (o: BatchVideoOptions) =>
  Effect.gen(function* () {
    const out = Option.filter(o.out, (p) => !isStdout(p))
    if (Option.isSome(out)) yield* ensureWritable(out.value, "--out")
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const connection = yield* Connection.Connection
        // Around the batch's layer: its shutdown is where Ctrl-C waits for the submits in flight.
        yield* stopsOnCtrlC(
          Effect.provide(
            runBatch(o, out),
            Batch.layer({
              store: storeConfig(o.store, o),
              pollIntervalMs: connection.pollIntervalMs,
              maxFollowed: o.maxFollowed
            }).pipe(Layer.provide(Layer.succeedContext(yield* Effect.context<Gateway>())))
          )
        )
      })
    )
  })

/** The options of `umg batch worker`. @category models */
export interface BatchWorkerOptions extends Connection.CommonOptions, RunnerOptions {
  readonly store: string
}

/** Runs `umg batch worker`. @category commands */
export const runBatchWorker = (o: BatchWorkerOptions) =>
  Effect.gen(function* () {
    const config = storeConfig(o.store, o)
    if (config._tag !== "postgres")
      return yield* Effect.fail(
        new InvalidRequest({
          field: "--store",
          rule: "postgres",
          message: "--store: a worker needs a postgres:// or postgresql:// store shared with the submitting process"
        })
      )
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        yield* Output.note(
          Output.errColour.dim(
            `batch worker on ${Batch.describeStore(config)}; Ctrl-C stops it (its work moves to the other runners)`
          )
        )
        return yield* Batch.worker({
          store: config,
          pollIntervalMs: (yield* Connection.Connection).pollIntervalMs
        }).pipe(Effect.provide(Layer.succeedContext(yield* Effect.context<Gateway>())))
      })
    )
  })
