/**
 * A batch run again while it runs, stopped and left for another, or resumed with other options — in
 * this process, against the emulator behind the counting proxy (whose submits can be made to wait):
 * a submit in flight is never given up while its run lives, a task id is never thrown away, a SQLite
 * process runs only the batches it was asked to, and a resumed batch takes its new options.
 */
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { SqlClient } from "effect/sql"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway as GatewayService } from "../../src/adapters/Gateway.js"
import { Batch, type StoreConfig } from "../../src/batch/index.js"
import * as SqliteClient from "../../src/batch/SqliteClient.js"
import * as Store from "../../src/batch/Store.js"
import { freshDatabase, query } from "../support/postgres.js"
import { startGateway, type Gateway } from "./Harness.js"

let gateway: Gateway
const dirs: Array<string> = []
beforeAll(async () => {
  gateway = await startGateway(300)
})
afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await gateway?.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "umg-batch-runs-"))
  dirs.push(dir)
  return dir
}

const inputs = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    model: i % 2 === 0 ? "alpha-2" : "beta-3.0-fast-generate-001",
    prompt: `${tag} ${i + 1}`
  }))

/** A process running batches: the batch layer on the proxied emulator, as a runtime to dispose (Ctrl-C). */
const runner = (store: StoreConfig) =>
  ManagedRuntime.make(
    Batch.layer({ store, pollIntervalMs: 20, progressIntervalMs: 50 }).pipe(
      Layer.provide(GatewayService.layer({ baseUrl: gateway.url, apiKey: gateway.apiKey, minPollIntervalMs: 10 }))
    )
  )

