/**
 * umg/batch's SQLite driver on `node:sqlite`: statements and their parameters, the `effect/sql`
 * helpers, transactions (commit, rollback, nesting, one writer), every failure as a `SqlError`
 * with its SQLite reason, and closing with its scope.
 */
import { Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import * as SqliteClient from "../../src/batch/SqliteClient.js"

const fileIn = () => join(mkdtempSync(join(tmpdir(), "umg-sqlite-")), "test.db")

const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | SqliteClient.SqliteClient>, filename = fileIn()) =>
  Effect.runPromise(Effect.provide(effect, SqliteClient.layer({ filename })))

const withTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, flag INTEGER, data BLOB)`
  return sql
})

describe("SqliteClient (node:sqlite)", () => {
  it("runs statements: parameters, insert helpers, RETURNING, values, raw results, WAL", async () => {
    const out = await run(
      Effect.gen(function* () {
        const sql = yield* withTable
        yield* sql`INSERT INTO t ${sql.insert([
          { id: 1, name: "a", flag: true, data: new Uint8Array([1, 2, 3]) },
          { id: 2, name: "b", flag: false, data: null }
        ])}`
        const rows = yield* sql<{
          id: number
          name: string
          flag: number
        }>`SELECT id, name, flag FROM t WHERE id IN ${sql.in([1, 2])} ORDER BY id`
        const returned = yield* sql<{ id: number }>`UPDATE t SET name = ${"c"} WHERE id = ${2} RETURNING id`
        const values = yield* sql`SELECT id, name FROM t ORDER BY id`.values
        const raw = yield* sql`DELETE FROM t WHERE id = ${1}`.raw
        const blob = yield* sql<{ data: Uint8Array | null }>`SELECT data FROM t WHERE id = 2`
        const mode = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
        const unsafe = yield* sql.unsafe<{ n: number }>("SELECT COUNT(*) AS n FROM t WHERE name = ?", ["c"])
        return {
          rows: rows.map((r) => ({ ...r })),
          returned: returned.map((r) => r.id),
          values,
          raw,
          blob: blob[0]!.data,
          mode: mode[0]!.journal_mode,
          n: unsafe[0]!.n
        }
      })
    )
    expect(out.rows).toEqual([
      { id: 1, name: "a", flag: 1 },
      { id: 2, name: "b", flag: 0 }
    ])
    expect(out.returned).toEqual([2])
    expect(out.values).toEqual([
      [1, "a"],
      [2, "c"]
    ])
    expect(out.raw).toMatchObject({ changes: 1 })
    expect(out.blob).toBeNull()
    expect(out.mode).toBe("wal")
    expect(out.n).toBe(1)
  })

  it("keeps at most prepareCacheSize prepared statements and prepares an evicted one again", async () => {
    const sums = await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const out: Array<number> = []
          for (const round of [1, 2])
            for (let i = 0; i < 5; i++)
              out.push((yield* sql.unsafe<{ n: number }>(`SELECT ? + ${i} AS n`, [round * 10]))[0]!.n)
          return out
        }),
        SqliteClient.layer({ filename: ":memory:", prepareCacheSize: 2 })
      )
    )
    expect(sums).toEqual([10, 11, 12, 13, 14, 20, 21, 22, 23, 24])
  })

  it("reads integers as bigint when SafeIntegers is on, numbers otherwise", async () => {
    const [plain, safe] = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const small = yield* sql<{ n: unknown }>`SELECT 42 AS n`
        const large = yield* Effect.provideService(
          sql<{ n: unknown }>`SELECT 9007199254740993 AS n`,
          SqlClient.SafeIntegers,
          true
        )
        return [small, large] as const
      })
    )
    expect(plain[0]!.n).toBe(42)
    expect(safe[0]!.n).toBe(9007199254740993n)
  })

  it("commits a transaction, rolls one back on failure, and nests with savepoints", async () => {
    const names = await run(
      Effect.gen(function* () {
        const sql = yield* withTable
        yield* sql.withTransaction(sql`INSERT INTO t (name) VALUES ('kept')`)
        const failed = yield* Effect.exit(
          sql.withTransaction(Effect.andThen(sql`INSERT INTO t (name) VALUES ('dropped')`, Effect.fail("no")))
        )
        expect(Exit.isFailure(failed)).toBe(true)
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO t (name) VALUES ('outer')`
            yield* Effect.ignore(
              sql.withTransaction(
                Effect.andThen(sql`INSERT INTO t (name) VALUES ('inner')`, Effect.fail("inner fails"))
              )
            )
          })
        )
        return (yield* sql<{ name: string }>`SELECT name FROM t ORDER BY id`).map((r) => r.name)
      })
    )
    expect(names).toEqual(["kept", "outer"])
  })

  it("rolls a transaction back when its fiber is interrupted, and the connection is usable after", async () => {
    const names = await run(
      Effect.gen(function* () {
        const sql = yield* withTable
        const fiber = yield* Effect.forkChild(
          sql.withTransaction(Effect.andThen(sql`INSERT INTO t (name) VALUES ('interrupted')`, Effect.never))
        )
        yield* Effect.sleep("20 millis")
        yield* Fiber.interrupt(fiber)
        yield* sql`INSERT INTO t (name) VALUES ('after')`
        return (yield* sql<{ name: string }>`SELECT name FROM t`).map((r) => r.name)
      })
    )
    expect(names).toEqual(["after"])
  })

  it("keeps statements of other fibers out of a transaction (one connection, one writer)", async () => {
    const names = await run(
      Effect.gen(function* () {
        const sql = yield* withTable
        const outside = Effect.andThen(Effect.sleep("5 millis"), sql`INSERT INTO t (name) VALUES ('outside')`)
        const inside = sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO t (name) VALUES ('inside')`
            yield* Effect.sleep("30 millis")
            return yield* Effect.fail("rolled back")
          })
        )
        yield* Effect.all([Effect.ignore(inside), outside], { concurrency: "unbounded" })
        return (yield* sql<{ name: string }>`SELECT name FROM t`).map((r) => r.name)
      })
    )
    expect(names).toEqual(["outside"])
  })

  it("fails with SqlError, its reason classified: syntax, unique and constraint violations; a second process waits, then gets a lock error", async () => {
    const filename = fileIn()
    const errors = await run(
      Effect.gen(function* () {
        const sql = yield* withTable
        yield* sql`INSERT INTO t (name) VALUES ('x')`
        const syntax = yield* Effect.flip(sql`SELEC nothing`)
        const unique = yield* Effect.flip(sql`INSERT INTO t (name) VALUES ('x')`)
        const notNull = yield* Effect.flip(sql`INSERT INTO t (name) VALUES (NULL)`)
        return { syntax, unique, notNull }
      }),
      filename
    )
    for (const e of Object.values(errors)) expect(SqlError.isSqlError(e)).toBe(true)
    expect(errors.syntax.reason._tag).toBe("UnknownError")
    expect(errors.syntax.message).toMatch(/syntax error/)
    expect(errors.unique.reason._tag).toBe("UniqueViolation")
    expect(errors.unique.message).toMatch(/UNIQUE constraint failed: t.name/)
    expect(errors.notNull.reason._tag).toBe("ConstraintError")

    // Another client holding the write lock: a write waits busyTimeoutMs, then fails LockTimeoutError.
    const locked = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const holder = yield* Layer.build(SqliteClient.layer({ filename }))
          const waiter = yield* Layer.build(SqliteClient.layer({ filename, busyTimeoutMs: 50 }))
          const a = Context.get(holder, SqlClient.SqlClient)
          const b = Context.get(waiter, SqlClient.SqlClient)
          return yield* a.withTransaction(
            Effect.andThen(
              a`INSERT INTO t (name) VALUES ('held')`,
              Effect.flip(b`INSERT INTO t (name) VALUES ('waiting')`)
            )
          )
        })
      )
    )
    expect(SqlError.isSqlError(locked)).toBe(true)
    expect(locked.reason._tag).toBe("LockTimeoutError")
  })

  it("fails to open a file it cannot create with a SqlError (ConnectionError)", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.provide(Effect.void, SqliteClient.layer({ filename: "/nonexistent-dir/x/y.db" }))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
    expect(error?._tag === "Fail" && SqlError.isSqlError(error.error) && error.error.reason._tag).toBe(
      "ConnectionError"
    )
  })

  it("closes the database when its scope ends: the file is released and statements after it fail as SqlError", async () => {
    const filename = fileIn()
    const scope = await Effect.runPromise(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(SqliteClient.layer({ filename }), scope))
    const sql = Context.get(context, SqliteClient.SqliteClient)
    await Effect.runPromise(sql`CREATE TABLE k (v TEXT)`)
    expect(sql.config.filename).toBe(filename)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    const after = await Effect.runPromise(Effect.flip(sql`SELECT * FROM k`))
    expect(SqlError.isSqlError(after)).toBe(true)
    // The file is whole and reopens.
    const tables = await run(
      Effect.flatMap(SqlClient.SqlClient, (s) => s<{ name: string }>`SELECT name FROM sqlite_master`),
      filename
    )
    expect(tables.map((t) => t.name)).toEqual(["k"])
  })
})
