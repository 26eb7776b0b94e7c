/**
 * A batch stopped by the gateway or on purpose, in this process against the emulator behind the
 * counting proxy. A submit refused for the whole key or account (401, 402) halts the batch with its
 * lines pending (none lost, none sent to the same refusal) until a run that can submit them, and
 * `Batch.cancel` stops a batch's submits for good while its submitted lines run to their end, on
 * SQLite and PostgreSQL, whether the batch runs in this process or another.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway as GatewayService } from "../../src/adapters/Gateway.js"
import { Batch, BatchHalted, BatchNotFound, type StoreConfig } from "../../src/batch/index.js"
import * as SqliteClient from "../../src/batch/SqliteClient.js"
import * as Store from "../../src/batch/Store.js"
import { freshDatabase } from "../support/postgres.js"
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
  const dir = mkdtempSync(join(tmpdir(), "umg-batch-stops-"))
  dirs.push(dir)
  return dir
}

const inputs = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ model: "beta-3.0-fast-generate-001", prompt: `${tag} ${i + 1}` }))

/** A process running batches with `apiKey`, as a runtime to dispose. */
const runner = (store: StoreConfig, apiKey = gateway.apiKey) =>
  ManagedRuntime.make(
    Batch.layer({ store, pollIntervalMs: 20, progressIntervalMs: 50 }).pipe(
      Layer.provide(GatewayService.layer({ baseUrl: gateway.url, apiKey, minPollIntervalMs: 10 }))
    )
  )

const countsOf = (map: Map<string, number>, tag: string) =>
  [...map].filter(([prompt]) => prompt.startsWith(`${tag} `)).map(([, n]) => n)

const until = async (what: string, check: () => boolean, timeoutMs = 20_000, stepMs = 10) => {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, stepMs))
  }
}

