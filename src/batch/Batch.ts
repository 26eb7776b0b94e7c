/**
 * `umg/batch`: durable video batches. `Batch.video` checks the inputs, stores the batch (or finds
 * it again by id), starts its slot workflows (`effect/workflow` on `effect/cluster`) and returns a
 * handle whose `progress` streams the counts per state and whose `resultStream` gives one result
 * per input, in input order; a streamed input is checked and stored while its first lines run.
 * `Batch.layer({ store })` runs the workflows: on a SQLite file in this process (`Batch.sqlite`),
 * which runs only the batches `Batch.video` was called for (a batch stopped earlier waits until it
 * is run again), or as one runner of a PostgreSQL cluster (`Batch.postgres`), where `umg batch
 * worker` processes share the slots of every batch and take over those of a runner that died.
 * `Batch.cancel` stops a batch's submits for good; a batch the gateway refused for the whole key or
 * account halts (`BatchHalted`) with its lines pending, until it is run again.
 */
import { Context, Duration, Effect, Layer, Option, References, Result, Schedule, Stream } from "effect"
import {
  ClusterWorkflowEngine,
  RunnerAddress,
  RunnerHealth,
  Runners,
  Sharding,
  ShardingConfig,
  SocketRunner,
  SqlMessageStorage,
  SqlRunnerStorage
} from "effect/cluster"
import { RpcSerialization } from "effect/rpc"
import { SqlClient } from "effect/sql"
import type { WorkflowEngine } from "effect/workflow/WorkflowEngine"
import { createHash } from "node:crypto"
import { createServer } from "node:net"
import { resolve } from "node:path"
import { Gateway } from "../adapters/Gateway.js"
import type { VideoInput } from "../adapters/groups/Video.js"
import * as Admission from "./Admission.js"
import {
  BatchHalted,
  BatchInvalidInput,
  BatchMismatch,
  BatchNotFound,
  BatchStoreError,
  refusedOf,
  resumeWhen
} from "./BatchError.js"
import * as Follower from "./Follower.js"
import * as Ingest from "./Ingest.js"
import * as Journal from "./Journal.js"
import * as Slot from "./Slot.js"
import { sqlite, type StoreConfig } from "./Settings.js"
import * as Store from "./Store.js"
import { loadPeer, mapLayerError, sqlLayer, storeError } from "./StoreAccess.js"

export { BatchHalted, BatchInvalidInput, BatchMismatch, BatchNotFound, BatchStoreError } from "./BatchError.js"
export type { BatchError, HaltReason, HaltStep } from "./BatchError.js"
export { LineStates, type CancelResult, type Counts, type Halt, type LineState } from "./Store.js"

export { defaultSqlitePath, describeStore, postgres, sqlite, storeOf, type StoreConfig } from "./Settings.js"
export { cancelStored, readProgress, readStatus } from "./StoreAccess.js"

/** How a line ended. @category models */
export interface BatchResult {
  /** The input's line (1-based). */
  readonly line: number
  /**
   * `cancelled`: the batch was cancelled before the line was submitted (`Batch.cancel`). A line of a
   * streamed input that was never stored (cancelled while the input was being stored, by a process
   * that then stopped) is `cancelled` with an `error` saying so, numbered on from the last line stored.
   */
  readonly status: "succeeded" | "failed" | "unknown" | "cancelled"
  readonly taskId: string | null
  /** The video's URL (beta, gamma, delta). */
  readonly url?: string
  /** Where the alpha video was written. */
  readonly file?: string
  /** Why the line failed, or why its fate is unknown (or, for a cancelled line never stored, that). */
  readonly error?: string
}

