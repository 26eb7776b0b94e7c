/**
 * `umg/batch` as a library (Effect and umg/rx) against the emulator in this process, and the store's
 * claim under contention on both SQL dialects: concurrent claimers never get the same line.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Option, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { lastValueFrom, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { Batch, BatchInvalidInput, BatchNotFound } from "../../src/batch/index.js"
import * as SqliteClient from "../../src/batch/SqliteClient.js"
import * as Store from "../../src/batch/Store.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { batchObservables } from "../../src/streams/index.js"
import { freshDatabase } from "../support/postgres.js"

let emulator: Emulator
beforeAll(async () => {
  emulator = await startEmulator({ fast: true, video: { queuedMs: 50, inProgressMs: 100 } })
})
afterAll(() =>
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  emulator?.close()
)

const gatewayLayer = () => Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey, minPollIntervalMs: 10 })
const batchLayer = (dir: string) =>
  Batch.layer({ store: Batch.sqlite(join(dir, "batches.db")), pollIntervalMs: 20, progressIntervalMs: 50 }).pipe(
    Layer.provide(gatewayLayer())
  )

const inputs = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    model: i % 2 === 0 ? "alpha-2" : "beta-3.0-fast-generate-001",
    prompt: `${tag} ${i + 1}`
  }))

describe("Batch (Effect)", () => {
  it("runs a batch: progress until every line is final, results in input order; attach follows it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-lib-"))
    const program = Effect.gen(function* () {
      const batch = yield* Batch.video({
        id: "lib",
        inputs: inputs(10, "lib"),
        concurrency: 3,
        dir: join(dir, "videos")
      })
      const seen = yield* Stream.runCollect(batch.progress)
      const results = yield* batch.results
      const attached = yield* Effect.flatMap(Batch.attach("lib"), (b) => b.results)
      const status = yield* Batch.status("lib")
      return { seen, results, attached, status }
    })
    const { seen, results, attached, status } = await Effect.runPromise(Effect.provide(program, batchLayer(dir)))
    expect(seen.length).toBeGreaterThanOrEqual(1)
    expect(Store.isDone(seen.at(-1)!)).toBe(true)
    expect(results.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(results.every((r) => r.status === "succeeded")).toBe(true)
    expect(results[0]!.file).toMatch(/videos\/line-1-video_\w+\.mp4$/)
    expect(results[1]!.url).toMatch(/^http/)
    expect(attached).toEqual(results)
    expect(status).toMatchObject({ succeeded: 10, pending: 0, total: 10 })
  }, 60_000)

  it("checks every input before storing anything: the error names the line and the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-lib-"))
    const bad = [...inputs(3, "bad"), { model: "beta-3.0-fast-generate-001", prompt: "x", resolution: "9000p" }]
    const program = Effect.gen(function* () {
      const error = yield* Effect.flip(Batch.video({ id: "bad", inputs: bad, lines: [2, 4, 6, 9] }))
      const missing = yield* Effect.flip(Batch.status("bad"))
      const concurrency = yield* Effect.flip(Batch.video({ inputs: inputs(1, "c"), concurrency: 0 }))
      const twice = yield* Effect.flip(Batch.video({ inputs: inputs(2, "twice"), lines: [3, 3] }))
      const backwards = yield* Effect.flip(
        Batch.video({
          inputs: Stream.make(Batch.numbered(5, inputs(1, "b")[0]!), Batch.numbered(4, inputs(1, "b")[0]!))
        })
      )
      return { error, missing, concurrency, twice, backwards }
    })
    const { error, missing, concurrency, twice, backwards } = await Effect.runPromise(
      Effect.provide(program, batchLayer(dir))
    )
    expect(twice).toMatchObject({ _tag: "BatchInvalidInput", field: "lines" })
    expect(backwards).toMatchObject({ _tag: "BatchInvalidInput", line: 4, rule: "increasing" })
    expect(error).toBeInstanceOf(BatchInvalidInput)
    expect(error).toMatchObject({ line: 9, field: "resolution" })
    expect(error.message).toMatch(/^line 9: /)
    expect(missing).toBeInstanceOf(BatchNotFound)
    expect(concurrency).toMatchObject({ _tag: "BatchInvalidInput", field: "concurrency" })
  }, 60_000)

  it("gives a line back when its submit provably never reached the gateway (connection refused): pending, not failed or unknown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-lib-"))
    // A port that was just free: nothing listens, so the connection is refused (ECONNREFUSED).
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const address = server.address()
        server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
      })
    })
    const closed = Gateway.layer({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: "k",
      maxRetries: 0,
      minPollIntervalMs: 10
    })
    const layer = Batch.layer({ store: Batch.sqlite(join(dir, "batches.db")), pollIntervalMs: 20 }).pipe(
      Layer.provide(closed)
    )
    // A line given back is sent again after a wait: a snapshot may catch one being resubmitted, so the
    // counts are read every 20 ms for 3 s. None may ever be failed, unknown or running.
    const snapshots = await Effect.runPromise(
      Effect.gen(function* () {
        yield* Batch.video({ id: "refused", inputs: inputs(3, "refused"), concurrency: 2 })
        const seen: Array<Store.Counts> = []
        for (let i = 0; i < 150; i++) {
          yield* Effect.sleep("20 millis")
          seen.push(yield* Batch.status("refused"))
        }
        return seen
      }).pipe(Effect.provide(layer))
    )
    for (const counts of snapshots) expect(counts).toMatchObject({ running: 0, failed: 0, unknown: 0 })
    // Past the first second (every line tried by then), all three are seen pending again.
    expect(snapshots.slice(50).some((c) => c.pending === 3 && c.submitting === 0)).toBe(true)
  }, 60_000)

  it("resumes a 0.1 store (Effect 3's cluster tables beside the journal) from its journal: done lines kept, a lost submit unknown, the rest sent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-lib-"))
    const file = join(dir, "batches.db")
    const legacy = inputs(3, "legacy")
    const entries = legacy.map((input, i) => ({ line: i + 1, input: JSON.stringify(input) }))
    // What 0.1 left: its journal mid-batch, and cluster tables of another layout (never read now).
    await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          yield* Store.migrate
          yield* Store.create({
            id: "legacy",
            digest: Batch.digestOf(entries),
            concurrency: 2,
            dir: join(dir, "videos"),
            lines: entries
          })
          const sql = yield* SqlClient.SqlClient
          // 0.1 kept no counts and no ingest rows: the counts are read from its lines once, then kept.
          yield* sql`DELETE FROM umg_batch_counts WHERE batch_id = 'legacy'`
          yield* sql`DELETE FROM umg_batch_ingest WHERE batch_id = 'legacy'`
          yield* sql`UPDATE umg_batch_lines SET state = 'succeeded', task_id = 'video_old', url = 'https://old/1' WHERE line = 1`
          yield* sql`UPDATE umg_batch_lines SET state = 'submitting', slot = 1, submits = 1 WHERE line = 2`
          yield* sql`CREATE TABLE cluster_messages (id INTEGER PRIMARY KEY, legacy_layout TEXT NOT NULL)`
          yield* sql`CREATE TABLE cluster_migrations (migration_id INTEGER PRIMARY KEY, created_at TEXT, name TEXT)`
          yield* sql`INSERT INTO cluster_migrations VALUES (1, '2026-01-01', 'create_tables'), (2, '2026-01-01', 'entity_type_size')`
        }),
        SqliteClient.layer({ filename: file })
      )
    )
    const results = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(
          Batch.video({ id: "legacy", inputs: legacy, concurrency: 2, dir: join(dir, "videos") }),
          (b) => b.results
        ),
        Batch.layer({ store: Batch.sqlite(file), pollIntervalMs: 20, progressIntervalMs: 50 }).pipe(
          Layer.provide(gatewayLayer())
        )
      )
    )
    expect(results.map((r) => [r.line, r.status])).toEqual([
      [1, "succeeded"],
      [2, "unknown"],
      [3, "succeeded"]
    ])
    expect(results[0]!.url).toBe("https://old/1")
    expect(results[2]!.taskId).toMatch(/^video_/)
  }, 60_000)

  it("umg/rx projects a handle: progress$ until done, results$ once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-lib-"))
    const runtime = ManagedRuntime.make(batchLayer(dir))
    try {
      const handle = await runtime.runPromise(
        Batch.video({ id: "rx", inputs: inputs(4, "rx"), concurrency: 2, dir: join(dir, "videos") })
      )
      const rx = batchObservables(handle, runtime.runFork)
      const progress = await lastValueFrom(rx.progress$.pipe(toArray()))
      const results = await lastValueFrom(rx.results$)
      expect(Store.isDone(progress.at(-1)!)).toBe(true)
      expect(results.map((r) => [r.line, r.status])).toEqual([
        [1, "succeeded"],
        [2, "succeeded"],
        [3, "succeeded"],
        [4, "succeeded"]
      ])
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})

/** Eight claimers race over 200 lines: every line is claimed exactly once. */
const claimRace = Effect.gen(function* () {
  yield* Store.migrate
  const id = `race-${Date.now()}`
  const lines = Array.from({ length: 200 }, (_, i) => ({ line: i + 1, input: "{}" }))
  yield* Store.create({ id, digest: "d", concurrency: 8, dir: "/tmp", lines })
  const claimed = yield* Effect.forEach(
    Array.from({ length: 8 }, (_, slot) => slot),
    (slot) =>
      Effect.gen(function* () {
        const mine: Array<number> = []
        for (;;) {
          const next = yield* Store.claim(id, { slot, round: 0, runner: `test:${slot}` })
          if (Option.isNone(next)) return mine
          mine.push(next.value.line)
        }
      }),
    { concurrency: "unbounded" }
  )
  const all = claimed.flat().sort((a, b) => a - b)
  const submits = yield* Store.submits(id)
  return { all, submits: [...submits.values()] }
})

