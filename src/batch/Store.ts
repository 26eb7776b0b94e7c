/**
 * The batch journal in SQL (the same statements on SQLite and PostgreSQL): one row per batch, one
 * row per line with its state. Lines move `pending → submitting → running → succeeded | failed`;
 * a `submitting` line found by a restarted slot becomes `unknown` (its submit may have reached the
 * gateway) and is never submitted again unless asked for. The claim is one statement that only
 * succeeds on a `pending` line, so no two slots, processes or machines submit the same line.
 */
import { Array as Arr, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { BatchMismatch, BatchNotFound, BatchStoreError } from "./BatchError.js"

/** The states of a line. @category models */
export const LineStates = ["pending", "submitting", "running", "succeeded", "failed", "unknown"] as const
/** @category models */
export type LineState = (typeof LineStates)[number]

/** How many lines are in each state, and in all. @category models */
export type Counts = { readonly [S in LineState]: number } & { readonly total: number }

/** A batch as stored. @category models */
export interface BatchRecord {
  readonly id: string
  readonly digest: string
  readonly lines: number
  readonly concurrency: number
  /** Where alpha videos are written (absolute). */
  readonly dir: string
  /** Bumped by each explicit resubmission of `unknown` lines: the slots of a new round run again. */
  readonly round: number
}

/** A line as stored. @category models */
export interface LineRecord {
  readonly line: number
  readonly state: LineState
  readonly taskId: string | null
  readonly url: string | null
  readonly file: string | null
  readonly error: string | null
}

/** A line to submit: its number and its input (JSON). @category models */
export interface Claimed {
  readonly line: number
  readonly input: string
}

/** How a line ended. @category models */
export type Outcome =
  | { readonly state: "succeeded"; readonly url?: string; readonly file?: string }
  | { readonly state: "failed"; readonly error: string }
  | { readonly state: "unknown"; readonly error: string }

const num = (v: unknown): number => Number(v)
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

/** The database's own words for a failed statement: the driver's error under the SQL reason. */
const detailOf = (e: SqlError): string => {
  const native = e.reason.cause
  return typeof native === "object" && native !== null && typeof (native as { message?: unknown }).message === "string"
    ? (native as { message: string }).message
    : e.message
}

/** A statement that failed: the store's own error, its text kept short. */
const statement = <A, R>(what: string, effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A, BatchStoreError, R> =>
  Effect.mapError(
    effect,
    (e) =>
      new BatchStoreError({ reason: "statement", message: `batch store: ${what} failed: ${detailOf(e).slice(0, 300)}` })
  )

/** Creates the two tables and their index when missing. @category constructors */
export const migrate: Effect.Effect<void, BatchStoreError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Several runners may start at once on a new PostgreSQL database: CREATE TABLE IF NOT EXISTS races
  // there, so the tables are made under a transaction-scoped advisory lock (SQLite has one writer).
  const serialized = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    sql.onDialectOrElse({
      pg: () => sql.withTransaction(Effect.andThen(sql`SELECT pg_advisory_xact_lock(7212260001)`, effect)),
      orElse: () => effect
    })
  yield* statement(
    "creating tables",
    serialized(
      Effect.all(
        [
          sql`CREATE TABLE IF NOT EXISTS umg_batches (
        id TEXT PRIMARY KEY,
        digest TEXT NOT NULL,
        lines INTEGER NOT NULL,
        concurrency INTEGER NOT NULL,
        dir TEXT NOT NULL,
        round INTEGER NOT NULL,
        created_at TEXT NOT NULL
      )`,
          sql`CREATE TABLE IF NOT EXISTS umg_batch_lines (
        batch_id TEXT NOT NULL,
        line INTEGER NOT NULL,
        input TEXT NOT NULL,
        state TEXT NOT NULL,
        slot INTEGER,
        runner TEXT,
        task_id TEXT,
        url TEXT,
        file TEXT,
        error TEXT,
        submits INTEGER NOT NULL,
        PRIMARY KEY (batch_id, line)
      )`,
          sql`CREATE INDEX IF NOT EXISTS umg_batch_lines_state ON umg_batch_lines (batch_id, state, line)`,
          sql`CREATE INDEX IF NOT EXISTS umg_batch_lines_slot ON umg_batch_lines (batch_id, slot, state)`
        ],
        { discard: true }
      )
    )
  )
})

const toBatch = (row: Record<string, unknown>): BatchRecord => ({
  id: String(row.id),
  digest: String(row.digest),
  lines: num(row.lines),
  concurrency: num(row.concurrency),
  dir: String(row.dir),
  round: num(row.round)
})