/** A batch being run or followed. @category models */
export interface BatchHandle {
  readonly id: string
  readonly total: number
  /**
   * The counts now, then every `progressIntervalMs` (default 500 ms), ending with the one where every
   * line is final; fails with `BatchInvalidInput` once a line of a streamed input failed its check,
   * and with `BatchHalted` once the gateway refused the key or account (its lines wait, pending).
   */
  readonly progress: Stream.Stream<Store.Counts, BatchStoreError | BatchInvalidInput | BatchHalted>
  /**
   * One result per input, in input order, each as soon as it and every line before it are final
   * (read a page at a time: memory does not grow with the batch); fails as `progress` does.
   */
  readonly resultStream: Stream.Stream<BatchResult, BatchStoreError | BatchInvalidInput | BatchHalted>
  /** Waits for every line to be final: one result per input, in input order. */
  readonly results: Effect.Effect<ReadonlyArray<BatchResult>, BatchStoreError | BatchInvalidInput | BatchHalted>
  /** The counts now. */
  readonly counts: Effect.Effect<Store.Counts, BatchStoreError>
}

/** What `Batch.video` takes. @category models */
export interface VideoBatchOptions {
  /** Names the batch; when it exists (same inputs) the batch resumes. Default: a digest of the inputs. */
  readonly id?: string | undefined
  /**
   * The inputs, as `gateway.video.generate` takes them: an array (every input is checked before
   * anything is stored or sent), or a stream, read twice in bounded memory (once to digest it, once
   * to check and store it while the first lines run: the first invalid input stops the batch before
   * it is sent; see `BatchInvalidInput`). Stream items are numbered 1, 2, 3… unless made with
   * `Batch.numbered(line, input)` (`Batch.jsonLines(path)` reads a file so).
   */
  readonly inputs: ReadonlyArray<VideoInput> | Stream.Stream<VideoInput | Ingest.NumberedInput, BatchInvalidInput>
  /** The line of each input of an array (1-based, as in a JSON Lines file); default 1, 2, 3… */
  readonly lines?: ReadonlyArray<number> | undefined
  /**
   * Submits in flight at once: the batch's slots (default 4). Given for a stored batch, it replaces
   * the stored value (for this run and the runs after): submits already in flight are answered, then
   * no more than this many are in flight. Not given, a stored batch keeps its own.
   */
  readonly concurrency?: number | undefined
  /**
   * Where alpha videos are written (default `.umg/videos/<id>`). Given for a stored batch, the videos
   * it downloads from then on go there (those written before stay where they are); not given, a
   * stored batch keeps its folder.
   */
  readonly dir?: string | undefined
  /** Submit the `unknown` lines again (each may then exist twice at the gateway). */
  readonly resubmitUnknown?: boolean | undefined
}

/** The batch service. @category models */
export interface BatchService {
  readonly video: (
    options: VideoBatchOptions
  ) => Effect.Effect<BatchHandle, BatchInvalidInput | BatchMismatch | BatchStoreError>
  readonly attach: (id: string) => Effect.Effect<BatchHandle, BatchNotFound | BatchStoreError>
  readonly status: (id: string) => Effect.Effect<Store.Counts, BatchNotFound | BatchStoreError>
  readonly cancel: (id: string) => Effect.Effect<Store.CancelResult, BatchNotFound | BatchStoreError>
}

/** The batch service's tag. @category tags */
export class Batches extends Context.Service<Batches, BatchService>()("umg/batch/Batches") {}

/** Settings of `Batch.layer`. @category models */
export interface LayerOptions {
  readonly store?: StoreConfig | undefined
  /** How long one task may run before its line fails (default 1 hour). */
  readonly taskTimeoutMs?: number | undefined
  /** From one query's start to the next (default the gateway's rule, 4000 ms). */
  readonly pollIntervalMs?: number | undefined
  /** How often `progress` reads the counts (default 500 ms). */
  readonly progressIntervalMs?: number | undefined
  /** Tasks this process follows at once, over all its batches (default 10,000). */
  readonly maxFollowed?: number | undefined
  /** Alpha videos this process downloads at once (default 8). */
  readonly maxDownloads?: number | undefined
}

/** A digest of inputs and their lines: the default id and the check that an id keeps its inputs. @category getters */
export const digestOf = (entries: ReadonlyArray<{ readonly line: number; readonly input: string }>): string => {
  const hash = createHash("sha256")
  for (const e of entries) hash.update(Ingest.digestText(e.line, e.input))
  return hash.digest("hex")
}

