/**
 * `umg batch`: durable video batches. `umg batch video FILE` reads the JSON Lines file as a stream
 * (digested first, then checked and stored while the first lines run), runs (or resumes) the batch
 * with a progress bar on stderr and writes one result per line, in line order, as they come;
 * `umg batch status ID` prints the counts per state; `umg batch worker` runs batches stored in a
 * PostgreSQL database, alongside other workers.
 */
import { Argument, Command, Flag } from "effect/cli"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { setFlagsFromString } from "node:v8"
import { Gateway } from "../../adapters/Gateway.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { writeAtomically } from "../../batch/AtomicFile.js"
import * as Batch from "../../batch/Batch.js"
import * as Follower from "../../batch/Follower.js"
import type { Counts } from "../../batch/Store.js"
import * as Connection from "../support/Connection.js"
import { ensureWritable, isStdout } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** The counts as one line: `12/40 done · 3 running · 1 submitting · 20 pending · 0 failed · 0 unknown`. @category output */
export const countsText = (c: Counts): string =>
  `${Output.bar(c.succeeded + c.failed + c.unknown, c.total)} ${c.succeeded} succeeded · ${c.running} running · ${c.submitting} submitting · ${c.pending} pending · ${c.failed} failed · ${c.unknown} unknown`

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

const store = Flag.String("store").pipe(
  Flag.withDescription(`a SQLite file (default ${Batch.defaultSqlitePath}) or a postgres:// URL shared with workers`),
  Flag.withDefault(Batch.defaultSqlitePath)
)

const runnerOptions = {
  runnerHost: Flag.String("runner-host").pipe(
    Flag.withDescription("PostgreSQL stores: the host other runners reach this one at (default localhost)"),
    Flag.optional
  ),
  runnerPort: Flag.Int("runner-port").pipe(
    Flag.withDescription("PostgreSQL stores: the port this runner listens on (default a free one)"),
    Flag.optional
  )
}

const storeConfig = (
  value: string,
  o: { runnerHost: Option.Option<string>; runnerPort: Option.Option<number> }
): Batch.StoreConfig => {
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

const file = Argument.File("FILE", { mustExist: true }).pipe(
  Argument.withDescription("JSON Lines: one video input object per line")
)

// Progress away from a terminal: one line at most this often.
const plainProgressEveryMs = 5_000

const showProgress = <E>(progress: Stream.Stream<Counts, E>) => {
  let last = 0
  return Stream.runForEach(progress, (c) => {
    if (process.stderr.isTTY === true) return Output.progress(countsText(c))
    const now = Date.now()
    if (now - last < plainProgressEveryMs && c.pending + c.submitting + c.running > 0) return Effect.void
    last = now
    return Output.progress(countsText(c))
  })
}

/** Writes to stdout, waiting while its buffer is full (a slow reader of a long batch keeps memory bounded). */
const writeOut = (text: string): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (process.stdout.write(text)) return resume(Effect.void)
    process.stdout.once("drain", () => resume(Effect.void))
  })

// Results written at once: one chunk of the result stream, at most this many lines.
const linesPerWrite = 1_000

const maxFollowedLimit = 100_000

/**
 * A batch runs for hours while what it holds stays the same size: V8 is told to grow its heap by at
 * most a fifth over what its last full collection kept (not up to four times, its default for a
 * busy process), so the process's memory stays near what it holds.
 */
const keepHeapNearLive = Effect.sync(() => setFlagsFromString("--heap-growing-percent=20"))