describe("a batch whose submit the gateway refuses for the key or account", () => {
  it("SQLite: a 401 halts it at once (BatchHalted), its lines stay pending and unsubmitted, and a run with the right key submits each once", async () => {
    const dir = tempDir()
    const store = Batch.sqlite(join(dir, "b.db"))
    const tag = "halt-401"
    const wrong = runner(store, "not-a-key")
    const error = await wrong
      .runPromise(
        Effect.flip(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(8, tag), concurrency: 2 }), (b) => b.results))
      )
      .finally(() => wrong.dispose())
    // Before: every line was recorded `failed` (and a rerun never sent them).
    expect(error).toBeInstanceOf(BatchHalted)
    expect(error).toMatchObject({ _tag: "BatchHalted", id: tag, reason: "authentication", status: 401 })
    expect(error.message).toMatch(/nothing was made/)
    // Only the submits in flight when the refusal came (one per slot) reached the gateway.
    expect(countsOf(gateway.attempts, tag).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2)
    const halted = await Effect.runPromise(Batch.readProgress(store, tag))
    expect(halted.counts).toMatchObject({ pending: 8, submitting: 0, failed: 0, unknown: 0, cancelled: 0 })
    expect(halted.halt).toMatchObject({ reason: "authentication", status: 401 })
    const submits = await Effect.runPromise(
      Effect.provide(Store.submits(tag), SqliteClient.layer({ filename: join(dir, "b.db") }))
    )
    expect([...submits.values()]).toEqual(Array.from({ length: 8 }, () => 0))

    const right = runner(store)
    const results = await right
      .runPromise(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(8, tag), concurrency: 2 }), (b) => b.results))
      .finally(() => right.dispose())
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => "succeeded"))
    expect(countsOf(gateway.submits, tag)).toEqual(Array.from({ length: 8 }, () => 1))
    expect((await Effect.runPromise(Batch.readProgress(store, tag))).halt).toBeNull()
  }, 30_000)

  it("a 400 of one line stays that line's failure: the batch goes on", async () => {
    const dir = tempDir()
    const tag = "halt-400"
    gateway.emulator.inject("video.submit", { kind: "status", status: 400, body: { error: { message: "bad" } } }, 1)
    const rt = runner(Batch.sqlite(join(dir, "b.db")))
    const results = await rt
      .runPromise(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(3, tag), concurrency: 1 }), (b) => b.results))
      .finally(() => rt.dispose())
    expect(results.map((r) => r.status)).toEqual(["failed", "succeeded", "succeeded"])
  }, 30_000)

  it("a 429 saying x-should-retry: false fails its line at once, as the transport's rule says: it is not given back", async () => {
    const dir = tempDir()
    const tag = "no-retry-429"
    gateway.emulator.inject(
      "video.submit",
      { kind: "status", status: 429, headers: { "x-should-retry": "false" }, body: { error: { message: "no" } } },
      1
    )
    const rt = runner(Batch.sqlite(join(dir, "b.db")))
    const results = await rt
      .runPromise(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(2, tag), concurrency: 1 }), (b) => b.results))
      .finally(() => rt.dispose())
    // Before: the line was given back, submitted again after the back-off, and succeeded.
    expect(results.map((r) => r.status)).toEqual(["failed", "succeeded"])
    expect(countsOf(gateway.attempts, tag)).toEqual([1, 1])
  }, 30_000)

  it("a poll answered 503 saying x-should-retry: false fails its line, not followed again", async () => {
    const dir = tempDir()
    const tag = "no-retry-poll"
    const rt = runner(Batch.sqlite(join(dir, "b.db")))
    gateway.emulator.inject(
      "video.get",
      { kind: "status", status: 503, headers: { "x-should-retry": "false" }, body: { error: { message: "no" } } },
      1
    )
    const results = await rt
      .runPromise(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(1, tag), concurrency: 1 }), (b) => b.results))
      .finally(() => rt.dispose())
    // Before: the follower tried the poll again (five times at most) and the line succeeded.
    expect(results.map((r) => r.status)).toEqual(["failed"])
    expect(results[0]).toMatchObject({ error: expect.stringMatching(/503|ServerError|Unavailable/i) })
  }, 30_000)

  it("PostgreSQL: a 402 (billing) halts it the same way, and running it again goes on", async () => {
    const db = await freshDatabase()
    const tag = "halt-402"
    const rt = runner(Batch.postgres(db.url))
    try {
      gateway.emulator.inject(
        "video.submit",
        { kind: "status", status: 402, body: { error: { type: "billing_error", message: "pay first" } } },
        1
      )
      const error = await rt.runPromise(
        Effect.flip(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(4, tag), concurrency: 1 }), (b) => b.results))
      )
      expect(error).toMatchObject({ _tag: "BatchHalted", reason: "billing", status: 402, line: 1 })
      expect(await rt.runPromise(Batch.status(tag))).toMatchObject({ pending: 4, failed: 0 })
      expect(countsOf(gateway.attempts, tag)).toEqual([1])
      const results = await rt.runPromise(
        Effect.flatMap(Batch.video({ id: tag, inputs: inputs(4, tag), concurrency: 1 }), (b) => b.results)
      )
      expect(results.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"])
      expect(countsOf(gateway.submits, tag)).toEqual([1, 1, 1, 1])
    } finally {
      await rt.dispose()
      await db.drop()
    }
  }, 60_000)
})

/** The lines of a batch as stored (their states and task ids), read from its store. */
const storedLines = (store: StoreConfig, id: string) =>
  Effect.runPromise(
    Effect.provide(
      Store.page(id, 0, 100),
      store._tag === "sqlite"
        ? SqliteClient.layer({ filename: store.path })
        : PgClient.layer({ url: Redacted.make(store.url), maxConnections: 1 })
    )
  )

/**
 * Runs a batch of 3 lines whose submits the gateway takes and whose polls it refuses with a 401 (the
 * key revoked while the batch runs); returns the halt and the lines as stored.
 */