/** An input with its line number, for a streamed batch. @category constructors */
export const numbered = Ingest.numbered

/**
 * The inputs of a JSON Lines file, one object per non-blank line, named by line number: a stream
 * that reads the file in chunks each time it runs.
 * @category constructors
 */
export const jsonLines = Ingest.jsonLines

const maxConcurrency = 1_000

// Refused batches looked at when a corrected input may continue one.
const refusedLookedAt = 20

const invalid = (field: string, message: string) =>
  new BatchInvalidInput({ line: 0, field, rule: "batch-option", message })

/** A refused batch's error: its first invalid line, and how many lines were submitted before it was found. */
const refusalError = (status: Store.Status): BatchInvalidInput | undefined => {
  const refused = status.ingest.refused
  if (refused === null) return undefined
  const c = status.counts
  return new BatchInvalidInput({ ...refused, submitted: c.submitting + c.running + c.succeeded + c.failed + c.unknown })
}

/** What a halted batch's handle fails with. */
const haltError = (id: string, halt: Store.Halt): BatchHalted => {
  const what = refusedOf(halt.reason)
  const todo = resumeWhen(halt.reason)
  return new BatchHalted({
    id,
    reason: halt.reason,
    step: halt.step,
    line: halt.line,
    ...(halt.status === null ? {} : { status: halt.status }),
    ...(halt.type === null ? {} : { type: halt.type }),
    message:
      halt.step === "submit"
        ? `batch ${id} stopped: the gateway refused the submit of line ${halt.line} for the ${what} (${halt.message}); nothing was made for it, and the batch sends no more lines. Its lines not submitted wait, pending: run the batch again ${todo}.`
        : `batch ${id} stopped: the gateway refused following the task of line ${halt.line} for the ${what} (${halt.message}); the task exists and may still succeed, so its line stays running, and the batch sends no more lines. Run the batch again ${todo}: it follows its running tasks to their end and sends the lines waiting.`
  })
}

const toResult = (r: Store.LineRecord): BatchResult => ({
  line: r.line,
  status: r.state === "succeeded" || r.state === "failed" || r.state === "cancelled" ? r.state : "unknown",
  taskId: r.taskId,
  ...(r.url === null ? {} : { url: r.url }),
  ...(r.file === null ? {} : { file: r.file }),
  ...(r.error === null ? {} : { error: r.error })
})

const isFinal = (r: Store.LineRecord) =>
  r.state === "succeeded" || r.state === "failed" || r.state === "unknown" || r.state === "cancelled"

// Results read at once by `resultStream`.
const resultPage = 1_000

interface Settings {
  readonly progressIntervalMs: number
}

/** Where `resultStream` is: after which line, and how many results it gave. */
interface Cursor {
  readonly after: number
  readonly emitted: number
  /** The lines stored when a cancelled batch was last seen with input never to be stored (see `unstored`). */
  readonly stalled?: number
}

/**
 * The results of the input lines of a cancelled batch that were never stored: its input was being
 * stored when it was cancelled, and the process storing it stopped (killed) before it had stored
 * them as `cancelled`. Their count is known, their line numbers are not (the input is not read
 * again): they are numbered on from the last line stored, and say so.
 */
const unstoredResults = (after: number, n: number): Array<BatchResult> =>
  Array.from({ length: n }, (_, i) => ({
    line: after + i + 1,
    status: "cancelled",
    taskId: null,
    error: `the batch was cancelled before this input line was stored, and the process storing its input stopped: it was never submitted. Its line number is counted on from line ${after}, the last one stored`
  }))

