/**
 * The batch journal in SQL, the same statements on SQLite and PostgreSQL. It holds one row per batch,
 * one per line with its state, a row per batch and state with how many lines are in it, the
 * batch's ingest (how many of its lines are stored, and the line that refused it) and its stops (cancelled;
 * halted by the gateway refusing the account). Lines move `pending → submitting → running → succeeded |
 * failed`, or `pending → cancelled`. Every change of state is an operation (`Op`) that returns the counts
 * it moves; the counts are updated in the same transaction, so reading them is a read of seven rows,
 * never a scan. A claim only takes `pending` lines (PostgreSQL: `FOR UPDATE SKIP
 * LOCKED`, so claimers never wait on one another; SQLite: one writer), so no two slots, processes or
 * machines submit the same line.
 *
 * A claim belongs to the slot that made it: the slot's number and the batch's round (`claim_round`),
 * that is one slot workflow, which the cluster runs at most once at a time. Its `submitting` line is
 * dead — the process submitting it stopped — only when that same workflow runs again (`openSlotOp`):
 * then it becomes `unknown` (the submit may have reached the gateway) and is never submitted again
 * unless asked. A slot of another round never touches it, and a claim of a round that is over is
 * refused. The gateway's answer to a claim is recorded whatever became of the line meanwhile
 * (`startedOp` takes an `unknown` line of the same claim too): a task id is never thrown away.
 */
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { Fragment } from "effect/sql/Statement"
import { BatchMismatch, BatchNotFound, BatchStoreError, type HaltReason, type HaltStep } from "./BatchError.js"

/**
 * The states of a line. `cancelled`: the batch was cancelled before the line was submitted (it never
 * will be). @category models
 */
export const LineStates = ["pending", "submitting", "running", "succeeded", "failed", "unknown", "cancelled"] as const
/** @category models */
export type LineState = (typeof LineStates)[number]

/**
 * How many lines are in each state, and in all. `pending` counts the lines not yet submitted,
 * including those of the input not stored yet. @category models
 */
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

/** Why a batch stopped taking lines: the first input line that failed its check. @category models */
export interface Refusal {
  readonly line: number
  readonly field: string
  readonly rule: string
  readonly message: string
}

/** How far a batch's input is stored. @category models */
export interface Ingest {
  /** Input lines stored (they come in input order). */
  readonly stored: number
  /** True once every input line is stored. */
  readonly complete: boolean
  /** The digest of the stored lines (`digestOf` of them), kept when the batch is refused. */
  readonly prefixDigest: string | null
  readonly refused: Refusal | null
}

/**
 * Why a batch submits nothing more until it is run again: the gateway refused a request for the whole
 * key or account (401, 403, 402, out of quota), and every other submit would be refused alike. A
 * refused submit made nothing: its line went back to `pending`; a refused poll (or download) of a
 * running task left its line `running`, to be followed again. @category models
 */
export interface Halt {
  /** The line whose submit, or whose task's poll, was refused. */
  readonly line: number
  /** What was refused. */
  readonly step: HaltStep
  readonly reason: HaltReason
  /** The HTTP status of the refusal, when it was an answer. */
  readonly status: number | null
  /** The gateway's error type (`authentication_error`, …), when it gave one. */
  readonly type: string | null
  /** The error's tag and the gateway's message (redacted by the transport). */
  readonly message: string
}

/** The counts of a batch and its ingest: what `status` and `progress` read. @category models */
export interface Status {
  readonly counts: Counts
  readonly ingest: Ingest
  /** True once the batch was cancelled (`cancel`). */
  readonly cancelled: boolean
  /** Set while the batch is halted by a refusal of the account (cleared by running it again). */
  readonly halt: Halt | null
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

/** A line to submit: its number, its input (JSON) and the claim (its submit count, which names it). @category models */
export interface Claimed {
  readonly line: number
  readonly input: string
  readonly claim: number
}

/** How a line ended. @category models */
export type Outcome =
  | { readonly state: "succeeded"; readonly url?: string; readonly file?: string }
  | { readonly state: "failed"; readonly error: string }
  | { readonly state: "unknown"; readonly error: string }

/** Lines moved into (+) or out of (−) a state of a batch. @category models */
export type Delta = readonly [batchId: string, state: LineState, n: number]

/** What an operation returns: its value and the counts it moved. @category models */
export interface Step<A> {
  readonly value: A
  readonly deltas: ReadonlyArray<Delta>
}

/**
 * A change of the journal, run inside a transaction (alone by `run`, or with others by the
 * `Journal`), whose counts are applied in that same transaction.
 * @category models
 */
export type Op<A> = Effect.Effect<Step<A>, SqlError, SqlClient.SqlClient>

const num = (v: unknown): number => Number(v)
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

/** The database's own words for a failed statement: the driver's error under the SQL reason. */
const detailOf = (e: SqlError): string => {
  const native = e.reason.cause
  return typeof native === "object" && native !== null && typeof (native as { message?: unknown }).message === "string"
    ? (native as { message: string }).message
    : e.message
}

/** A statement that failed: the store's own error, its text kept short. @category errors */
export const statement = <A, R>(
  what: string,
  effect: Effect.Effect<A, SqlError, R>
): Effect.Effect<A, BatchStoreError, R> =>
  Effect.mapError(
    effect,
    (e) =>
      new BatchStoreError({ reason: "statement", message: `batch store: ${what} failed: ${detailOf(e).slice(0, 300)}` })
  )

const tables = (sql: SqlClient.SqlClient) => [
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
    claim_round INTEGER,
    PRIMARY KEY (batch_id, line)
  )`,
  sql`CREATE INDEX IF NOT EXISTS umg_batch_lines_state ON umg_batch_lines (batch_id, state, line)`,
  sql`CREATE INDEX IF NOT EXISTS umg_batch_lines_slot ON umg_batch_lines (batch_id, slot, state)`,
  sql`CREATE TABLE IF NOT EXISTS umg_batch_counts (
    batch_id TEXT NOT NULL,
    state TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (batch_id, state)
  )`,
  sql`CREATE TABLE IF NOT EXISTS umg_batch_ingest (
    batch_id TEXT PRIMARY KEY,
    stored INTEGER NOT NULL,
    complete INTEGER NOT NULL,
    prefix_digest TEXT,
    refused_line INTEGER,
    refused_field TEXT,
    refused_rule TEXT,
    refused_message TEXT
  )`,
  sql`CREATE TABLE IF NOT EXISTS umg_batch_stops (
    batch_id TEXT PRIMARY KEY,
    cancelled INTEGER NOT NULL,
    halt_line INTEGER,
    halt_reason TEXT,
    halt_status INTEGER,
    halt_type TEXT,
    halt_message TEXT,
    halt_step TEXT
  )`
]

/**
 * The columns added to a table after it was first made: `claim_round` (lines of umg 0.3 and earlier
 * have none) and `halt_step` (stops made before a poll could halt a batch).
 */
const addedColumns = [
  { table: "umg_batch_lines", column: "claim_round", type: "INTEGER" },
  { table: "umg_batch_stops", column: "halt_step", type: "TEXT" }
] as const

/** How many of `addedColumns` the tables have. */
const columnsPresent = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql.onDialectOrElse({
      pg: () =>
        sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM information_schema.columns
          WHERE table_schema = current_schema() AND ((table_name = 'umg_batch_lines' AND column_name = 'claim_round')
            OR (table_name = 'umg_batch_stops' AND column_name = 'halt_step'))`,
      orElse: () =>
        sql<{
          n: unknown
        }>`SELECT (SELECT COUNT(*) FROM pragma_table_info('umg_batch_lines') WHERE name = 'claim_round')
          + (SELECT COUNT(*) FROM pragma_table_info('umg_batch_stops') WHERE name = 'halt_step') AS n`
    }),
    (rows) => num(rows[0]?.n)
  )