const haltOnPoll = async (rt: ReturnType<typeof runner>, store: StoreConfig, tag: string) => {
  gateway.emulator.inject("video.get", { kind: "status", status: 401 }, 1_000)
  try {
    const error = await rt.runPromise(
      Effect.flip(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(3, tag), concurrency: 3 }), (b) => b.results))
    )
    // Every follower has had its refusal and stopped polling (no poll for half a second) and no submit
    // is in flight: a refusal still on its way would halt the rerun below (a known race: see the CHANGELOG).
    let polls = -1
    await until(
      "the polls stop and the submits are recorded",
      () => {
        const now = gateway.emulator.counters.get("video.get")
        const still = now === polls
        polls = now
        return still
      },
      20_000,
      500
    )
    await until("no submit in flight", () => gateway.paused() === 0)
    let lines = await storedLines(store, tag)
    for (let i = 0; i < 50 && lines.some((l) => l.state === "submitting"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      lines = await storedLines(store, tag)
    }
    return { error, lines }
  } finally {
    gateway.emulator.clearFaults()
  }
}

const expectHaltedOnPoll = (tag: string, run: Awaited<ReturnType<typeof haltOnPoll>>) => {
  // Before: every line was recorded `failed` (the error of its poll), its paid task given up.
  expect(run.error).toBeInstanceOf(BatchHalted)
  expect(run.error).toMatchObject({ _tag: "BatchHalted", id: tag, reason: "authentication", step: "poll" })
  expect(run.error.message).toMatch(/may still succeed/)
  // Nothing failed: the submitted lines run on with their tasks (a line a slot had not claimed yet waits).
  const running = run.lines.filter((l) => l.state === "running")
  expect(running.length).toBeGreaterThan(0)
  expect(run.lines.every((l) => l.state === "running" || l.state === "pending")).toBe(true)
  expect(running.every((l) => l.taskId !== null)).toBe(true)
}