const make = (settings: Settings) =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    const sql = yield* SqlClient.SqlClient
    const provide = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.provideService(effect, SqlClient.SqlClient, sql)
    // Inputs that could not be read again to be stored, by batch: their handles fail with it.
    const ingestFailures = new Map<string, BatchInvalidInput | BatchStoreError>()
    // Batches whose input this process is storing now.
    const ingesting = new Set<string>()
    const every = Schedule.spaced(Duration.millis(settings.progressIntervalMs))

    const handle = (record: Store.BatchRecord): BatchHandle => {
      const status = provide(Store.status(record.id))
      const checkedStatus = Effect.flatMap(status, (s) => {
        const failure =
          refusalError(s) ??
          (s.halt === null ? undefined : haltError(record.id, s.halt)) ??
          ingestFailures.get(record.id)
        return failure === undefined ? Effect.succeed(s) : Effect.fail(failure)
      })
      const checked = Effect.map(checkedStatus, (s) => s.counts)
      // Lines in order: those final from `after` on, then a wait when the next one is not final yet.
      const resultStream = Stream.paginate(
        { after: 0, emitted: 0 } as Cursor,
        (
          at: Cursor
        ): Effect.Effect<
          readonly [ReadonlyArray<BatchResult>, Option.Option<Cursor>],
          BatchStoreError | BatchInvalidInput | BatchHalted
        > =>
          Effect.gen(function* () {
            const rows = yield* provide(Store.page(record.id, at.after, resultPage))
            const out: Array<BatchResult> = []
            for (const row of rows) {
              if (!isFinal(row)) break
              out.push(toResult(row))
            }
            const last = out.at(-1)
            const next: Cursor = { after: last === undefined ? at.after : last.line, emitted: at.emitted + out.length }
            if (next.emitted >= record.lines) return [out, Option.none()] as const
            if (out.length < rows.length || rows.length < resultPage) {
              const s = yield* checkedStatus
              // Every stored line given, and the rest of the input will never be stored: the batch
              // was cancelled while it was stored, and no one stores it (seen so twice in a row).
              if (out.length === rows.length && !ingesting.has(record.id)) {
                const stalled =
                  s.cancelled && !s.ingest.complete && Store.isDone(s.counts) ? s.ingest.stored : undefined
                if (stalled !== undefined && out.length === 0) {
                  if (stalled === at.stalled)
                    return [unstoredResults(next.after, record.lines - next.emitted), Option.none()] as const
                  yield* Effect.sleep(Duration.millis(settings.progressIntervalMs))
                  return [out, Option.some({ ...next, stalled })] as const
                }
              }
              if (out.length === 0) yield* Effect.sleep(Duration.millis(settings.progressIntervalMs))
            }
            return [out, Option.some(next)] as const
          })
      )
      return {
        id: record.id,
        total: record.lines,
        counts: Effect.map(status, (s) => s.counts),
        // The counts are read by one loop and shown by a steady tick: a slow read (a store busy with
        // the batch's own writes) delays the numbers, never the updates.
        progress: Stream.unwrap(
          Effect.map(checked, (first) => {
            let latest = first
            const ticks = Stream.fromEffectSchedule(
              Effect.sync(() => latest),
              every
            ).pipe(Stream.takeUntil(Store.isDone))
            const reads = Stream.fromEffectSchedule(
              Effect.map(checked, (c) => void (latest = c)),
              every
            ).pipe(Stream.drain)
            return Stream.merge(ticks, reads, { haltStrategy: "left" })
          })
        ),
        resultStream,
        results: Stream.runCollect(resultStream)
      }
    }

    return { gateway, provide, handle, ingestFailures, ingesting }
  })

type Made = Effect.Success<ReturnType<typeof make>>

/**
 * Starts the slot workflows of the batch's current round; a slot already started (running, waiting
 * to be run again after a crash or a Ctrl-C, or done) is found by its idempotency key and left as it is.
 */
const startSlots = (record: Store.BatchRecord) =>
  Effect.forEach(
    Array.from({ length: Math.min(record.concurrency, record.lines) }, (_, slot) => slot),
    (slot) => Slot.SlotWorkflow.execute({ batchId: record.id, round: record.round, slot }, { discard: true }),
    { concurrency: 16, discard: true }
  )

const folderOf = (options: VideoBatchOptions, id: string) =>
  resolve(options.dir ?? `.umg/videos/${id.replace(/[^A-Za-z0-9._-]/g, "_")}`)

