/**
 * The SQL client of a batch store, its tables made: a SQLite file (locked to one process when it runs
 * batches) or a PostgreSQL pool, with failures as `BatchStoreError` (passwords never shown). Reading
 * a batch's counts or cancelling it needs only this, not the batch engine: `umg batch status` and
 * `umg batch cancel` load nothing more.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import { existsSync, mkdirSync, realpathSync } from "node:fs"
import { basename, dirname, resolve } from "node:path"
import { redactText } from "../core/errors/Redact.js"
import { BatchNotFound, BatchStoreError } from "./BatchError.js"
import * as FileLock from "./FileLock.js"
import { describeStore, passwordsOf, type StoreConfig } from "./Settings.js"
import * as SqliteClient from "./SqliteClient.js"
import * as Store from "./Store.js"

/** An error's message and those of its causes (a `SqlError` wraps its reason, which wraps the driver's error). */
const messagesOf = (e: unknown): string => {
  const seen: Array<string> = []
  for (let current = e, depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const message = typeof current === "object" ? (current as { message?: unknown }).message : current
    if (typeof message === "string" && message !== "" && !seen.some((m) => m.includes(message))) seen.push(message)
    current = typeof current === "object" ? (current as { cause?: unknown }).cause : undefined
  }
  return seen.length === 0 ? String(e) : seen.join(": ")
}

/** The store's password (as written in its URL, and decoded), which a driver may echo in a message. */
const secretsOfStore = (store: StoreConfig): ReadonlyArray<string> =>
  store._tag === "sqlite" ? [] : passwordsOf(store.url)

/**
 * Any failure of a store as a `BatchStoreError` naming the store, the store's password hidden from
 * the whole message (the store's name, the driver's text cut to 300 characters, and the message of a
 * `BatchStoreError` already made).
 * @category constructors
 */
export const storeError = (store: StoreConfig) => {
  const secrets = secretsOfStore(store)
  const hide = (text: string, maxChars: number = Number.MAX_SAFE_INTEGER) => redactText(text, secrets, maxChars)
  return (e: unknown): BatchStoreError => {
    if (e instanceof BatchStoreError) {
      const message = hide(e.message)
      return message === e.message ? e : new BatchStoreError({ reason: e.reason, message })
    }
    return new BatchStoreError({
      reason: "unreachable",
      message: hide(`batch store ${describeStore(store)}: ${hide(messagesOf(e), 300)}`)
    })
  }
}

/** A layer's typed failure, mapped (the layer is otherwise unchanged). @category combinators */
export const mapLayerError = <A, E, R, E2>(self: Layer.Layer<A, E, R>, f: (e: E) => E2): Layer.Layer<A, E2, R> =>
  Layer.fromBuild((memoMap, scope) => Effect.mapError(Layer.buildWithMemoMap(self, memoMap, scope), f))

/**
 * An optional peer dependency of umg (`pkg`), loaded by `load` (an `import()` of it) on first use:
 * its absence is a failure that says what needs it (`what`) and what to install.
 * @category constructors
 */
export const loadPeer = <M>(pkg: string, what: string, load: () => Promise<M>): Effect.Effect<M, Error> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) =>
      new Error(
        `${what} needs the package ${pkg}: npm install ${pkg}`,
        // Node's own message only repeats that the package is missing; any other failure is kept.
        (cause as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND" ? undefined : { cause }
      )
  })

/** The PostgreSQL driver, loaded only for a PostgreSQL store (`@effect/sql-pg` is an optional peer of umg). */
const loadPg = loadPeer("@effect/sql-pg", "a PostgreSQL store", () => import("@effect/sql-pg"))

/** A PostgreSQL pool, reached once now so that an unreachable store fails here, named (the driver is loaded only for it). */
const postgresClient = (url: string): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.unwrap(
    Effect.map(loadPg, ({ PgClient }) =>
      PgClient.layer({ url: Redacted.make(url), maxConnections: 8, connectTimeout: Duration.seconds(10) }).pipe(
        // The pool connects lazily: reach the server now, so an unreachable store fails here, named.
        Layer.tap((ctx) => Context.get(ctx, SqlClient.SqlClient)`SELECT 1`)
      )
    )
  )

/** A SQLite file (its folder made), locked to this process when `lock`. */
const sqliteClient = (path: string, lock: boolean): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const absolute = resolve(path)
      yield* Effect.try({
        try: () => mkdirSync(dirname(absolute), { recursive: true }),
        catch: (e) =>
          new BatchStoreError({
            reason: "unreachable",
            message: `batch store ${path}: cannot make its folder (${(e as Error).message})`
          })
      })
      if (lock) yield* FileLock.acquire(resolve(realpathSync(dirname(absolute)), basename(absolute)))
      return SqliteClient.layer({ filename: absolute, busyTimeoutMs: 5_000 })
    })
  ).pipe(Layer.tap((ctx) => Context.get(ctx, SqlClient.SqlClient)`PRAGMA synchronous = NORMAL`))

/** The SQL client of a store, its tables made; a SQLite file is locked to this process when `lock`. @category layers */
export const sqlLayer = (store: StoreConfig, lock: boolean): Layer.Layer<SqlClient.SqlClient, BatchStoreError> =>
  mapLayerError(
    (store._tag === "postgres" ? postgresClient(store.url) : sqliteClient(store.path, lock)).pipe(
      Layer.tap((ctx) =>
        Effect.provideService(Store.migrate, SqlClient.SqlClient, Context.get(ctx, SqlClient.SqlClient))
      )
    ),
    storeError(store)
  )

/** Runs `effect` on a store without locking it (a SQLite file that does not exist holds no batch). */
const onStore = <A>(
  store: StoreConfig,
  id: string,
  effect: Effect.Effect<A, BatchNotFound | BatchStoreError, SqlClient.SqlClient>
): Effect.Effect<A, BatchNotFound | BatchStoreError> =>
  store._tag === "sqlite" && !existsSync(resolve(store.path))
    ? Effect.fail(
        new BatchNotFound({ id, message: `no batch store at ${store.path} (so no batch ${JSON.stringify(id)})` })
      )
    : Effect.provide(effect, sqlLayer(store, false))

/**
 * The counts of a batch and how far its input is stored (and the line that refused it, if one
 * did; whether it is cancelled or halted), read from its store without running anything: seven count
 * rows, one ingest row and one stops row, never a scan of the lines (a SQLite store is read even while
 * the process running the batch holds it).
 * @category getters
 */
export const readProgress = (
  store: StoreConfig,
  id: string
): Effect.Effect<Store.Status, BatchNotFound | BatchStoreError> =>
  onStore(store, id, Effect.andThen(Store.get(id), Store.status(id)))

/**
 * Cancels a batch in its store (`Store.cancel`) without running anything, even while another process
 * runs it: that process claims none of its lines from then on, and follows those it submitted already.
 * @category mutations
 */
export const cancelStored = (
  store: StoreConfig,
  id: string
): Effect.Effect<Store.CancelResult, BatchNotFound | BatchStoreError> =>
  Effect.mapError(onStore(store, id, Store.cancel(id)), (e) =>
    e._tag === "BatchStoreError" ? storeError(store)(e) : e
  )

/** The counts of a batch, read from its store without running anything (see `readProgress`). @category getters */
export const readStatus = (
  store: StoreConfig,
  id: string
): Effect.Effect<Store.Counts, BatchNotFound | BatchStoreError> => Effect.map(readProgress(store, id), (s) => s.counts)