/**
 * Adds a missing column of `addedColumns`. The lines' claims of an older store keep a null round, read
 * as the batch's current round (see `ofSlot`): the slots started next take them over, as before; a
 * null `halt_step` is a submit's halt.
 */
const addColumn = (sql: SqlClient.SqlClient, added: (typeof addedColumns)[number]) =>
  sql.onDialectOrElse({
    pg: () => sql.unsafe(`ALTER TABLE ${added.table} ADD COLUMN IF NOT EXISTS ${added.column} ${added.type}`),
    // SQLite has no IF NOT EXISTS for a column: a process that added it first leaves nothing to do.
    orElse: () =>
      sql.unsafe(`ALTER TABLE ${added.table} ADD COLUMN ${added.column} ${added.type}`).pipe(
        Effect.catch((e) =>
          Effect.flatMap(
            sql<{
              n: unknown
            }>`SELECT COUNT(*) AS n FROM pragma_table_info(${added.table}) WHERE name = ${added.column}`,
            (rows) => (num(rows[0]?.n) === 1 ? Effect.void : Effect.fail(e))
          )
        )
      )
  })

/** Creates the tables and their indexes when missing. @category constructors */
export const migrate: Effect.Effect<void, BatchStoreError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [first] = yield* statement(
    "reading the tables",
    sql.onDialectOrElse({
      pg: () =>
        sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_name IN ('umg_batches', 'umg_batch_lines', 'umg_batch_counts', 'umg_batch_ingest', 'umg_batch_stops')`,
      orElse: () =>
        sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM sqlite_master
          WHERE type = 'table' AND name IN ('umg_batches', 'umg_batch_lines', 'umg_batch_counts', 'umg_batch_ingest', 'umg_batch_stops')`
    })
  )
  // Every table there, as this version makes them: nothing to write (a reader, such as
  // `umg batch status`, takes no write lock).
  if (num(first?.n) === 5 && (yield* statement("reading the tables", columnsPresent(sql))) === addedColumns.length)
    return
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
      Effect.andThen(
        Effect.all(tables(sql), { discard: true }),
        Effect.forEach(addedColumns, (added) => addColumn(sql, added), { discard: true })
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

/** Adds the deltas to the counts, one statement per batch and state, in a fixed order (no lock cycles). */
const applyDeltas = (sql: SqlClient.SqlClient, deltas: ReadonlyArray<Delta>): Effect.Effect<void, SqlError> => {
  if (deltas.length === 0) return Effect.void
  const sums = new Map<string, { id: string; state: LineState; n: number }>()
  for (const [id, state, n] of deltas) {
    const key = `${id}\u0000${state}`
    const entry = sums.get(key)
    if (entry === undefined) sums.set(key, { id, state, n })
    else entry.n += n
  }
  const ordered = [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e)
  return Effect.forEach(
    ordered.filter((e) => e.n !== 0),
    (e) => sql`UPDATE umg_batch_counts SET n = n + ${e.n} WHERE batch_id = ${e.id} AND state = ${e.state}`,
    { discard: true }
  )
}

/** Runs operations in one transaction and applies their counts before it commits. @category combinators */
export const runAll = <A>(ops: ReadonlyArray<Op<A>>): Effect.Effect<ReadonlyArray<A>, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.onError(
      sql.withTransaction(
        Effect.gen(function* () {
          const values: Array<A> = []
          const deltas: Array<Delta> = []
          for (const op of ops) {
            const step = yield* op
            values.push(step.value)
            for (const d of step.deltas) deltas.push(d)
          }
          yield* applyDeltas(sql, deltas)
          return values
        })
      ),
      // Rolled back: a claim in it moved the frontier past lines that are pending again.
      () => Effect.sync(() => frontierOf(sql).clear())
    )
  )