/** An array of inputs: every one checked first, then the batch stored whole (or found by its id). */
const storeArray = (
  made: Made,
  options: VideoBatchOptions & { readonly inputs: ReadonlyArray<VideoInput> },
  concurrency: number
) =>
  Effect.gen(function* () {
    const lines = options.lines ?? options.inputs.map((_, i) => i + 1)
    if (lines.length !== options.inputs.length)
      return yield* Effect.fail(invalid("lines", "lines: one line number per input"))
    const distinct = new Set<number>()
    for (const line of lines) {
      if (!Number.isInteger(line) || line < 1 || line > Ingest.maxLine || distinct.has(line))
        return yield* Effect.fail(
          invalid("lines", `lines: ${line} is not allowed; whole numbers from 1 to ${Ingest.maxLine}, each once`)
        )
      distinct.add(line)
    }
    // Every input is checked as submit would check it, before anything is stored or sent.
    const entries: Array<{ line: number; input: string }> = []
    for (let i = 0; i < options.inputs.length; i++) {
      const line = lines[i]!
      const checked = yield* Effect.result(made.gateway.video.check(options.inputs[i]!))
      if (Result.isFailure(checked))
        return yield* Effect.fail(
          new BatchInvalidInput({
            line,
            field: checked.failure.field,
            rule: checked.failure.rule,
            message: `line ${line}: ${checked.failure.message}`
          })
        )
      entries.push({ line, input: JSON.stringify(options.inputs[i]) })
    }
    const digest = digestOf(entries)
    const id = options.id ?? digest.slice(0, 16)
    if (id.length === 0 || id.length > 200) return yield* Effect.fail(invalid("id", "id: 1 to 200 characters"))
    return yield* made.provide(Store.create({ id, digest, concurrency, dir: folderOf(options, id), lines: entries }))
  })

/**
 * The batch of a streamed input: found by its id (same digest), a refused one continued by a
 * corrected input (the lines it stored are the input's first ones), or a new one.
 */
const findStreamed = (
  made: Made,
  options: VideoBatchOptions,
  inputs: Stream.Stream<Ingest.NumberedInput, BatchInvalidInput>,
  concurrency: number
) =>
  Effect.gen(function* () {
    const refused = yield* made.provide(Store.refusedBatches(refusedLookedAt))
    const digested = yield* Ingest.digest(
      inputs,
      refused.map((r) => r.ingest.stored)
    )
    if (digested.total === 0) return yield* Effect.fail(invalid("inputs", "inputs: a batch needs at least one input"))
    const id = options.id ?? digested.digest.slice(0, 16)
    if (id.length === 0 || id.length > 200) return yield* Effect.fail(invalid("id", "id: 1 to 200 characters"))
    const continues = (r: (typeof refused)[number]) =>
      r.ingest.prefixDigest !== null && digested.prefixes.get(r.ingest.stored) === r.ingest.prefixDigest
    const existing = yield* made.provide(Store.find(id))
    if (Option.isSome(existing) && existing.value.digest !== digested.digest) {
      const candidate = refused.find((r) => r.record.id === id && continues(r))
      if (candidate !== undefined)
        return yield* made.provide(Store.resume(candidate.record, digested.digest, digested.total))
    }
    if (Option.isNone(existing) && options.id === undefined) {
      const candidate = refused.find(continues)
      if (candidate !== undefined)
        return yield* made.provide(Store.resume(candidate.record, digested.digest, digested.total))
    }
    const { record } = yield* made.provide(
      Store.begin({ id, digest: digested.digest, concurrency, dir: folderOf(options, id), total: digested.total })
    )
    return record
  })