const submitsOf = (tag: string) =>
  [...gateway.submits].filter(([prompt]) => prompt.startsWith(`${tag} `)).map(([, n]) => n)

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000) => {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Stores a batch as a run killed before it submitted anything leaves it, its line 1 `unknown`. */
const storeKilledRun = (
  sql: Layer.Layer<SqlClient.SqlClient, unknown>,
  batch: { id: string; tag: string; n: number; concurrency: number; dir: string; unknownLine?: number }
) => {
  const entries = inputs(batch.n, batch.tag).map((input, i) => ({ line: i + 1, input: JSON.stringify(input) }))
  return Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        yield* Store.migrate
        yield* Store.create({
          id: batch.id,
          digest: Batch.digestOf(entries),
          concurrency: batch.concurrency,
          dir: batch.dir,
          lines: entries
        })
        if (batch.unknownLine === undefined) return
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE umg_batch_lines SET state = 'unknown', slot = 0, submits = 1, error = 'lost'
          WHERE batch_id = ${batch.id} AND line = ${batch.unknownLine}`
        yield* sql`UPDATE umg_batch_counts SET n = n - 1 WHERE batch_id = ${batch.id} AND state = 'pending'`
        yield* sql`UPDATE umg_batch_counts SET n = n + 1 WHERE batch_id = ${batch.id} AND state = 'unknown'`
      }),
      sql
    )
  )
}

/**
 * Two runs of one batch: R1 with two submits held in flight at the gateway, then R2 resubmitting the
 * `unknown` line (a new round). R1's submits are answered after R2's slots started.
 */
const runTwice = async (store: StoreConfig, r1: ReturnType<typeof runner>, r2: ReturnType<typeof runner>) => {
  const tag = `twice-${store._tag}`
  const id = tag
  const batch = inputs(8, tag)
  gateway.pauseSubmits = true
  try {
    await r1.runPromise(Batch.video({ id, inputs: batch, concurrency: 2 }))
    await until("two submits in flight", () => gateway.paused() === 2)
    await r2.runPromise(Batch.video({ id, inputs: batch, concurrency: 2, resubmitUnknown: true }))
    // The new round's slots open (and claim) while R1's two submits wait for their answers.
    await until("the new round's submits", () => gateway.paused() >= 3)
    await sleep(300)
  } finally {
    gateway.pauseSubmits = false
  }
  const results = await r2.runPromise(Effect.flatMap(Batch.attach(id), (b) => b.results))
  return { tag, results }
}

describe("a batch run again while its submits are in flight", () => {
  it("SQLite, one process: resubmitting `unknown` lines never takes over a live submit; its task id is recorded, nothing is sent twice", async () => {
    const dir = tempDir()
    const file = join(dir, "b.db")
    await storeKilledRun(SqliteClient.layer({ filename: file }), {
      id: "twice-sqlite",
      tag: "twice-sqlite",
      n: 8,
      concurrency: 2,
      dir: join(dir, "videos"),
      unknownLine: 1
    })
    const rt = runner(Batch.sqlite(file))
    try {
      const { tag, results } = await runTwice(Batch.sqlite(file), rt, rt)
      // Before: R2's slots made R1's two live submits `unknown` and R1 threw their task ids away.
      expect(results.filter((r) => r.status !== "succeeded" || r.taskId === null)).toEqual([])
      // Line 1 was resubmitted on request (its earlier submit never reached this gateway); no line twice.
      expect(submitsOf(tag)).toEqual(Array.from({ length: 8 }, () => 1))
    } finally {
      await rt.dispose()
    }
  }, 60_000)

  it("PostgreSQL, two runners: a second run with resubmitUnknown leaves the first run's submits to it; all recorded, none sent twice", async () => {
    const db = await freshDatabase()
    const { PgClient } = await import("@effect/sql-pg")
    const { Redacted } = await import("effect")
    await storeKilledRun(PgClient.layer({ url: Redacted.make(db.url), maxConnections: 2 }), {
      id: "twice-postgres",
      tag: "twice-postgres",
      n: 8,
      concurrency: 2,
      dir: join(tempDir(), "videos"),
      unknownLine: 1
    })
    const r1 = runner(Batch.postgres(db.url))
    const r2 = runner(Batch.postgres(db.url))
    try {
      const { tag, results } = await runTwice(Batch.postgres(db.url), r1, r2)
      // Before: R2's slots made R1's two live submits `unknown` and R1 threw their task ids away.
      expect(results.filter((r) => r.status !== "succeeded" || r.taskId === null)).toEqual([])
      expect(submitsOf(tag)).toEqual(Array.from({ length: 8 }, () => 1))
      const unknown = (await query(db.url, "SELECT COUNT(*) AS n FROM umg_batch_lines WHERE state = 'unknown'"))[0]
      expect(Number((unknown as ReadonlyArray<{ n: string }>)[0]?.n)).toBe(0)
    } finally {
      await Promise.all([r1.dispose(), r2.dispose()])
      await db.drop()
    }
  }, 90_000)
})

describe("a SQLite process runs only the batches it is asked to", () => {
  it("a batch stopped by Ctrl-C is not run (nor paid for) by a process running another batch of the store; it resumes when run again", async () => {
    const dir = tempDir()
    const file = join(dir, "b.db")
    const a = inputs(12, "stopped")
    const first = runner(Batch.sqlite(file))
    gateway.pauseSubmits = true
    try {
      await first.runPromise(Batch.video({ id: "stopped", inputs: a, concurrency: 2, dir: join(dir, "a") }))
      await until("two submits in flight", () => gateway.paused() === 2)
      // Ctrl-C: the runtime (its cluster runner) shuts down with lines pending; the submits in flight
      // are answered (and recorded) once the slots know they are stopping.
      const disposed = first.dispose()
      await sleep(300)
      gateway.pauseSubmits = false
      await disposed
    } finally {
      gateway.pauseSubmits = false
    }
    const stopped = await Effect.runPromise(Batch.readStatus(Batch.sqlite(file), "stopped"))
    expect(stopped.pending).toBe(10)
    expect(stopped.submitting).toBe(0)
    const sentBefore = submitsOf("stopped").length

    const other = runner(Batch.sqlite(file))
    try {
      const results = await other.runPromise(
        Effect.flatMap(Batch.video({ id: "other", inputs: inputs(2, "other"), dir: join(dir, "b") }), (b) => b.results)
      )
      expect(results.every((r) => r.status === "succeeded")).toBe(true)
      // Time enough for the stopped batch's re-delivered slots to submit, were they let.
      await sleep(1_000)
      expect(submitsOf("stopped").length).toBe(sentBefore)
      expect(await other.runPromise(Batch.status("stopped"))).toMatchObject({ pending: stopped.pending })
    } finally {
      await other.dispose()
    }

    const again = runner(Batch.sqlite(file))
    try {
      const results = await again.runPromise(
        Effect.flatMap(Batch.video({ id: "stopped", inputs: a, concurrency: 2, dir: join(dir, "a") }), (b) => b.results)
      )
      expect(results.every((r) => r.status === "succeeded")).toBe(true)
      expect(submitsOf("stopped")).toEqual(Array.from({ length: 12 }, () => 1))
    } finally {
      await again.dispose()
    }
  }, 60_000)
})

describe("a batch resumed with other options", () => {
  it("runs with the new concurrency and writes new videos to the new folder", async () => {
    const dir = tempDir()
    const file = join(dir, "b.db")
    const tag = "grown"
    await storeKilledRun(SqliteClient.layer({ filename: file }), {
      id: tag,
      tag,
      n: 6,
      concurrency: 1,
      dir: join(dir, "old")
    })
    const rt = runner(Batch.sqlite(file))
    try {
      gateway.pauseSubmits = true
      try {
        await rt.runPromise(Batch.video({ id: tag, inputs: inputs(6, tag), concurrency: 3, dir: join(dir, "new") }))
        await until("three submits in flight", () => gateway.paused() === 3)
        await sleep(300)
        expect(gateway.paused()).toBe(3)
      } finally {
        gateway.pauseSubmits = false
      }
      const results = await rt.runPromise(Effect.flatMap(Batch.attach(tag), (b) => b.results))
      expect(results.every((r) => r.status === "succeeded")).toBe(true)
      for (const r of results.filter((x) => x.file !== undefined))
        expect(r.file!.startsWith(join(dir, "new"))).toBe(true)
      expect(readdirSync(join(dir, "new")).length).toBe(3)
      expect(existsSync(join(dir, "old"))).toBe(false)
      expect(submitsOf(tag)).toEqual(Array.from({ length: 6 }, () => 1))
    } finally {
      await rt.dispose()
    }
  }, 60_000)

  it("keeps its stored options when none are given, and starts a new round only for a change", async () => {
    const dir = tempDir()
    const program = Effect.gen(function* () {
      yield* Store.migrate
      const lines = [{ line: 1, input: "{}" }]
      const stored = yield* Store.create({ id: "kept", digest: "d", concurrency: 7, dir: join(dir, "v"), lines })
      const none = yield* Store.reconfigure(stored, {})
      const same = yield* Store.reconfigure(stored, { concurrency: 7, dir: join(dir, "v") })
      const changed = yield* Store.reconfigure(stored, { concurrency: 2 })
      return { none, same, changed, now: yield* Store.get("kept") }
    })
    const out = await Effect.runPromise(Effect.provide(program, SqliteClient.layer({ filename: join(dir, "k.db") })))
    expect(out.none).toMatchObject({ concurrency: 7, dir: join(dir, "v"), round: 0 })
    expect(out.same).toMatchObject({ concurrency: 7, round: 0 })
    expect(out.changed).toMatchObject({ concurrency: 2, dir: join(dir, "v"), round: 1 })
    expect(out.now).toEqual(out.changed)
  })

  it("a smaller concurrency given while the batch runs: the old slots finish their submits and claim no more", async () => {
    const dir = tempDir()
    const file = join(dir, "b.db")
    const tag = "shrunk"
    const batch = inputs(10, tag)
    const rt = runner(Batch.sqlite(file))
    try {
      gateway.pauseSubmits = true
      try {
        await rt.runPromise(Batch.video({ id: tag, inputs: batch, concurrency: 4, dir: join(dir, "v") }))
        await until("four submits in flight", () => gateway.paused() === 4)
        await rt.runPromise(Batch.video({ id: tag, inputs: batch, concurrency: 1, dir: join(dir, "v") }))
        await until("the new round's submit", () => gateway.paused() === 5)
        // Answer those five; from now on one submit at a time.
        gateway.pauseSubmits = false
        gateway.pauseSubmits = true
        await until("the next submit", () => gateway.paused() === 1)
        await sleep(300)
        expect(gateway.paused()).toBe(1)
      } finally {
        gateway.pauseSubmits = false
      }
      const results = await rt.runPromise(Effect.flatMap(Batch.attach(tag), (b) => b.results))
      expect(results.every((r) => r.status === "succeeded")).toBe(true)
      expect(submitsOf(tag)).toEqual(Array.from({ length: 10 }, () => 1))
    } finally {
      await rt.dispose()
    }
  }, 60_000)
})

describe("a claim's answer in the store", () => {
  it("is recorded when the claim was given up for dead meanwhile, and kept apart once the line was claimed again", async () => {
    const dir = tempDir()
    const program = Effect.gen(function* () {
      yield* Store.migrate
      const sql = yield* SqlClient.SqlClient
      // A store of umg 0.3: its lines have no claim round; migrating adds it.
      yield* sql`ALTER TABLE umg_batch_lines DROP COLUMN claim_round`
      yield* Store.migrate
      const id = "answers"
      const lines = Array.from({ length: 3 }, (_, i) => ({ line: i + 1, input: "{}" }))
      yield* Store.create({ id, digest: "d", concurrency: 1, dir, lines })
      const by = { slot: 0, round: 0, runner: "test:0" }
      const c1 = Option.getOrThrow(yield* Store.claim(id, by))
      const c2 = Option.getOrThrow(yield* Store.claim(id, by))
      // The same slot of the same round runs again: its earlier run's submits are dead to it.
      const opened = yield* Store.run("open", Store.openSlotOp(id, 0, 0))
      // A slot of another round leaves them alone.
      const other = yield* Store.run("open", Store.openSlotOp(id, 0, 1))
      // The first claim's answer comes after all: recorded, the line running with its task.
      const late = yield* Store.started(id, c1.line, c1.claim, "video_late")
      // The second line was resubmitted on request, then claimed again: the old claim's answer is kept apart.
      yield* Store.resubmitUnknown(id)
      const again = yield* Store.claim(id, { ...by, round: 1 })
      const stale = yield* Store.started(id, c2.line, c2.claim, "video_stale")
      // A slot of the round that is over claims nothing.
      const overRound = yield* Store.claim(id, by)
      return { opened, other, late, again, stale, overRound, page: yield* Store.page(id, 0, 3) }
    })
    const out = await Effect.runPromise(
      Effect.provide(program, SqliteClient.layer({ filename: join(dir, "answers.db") }))
    )
    expect(out).toMatchObject({ opened: 2, other: 0, late: true, stale: false })
    expect(out.again).toMatchObject({ _tag: "Some", value: { line: 2, claim: 2 } })
    expect(out.overRound._tag).toBe("None")
    expect(out.page.map((l) => [l.line, l.state, l.taskId])).toEqual([
      [1, "running", "video_late"],
      [2, "submitting", null],
      [3, "pending", null]
    ])
  })
})