/** Runs one operation in its own transaction. @category combinators */
export const run = <A>(what: string, op: Op<A>): Effect.Effect<A, BatchStoreError, SqlClient.SqlClient> =>
  statement(
    what,
    Effect.map(runAll([op]), (values) => values[0]!)
  )

/** What `begin` stores. @category models */
export interface NewBatch {
  readonly id: string
  readonly digest: string
  readonly concurrency: number
  readonly dir: string
  /** How many input lines the batch has (stored now or later by `storeChunk`). */
  readonly total: number
}

/** A line to store: its number and its input (JSON). @category models */
export interface Entry {
  readonly line: number
  readonly input: string
}

/** The count rows of a batch, one per state. */
const countRows = (id: string, n: (state: LineState) => number) =>
  Arr.map(LineStates, (state) => ({ batch_id: id, state, n: n(state) }))

const mismatch = (id: string, lines: number) =>
  new BatchMismatch({
    id,
    message: `batch ${JSON.stringify(id)} exists for other inputs (${lines} lines); use another id, or the inputs it was made with`
  })

// Rows per INSERT: five parameters per row stays far below SQLite's and PostgreSQL's limits.
const insertChunk = 500

const insertLines = (
  sql: SqlClient.SqlClient,
  id: string,
  entries: ReadonlyArray<Entry>,
  state: "pending" | "cancelled"
) =>
  Effect.gen(function* () {
    for (let i = 0; i < entries.length; i += insertChunk) {
      const rows = entries.slice(i, i + insertChunk).map((l) => ({
        batch_id: id,
        line: l.line,
        input: l.input,
        state,
        submits: 0
      }))
      if (Arr.isArrayNonEmpty(rows)) yield* sql`INSERT INTO umg_batch_lines ${sql.insert(rows)}`
    }
  })

/**
 * Stores a new batch with no line yet (its counts: every line `pending`), or returns the stored one
 * when the id exists with the same digest (its options unchanged: see `reconfigure`); another digest
 * is a `BatchMismatch`. `created` tells which.
 * @category constructors
 */
export const begin = (
  batch: NewBatch
): Effect.Effect<
  { readonly record: BatchRecord; readonly created: boolean },
  BatchStoreError | BatchMismatch,
  SqlClient.SqlClient
> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const existing = yield* find(batch.id)
    if (Option.isSome(existing)) {
      if (existing.value.digest !== batch.digest) return yield* Effect.fail(mismatch(batch.id, existing.value.lines))
      return { record: existing.value, created: false }
    }
    const record: BatchRecord = { ...batch, lines: batch.total, round: 0 }
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
          yield* sql`INSERT INTO umg_batch_counts ${sql.insert(
            countRows(record.id, (state) => (state === "pending" ? record.lines : 0))
          )}`
          yield* sql`INSERT INTO umg_batch_ingest ${sql.insert({ batch_id: record.id, stored: 0, complete: 0 })}`
        })
      )
    )
    return { record, created: true }
  })

/**
 * Takes the batch's row lock (PostgreSQL; SQLite has one writer) and tells whether it is cancelled:
 * storing lines and cancelling take it first, so a cancel counts exactly the lines stored before it
 * and the lines stored after it are stored `cancelled`.
 */
const lockBatch = (sql: SqlClient.SqlClient, id: string): Effect.Effect<boolean, SqlError> =>
  Effect.andThen(
    sql`UPDATE umg_batches SET round = round WHERE id = ${id}`,
    Effect.map(
      sql<{ cancelled: unknown }>`SELECT cancelled FROM umg_batch_stops WHERE batch_id = ${id}`,
      (rows) => num(rows[0]?.cancelled) === 1
    )
  )

/**
 * Stores the next lines of a batch's input (checked, in input order) with how many are stored after
 * them, in one transaction; `complete` once they are the last. The lines of a cancelled batch are
 * stored `cancelled` (the cancel counted them already).
 * @category mutations
 */
export const storeChunk = (
  id: string,
  entries: ReadonlyArray<Entry>,
  storedAfter: number,
  complete: boolean
): Effect.Effect<void, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "storing lines",
      Effect.gen(function* () {
        yield* sql.withTransaction(
          Effect.gen(function* () {
            const cancelled = yield* lockBatch(sql, id)
            yield* insertLines(sql, id, entries, cancelled ? "cancelled" : "pending")
            yield* sql`UPDATE umg_batch_ingest SET stored = ${storedAfter}, complete = ${complete ? 1 : 0} WHERE batch_id = ${id}`
          })
        )
        // Once a batch is stored, PostgreSQL's statistics are brought up to date: its planner would
        // otherwise plan the journal's statements for the table as it was before (a server whose
        // autovacuum is off, or has not come round yet), scanning every line where it needs a few.
        if (complete && sql.onDialectOrElse({ pg: () => true, orElse: () => false }))
          yield* sql`ANALYZE umg_batch_lines`
      })
    )
  )

/**
 * Stores a new batch and all its lines in one transaction (`begin` and one `storeChunk`), or returns
 * the stored one when the id exists with the same digest; another digest is a `BatchMismatch`.
 * @category constructors
 */
export const create = (
  batch: Omit<NewBatch, "total"> & { readonly lines: ReadonlyArray<Entry> }
): Effect.Effect<BatchRecord, BatchStoreError | BatchMismatch, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const { record, created } = yield* begin({ ...batch, total: batch.lines.length })
        if (created) yield* storeChunk(batch.id, batch.lines, batch.lines.length, true)
        return record
      })
    )
  ).pipe(Effect.catchTag("SqlError", (e) => statement("storing the batch", Effect.fail(e))))

/** Stops a batch at an input line that failed its check: no line of it is claimed any more. @category mutations */
export const refuse = (
  id: string,
  refusal: Refusal,
  prefixDigest: string
): Effect.Effect<void, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "recording the refused line",
      sql`UPDATE umg_batch_ingest SET prefix_digest = ${prefixDigest}, refused_line = ${refusal.line},
        refused_field = ${refusal.field}, refused_rule = ${refusal.rule}, refused_message = ${refusal.message.slice(0, 2_000)}
        WHERE batch_id = ${id}`
    )
  )