const serviceLayer = (settings: Settings) =>
  Layer.effect(
    Batches,
    Effect.gen(function* () {
      const made = yield* make(settings)
      const { gateway, provide, handle, ingestFailures, ingesting } = made
      const admission = yield* Admission.Admission
      const engineContext = yield* Effect.context<WorkflowEngine>()
      const scope = yield* Effect.scope

      const video: BatchService["video"] = (options) =>
        Effect.gen(function* () {
          const concurrency = options.concurrency ?? 4
          if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > maxConcurrency)
            return yield* Effect.fail(
              invalid(
                "concurrency",
                `concurrency: ${concurrency} is not allowed; a whole number from 1 to ${maxConcurrency}`
              )
            )
          const source = options.inputs
          if (Array.isArray(source) && source.length === 0)
            return yield* Effect.fail(invalid("inputs", "inputs: a batch needs at least one input"))
          // A stored batch takes the options given now (only those given): see `Store.reconfigure`.
          const given = {
            concurrency: options.concurrency,
            dir: options.dir === undefined ? undefined : resolve(options.dir)
          }
          let record: Store.BatchRecord
          if (Array.isArray(source)) {
            const stored = yield* storeArray(made, { ...options, inputs: source }, concurrency)
            record = yield* provide(Store.reconfigure(stored, given))
          } else {
            const inputs = Ingest.numberedStream(
              source as Stream.Stream<VideoInput | Ingest.NumberedInput, BatchInvalidInput>
            )
            record = yield* provide(Store.reconfigure(yield* findStreamed(made, options, inputs, concurrency), given))
            const { ingest } = yield* provide(Store.status(record.id))
            if (!ingest.complete && ingest.refused === null) {
              ingestFailures.delete(record.id)
              const batch = record
              ingesting.add(batch.id)
              yield* Effect.forkIn(
                provide(Ingest.ingest({ batch, inputs, from: ingest.stored, check: gateway.video.check })).pipe(
                  Effect.tapError((e) => Effect.sync(() => ingestFailures.set(batch.id, e))),
                  Effect.ensuring(Effect.sync(() => ingesting.delete(batch.id)))
                ),
                scope
              )
            }
          }
          // Run again: a batch the gateway refused the key or account of goes on (a new round).
          record = yield* provide(Store.unhalt(record))
          if (options.resubmitUnknown === true && (yield* provide(Store.resubmitUnknown(record.id))) > 0)
            record = yield* Effect.orDie(provide(Store.get(record.id)))
          yield* admission.admit(record.id)
          yield* Effect.provide(startSlots(record), engineContext)
          return handle(record)
        })

      const attach: BatchService["attach"] = (id) => Effect.map(provide(Store.get(id)), handle)
      const status: BatchService["status"] = (id) => Effect.andThen(provide(Store.get(id)), provide(Store.counts(id)))
      const cancel: BatchService["cancel"] = (id) => provide(Store.cancel(id))
      return { video, attach, status, cancel } satisfies BatchService
    })
  )

// Cluster timings for batches: a dead runner's slots move within seconds, not a minute.
const shardingTimings: Partial<ShardingConfig.ShardingConfig["Service"]> = {
  shardsPerGroup: 64,
  entityMessagePollInterval: Duration.seconds(2),
  refreshAssignmentsInterval: Duration.seconds(2),
  shardLockRefreshInterval: Duration.seconds(2),
  shardLockExpiration: Duration.seconds(10),
  runnerHealthCheckInterval: Duration.seconds(3),
  entityMaxIdleTime: Duration.minutes(5)
}

/**
 * The cluster's own tables are `umg_cluster_*`, not the default `cluster_*`: the tables Effect 3's
 * cluster left in a 0.1 store have another layout, and its messages another encoding. A batch of
 * such a store resumes from the journal (`umg_batches`, `umg_batch_lines`) when it is run again.
 */
const clusterTables = { prefix: "umg_cluster" }
const messageStorage = SqlMessageStorage.layerWith(clusterTables)
const runnerStorage = SqlRunnerStorage.layerWith(clusterTables)

/**
 * A module of `@effect/platform-node`, loaded when a batch layer is built (not when `umg/batch` is
 * imported): it is an optional peer dependency of umg, so its absence fails the layer saying what
 * to install.
 */