describe("Store.claim's frontier", () => {
  it("claims in line order, a line given back next, and a line pending again behind another claimer's frontier once the others are taken", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-frontier-"))
    const lineOf = (claimed: Option.Option<{ readonly line: number }>) =>
      Option.match(claimed, { onNone: () => 0, onSome: (c) => c.line })
    const program = Effect.gen(function* () {
      yield* Store.migrate
      const id = "frontier"
      const lines = Array.from({ length: 8 }, (_, i) => ({ line: i + 1, input: "{}" }))
      yield* Store.create({ id, digest: "d", concurrency: 1, dir: "/tmp", lines })
      const claim = Effect.map(Store.claim(id, { slot: 0, round: 0, runner: "test:0" }), lineOf)
      const order: Array<number> = []
      for (let i = 0; i < 3; i++) order.push(yield* claim) // 1, 2, 3
      yield* Store.release(id, 2, 1) // given back by this process: the next claim takes it
      order.push(yield* claim) // 2
      order.push(yield* claim) // 4
      // Line 3 pending again behind the frontier, as another process's release would leave it.
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE umg_batch_lines SET state = 'pending' WHERE batch_id = ${id} AND line = 3`
      yield* sql`UPDATE umg_batch_counts SET n = n + 1 WHERE batch_id = ${id} AND state = 'pending'`
      yield* sql`UPDATE umg_batch_counts SET n = n - 1 WHERE batch_id = ${id} AND state = 'submitting'`
      for (let i = 0; i < 6; i++) order.push(yield* claim) // 5..8, then 3, then none
      return { order, counts: yield* Store.counts(id) }
    })
    try {
      const { order, counts } = await Effect.runPromise(
        Effect.provide(program, SqliteClient.layer({ filename: join(dir, "f.db") }))
      )
      expect(order).toEqual([1, 2, 3, 2, 4, 5, 6, 7, 8, 3, 0])
      expect(counts).toMatchObject({ pending: 0, submitting: 8, total: 8 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("Store.claim's frontier after a rollback", () => {
  it("a claim in a group that failed is undone, and the next claim takes its line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-rollback-"))
    const lineOf = (claimed: ReadonlyArray<{ readonly line: number }>) => claimed[0]?.line ?? 0
    const program = Effect.gen(function* () {
      yield* Store.migrate
      const id = "rollback"
      const lines = Array.from({ length: 4 }, (_, i) => ({ line: i + 1, input: "{}" }))
      yield* Store.create({ id, digest: "d", concurrency: 1, dir: "/tmp", lines })
      const sql = yield* SqlClient.SqlClient
      const first = lineOf((yield* Store.runAll([Store.claimOp(id, { slot: 0, round: 0, runner: "test:0" }, 1)]))[0]!)
      // A group whose second operation fails: its claim of line 2 is rolled back.
      const failing: Store.Op<ReadonlyArray<{ readonly line: number }>> = Effect.flatMap(
        sql`SELECT * FROM no_such_table`,
        () => Effect.succeed({ value: [], deltas: [] })
      )
      const group = yield* Effect.exit(
        Store.runAll([Store.claimOp(id, { slot: 0, round: 0, runner: "test:0" }, 1), failing])
      )
      const next = lineOf((yield* Store.runAll([Store.claimOp(id, { slot: 0, round: 0, runner: "test:0" }, 1)]))[0]!)
      return { first, failed: group._tag, next, counts: yield* Store.counts(id) }
    })
    try {
      const { first, failed, next, counts } = await Effect.runPromise(
        Effect.provide(program, SqliteClient.layer({ filename: join(dir, "r.db") }))
      )
      expect({ first, failed, next }).toEqual({ first: 1, failed: "Failure", next: 2 })
      expect(counts).toMatchObject({ pending: 2, submitting: 2, total: 4 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("Store.claim under contention", () => {
  it("SQLite: no line is claimed twice", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-race-"))
    const { all, submits } = await Effect.runPromise(
      Effect.provide(claimRace, SqliteClient.layer({ filename: join(dir, "race.db") }))
    )
    expect(all).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
    expect(submits.every((n) => n === 1)).toBe(true)
  })

  it("PostgreSQL (eight connections): no line is claimed twice", async () => {
    const db = await freshDatabase()
    try {
      const { all, submits } = await Effect.runPromise(
        Effect.provide(claimRace, PgClient.layer({ url: Redacted.make(db.url), maxConnections: 8 })).pipe(
          Effect.tap(() => Effect.void)
        )
      )
      expect(all).toEqual(Array.from({ length: 200 }, (_, i) => i + 1))
      expect(submits.every((n) => n === 1)).toBe(true)
    } finally {
      await db.drop()
    }
  }, 60_000)
})