/** The refused batches of the store (most recent first, at most `limit`), with their ingest. @category getters */
export const refusedBatches = (
  limit: number
): Effect.Effect<
  ReadonlyArray<{ readonly record: BatchRecord; readonly ingest: Ingest }>,
  BatchStoreError,
  SqlClient.SqlClient
> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "reading refused batches",
      Effect.map(
        sql<
          Record<string, unknown>
        >`SELECT b.id, b.digest, b.lines, b.concurrency, b.dir, b.round, i.stored, i.complete,
            i.prefix_digest, i.refused_line, i.refused_field, i.refused_rule, i.refused_message
          FROM umg_batches b JOIN umg_batch_ingest i ON i.batch_id = b.id
          WHERE i.refused_line IS NOT NULL ORDER BY b.created_at DESC LIMIT ${limit}`,
        (rows) => rows.map((r) => ({ record: toBatch(r), ingest: toIngest(r) }))
      )
    )
  )

/**
 * Lets a refused batch go on with corrected input (whose first `stored` lines are the stored ones):
 * its digest and line count become the new input's, the refusal is cleared, and a new round starts
 * (so its slots run again). The lines a cancelled batch gains are counted `cancelled`.
 * @category mutations
 */
export const resume = (
  record: BatchRecord,
  digest: string,
  total: number
): Effect.Effect<BatchRecord, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "resuming a refused batch",
      sql.withTransaction(
        Effect.gen(function* () {
          const cancelled = yield* lockBatch(sql, record.id)
          const rows = yield* sql<Record<string, unknown>>`UPDATE umg_batches SET digest = ${digest}, lines = ${total},
            round = round + 1 WHERE id = ${record.id} RETURNING id, digest, lines, concurrency, dir, round`
          yield* applyDeltas(sql, [[record.id, cancelled ? "cancelled" : "pending", total - record.lines]])
          yield* sql`UPDATE umg_batch_ingest SET prefix_digest = NULL, refused_line = NULL, refused_field = NULL,
            refused_rule = NULL, refused_message = NULL WHERE batch_id = ${record.id}`
          return rows[0] === undefined ? { ...record, digest, lines: total, round: record.round + 1 } : toBatch(rows[0])
        })
      )
    )
  )

/**
 * A batch run again with another `concurrency` or `dir` (only those given count): both are stored and
 * a new round starts, so the change holds for this run and the runs after. The old round's slots
 * claim nothing more — they get the answer of the submit in flight and follow their tasks to the end —
 * and the new round's `min(concurrency, lines)` slots claim the rest, downloading alpha videos to the
 * new folder. Unchanged options change nothing.
 * @category mutations
 */
export const reconfigure = (
  record: BatchRecord,
  given: { readonly concurrency?: number | undefined; readonly dir?: string | undefined }
): Effect.Effect<BatchRecord, BatchStoreError, SqlClient.SqlClient> => {
  const concurrency = given.concurrency ?? record.concurrency
  const dir = given.dir ?? record.dir
  if (concurrency === record.concurrency && dir === record.dir) return Effect.succeed(record)
  return Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "changing the batch's options",
      Effect.map(
        sql<Record<string, unknown>>`UPDATE umg_batches SET concurrency = ${concurrency}, dir = ${dir},
          round = round + 1 WHERE id = ${record.id} RETURNING id, digest, lines, concurrency, dir, round`,
        (rows) => (rows[0] === undefined ? record : toBatch(rows[0]))
      )
    )
  )
}

const toIngest = (row: Record<string, unknown>): Ingest => ({
  stored: num(row.stored),
  complete: num(row.complete) === 1,
  prefixDigest: str(row.prefix_digest),
  refused:
    row.refused_line === null || row.refused_line === undefined
      ? null
      : {
          line: num(row.refused_line),
          field: String(row.refused_field),
          rule: String(row.refused_rule),
          message: String(row.refused_message)
        }
})

const zeroCounts = (): Record<LineState | "total", number> => ({
  pending: 0,
  submitting: 0,
  running: 0,
  succeeded: 0,
  failed: 0,
  unknown: 0,
  cancelled: 0,
  total: 0
})

/**
 * The counts of a batch stored before counts were kept (umg 0.1 and 0.2): one scan of its lines,
 * stored so that it is the last.
 */
const countsOfOldBatch = (sql: SqlClient.SqlClient, id: string) =>
  sql.withTransaction(
    Effect.gen(function* () {
      const rows = yield* sql<{
        state: string
        n: unknown
      }>`SELECT state, COUNT(*) AS n FROM umg_batch_lines WHERE batch_id = ${id} GROUP BY state`
      const counts = zeroCounts()
      for (const row of rows) counts[row.state as LineState] = num(row.n)
      yield* sql.onDialectOrElse({
        pg: () =>
          sql`INSERT INTO umg_batch_counts ${sql.insert(countRows(id, (state) => counts[state]))} ON CONFLICT DO NOTHING`,
        orElse: () => sql`INSERT OR IGNORE INTO umg_batch_counts ${sql.insert(countRows(id, (state) => counts[state]))}`
      })
      return rows.map((r) => ({ state: r.state, n: r.n }))
    })
  )

const toHalt = (row: Record<string, unknown> | undefined): Halt | null =>
  row === undefined || row.halt_reason === null || row.halt_reason === undefined
    ? null
    : {
        line: num(row.halt_line),
        // A halt stored before polls could halt a batch has no step: a submit's.
        step: row.halt_step === "poll" ? "poll" : "submit",
        reason: String(row.halt_reason) as HaltReason,
        status: row.halt_status === null || row.halt_status === undefined ? null : num(row.halt_status),
        type: str(row.halt_type),
        message: String(row.halt_message)
      }