const platformNode = <M>(load: () => Promise<M>) => loadPeer("@effect/platform-node", "Batch.layer", load)

/** SQLite: a cluster of this one process. */
const singleRunner = Layer.unwrap(
  Effect.map(
    platformNode(() => import("@effect/platform-node/NodeCrypto")),
    (NodeCrypto) =>
      Sharding.layer.pipe(
        Layer.provideMerge(Runners.layerNoop),
        Layer.provideMerge(messageStorage),
        Layer.provide([runnerStorage, RunnerHealth.layerNoop]),
        Layer.provide(ShardingConfig.layer({ entityMaxIdleTime: Duration.minutes(5) })),
        Layer.provide(NodeCrypto.layerDigest)
      )
  )
)

/**
 * The cluster's own log lines below errors, not shown: `Listening on: …` when a runner starts, `No
 * healthy runners available` every few seconds while a runner shutting down waits for a submit in
 * flight to be recorded — the framework's bookkeeping, noise in the output of a process running its
 * batch. Its errors are still logged; the slots' own log lines keep the level of the caller
 * (`Slot.layer`). A worker (`Batch.worker`), a service of the cluster, shows them all.
 */
const quietCluster = Layer.succeed(References.MinimumLogLevel)("Error")

/** A free TCP port on the runner's host, for runners not told one. */
const freePort = (host: string): Effect.Effect<number, BatchStoreError> =>
  Effect.callback<number, BatchStoreError>((resume) => {
    const server = createServer()
    server.once("error", (e) =>
      resume(
        Effect.fail(
          new BatchStoreError({
            reason: "unreachable",
            message: `batch runner: no free port on ${host} (${e.message})`
          })
        )
      )
    )
    server.listen(0, host, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resume(Effect.succeed(port)))
    })
  })

/**
 * The cluster's SQL storage, built under a PostgreSQL advisory lock: runners starting at once on a
 * new database would otherwise race to create the cluster's tables (PostgreSQL refuses concurrent
 * CREATE TABLE IF NOT EXISTS). The lock is held on a reserved connection only while building.
 */
const clusterStorage = Layer.unwrap(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const storage = Layer.merge(messageStorage, runnerStorage)
    // Built in the layer's own scope (it lives as long as the runner), while the lock's scope ends here.
    const outer = yield* Effect.scope
    const built = yield* Effect.scoped(
      Effect.gen(function* () {
        const conn = yield* sql.reserve
        yield* Effect.acquireRelease(conn.executeRaw("SELECT pg_advisory_lock(7212260002)", []), () =>
          Effect.ignore(conn.executeRaw("SELECT pg_advisory_unlock(7212260002)", []))
        )
        return yield* Layer.buildWithScope(storage, outer)
      })
    )
    return Layer.succeedContext(built)
  })
)

/** PostgreSQL: a runner of the cluster, reachable by the others over a socket. */
const socketRunner = (store: Extract<StoreConfig, { _tag: "postgres" }>) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const [NodeCrypto, NodeClusterSocket] = yield* platformNode(() =>
        Promise.all([import("@effect/platform-node/NodeCrypto"), import("@effect/platform-node/NodeClusterSocket")])
      )
      const host = store.runnerHost ?? "localhost"
      const port = store.runnerPort ?? (yield* freePort(store.listenHost ?? host))
      const config = ShardingConfig.layer({
        ...shardingTimings,
        runnerAddress: Option.some(RunnerAddress.make(host, port)),
        runnerListenAddress: Option.some(RunnerAddress.make(store.listenHost ?? host, port))
      })
      return SocketRunner.layer.pipe(
        Layer.provide([NodeClusterSocket.layerSocketServer, NodeClusterSocket.layerClientProtocol]),
        Layer.provide(
          RunnerHealth.layerPing.pipe(
            Layer.provide(Runners.layerRpc),
            Layer.provide(NodeClusterSocket.layerClientProtocol)
          )
        ),
        Layer.provideMerge(clusterStorage),
        Layer.provide(config),
        Layer.provide([RpcSerialization.layerNdjson, NodeCrypto.layerDigest])
      )
    })
  )

