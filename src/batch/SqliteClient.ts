/**
 * A SQLite driver for `effect/sql` on Node's built-in `node:sqlite` (`DatabaseSync`): no native
 * package to build, nothing to install. One connection per client, shared through a semaphore
 * (`SqlClient.makeSqliteAcquirers`); statements are prepared once and cached; writable connections
 * start transactions with `BEGIN IMMEDIATE` (the write lock up front, so two processes never
 * deadlock upgrading a read lock); WAL and a busy timeout are on by default. Every failure is a
 * `SqlError` whose reason is classified from SQLite's own code. `node:sqlite` is synchronous: a
 * statement (and a busy wait) holds the event loop while it runs, which suits the small statements
 * of a local journal. Streaming queries are not supported. `node:sqlite` is loaded when a client is
 * made, not with this module: on Node 22 loading it prints an `ExperimentalWarning`, which a program
 * that imports `umg/batch` for a PostgreSQL store (or does not open a store) should not see.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import type { SQLInputValue, StatementSync } from "node:sqlite"

/** What `SqliteClient.layer` opens. @category models */
export interface SqliteClientConfig {
  /** The database file (made when missing), or `:memory:`. */
  readonly filename: string
  /** Opens the file read-only (no WAL switch, no write lock). */
  readonly readonly?: boolean | undefined
  /** How long a statement waits for another process's lock before failing (default 5000 ms). */
  readonly busyTimeoutMs?: number | undefined
  /** Keeps SQLite's rollback journal instead of switching the file to WAL. */
  readonly disableWAL?: boolean | undefined
  /** Prepared statements kept (default 200; the least recently used one is dropped). */
  readonly prepareCacheSize?: number | undefined
  readonly spanAttributes?: Readonly<Record<string, unknown>> | undefined
}

/** The client: an `effect/sql` `SqlClient` with the configuration it was opened with. @category models */
export interface SqliteClient extends SqlClient.SqlClient {
  readonly config: SqliteClientConfig
}

/** The client's tag (the same client is also provided as `SqlClient`). @category tags */
export const SqliteClient = Context.Service<SqliteClient>("umg/batch/SqliteClient")

/**
 * `node:sqlite` errors carry SQLite's extended result code as `errcode` (their `code` is Node's
 * `ERR_SQLITE_ERROR`): it is copied to `errno`, where `classifySqliteError` reads it.
 */
const reasonOf = (cause: unknown, message: string, operation: string): SqlError.SqlErrorReason => {
  if (
    typeof cause === "object" &&
    cause !== null &&
    typeof (cause as { errcode?: unknown }).errcode === "number" &&
    !("errno" in cause)
  )
    Object.assign(cause, { errno: (cause as { errcode: number }).errcode })
  return SqlError.classifySqliteError(cause, {
    message: cause instanceof Error ? `${message}: ${cause.message}` : message,
    operation
  })
}

const fail = (cause: unknown, message: string, operation: string) =>
  new SqlError.SqlError({ reason: reasonOf(cause, message, operation) })

/** Values as `node:sqlite` binds them: booleans as 0/1, `undefined` as NULL, dates as ISO text. */
const bindable = (params: ReadonlyArray<unknown>): Array<SQLInputValue> =>
  params.map((p) =>
    p === undefined
      ? null
      : typeof p === "boolean"
        ? p
          ? 1
          : 0
        : p instanceof Date
          ? p.toISOString()
          : (p as SQLInputValue)
  )

/**
 * Opens the database for the scope (closed when it ends) and makes the client.
 * @category constructors
 */