/** `status` inside a statement or a transaction of the caller's. */
const statusOf = (sql: SqlClient.SqlClient, id: string): Effect.Effect<Status, SqlError> =>
  Effect.gen(function* () {
    const kept = yield* sql<{
      state: string
      n: unknown
    }>`SELECT state, n FROM umg_batch_counts WHERE batch_id = ${id}`
    const rows = kept.length > 0 ? kept : yield* countsOfOldBatch(sql, id)
    const counts = zeroCounts()
    for (const row of rows) {
      counts[row.state as LineState] = num(row.n)
      counts.total += num(row.n)
    }
    const ingest = yield* sql<Record<string, unknown>>`SELECT stored, complete, prefix_digest, refused_line,
        refused_field, refused_rule, refused_message FROM umg_batch_ingest WHERE batch_id = ${id}`
    const stops = yield* sql<Record<string, unknown>>`SELECT cancelled, halt_line, halt_reason, halt_status, halt_type,
        halt_message, halt_step FROM umg_batch_stops WHERE batch_id = ${id}`
    // A batch of umg 0.1 and 0.2 has no ingest row: it was stored whole.
    const first = ingest[0]
    return {
      counts,
      ingest:
        first === undefined
          ? { stored: counts.total, complete: true, prefixDigest: null, refused: null }
          : toIngest(first),
      cancelled: num(stops[0]?.cancelled) === 1,
      halt: toHalt(stops[0])
    }
  })

/**
 * The counts, ingest and stops of a batch: a read of its count rows, its ingest row and its stops row.
 * @category getters
 */
export const status = (id: string): Effect.Effect<Status, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => statement("counting lines", statusOf(sql, id)))

/** Lines per state. @category getters */
export const counts = (id: string): Effect.Effect<Counts, BatchStoreError, SqlClient.SqlClient> =>
  Effect.map(status(id), (s) => s.counts)

/** True when no line can change any more without being asked to (every line final). @category predicates */
export const isDone = (c: Counts): boolean => c.pending + c.submitting + c.running === 0

const toLine = (r: Record<string, unknown>): LineRecord => ({
  line: num(r.line),
  state: String(r.state) as LineState,
  taskId: str(r.task_id),
  url: str(r.url),
  file: str(r.file),
  error: str(r.error)
})

/** Up to `limit` stored lines after line `after`, in line order (keyset pagination). @category getters */
export const page = (
  id: string,
  after: number,
  limit: number
): Effect.Effect<ReadonlyArray<LineRecord>, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "reading lines",
      Effect.map(
        // Lines are numbered from 1 without gaps, so the page is also a range of line numbers: bounded,
        // it stays a short index scan whatever the planner's statistics say (a PostgreSQL without
        // autovacuum never gathers any, and planned this as a sort of every line after `after`).
        sql<Record<string, unknown>>`SELECT line, state, task_id, url, file, error FROM umg_batch_lines
          WHERE batch_id = ${id} AND line > ${after} AND line <= ${after + limit} ORDER BY line LIMIT ${limit}`,
        (rows) => rows.map(toLine)
      )
    )
  )

/**
 * The lines claimed by slot `slot` of round `round`: `l` is `umg_batch_lines`. A line claimed before
 * claims kept their round (umg 0.3 and earlier: null) is read as claimed in the batch's current round.
 */
const ofSlot = (sql: SqlClient.SqlClient, id: string, slot: number, round: number) =>
  sql`l.batch_id = ${id} AND l.slot = ${slot}
    AND COALESCE(l.claim_round, (SELECT b.round FROM umg_batches b WHERE b.id = ${id})) = ${round}`

/**
 * Opens a slot after a (re)start: the `submitting` lines it claimed itself (same slot, same round) —
 * a submit that was in flight when the process running it stopped, since the cluster runs one slot
 * workflow at most once at a time — become `unknown`. Lines claimed by a slot of another round are
 * left to that slot, which may still be running. Its `running` lines are read by `runningOf`.
 * @category operations
 */
export const openSlotOp = (id: string, slot: number, round: number): Op<number> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql`UPDATE umg_batch_lines SET state = 'unknown', error = ${"the process submitting it stopped before the gateway's answer was recorded; the task may exist"}
          WHERE batch_id = ${id} AND line IN (
            SELECT l.line FROM umg_batch_lines l WHERE ${ofSlot(sql, id, slot, round)} AND l.state = 'submitting')
          AND state = 'submitting' RETURNING line`,
      (rows) => ({ value: rows.length, deltas: moved(id, rows, "submitting", "unknown") })
    )
  )

/** The `running` lines a slot claimed (same slot, same round): their tasks, to follow. @category getters */
export const runningOf = (
  id: string,
  slot: number,
  round: number
): Effect.Effect<
  ReadonlyArray<{ readonly line: number; readonly taskId: string; readonly input: string }>,
  BatchStoreError,
  SqlClient.SqlClient
> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "reading running lines",
      Effect.map(
        sql<Record<string, unknown>>`SELECT l.line, l.task_id, l.input FROM umg_batch_lines l
          WHERE ${ofSlot(sql, id, slot, round)} AND l.state = 'running' ORDER BY l.line`,
        (rows) => rows.map((r) => ({ line: num(r.line), taskId: String(r.task_id), input: String(r.input) }))
      )
    )
  )

// Per store (its SQL client) and batch, the line this process's claims start from: one past the last
// line it claimed. Every line below it was pending once and has been claimed since, so a claim that
// starts there skips them — on PostgreSQL, each claimed line leaves a dead `pending` index entry that
// a scan from the first line would visit again (heap fetches per entry, until vacuum), making every
// claim slower as a big batch goes on. A line this process gives back (`releaseOp`) moves the frontier
// down to it, resubmitting `unknown` lines moves it to the first line, and a transaction rolled back
// (`runAll`) forgets the client's frontiers; a line below it pending again otherwise (another
// process's release) is found when nothing is pending from the frontier on: that claim looks again
// from the first line.
const frontiers = new WeakMap<SqlClient.SqlClient, Map<string, number>>()