/** The rerun's results: every line succeeded, each running one with the task it had, none submitted twice. */
const expectFollowedAgain = (
  tag: string,
  halted: Awaited<ReturnType<typeof haltOnPoll>>,
  results: ReadonlyArray<{ readonly status: string; readonly taskId: string | null }>
) => {
  expect(results.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"])
  for (const [i, l] of halted.lines.entries()) if (l.state === "running") expect(results[i]!.taskId).toBe(l.taskId)
  expect(countsOf(gateway.attempts, tag)).toEqual([1, 1, 1])
}

describe("a batch whose task's poll the gateway refuses for the key (revoked or rotated while it runs)", () => {
  it("SQLite: it halts (BatchHalted, step poll) with its lines running and their task ids kept; a rerun with a working key follows the same tasks to their end", async () => {
    const dir = tempDir()
    const store = Batch.sqlite(join(dir, "b.db"))
    const tag = "halt-poll-sqlite"
    const first = runner(store)
    const halted = await haltOnPoll(first, store, tag).finally(() => first.dispose())
    expectHaltedOnPoll(tag, halted)
    expect((await Effect.runPromise(Batch.readProgress(store, tag))).halt).toMatchObject({
      step: "poll",
      reason: "authentication",
      status: 401
    })

    // Another process, as after the first one stopped: the tasks are followed, none submitted again.
    const second = runner(store)
    const results = await second
      .runPromise(Effect.flatMap(Batch.video({ id: tag, inputs: inputs(3, tag), concurrency: 3 }), (b) => b.results))
      .finally(() => second.dispose())
    expectFollowedAgain(tag, halted, results)
  }, 30_000)

  it("PostgreSQL: the same, run again in the same runner (its slots wait for the batch to go on)", async () => {
    const db = await freshDatabase()
    const store = Batch.postgres(db.url)
    const tag = "halt-poll-postgres"
    const rt = runner(store)
    try {
      const halted = await haltOnPoll(rt, store, tag)
      expectHaltedOnPoll(tag, halted)
      const results = await rt.runPromise(
        Effect.flatMap(Batch.video({ id: tag, inputs: inputs(3, tag), concurrency: 3 }), (b) => b.results)
      )
      expectFollowedAgain(tag, halted, results)
    } finally {
      await rt.dispose()
      await db.drop()
    }
  }, 60_000)
})

/**
 * Cancels a batch of 10 lines while its first two submits wait at the gateway, with `cancel` (in the
 * process running it, or from another connection to its store); then lets them through.
 */
const cancelWhileRunning = async (
  rt: ReturnType<typeof runner>,
  tag: string,
  cancel: () => Promise<Store.CancelResult>
) => {
  gateway.pauseSubmits = true
  let cancelled: Store.CancelResult
  try {
    await rt.runPromise(Batch.video({ id: tag, inputs: inputs(10, tag), concurrency: 2 }))
    await until("two submits in flight", () => gateway.paused() === 2)
    cancelled = await cancel()
  } finally {
    gateway.pauseSubmits = false
  }
  const results = await rt.runPromise(Effect.flatMap(Batch.attach(tag), (b) => b.results))
  const again = await rt.runPromise(Batch.cancel(tag))
  return { cancelled, results, again }
}

const expectCancelled = (tag: string, run: Awaited<ReturnType<typeof cancelWhileRunning>>) => {
  expect(run.cancelled).toMatchObject({
    id: tag,
    outcome: "cancelled",
    cancelled: 8,
    counts: { pending: 0, submitting: 2, cancelled: 8, total: 10 }
  })
  // The two lines submitted before the cancel ran to their end; the others were never submitted.
  expect(run.results.map((r) => r.status)).toEqual([
    "succeeded",
    "succeeded",
    ...Array.from({ length: 8 }, () => "cancelled")
  ])
  expect(run.results.slice(2).every((r) => r.taskId === null)).toBe(true)
  expect(countsOf(gateway.attempts, tag)).toEqual([1, 1])
  expect(run.again).toMatchObject({
    outcome: "already-cancelled",
    cancelled: 0,
    counts: { succeeded: 2, cancelled: 8 }
  })
}

describe("Batch.cancel", () => {
  it("SQLite, from another connection while a process runs the batch: lines not submitted are cancelled and never submitted, those in flight end; again, or for a finished batch, a no-op; an unknown id BatchNotFound", async () => {
    const dir = tempDir()
    const store = Batch.sqlite(join(dir, "b.db"))
    const tag = "cancel-sqlite"
    const rt = runner(store)
    try {
      const run = await cancelWhileRunning(rt, tag, () => Effect.runPromise(Batch.cancelStored(store, tag)))
      expectCancelled(tag, run)
      // A later run (even one resubmitting unknown lines) submits none of them.
      const rerun = await rt.runPromise(
        Effect.flatMap(
          Batch.video({ id: tag, inputs: inputs(10, tag), concurrency: 2, resubmitUnknown: true }),
          (b) => b.results
        )
      )
      expect(rerun).toEqual(run.results)
      expect(countsOf(gateway.attempts, tag)).toEqual([1, 1])
      expect(await rt.runPromise(Batch.status(tag))).toMatchObject({ succeeded: 2, cancelled: 8, pending: 0 })

      const done = "cancel-finished"
      await rt.runPromise(Effect.flatMap(Batch.video({ id: done, inputs: inputs(2, done) }), (b) => b.results))
      expect(await rt.runPromise(Batch.cancel(done))).toMatchObject({ outcome: "finished", cancelled: 0 })
      expect(await rt.runPromise(Effect.flip(Batch.cancel("no-such-batch")))).toBeInstanceOf(BatchNotFound)
    } finally {
      await rt.dispose()
    }
  }, 30_000)

  it("PostgreSQL, in the runner running the batch: the same", async () => {
    const db = await freshDatabase()
    const tag = "cancel-postgres"
    const rt = runner(Batch.postgres(db.url))
    try {
      expectCancelled(tag, await cancelWhileRunning(rt, tag, () => rt.runPromise(Batch.cancel(tag))))
    } finally {
      await rt.dispose()
      await db.drop()
    }
  }, 60_000)
})

/**
 * Store-level: a batch cancelled while its input is being stored, and a line given back by a slot as
 * the batch is cancelled, on `sql`.
 */
const cancelDuringIngest = Effect.gen(function* () {
  yield* Store.migrate
  const id = `ingest-${Date.now()}`
  const entry = (line: number) => ({ line, input: "{}" })
  yield* Store.begin({ id, digest: "d", concurrency: 1, dir: "/tmp", total: 5 })
  yield* Store.storeChunk(id, [entry(1), entry(2)], 2, false)
  const claimed = yield* Store.claim(id, { slot: 0, round: 0, runner: "test:0" })
  const cancelled = yield* Store.cancel(id)
  // The claimed line's submit provably never reached the gateway: given back, it is cancelled too.
  yield* Store.release(id, Option.getOrThrow(claimed).line, Option.getOrThrow(claimed).claim)
  const after = yield* Store.claim(id, { slot: 0, round: 0, runner: "test:0" })
  yield* Store.storeChunk(id, [entry(3), entry(4), entry(5)], 5, true)
  const lines = yield* Store.page(id, 0, 10)
  const sql = yield* SqlClient.SqlClient
  const pendingRows = yield* sql`SELECT line FROM umg_batch_lines WHERE batch_id = ${id} AND state = 'pending'`
  return { cancelled, after, lines, pendingRows, status: yield* Store.status(id) }
})

const expectIngestCancelled = (run: Effect.Success<typeof cancelDuringIngest>) => {
  // Line 2 stored, line 1 in flight, lines 3–5 not stored yet: four cancelled now.
  expect(run.cancelled).toMatchObject({ outcome: "cancelled", cancelled: 4 })
  expect(Option.isNone(run.after)).toBe(true)
  expect(run.lines.map((l) => l.state)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled", "cancelled"])
  expect(run.pendingRows).toEqual([])
  expect(run.status.cancelled).toBe(true)
  expect(run.status.counts).toMatchObject({ pending: 0, submitting: 0, cancelled: 5, total: 5 })
}

/** A store-level program checked on a SQLite file and on a fresh PostgreSQL database. */
const onBothStores = <A>(
  title: string,
  sqliteTitle: string,
  program: Effect.Effect<A, unknown, SqlClient.SqlClient>,
  check: (a: A) => void
) =>
  describe(title, () => {
    it(`SQLite: ${sqliteTitle}`, async () => {
      check(await Effect.runPromise(Effect.provide(program, SqliteClient.layer({ filename: join(tempDir(), "s.db") }))))
    })

    it("PostgreSQL: the same", async () => {
      const db = await freshDatabase()
      try {
        check(
          await Effect.runPromise(
            Effect.provide(program, PgClient.layer({ url: Redacted.make(db.url), maxConnections: 2 }))
          )
        )
      } finally {
        await db.drop()
      }
    }, 30_000)
  })

onBothStores(
  "Store.cancel",
  "lines stored after the cancel, and a line given back as it came, are cancelled; the counts agree",
  cancelDuringIngest,
  expectIngestCancelled
)

describe("the results of a batch cancelled while its input was being stored, by a process that then stopped", () => {
  it("SQLite: end, one per input line: the stored ones as stored, the lines never stored `cancelled` with a note", async () => {
    const dir = tempDir()
    const file = join(dir, "b.db")
    const store = Batch.sqlite(file)
    const id = "cancelled-unstored"
    // Two of five lines stored, then cancelled; the process storing the rest was killed.
    await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          yield* Store.migrate
          yield* Store.begin({ id, digest: "d", concurrency: 1, dir, total: 5 })
          yield* Store.storeChunk(
            id,
            [1, 2].map((line) => ({ line, input: "{}" })),
            2,
            false
          )
          yield* Store.cancel(id)
        }),
        SqliteClient.layer({ filename: file })
      )
    )
    const rt = runner(store)
    try {
      // Before: `results` waited forever for lines 3–5, which have no row.
      const results = await rt.runPromise(
        Effect.flatMap(Batch.attach(id), (b) => b.results).pipe(Effect.timeout("5 seconds"))
      )
      expect(results.map((r) => [r.line, r.status, r.taskId])).toEqual(
        [1, 2, 3, 4, 5].map((line) => [line, "cancelled", null])
      )
      expect(results.slice(0, 2).every((r) => r.error === undefined)).toBe(true)
      expect(results.slice(2).every((r) => /never submitted/.test(r.error ?? ""))).toBe(true)
    } finally {
      await rt.dispose()
    }
  }, 30_000)
})

