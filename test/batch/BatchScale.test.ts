/**
 * `umg/batch` at scale, in this process against the emulator: a streamed input read ahead of its
 * storing by a bounded amount and results given as they come (the test never holds the batch), the
 * runner's bound on the tasks it follows, the streamed alpha download, and `status` on a batch of a
 * million lines read from the counts, not from the lines.
 */
import { Effect, Fiber, Layer, Scope, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import { downloadStream } from "../../src/adapters/groups/VideoDownloadStream.js"
import * as HttpTransport from "../../src/adapters/http/HttpTransport.js"
import * as GroupContext from "../../src/adapters/internal/GroupContext.js"
import { Batch } from "../../src/batch/index.js"
import * as SqliteClient from "../../src/batch/SqliteClient.js"
import * as Store from "../../src/batch/Store.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emulator: Emulator
beforeAll(async () => {
  emulator = await startEmulator({ fast: true, video: { queuedMs: 30, inProgressMs: 60 } })
})
afterAll(() => emulator.close())

const gatewayLayer = () => Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey, minPollIntervalMs: 10 })

describe("a streamed batch", () => {
  it("reads its input ahead of storing it by at most a chunk or two, and gives results as they come, in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-scale-"))
    const store = Batch.sqlite(join(dir, "b.db"))
    const n = 6_000
    let runs = 0
    let pulled = 0
    // Made as it is read (never an array), a little slowly, so that storing it takes a while.
    const inputs = Stream.suspend(() => {
      runs++
      pulled = 0
      return Stream.fromIterable(
        (function* () {
          for (let i = 1; i <= n; i++) yield { model: "beta-3.0-fast-generate-001", prompt: `streamed ${i}` }
        })()
      ).pipe(
        Stream.rechunk(100),
        Stream.tap(() => Effect.sync(() => void pulled++)),
        Stream.tap(() => (pulled % 100 === 0 ? Effect.sleep("10 millis") : Effect.void))
      )
    })
    let maxAhead = 0
    let storedAtFirstResult = -1
    let results = 0
    let inOrder = true
    const program = Effect.gen(function* () {
      const batch = yield* Batch.video({ id: "streamed", inputs, concurrency: 16 })
      const sampler = yield* Effect.forkChild(
        Effect.forever(
          Effect.andThen(
            Effect.flatMap(Batch.readProgress(store, "streamed"), (s) =>
              Effect.sync(() => {
                if (runs === 2) maxAhead = Math.max(maxAhead, pulled - s.ingest.stored)
              })
            ),
            Effect.sleep("20 millis")
          )
        )
      )
      yield* Stream.runForEach(batch.resultStream, (r) =>
        Effect.gen(function* () {
          if (results === 0) storedAtFirstResult = (yield* Batch.readProgress(store, "streamed")).ingest.stored
          results++
          if (r.line !== results || r.status !== "succeeded") inOrder = false
        })
      )
      yield* Fiber.interrupt(sampler)
    })
    await Effect.runPromise(
      Effect.provide(
        program,
        Batch.layer({ store, pollIntervalMs: 20, progressIntervalMs: 50 }).pipe(Layer.provide(gatewayLayer()))
      )
    )
    expect(runs).toBe(2)
    expect(results).toBe(n)
    expect(inOrder).toBe(true)
    // Read ahead of what is stored by at most a stored chunk (1,000 lines) and a read chunk (100).
    expect(maxAhead).toBeGreaterThan(0)
    expect(maxAhead).toBeLessThanOrEqual(1_100)
    // The first result came while the input was still being stored.
    expect(storedAtFirstResult).toBeGreaterThan(0)
    expect(storedAtFirstResult).toBeLessThan(n)
  }, 120_000)

  it("follows at most `maxFollowed` tasks at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-scale-"))
    const inputs = Array.from({ length: 40 }, (_, i) => ({ model: "beta-3.0-fast-generate-001", prompt: `bound ${i}` }))
    let most = 0
    const program = Effect.gen(function* () {
      const batch = yield* Batch.video({ id: "bound", inputs, concurrency: 8 })
      yield* Stream.runForEach(batch.progress, (c) =>
        Effect.sync(() => (most = Math.max(most, c.running + c.submitting)))
      )
      return yield* batch.results
    })
    const results = await Effect.runPromise(
      Effect.provide(
        program,
        Batch.layer({
          store: Batch.sqlite(join(dir, "b.db")),
          pollIntervalMs: 20,
          progressIntervalMs: 5,
          maxFollowed: 3
        }).pipe(Layer.provide(gatewayLayer()))
      )
    )
    expect(results.every((r) => r.status === "succeeded")).toBe(true)
    expect(most).toBeGreaterThan(0)
    expect(most).toBeLessThanOrEqual(3)
  }, 60_000)

  it("streams alpha videos into their files when the video group offers `downloadStream`", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-scale-"))
    const config = GatewayConfig.make({ baseUrl: emulator.url, apiKey: emulator.apiKey, minPollIntervalMs: 10 })
    const ctx = GroupContext.make(
      config,
      Effect.runSync(Scope.provide(Scope.makeUnsafe())(HttpTransport.fromConfig(config)))
    )
    let streamed = 0
    // The group as the lead wires it: `video.downloadStream(taskId)`.
    const wired = Layer.effect(
      Gateway,
      Effect.gen(function* () {
        const g = yield* Gateway
        return {
          ...g,
          video: Object.assign({}, g.video, {
            downloadStream: (taskId: string) => {
              streamed++
              return downloadStream(ctx, taskId)
            }
          })
        }
      })
    ).pipe(Layer.provide(gatewayLayer()))
    const inputs = Array.from({ length: 4 }, (_, i) => ({ model: "alpha-2", prompt: `streamed alpha ${i}` }))
    const results = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(
          Batch.video({ id: "alpha", inputs, concurrency: 2, dir: join(dir, "videos") }),
          (b) => b.results
        ),
        Batch.layer({ store: Batch.sqlite(join(dir, "b.db")), pollIntervalMs: 20 }).pipe(Layer.provide(wired))
      )
    )
    const whole = await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          return yield* (yield* Gateway).video.download(results[0]!.taskId!)
        }),
        gatewayLayer()
      )
    )
    expect(streamed).toBe(4)
    expect(results.every((r) => r.status === "succeeded" && r.file !== undefined)).toBe(true)
    for (const r of results) expect(Buffer.compare(readFileSync(r.file!), Buffer.from(whole.bytes))).toBe(0)
    // Nothing but the four videos in the folder: no temporary file left.
    expect(readdirSync(join(dir, "videos")).sort()).toEqual(results.map((r) => r.file!.split("/").pop()).sort())
  }, 60_000)
})

