/**
 * `umg batch`: durable video batches. `umg batch video FILE` checks every JSON line, then runs (or
 * resumes) the batch with a progress bar on stderr and writes one result per line at the end;
 * `umg batch status ID` prints the counts per state; `umg batch worker` runs batches stored in a
 * PostgreSQL database, alongside other workers.
 */
import { Argument, Command, Flag } from "effect/cli"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { readFile } from "node:fs/promises"
import { Gateway } from "../../adapters/Gateway.js"
import type { VideoInput } from "../../adapters/groups/Video.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { writeAtomically } from "../../batch/AtomicFile.js"
import * as Batch from "../../batch/Batch.js"
import type { Counts } from "../../batch/Store.js"
import * as Connection from "../support/Connection.js"
import { ensureWritable, isStdout } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** One line of the input file: its 1-based number and its object. @category models */
export interface InputLine {
  readonly line: number
  readonly input: VideoInput
}

const maxLineChars = 8 * 1024 * 1024

/** Parses a JSON Lines file: each non-empty line one object, named by its 1-based line number. @category parsers */
export const parseLines = (text: string): Effect.Effect<ReadonlyArray<InputLine>, InvalidRequest> =>
  Effect.gen(function* () {
    const out: Array<InputLine> = []
    const rows = text.split(/\r?\n/)
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!.trim()
      if (row === "") continue
      const line = i + 1
      const bad = (message: string) =>
        Effect.fail(
          new InvalidRequest({ field: `line ${line}`, rule: "json-object", message: `line ${line}: ${message}` })
        )
      if (row.length > maxLineChars) return yield* bad(`longer than ${maxLineChars} characters`)
      let value: unknown
      try {
        value = JSON.parse(row)
      } catch (e) {
        return yield* bad(`not JSON (${(e as Error).message.slice(0, 120)})`)
      }
      if (typeof value !== "object" || value === null || Array.isArray(value))
        return yield* bad('not a JSON object; each line is one video input such as {"model": …, "prompt": …}')
      out.push({ line, input: value as VideoInput })
    }
    if (out.length === 0)
      return yield* Effect.fail(
        new InvalidRequest({
          field: "FILE",
          rule: "non-empty",
          message: "FILE: no input lines (one JSON object per line)"
        })
      )
    return out
  })

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

const showProgress = (progress: Stream.Stream<Counts, Batch.BatchStoreError>) => {
  let last = 0
  return Stream.runForEach(progress, (c) => {
    if (process.stderr.isTTY === true) return Output.progress(countsText(c))
    const now = Date.now()
    if (now - last < plainProgressEveryMs && c.pending + c.submitting + c.running > 0) return Effect.void
    last = now
    return Output.progress(countsText(c))
  })
}

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
      Flag.withDescription("lines in flight at once (1–1000)"),
      Flag.withDefault(4)
    ),
    resubmitUnknown: Flag.Boolean("resubmit-unknown").pipe(
      Flag.withDescription("submit the lines whose submit may or may not have reached the gateway again"),
      Flag.withDefault(false)
    )
  },
  (o) =>
    Effect.gen(function* () {
      const text = yield* Effect.tryPromise({
        try: () => readFile(o.file, "utf8"),
        catch: (e) =>
          new InvalidRequest({
            field: "FILE",
            rule: "readable",
            message: `FILE: cannot read ${o.file} (${(e as Error).message})`
          })
      })
      const lines = yield* parseLines(text)
      const out = Option.filter(o.out, (p) => !isStdout(p))
      if (Option.isSome(out)) yield* ensureWritable(out.value, "--out")
      yield* Connection.run(
        o,
        Effect.gen(function* () {
          const connection = yield* Connection.Connection
          const program = Effect.gen(function* () {
            // Without --id the batch is named by the digest of its lines (Batch.video's default), so
            // rerunning the same file resumes it.
            const batch = yield* Batch.video({
              ...Option.match(o.id, { onNone: () => ({}), onSome: (id) => ({ id }) }),
              inputs: lines.map((l) => l.input),
              lines: lines.map((l) => l.line),
              concurrency: o.concurrency,
              resubmitUnknown: o.resubmitUnknown,
              ...Option.match(o.dir, { onNone: () => ({}), onSome: (dir) => ({ dir }) })
            })
            yield* Output.note(
              Output.errColour.dim(
                `batch ${batch.id}: ${batch.total} lines, store ${Batch.describeStore(storeConfig(o.store, o))}`
              )
            )
            const shown = yield* Effect.forkChild(showProgress(batch.progress))
            const results = yield* batch.results
            yield* Fiber.join(shown)
            yield* Output.endProgress
            const body = results.map(resultLine).join("\n") + "\n"
            if (Option.isSome(out))
              yield* Effect.mapError(
                writeAtomically(out.value, body),
                (e) => new InvalidRequest({ field: "--out", rule: "writable", message: `--out: ${e.message}` })
              )
            else yield* Output.write(body)
            const failed = results.filter((r) => r.status !== "succeeded").length
            if (failed > 0) {
              yield* Output.note(
                `${failed} of ${results.length} lines did not succeed (failed or unknown); see the results`
              )
              process.exitCode = 1
            }
          })
          yield* Effect.provide(
            program,
            Batch.layer({ store: storeConfig(o.store, o), pollIntervalMs: connection.pollIntervalMs }).pipe(
              Layer.provide(Layer.succeedContext(yield* Effect.context<Gateway>()))
            )
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