/** `umg batch video` once connected: runs the batch and writes its results as they come. */
const runBatch = (
  o: {
    readonly file: string
    readonly id: Option.Option<string>
    readonly dir: Option.Option<string>
    readonly concurrency: number
    readonly resubmitUnknown: boolean
    readonly maxFollowed: number
    readonly store: string
    readonly runnerHost: Option.Option<string>
    readonly runnerPort: Option.Option<number>
  },
  out: Option.Option<string>
) =>
  Effect.gen(function* () {
    yield* keepHeapNearLive
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
      concurrency: o.concurrency,
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
    const text = batch.resultStream.pipe(
      Stream.rechunk(linesPerWrite),
      Stream.mapArray((results) => {
        total += results.length
        let chunk = ""
        for (const r of results) {
          if (r.status !== "succeeded") failed++
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
      : Stream.runForEach(text, writeOut)
    yield* written.pipe(
      Effect.tapError((e) =>
        e._tag === "BatchInvalidInput" && (e.submitted ?? 0) > 0
          ? Effect.andThen(
              Output.endProgress,
              Output.note(
                `line ${e.line} failed its check after ${e.submitted} lines of batch ${batch.id} were submitted; it and the lines after it were not sent. Fix line ${e.line} and run the same command again: the batch goes on, sending no line twice.`
              )
            )
          : Effect.void
      )
    )
    yield* Fiber.join(shown)
    yield* Output.endProgress
    if (failed > 0) {
      yield* Output.note(`${failed} of ${total} lines did not succeed (failed or unknown); see the results`)
      process.exitCode = 1
    }
  })

const videoCommand = Command.make(
  "video",
  {
    ...Connection.commonOptions,
    ...runnerOptions,
    file,
    id: Flag.String("id").pipe(
      Flag.withDescription("the batch's name (default: a digest of FILE's content, so rerunning resumes)"),
      Flag.optional
    ),
    store,
    out: Flag.String("out").pipe(
      Flag.withDescription("where to write the results, atomically (default stdout)"),
      Flag.optional
    ),
    dir: Flag.String("dir").pipe(
      Flag.withDescription("where alpha videos are written (default .umg/videos/<id>)"),
      Flag.optional
    ),
    concurrency: Flag.Int("concurrency").pipe(
      Flag.withDescription("submits in flight at once (1–1000); the tasks submitted are followed apart"),
      Flag.withDefault(4)
    ),
    resubmitUnknown: Flag.Boolean("resubmit-unknown").pipe(
      Flag.withDescription("submit the lines whose submit may or may not have reached the gateway again"),
      Flag.withDefault(false)
    ),
    maxFollowed: Flag.Int("max-followed").pipe(
      Flag.withDescription(`tasks this process follows at once (1–${maxFollowedLimit})`),
      Flag.withDefault(Follower.defaultMaxFollowed)
    )
  },
  (o) =>
    Effect.gen(function* () {
      const out = Option.filter(o.out, (p) => !isStdout(p))
      if (Option.isSome(out)) yield* ensureWritable(out.value, "--out")
      yield* Connection.run(
        o,
        Effect.gen(function* () {
          const connection = yield* Connection.Connection
          yield* Effect.provide(
            runBatch(o, out),
            Batch.layer({
              store: storeConfig(o.store, o),
              pollIntervalMs: connection.pollIntervalMs,
              maxFollowed: o.maxFollowed
            }).pipe(Layer.provide(Layer.succeedContext(yield* Effect.context<Gateway>())))
          )
        })
      )
    })
).pipe(
  Command.withDescription(
    "run a durable batch of videos from a JSON Lines file; rerunning the same command resumes it, and no line is ever submitted twice. Example: umg batch video prompts.jsonl --concurrency 20 --out results.jsonl"
  )
)

const statusCommand = Command.make(
  "status",
  {
    json: Flag.Boolean("json").pipe(Flag.withDescription("an object with a count per state"), Flag.withDefault(false)),
    id: Argument.String("ID"),
    store
  },
  (o) =>
    Effect.gen(function* () {
      const c = yield* Batch.readStatus(Batch.storeOf(o.store), o.id)
      const { total: _total, ...perState } = c
      yield* Output.result(o, perState, () => countsText(c))
    })
).pipe(
  Command.withDescription(
    "the number of lines in each state of a batch. Example: umg batch status 3f2a9c1e0b7d4a55 --json"
  )
)

const workerCommand = Command.make("worker", { ...Connection.commonOptions, ...runnerOptions, store }, (o) =>
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
    yield* keepHeapNearLive
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
).pipe(
  Command.withDescription(
    "run batches stored in a PostgreSQL database, with other workers. Example: umg batch worker --store postgres://localhost/umg"
  )
)

/** The `umg batch` command. @category commands */
export const batchCommand = Command.make("batch").pipe(
  Command.withDescription(
    "durable video batches: SQLite in one process, PostgreSQL across workers. Example: umg batch video prompts.jsonl"
  ),
  Command.withSubcommands([videoCommand, statusCommand, workerCommand])
)