export const make = (
  config: SqliteClientConfig
): Effect.Effect<SqliteClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const readOnly = config.readonly === true
    const { DatabaseSync } = yield* Effect.tryPromise({
      try: () => import("node:sqlite"),
      catch: (cause) => fail(cause, "cannot load node:sqlite", "open")
    })
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () =>
          new DatabaseSync(config.filename, {
            readOnly,
            timeout: Math.max(0, Math.round(config.busyTimeoutMs ?? 5_000))
          }),
        catch: (cause) => fail(cause, `cannot open ${config.filename}`, "open")
      }),
      (db) => Effect.sync(() => (db.isOpen ? db.close() : undefined))
    )
    if (!readOnly && config.disableWAL !== true)
      yield* Effect.try({
        try: () => db.exec("PRAGMA journal_mode = WAL"),
        catch: (cause) => fail(cause, "cannot switch to WAL", "open")
      })

    // Prepared statements by text, least recently used first.
    const capacity = Math.max(1, config.prepareCacheSize ?? 200)
    const cache = new Map<string, StatementSync>()
    const prepared = (sql: string): StatementSync => {
      const hit = cache.get(sql)
      if (hit !== undefined) {
        cache.delete(sql)
        cache.set(sql, hit)
        return hit
      }
      const statement = db.prepare(sql)
      cache.set(sql, statement)
      if (cache.size > capacity) cache.delete(cache.keys().next().value!)
      return statement
    }

    const run = (
      prepare: (sql: string) => StatementSync,
      sql: string,
      params: ReadonlyArray<unknown>,
      mode: "rows" | "arrays" | "raw"
    ) =>
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are `any` as `SqlConnection.Connection` types them (the caller names the row type)
      Effect.withFiber<any, SqlError.SqlError>((fiber) =>
        Effect.try({
          try: () => {
            const statement = prepare(sql)
            statement.setReadBigInts(fiber.getRef(SqlClient.SafeIntegers))
            const values = bindable(params)
            if (statement.columns().length === 0) {
              const result = statement.run(...values)
              return mode === "raw" ? { changes: result.changes, lastInsertRowid: result.lastInsertRowid } : []
            }
            if (mode !== "arrays") return statement.all(...values)
            statement.setReturnArrays(true)
            try {
              return statement.all(...values)
            } finally {
              statement.setReturnArrays(false)
            }
          },
          catch: (cause) => fail(cause, "statement failed", "execute")
        })
      )
    const unprepared = (sql: string) => db.prepare(sql)

    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) => {
        const rows = run(prepared, sql, params, "rows")
        return transformRows ? Effect.map(rows, transformRows) : rows
      },
      executeRaw: (sql, params) => run(prepared, sql, params, "raw"),
      executeValues: (sql, params) => run(prepared, sql, params, "arrays"),
      executeValuesUnprepared: (sql, params) => run(unprepared, sql, params, "arrays"),
      executeUnprepared: (sql, params, transformRows) => {
        const rows = run(unprepared, sql, params, "rows")
        return transformRows ? Effect.map(rows, transformRows) : rows
      },
      executeStream: () => Stream.die(new Error("umg/batch SqliteClient: streaming queries are not supported"))
    }

    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.suspend(() =>
        db.isOpen
          ? Effect.succeed(connection)
          : Effect.fail(fail(new Error("the database is closed"), "the database is closed", "acquire"))
      ),
      semaphore: yield* Semaphore.make(1),
      isTransaction: () => db.isOpen && db.isTransaction
    })

    const client = yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "umg-sqlite-node",
      // A writable connection takes the write lock when the transaction starts.
      ...(readOnly ? {} : { beginTransaction: "BEGIN IMMEDIATE" }),
      prepareTransactionControls: true,
      spanAttributes: [...Object.entries(config.spanAttributes ?? {}), ["db.system.name", "sqlite"]]
    })
    return Object.assign(client, { config }) as SqliteClient
  })

/**
 * The client as `SqliteClient` and as `SqlClient`, open while the layer is.
 * @category layers
 */
export const layer = (config: SqliteClientConfig): Layer.Layer<SqliteClient | SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effectContext(
    Effect.map(make(config), (client) =>
      Context.make(SqliteClient, client).pipe(Context.add(SqlClient.SqlClient, client))
    )
  ).pipe(Layer.provide(Reactivity.layer))