/**
 * Store-level: refusals met in a round the batch has since left (it was run again: `unhalt` starts a
 * new round) do not halt the new round, on `sql`. They used to: a poll refused just before a rerun,
 * its halt recorded after the rerun had cleared the first one, halted the rerun too.
 */
const lateHalts = Effect.gen(function* () {
  yield* Store.migrate
  const id = `late-${Date.now()}`
  yield* Store.begin({ id, digest: "d", concurrency: 1, dir: "/tmp", total: 3 })
  yield* Store.storeChunk(
    id,
    [1, 2, 3].map((line) => ({ line, input: "{}" })),
    3,
    true
  )
  const halt = (line: number, step: Store.Halt["step"]): Store.Halt => ({
    line,
    step,
    reason: "authentication",
    status: 401,
    type: "authentication_error",
    message: "AuthenticationError: revoked"
  })
  const first = yield* Store.get(id)
  const claimed = Option.getOrThrow(yield* Store.claim(id, { slot: 0, round: first.round, runner: "test:0" }))
  yield* Store.run("halt", Store.haltPollOp(id, first.round, halt(1, "poll")))
  const halted = (yield* Store.status(id)).halt
  const rerun = yield* Store.unhalt(first)
  // Round `first.round`'s refusals, recorded after the rerun: a poll's and a submit's.
  yield* Store.run("late poll halt", Store.haltPollOp(id, first.round, halt(2, "poll")))
  const released = yield* Store.run(
    "late submit halt",
    Store.haltOp(id, claimed.line, claimed.claim, first.round, halt(claimed.line, "submit"))
  )
  const afterLate = (yield* Store.status(id)).halt
  const lines = yield* Store.page(id, 0, 10)
  // A refusal in the current round halts it.
  yield* Store.run("halt", Store.haltPollOp(id, rerun.round, halt(3, "poll")))
  return { first, halted, rerun, afterLate, released, lines, current: (yield* Store.status(id)).halt }
})