const frontierOf = (sql: SqlClient.SqlClient): Map<string, number> => {
  const known = frontiers.get(sql)
  if (known !== undefined) return known
  const made = new Map<string, number>()
  frontiers.set(sql, made)
  return made
}

/** Who claims: a slot of a round, and the process running it (recorded for audits). @category models */
export interface Claimer {
  readonly slot: number
  readonly round: number
  readonly runner: string
}

/** The claim statement: up to `limit` of the first `pending` lines from line `from` on. */
const claimFrom = (sql: SqlClient.SqlClient, id: string, by: Claimer, limit: number, from: number) => {
  // Nothing is claimed for a refused, cancelled or halted batch, nor by a slot of a round that is over.
  const open = sql`NOT EXISTS (SELECT 1 FROM umg_batch_ingest WHERE batch_id = ${id} AND refused_line IS NOT NULL)
    AND EXISTS (SELECT 1 FROM umg_batches WHERE id = ${id} AND round = ${by.round})
    AND NOT EXISTS (SELECT 1 FROM umg_batch_stops WHERE batch_id = ${id}
      AND (cancelled = 1 OR halt_reason IS NOT NULL))`
  return sql.onDialectOrElse({
    pg: () => sql<Record<string, unknown>>`WITH c AS (
            SELECT line FROM umg_batch_lines WHERE batch_id = ${id} AND state = 'pending' AND line >= ${from}
              AND ${open}
            ORDER BY line LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          UPDATE umg_batch_lines l SET state = 'submitting', slot = ${by.slot}, claim_round = ${by.round},
            runner = ${by.runner}, submits = l.submits + 1
          FROM c WHERE l.batch_id = ${id} AND l.line = c.line RETURNING l.line, l.input, l.submits`,
    // One line: a scalar subquery, several times cheaper on SQLite than a list.
    orElse: () =>
      limit === 1
        ? sql<Record<string, unknown>>`UPDATE umg_batch_lines
          SET state = 'submitting', slot = ${by.slot}, claim_round = ${by.round}, runner = ${by.runner},
            submits = submits + 1
          WHERE batch_id = ${id} AND line = (
            SELECT line FROM umg_batch_lines WHERE batch_id = ${id} AND state = 'pending' AND line >= ${from}
              AND ${open}
            ORDER BY line LIMIT 1)
          RETURNING line, input, submits`
        : sql<Record<string, unknown>>`UPDATE umg_batch_lines
          SET state = 'submitting', slot = ${by.slot}, claim_round = ${by.round}, runner = ${by.runner},
            submits = submits + 1
          WHERE batch_id = ${id} AND line IN (
            SELECT line FROM umg_batch_lines WHERE batch_id = ${id} AND state = 'pending' AND line >= ${from}
              AND ${open}
            ORDER BY line LIMIT ${limit})
          RETURNING line, input, submits`
  })
}

/**
 * The `pending` lines of a cancelled batch, made `cancelled`: a line given back (`releaseOp`) while
 * the batch was being cancelled, its submit having provably never reached the gateway.
 */
const sweepCancelled = (sql: SqlClient.SqlClient, id: string) =>
  Effect.map(
    sql`UPDATE umg_batch_lines SET state = 'cancelled' WHERE batch_id = ${id} AND state = 'pending'
      AND EXISTS (SELECT 1 FROM umg_batch_stops WHERE batch_id = ${id} AND cancelled = 1) RETURNING line`,
    (rows) => moved(id, rows, "pending", "cancelled")
  )

/**
 * Claims up to `limit` of the first `pending` lines for a slot of a round (state `submitting`, one
 * more submit counted: that count is the claim's `claim`), none once the batch is refused, cancelled
 * or halted, or its round is not `by.round` any more (a new round started: this slot's round is over).
 * PostgreSQL skips the lines another claimer holds (`FOR UPDATE SKIP LOCKED`); SQLite has one writer.
 * The search starts at this process's frontier for the batch (above), and from the first line when
 * nothing is pending from there on. A claim that finds nothing makes a cancelled batch's `pending`
 * lines `cancelled` (see `sweepCancelled`).
 * @category operations
 */
export const claimOp = (id: string, by: Claimer, limit: number): Op<ReadonlyArray<Claimed>> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const frontier = frontierOf(sql)
      const from = frontier.get(id) ?? 0
      let rows = yield* claimFrom(sql, id, by, limit, from)
      if (rows.length === 0 && from > 0) rows = yield* claimFrom(sql, id, by, limit, 0)
      const value = rows
        .map((r) => ({ line: num(r.line), input: String(r.input), claim: num(r.submits) }))
        .sort((a, b) => a.line - b.line)
      const last = value.at(-1)
      if (last !== undefined) frontier.set(id, last.line + 1)
      const swept = rows.length === 0 ? yield* sweepCancelled(sql, id) : []
      return {
        value,
        deltas: [[id, "pending", -rows.length], [id, "submitting", rows.length], ...swept] as ReadonlyArray<Delta>
      }
    })
  )

/**
 * Claims the first `pending` line for a slot, in a transaction of its own; `None` when no line is
 * pending (or the batch is refused, or the round is over).
 * @category mutations
 */
export const claim = (
  id: string,
  by: Claimer
): Effect.Effect<Option.Option<Claimed>, BatchStoreError, SqlClient.SqlClient> =>
  Effect.map(run("claiming a line", claimOp(id, by, 1)), (claimed) => Arr.head(claimed))