/**
 * Runs batches: the store, the workflow engine on `effect/cluster`, the slot workflows and the
 * `Batches` service. Needs a `Gateway`. With a SQLite store this process runs the batches it is asked
 * to run (`Batch.video`) and no other: the slots of a batch stopped earlier (Ctrl-C) wait, touching
 * nothing, until that batch is run again. With a PostgreSQL store this process is a runner of the
 * cluster and runs slots of any batch of that database. The cluster's own log lines below errors are
 * not shown (see `quietCluster`).
 * @category layers
 */
export const layer = (options: LayerOptions = {}): Layer.Layer<Batches, BatchStoreError, Gateway> =>
  layerWith(options, true)

/** `layer`, with the cluster's own log lines at the caller's level unless `quiet`. */
const layerWith = (options: LayerOptions, quiet: boolean): Layer.Layer<Batches, BatchStoreError, Gateway> => {
  const store = options.store ?? sqlite()
  const settings = { progressIntervalMs: options.progressIntervalMs ?? 500 }
  const runners = store._tag === "sqlite" ? singleRunner : socketRunner(store)
  const cluster = quiet ? runners.pipe(Layer.provide(quietCluster)) : runners
  const engine = ClusterWorkflowEngine.layer.pipe(Layer.provideMerge(cluster))
  // The journal's writer and the follower live longer than the cluster: a slot the cluster stops
  // (Ctrl-C, a shard moving) still records its submit in flight.
  const runner = Layer.mergeAll(
    Journal.layer,
    // SQLite: this process runs only the batches it is asked to; PostgreSQL: every batch, as a worker.
    store._tag === "sqlite" ? Admission.asked : Admission.all,
    Follower.layer({
      ...(options.maxFollowed === undefined ? {} : { maxFollowed: options.maxFollowed }),
      ...(options.maxDownloads === undefined ? {} : { maxDownloads: options.maxDownloads }),
      ...(options.pollIntervalMs === undefined ? {} : { intervalMs: options.pollIntervalMs }),
      ...(options.taskTimeoutMs === undefined ? {} : { taskTimeoutMs: options.taskTimeoutMs })
    })
  ).pipe(Layer.provideMerge(sqlLayer(store, true)))
  return mapLayerError(
    Layer.mergeAll(serviceLayer(settings), Slot.layer).pipe(Layer.provide(engine), Layer.provide(runner)),
    storeError(store)
  )
}

/** Checks the inputs, stores the batch (or finds it by id), starts it and returns its handle. @category constructors */
export const video = (options: VideoBatchOptions) => Effect.flatMap(Batches, (b) => b.video(options))

/**
 * Follows an existing batch (started here or elsewhere). It does not run it: on a SQLite store a batch
 * runs in the process that called `Batch.video` for it.
 * @category constructors
 */
export const attach = (id: string) => Effect.flatMap(Batches, (b) => b.attach(id))

/** The counts of a batch. @category getters */
export const status = (id: string) => Effect.flatMap(Batches, (b) => b.status(id))

/**
 * Cancels a batch: its lines not submitted yet become `cancelled` and are never submitted (a slot
 * running it now claims none of them; nor does any later run), while its submitted lines are followed
 * to their end. A finished or already cancelled batch is left as it is (`outcome` says so); an unknown
 * id is `BatchNotFound`. The gateway has no way to cancel a video task, so none is cancelled there.
 * `Batch.cancelStored(store, id)` does the same from a process that does not run batches.
 * @category mutations
 */
export const cancel = (id: string) => Effect.flatMap(Batches, (b) => b.cancel(id))

/**
 * A PostgreSQL worker: runs slots of every batch of the database until interrupted. The cluster's own
 * log lines are shown (`Listening on: host:port` once it can be reached, its runners' health).
 * @category layers
 */
export const worker = (
  options: LayerOptions & { readonly store: StoreConfig }
): Effect.Effect<never, BatchStoreError, Gateway> => Layer.launch(layerWith(options, false))