/** The batch of this id, if any. @category getters */
export const find = (id: string): Effect.Effect<Option.Option<BatchRecord>, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "reading the batch",
      Effect.map(
        sql<
          Record<string, unknown>
        >`SELECT id, digest, lines, concurrency, dir, round FROM umg_batches WHERE id = ${id}`,
        (rows) => Option.map(Option.fromNullishOr(rows[0]), toBatch)
      )
    )
  )

/** The batch of this id, or `BatchNotFound`. @category getters */
export const get = (id: string): Effect.Effect<BatchRecord, BatchStoreError | BatchNotFound, SqlClient.SqlClient> =>
  Effect.flatMap(find(id), (found) =>
    Option.match(found, {
      onNone: () => Effect.fail(new BatchNotFound({ id, message: `no batch ${JSON.stringify(id)} in this store` })),
      onSome: Effect.succeed
    })
  )

/** What `create` stores. @category models */
export interface NewBatch {
  readonly id: string
  readonly digest: string
  readonly concurrency: number
  readonly dir: string
  readonly lines: ReadonlyArray<{ readonly line: number; readonly input: string }>
}

// Rows per INSERT: ten parameters per row stays far below SQLite's and PostgreSQL's limits.
const insertChunk = 200

/**
 * Stores a new batch and its lines in one transaction, or returns the stored one when the id exists
 * with the same digest; another digest is a `BatchMismatch`.
 * @category constructors
 */