/** The deltas of one line moved from `from` to `to`, when it moved. */
const moved = (id: string, rows: ReadonlyArray<unknown>, from: LineState, to: LineState): ReadonlyArray<Delta> =>
  rows.length === 0
    ? []
    : [
        [id, from, -rows.length],
        [id, to, rows.length]
      ]

/**
 * Moves a claimed line to `to` with `set`, when it is still that claim's (`submits = claim`): from
 * `submitting`, or from `unknown` (the claim was given up for dead while its submit was still in
 * flight: its answer is the truth). False when the line was claimed again since (resubmitted).
 */
const settle = (
  sql: SqlClient.SqlClient,
  id: string,
  line: number,
  claim: number,
  to: LineState,
  set: () => Fragment
): Effect.Effect<Step<boolean>, SqlError> =>
  Effect.gen(function* () {
    for (const from of ["submitting", "unknown"] as const) {
      const rows = yield* sql`UPDATE umg_batch_lines SET state = ${to}, ${set()}
        WHERE batch_id = ${id} AND line = ${line} AND submits = ${claim} AND state = ${from} RETURNING line`
      if (rows.length > 0) return { value: true, deltas: moved(id, rows, from, to) }
    }
    return { value: false, deltas: [] }
  })

/**
 * Records the task id the gateway gave a claimed line: `submitting → running`, or `unknown → running`
 * when the claim was given up for dead meanwhile (its submit was in flight after all). False only when
 * the line was claimed again since (its `unknown` resubmitted on request); the caller keeps the id.
 * @category operations
 */
export const startedOp = (id: string, line: number, claim: number, taskId: string): Op<boolean> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    settle(sql, id, line, claim, "running", () => sql`task_id = ${taskId}, error = NULL`)
  )

/**
 * Records how a claimed line's submit ended without a task (`failed`, or `unknown`: it may exist),
 * when it is still that claim's (see `startedOp`).
 * @category operations
 */
export const submitEndedOp = (
  id: string,
  line: number,
  claim: number,
  outcome: Extract<Outcome, { readonly state: "failed" | "unknown" }>
): Op<boolean> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    settle(sql, id, line, claim, outcome.state, () => sql`error = ${outcome.error.slice(0, 2_000)}`)
  )

/**
 * Records how a line ended, when it is still in state `from` (a line already recorded by another
 * runner is left as it is); true when it was recorded here.
 * @category operations
 */
export const finishOp = (id: string, line: number, from: LineState, outcome: Outcome): Op<boolean> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql`UPDATE umg_batch_lines SET state = ${outcome.state},
        url = ${outcome.state === "succeeded" ? (outcome.url ?? null) : null},
        file = ${outcome.state === "succeeded" ? (outcome.file ?? null) : null},
        error = ${outcome.state === "succeeded" ? null : outcome.error.slice(0, 2_000)}
        WHERE batch_id = ${id} AND line = ${line} AND state = ${from} RETURNING line`,
      (rows) => ({ value: rows.length > 0, deltas: moved(id, rows, from, outcome.state) })
    )
  )

/**
 * Gives a claimed line back (`pending`): its submit provably never reached the gateway. Also from
 * `unknown`, when that claim was given up for dead meanwhile: it is known now that nothing was sent.
 * @category operations
 */
export const releaseOp = (id: string, line: number, claim: number): Op<boolean> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      settle(
        sql,
        id,
        line,
        claim,
        "pending",
        () => sql`slot = NULL, claim_round = NULL, error = NULL, submits = submits - 1`
      ),
      (step) => {
        const frontier = frontierOf(sql)
        if (step.value && line < (frontier.get(id) ?? 0)) frontier.set(id, line)
        return step
      }
    )
  )

/**
 * Records the halt of a batch decided in round `round`; the first halt is kept. A halt decided in a
 * round the batch has left (run again since: `unhalt` starts a new round) is dropped: the refusal was
 * met before the rerun, whose key may work, and would otherwise halt it. Tells whether it was kept.
 */
const recordHalt = (sql: SqlClient.SqlClient, id: string, round: number, halt: Halt) =>
  Effect.gen(function* () {
    const current = yield* sql`SELECT 1 AS ok FROM umg_batches WHERE id = ${id} AND round = ${round}`
    if (current.length === 0) return false
    yield* sql`INSERT INTO umg_batch_stops ${sql.insert({
      batch_id: id,
      cancelled: 0,
      halt_line: halt.line,
      halt_reason: halt.reason,
      halt_status: halt.status,
      halt_type: halt.type,
      halt_message: halt.message.slice(0, 2_000),
      halt_step: halt.step
    })} ON CONFLICT (batch_id) DO UPDATE SET halt_line = excluded.halt_line, halt_reason = excluded.halt_reason,
      halt_status = excluded.halt_status, halt_type = excluded.halt_type, halt_message = excluded.halt_message,
      halt_step = excluded.halt_step
      WHERE umg_batch_stops.halt_reason IS NULL
        AND EXISTS (SELECT 1 FROM umg_batches WHERE id = ${id} AND round = ${round})`
    return true
  })

/**
 * Gives a claimed line back (`releaseOp`: the gateway refused its submit, so nothing was made) and
 * halts the batch: no line of it is claimed until it is run again (`unhalt`). The first halt is kept;
 * one decided in a round the batch has left is dropped (see `recordHalt`).
 * @category operations
 */
export const haltOp = (id: string, line: number, claim: number, round: number, halt: Halt): Op<boolean> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const step = yield* releaseOp(id, line, claim)
      yield* recordHalt(sql, id, round, halt)
      return step
    })
  )

/**
 * Halts the batch because the gateway refused the poll (or download) of a running line's task for the
 * key or account: the line stays `running` with its task id, to be followed again when the batch is
 * run again (`unhalt`). The first halt is kept; a poll begun in round `round` whose refusal comes after
 * the batch was run again (a new round) does not halt the new round (see `recordHalt`).
 * @category operations
 */