describe("status on a batch of a million lines", () => {
  // What is asserted is what status reads, not its time (speed is the bench's, bench/batch-scale.bench.ts):
  // the lines are stored all pending while the counts say where a run left them, so only a status read
  // from the counts gives the run's figures. The times are printed, for the reader.
  it("reads the batch's counts, not its lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umg-batch-big-"))
    const file = join(dir, "b.db")
    const n = 1_000_000
    // The batch as a run leaves it mid-way, stored directly (a million rows in a few seconds).
    const scanMs = await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* Store.migrate
          yield* Store.begin({ id: "big", digest: "d", concurrency: 4, dir, total: n })
          yield* sql.withTransaction(
            Effect.all([
              sql.unsafe(`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
                INSERT INTO umg_batch_lines (batch_id, line, input, state, submits)
                SELECT 'big', i, '{"model":"beta-3.0-fast-generate-001","prompt":"p"}', 'pending', 0 FROM k`),
              sql`UPDATE umg_batch_counts SET n = CASE state WHEN 'succeeded' THEN 600000 WHEN 'running' THEN 100
                WHEN 'pending' THEN 399900 ELSE 0 END WHERE batch_id = 'big'`,
              sql`UPDATE umg_batch_ingest SET stored = ${n}, complete = 1 WHERE batch_id = 'big'`
            ])
          )
          const began = performance.now()
          yield* sql`SELECT state, COUNT(*) AS n FROM umg_batch_lines WHERE batch_id = 'big' GROUP BY state`
          return performance.now() - began
        }),
        SqliteClient.layer({ filename: file })
      )
    )
    const read = () => Effect.runPromise(Batch.readStatus(Batch.sqlite(file), "big"))
    await read()
    const began = performance.now()
    const counts = await read()
    const statusMs = performance.now() - began
    expect(counts).toEqual({
      pending: 399_900,
      submitting: 0,
      running: 100,
      succeeded: 600_000,
      failed: 0,
      unknown: 0,
      cancelled: 0,
      total: n
    })
    console.info(
      `status of a 1,000,000-line batch: ${statusMs.toFixed(1)} ms (counting its lines: ${scanMs.toFixed(0)} ms)`
    )
    rmSync(dir, { recursive: true, force: true })
  }, 180_000)
})