const expectLateHaltsDropped = (run: Effect.Success<typeof lateHalts>) => {
  expect(run.halted).toMatchObject({ line: 1, step: "poll" })
  expect(run.rerun.round).toBe(run.first.round + 1)
  expect(run.afterLate).toBeNull()
  // The refused submit's line is still given back (nothing was made for it).
  expect(run.released).toBe(true)
  expect(run.lines.map((l) => l.state)).toEqual(["pending", "pending", "pending"])
  expect(run.current).toMatchObject({ line: 3, step: "poll", reason: "authentication" })
}

onBothStores(
  "Store: a refusal met before the batch was run again",
  "does not halt the rerun (poll or submit); one met in the rerun's round does",
  lateHalts,
  expectLateHaltsDropped
)

describe("Store.migrate", () => {
  it("SQLite: a store whose halts have no step (made before a poll could halt a batch) gains it; its halt reads as a submit's", async () => {
    const dir = tempDir()
    const program = Effect.gen(function* () {
      yield* Store.migrate
      const sql = yield* SqlClient.SqlClient
      yield* sql`ALTER TABLE umg_batch_stops DROP COLUMN halt_step`
      yield* Store.begin({ id: "old", digest: "d", concurrency: 1, dir, total: 1 })
      yield* sql`INSERT INTO umg_batch_stops (batch_id, cancelled, halt_line, halt_reason, halt_status, halt_message)
        VALUES ('old', 0, 1, 'authentication', 401, 'AuthenticationError: no')`
      yield* Store.migrate
      return (yield* Store.status("old")).halt
    })
    const halt = await Effect.runPromise(Effect.provide(program, SqliteClient.layer({ filename: join(dir, "m.db") })))
    expect(halt).toMatchObject({ line: 1, step: "submit", reason: "authentication", status: 401 })
  })
})