export const haltPollOp = (id: string, round: number, halt: Halt): Op<void> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.as(recordHalt(sql, id, round, halt), { value: undefined, deltas: [] })
  )

/**
 * Lets a halted batch go on (it is being run again, perhaps with another key): the halt is cleared and
 * a new round starts, so its slots (those of the halted round have ended) run again. A batch not
 * halted is returned as it is.
 * @category mutations
 */
export const unhalt = (record: BatchRecord): Effect.Effect<BatchRecord, BatchStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    statement(
      "clearing the batch's halt",
      sql.withTransaction(
        Effect.gen(function* () {
          const cleared =
            yield* sql`UPDATE umg_batch_stops SET halt_line = NULL, halt_reason = NULL, halt_status = NULL,
            halt_type = NULL, halt_message = NULL, halt_step = NULL WHERE batch_id = ${record.id} AND halt_reason IS NOT NULL
            RETURNING batch_id`
          if (cleared.length === 0) return record
          frontierOf(sql).delete(record.id)
          const rows = yield* sql<Record<string, unknown>>`UPDATE umg_batches SET round = round + 1
            WHERE id = ${record.id} RETURNING id, digest, lines, concurrency, dir, round`
          return rows[0] === undefined ? record : toBatch(rows[0])
        })
      )
    )
  )

/** What `cancel` did. @category models */
export interface CancelResult {
  readonly id: string
  /**
   * `cancelled`: the batch is cancelled now; `already-cancelled` and `finished` (every line had ended):
   * nothing was done.
   */
  readonly outcome: "cancelled" | "already-cancelled" | "finished"
  /** Lines cancelled by this call (those of the input not stored yet included). */
  readonly cancelled: number
  /** The counts after it. */
  readonly counts: Counts
}

/**
 * Cancels a batch: its lines not submitted yet (pending, and those of its input still to be stored)
 * become `cancelled`, and no line of it is claimed any more, by a process running it now or by any
 * later run (a halt is cleared: nothing is left to wait for). Lines submitted already (`submitting`,
 * `running`) go on to their end. A batch whose every line has ended, or that is cancelled already, is
 * left as it is (`outcome` says which); an unknown id is `BatchNotFound`.
 * @category mutations
 */
export const cancel = (id: string): Effect.Effect<CancelResult, BatchStoreError | BatchNotFound, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(
      statement(
        "cancelling the batch",
        sql.withTransaction(
          Effect.gen(function* () {
            const found = yield* sql`UPDATE umg_batches SET round = round WHERE id = ${id} RETURNING id`
            if (found.length === 0) return undefined
            const before = yield* statusOf(sql, id)
            if (before.cancelled)
              return { id, outcome: "already-cancelled", cancelled: 0, counts: before.counts } as const
            if (isDone(before.counts)) return { id, outcome: "finished", cancelled: 0, counts: before.counts } as const
            // A batch stored before lines could be cancelled has no count row for them yet.
            const row = { batch_id: id, state: "cancelled", n: 0 }
            yield* sql`INSERT INTO umg_batch_counts ${sql.insert(row)} ON CONFLICT (batch_id, state) DO NOTHING`
            // A halt is moot once nothing will be submitted: it is cleared.
            yield* sql`INSERT INTO umg_batch_stops ${sql.insert({ batch_id: id, cancelled: 1 })}
              ON CONFLICT (batch_id) DO UPDATE SET cancelled = 1, halt_line = NULL, halt_reason = NULL,
                halt_status = NULL, halt_type = NULL, halt_message = NULL, halt_step = NULL`
            const rows = yield* sql`UPDATE umg_batch_lines SET state = 'cancelled'
              WHERE batch_id = ${id} AND state = 'pending' RETURNING line`
            // The lines of the input not stored yet are counted `pending` too: they will be stored `cancelled`.
            const n = rows.length + Math.max(0, before.counts.total - before.ingest.stored)
            yield* applyDeltas(sql, [
              [id, "pending", -n],
              [id, "cancelled", n]
            ])
            return { id, outcome: "cancelled", cancelled: n, counts: (yield* statusOf(sql, id)).counts } as const
          })
        )
      ),
      (result) =>
        result === undefined
          ? Effect.fail(new BatchNotFound({ id, message: `no batch ${JSON.stringify(id)} in this store` }))
          : Effect.succeed(result)
    )
  )

/** `startedOp` in a transaction of its own. @category mutations */
export const started = (id: string, line: number, claim: number, taskId: string) =>
  run("recording a task id", startedOp(id, line, claim, taskId))

/** `finishOp` in a transaction of its own. @category mutations */
export const finish = (id: string, line: number, from: LineState, outcome: Outcome) =>
  run("recording a result", finishOp(id, line, from, outcome))

/** `releaseOp` in a transaction of its own. @category mutations */
export const release = (id: string, line: number, claim: number) => run("releasing a line", releaseOp(id, line, claim))

/**
 * Puts every `unknown` line of a batch back to `pending` and starts a new round (so slots run
 * again); returns how many lines will be submitted again (none of a cancelled batch).
 * @category mutations
 */
export const resubmitUnknown = (id: string): Effect.Effect<number, BatchStoreError, SqlClient.SqlClient> =>
  run(
    "resubmitting unknown lines",
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.gen(function* () {
        const rows = yield* sql`UPDATE umg_batch_lines SET state = 'pending', slot = NULL, error = NULL
          WHERE batch_id = ${id} AND state = 'unknown'
            AND NOT EXISTS (SELECT 1 FROM umg_batch_stops WHERE batch_id = ${id} AND cancelled = 1) RETURNING line`
        if (rows.length > 0) yield* sql`UPDATE umg_batches SET round = round + 1 WHERE id = ${id}`
        frontierOf(sql).delete(id)
        return { value: rows.length, deltas: moved(id, rows, "unknown", "pending") }
      })
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
