/**
 * `umg batch` and its `video`, `status`, `cancel` and `worker` as the command tree holds them: flags
 * and help. What they do is loaded when one runs — `status` and `cancel` load only the store's SQL
 * client (`commands/batchStatus.ts`, `commands/batchCancel.ts`), `video` and `worker` the batch engine
 * (`commands/batch.ts`).
 */
import { Argument, Command, Flag } from "effect/cli"
import { defaultMaxFollowed, defaultSqlitePath, maxFollowedLimit } from "../../batch/Settings.js"
import * as Effect from "effect/Effect"
import { boundBatchHeap } from "../support/BatchMemory.js"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

/** The batch engine, loaded once the heap of a process that runs batches is bounded (`BatchMemory`). */
const load = () => import("../commands/batch.js")
const runningBatches = Effect.sync(boundBatchHeap)

const store = Flag.String("store").pipe(
  Flag.withDescription(`a SQLite file (default ${defaultSqlitePath}) or a postgres:// URL shared with workers`),
  Flag.withDefault(defaultSqlitePath)
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

const file = Argument.File("FILE", { mustExist: true }).pipe(
  Argument.withDescription("JSON Lines: one video input object per line")
)

const videoCommand = Command.make(
  "video",
  {
    ...commonOptions,
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
      Flag.withDescription(
        "submits in flight at once (1–1000; default 4, or what the batch had when resumed); the tasks submitted are followed apart"
      ),
      Flag.optional
    ),
    resubmitUnknown: Flag.Boolean("resubmit-unknown").pipe(
      Flag.withDescription("submit the lines whose submit may or may not have reached the gateway again"),
      Flag.withDefault(false)
    ),
    maxFollowed: Flag.Int("max-followed").pipe(
      Flag.withDescription(`tasks this process follows at once (1–${maxFollowedLimit})`),
      Flag.withDefault(defaultMaxFollowed)
    ),
    ...modelOptions
  },
  (o) =>
    Effect.andThen(
      runningBatches,
      lazily(load, (m) => m.runBatchVideo(o))
    )
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
    lazily(
      () => import("../commands/batchStatus.js"),
      (m) => m.runBatchStatus(o)
    )
).pipe(
  Command.withDescription(
    "the number of lines in each state of a batch. Example: umg batch status 3f2a9c1e0b7d4a55 --json"
  )
)

const cancelCommand = Command.make(
  "cancel",
  {
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("an object with the outcome, the lines cancelled and the counts"),
      Flag.withDefault(false)
    ),
    id: Argument.String("ID"),
    store
  },
  (o) =>
    lazily(
      () => import("../commands/batchCancel.js"),
      (m) => m.runBatchCancel(o)
    )
).pipe(
  Command.withDescription(
    "cancel a batch, even while it runs: its lines not submitted yet are never submitted, those submitted are followed to their end. Example: umg batch cancel 3f2a9c1e0b7d4a55"
  )
)

const workerCommand = Command.make("worker", { ...commonOptions, ...runnerOptions, store, ...modelOptions }, (o) =>
  Effect.andThen(
    runningBatches,
    lazily(load, (m) => m.runBatchWorker(o))
  )
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
  Command.withSubcommands([videoCommand, statusCommand, cancelCommand, workerCommand])
)