export const create = (
  batch: NewBatch
): Effect.Effect<BatchRecord, BatchStoreError | BatchMismatch, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const existing = yield* find(batch.id)
    if (Option.isSome(existing)) {
      if (existing.value.digest !== batch.digest)
        return yield* Effect.fail(
          new BatchMismatch({
            id: batch.id,
            message: `batch ${JSON.stringify(batch.id)} exists for other inputs (${existing.value.lines} lines); use another id, or the inputs it was made with`
          })
        )
      return existing.value
    }
    const record: BatchRecord = {
      id: batch.id,
      digest: batch.digest,
      lines: batch.lines.length,
      concurrency: batch.concurrency,
      dir: batch.dir,
      round: 0
    }
    yield* statement(
      "storing the batch",
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO umg_batches ${sql.insert({
            id: record.id,
            digest: record.digest,
            lines: record.lines,
            concurrency: record.concurrency,
            dir: record.dir,
            round: 0,
            created_at: new Date().toISOString()
          })}`
          for (let i = 0; i < batch.lines.length; i += insertChunk) {
            const rows = batch.lines.slice(i, i + insertChunk).map((l) => ({
              batch_id: batch.id,
              line: l.line,
              input: l.input,
              state: "pending",
              submits: 0
            }))
            if (Arr.isArrayNonEmpty(rows)) yield* sql`INSERT INTO umg_batch_lines ${sql.insert(rows)}`
          }
        })
      )
    )
    return record
  })

/** Lines per state. @category getters */
export const counts = (id: string): Effect.Effect<Counts, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "counting lines",
      Effect.map(
        sql<{
          state: string
          n: unknown
        }>`SELECT state, COUNT(*) AS n FROM umg_batch_lines WHERE batch_id = ${id} GROUP BY state`,
        (rows) => {
          const out: Record<string, number> = {
            pending: 0,
            submitting: 0,
            running: 0,
            succeeded: 0,
            failed: 0,
            unknown: 0,
            total: 0
          }
          for (const row of rows) {
            out[row.state] = num(row.n)
            out.total! += num(row.n)
          }
          return out as Counts
        }
      )
    )
  )

/** True when no line can change any more without being asked to (every line final). @category predicates */
export const isDone = (c: Counts): boolean => c.pending + c.submitting + c.running === 0

/** Every line, in line order. @category getters */
export const lines = (id: string): Effect.Effect<ReadonlyArray<LineRecord>, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "reading lines",
      Effect.map(
        sql<
          Record<string, unknown>
        >`SELECT line, state, task_id, url, file, error FROM umg_batch_lines WHERE batch_id = ${id} ORDER BY line`,
        (rows) =>
          rows.map((r) => ({
            line: num(r.line),
            state: String(r.state) as LineState,
            taskId: str(r.task_id),
            url: str(r.url),
            file: str(r.file),
            error: str(r.error)
          }))
      )
    )
  )

/**
 * Opens a slot after a (re)start: its `submitting` lines — a submit that was in flight when the
 * process running the slot died — become `unknown`, and its `running` lines are returned to follow.
 * @category mutations
 */
export const openSlot = (
  id: string,
  slot: number
): Effect.Effect<
  ReadonlyArray<{ readonly line: number; readonly taskId: string; readonly input: string }>,
  BatchStoreError,
  SqlClient.SqlClient
> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "reopening a slot",
      Effect.gen(function* () {
        yield* sql`UPDATE umg_batch_lines SET state = 'unknown', error = ${"the process submitting it stopped before the gateway's answer was recorded; the task may exist"}
          WHERE batch_id = ${id} AND slot = ${slot} AND state = 'submitting'`
        const rows = yield* sql<Record<string, unknown>>`SELECT line, task_id, input FROM umg_batch_lines
          WHERE batch_id = ${id} AND slot = ${slot} AND state = 'running' ORDER BY line`
        return rows.map((r) => ({ line: num(r.line), taskId: String(r.task_id), input: String(r.input) }))
      })
    )
  )

/**
 * Claims the first `pending` line for a slot (state `submitting`, one more submit counted). The
 * update only matches a line still `pending`, so two claimers never get the same line; when another
 * claimer won the race the claim is tried again, and `None` means no line is pending. `runner`
 * (host and process) is recorded for audits: which process submitted which line.
 * @category mutations
 */
export const claim = (
  id: string,
  slot: number,
  runner: string
): Effect.Effect<Option.Option<Claimed>, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "claiming a line",
      Effect.gen(function* () {
        for (;;) {
          const rows = yield* sql<
            Record<string, unknown>
          >`UPDATE umg_batch_lines SET state = 'submitting', slot = ${slot}, runner = ${runner}, submits = submits + 1
            WHERE batch_id = ${id} AND state = 'pending'
              AND line = (SELECT MIN(line) FROM umg_batch_lines WHERE batch_id = ${id} AND state = 'pending')
            RETURNING line, input`
          if (rows.length > 0) return Option.some({ line: num(rows[0]!.line), input: String(rows[0]!.input) })
          const left = yield* sql<{
            n: unknown
          }>`SELECT COUNT(*) AS n FROM umg_batch_lines WHERE batch_id = ${id} AND state = 'pending'`
          if (num(left[0]?.n ?? 0) === 0) return Option.none()
        }
      })
    )
  )

/** Records the task id of a line the gateway accepted: `running`. @category mutations */
export const started = (
  id: string,
  line: number,
  taskId: string
): Effect.Effect<void, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "recording a task id",
      sql`UPDATE umg_batch_lines SET state = 'running', task_id = ${taskId}, error = NULL WHERE batch_id = ${id} AND line = ${line}`
    )
  )

/** Records how a line ended. @category mutations */
export const finish = (
  id: string,
  line: number,
  outcome: Outcome
): Effect.Effect<void, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "recording a result",
      sql`UPDATE umg_batch_lines SET state = ${outcome.state},
        url = ${outcome.state === "succeeded" ? (outcome.url ?? null) : null},
        file = ${outcome.state === "succeeded" ? (outcome.file ?? null) : null},
        error = ${outcome.state === "succeeded" ? null : outcome.error}
        WHERE batch_id = ${id} AND line = ${line}`
    )
  )

/**
 * Puts every `unknown` line of a batch back to `pending` and starts a new round (so slots run
 * again); returns how many lines will be submitted again.
 * @category mutations
 */
export const resubmitUnknown = (id: string): Effect.Effect<number, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "resubmitting unknown lines",
      sql.withTransaction(
        Effect.gen(function* () {
          const rows = yield* sql`UPDATE umg_batch_lines SET state = 'pending', slot = NULL, error = NULL
            WHERE batch_id = ${id} AND state = 'unknown' RETURNING line`
          if (rows.length > 0) yield* sql`UPDATE umg_batches SET round = round + 1 WHERE id = ${id}`
          return rows.length
        })
      )
    )
  )

/** How many times each line was claimed for a submit (tests and audits). @category getters */
export const submits = (id: string): Effect.Effect<ReadonlyMap<number, number>, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "reading submit counts",
      Effect.map(
        sql<Record<string, unknown>>`SELECT line, submits FROM umg_batch_lines WHERE batch_id = ${id}`,
        (rows) => new Map(rows.map((r) => [num(r.line), num(r.submits)]))
      )
    )
  )

/** Gives a claimed line back (`pending`): its submit provably never reached the gateway. @category mutations */
export const release = (id: string, line: number): Effect.Effect<void, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "releasing a line",
      sql`UPDATE umg_batch_lines SET state = 'pending', slot = NULL, submits = submits - 1 WHERE batch_id = ${id} AND line = ${line} AND state = 'submitting'`
    )
  )
