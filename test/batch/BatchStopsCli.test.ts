/**
 * `umg batch` stopped by the gateway, then on purpose, as a user runs it. A refused UMG_API_KEY stops
 * `umg batch video` at once with the error and exit 1, and `umg batch status` shows its lines pending
 * (exit 1); `umg batch cancel` cancels them, so a rerun submits none and reports them cancelled; an
 * unknown id exits 2. (The library tests, BatchStops.test.ts, run a halted batch on with the right key.)
 * Ctrl-C while submits wait at the gateway says it waits for them, and a second Ctrl-C stops at once;
 * the cluster's own log lines (`No healthy runners available`, `Listening on`) are not shown.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bundleUmg } from "../cli/RunUmg.js"
import { freshDatabase } from "../support/postgres.js"
import { cliRun, inputFile, parseResults, startUmg, waitForStderr } from "./Harness.js"

const cli = cliRun(bundleUmg)

const attempts = (tag: string) =>
  [...cli.gateway.attempts].filter(([prompt]) => prompt.startsWith(`${tag} `)).reduce((a, [, n]) => a + n, 0)

const umg = async (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = cli.env) => {
  const run = startUmg(cli.bundle, args, cwd, env)
  const { code } = await run.done
  return { code, stdout: run.stdout(), stderr: run.stderr() }
}

describe("umg batch stopped", () => {
  it("by a refused key: the error and exit 1, its lines pending (status exit 1); then cancelled: a rerun submits none, its results say cancelled; an unknown id exits 2", async () => {
    const tag = "cli-stop"
    const { dir, file } = inputFile(6)
    writeFileSync(file, readFileSync(file, "utf8").replaceAll('"prompt":"line ', `"prompt":"${tag} line `))
    const store = join(dir, "b.db")
    const args = ["batch", "video", file, "--id", tag, "--store", store, "--concurrency", "2"]
    const refused = await umg(args, dir, { ...cli.env, UMG_API_KEY: "not-a-key" })
    // Before: exit 1 with every line `failed` in the results, and a rerun never sent them.
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toMatch(/BatchHalted: batch cli-stop stopped: the gateway refused the submit of line \d/)
    expect(refused.stderr).toMatch(/UMG_API_KEY was refused/)
    expect(refused.stderr).not.toMatch(/not-a-key/)
    expect(refused.stdout).toBe("")
    const sent = attempts(tag)
    expect(sent).toBeLessThanOrEqual(2)

    const [status, unknown] = await Promise.all([
      umg(["batch", "status", tag, "--store", store, "--json"], dir, {}),
      umg(["batch", "cancel", "no-such-batch", "--store", store], dir, {})
    ])
    expect(status.code).toBe(1)
    expect(JSON.parse(status.stdout)).toMatchObject({
      pending: 6,
      failed: 0,
      cancelled: 0,
      halted: { reason: "authentication", status: 401 }
    })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/BatchNotFound/)

    const cancelled = await umg(["batch", "cancel", tag, "--store", store, "--json"], dir, {})
    expect(cancelled.code, cancelled.stderr).toBe(0)
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      id: tag,
      outcome: "cancelled",
      cancelled: 6,
      counts: { pending: 0, cancelled: 6 }
    })

    const out = join(dir, "results.jsonl")
    const rerun = await umg([...args, "--out", out], dir)
    expect(rerun.code).toBe(1)
    expect(rerun.stderr).toMatch(/6 cancelled/)
    expect(rerun.stderr).toMatch(/6 of 6 lines did not succeed \(0 failed or unknown, 6 cancelled\)/)
    expect(parseResults(readFileSync(out, "utf8"))).toEqual(
      [1, 2, 3, 4, 5, 6].map((line) => ({ line, status: "cancelled", task_id: null }))
    )
    expect(attempts(tag)).toBe(sent)
  }, 60_000)
})

// The cluster's bookkeeping, as it logged it on stderr: a SQLite runner waiting to shut down, a PostgreSQL runner starting.
const clusterNoise = /No healthy runners|Listening on|effect\/cluster|WARN|INFO/

describe("umg batch video stopped by Ctrl-C", () => {
  it("while submits wait at the gateway: one note that it waits for them (no cluster log lines meanwhile); a second Ctrl-C stops at once (exit 130)", async () => {
    const tag = "cli-ctrl-c"
    const { dir, file } = inputFile(4)
    writeFileSync(file, readFileSync(file, "utf8").replaceAll('"prompt":"line ', `"prompt":"${tag} line `))
    const store = join(dir, "b.db")
    cli.gateway.pauseSubmits = true
    const run = startUmg(cli.bundle, ["batch", "video", file, "--store", store, "--concurrency", "2"], dir, cli.env)
    try {
      const until = Date.now() + 20_000
      while (cli.gateway.paused() < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
      run.child.kill("SIGINT")
      // Before: nothing said, and a cluster warning every 3 s while it waited.
      expect(await waitForStderr(run, (s) => /stopping: waiting for 2 submits in flight/.test(s), 5_000)).toBe(true)
      expect(run.stderr()).toMatch(/Ctrl-C again to stop now; those lines may become unknown/)
      // The cluster's sync loop looks every 3 s: long enough for it to have warned.
      await new Promise((r) => setTimeout(r, 3_500))
      expect(run.stderr()).not.toMatch(clusterNoise)
      const stoppedAt = Date.now()
      // Before: a second Ctrl-C did nothing.
      run.child.kill("SIGINT")
      expect((await run.done).code).toBe(130)
      expect(Date.now() - stoppedAt).toBeLessThan(2_000)
      expect(run.stderr()).toMatch(/stopped now: 2 submits in flight not recorded/)
      expect(run.stderr()).not.toMatch(clusterNoise)
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL")
      cli.gateway.pauseSubmits = false
    }
  }, 30_000)

  it("PostgreSQL: a normal run's stderr has no cluster log lines", async () => {
    const db = await freshDatabase()
    try {
      const { dir, file } = inputFile(2)
      writeFileSync(file, readFileSync(file, "utf8").replaceAll('"prompt":"line ', '"prompt":"cli-quiet-pg line '))
      const run = await umg(["batch", "video", file, "--store", db.url], dir)
      expect(run.code, run.stderr).toBe(0)
      expect(parseResults(run.stdout).map((r) => r.status)).toEqual(["succeeded", "succeeded"])
      // Before: `INFO … Listening on: 127.0.0.1:…` (package @effect/cluster) when the runner started.
      expect(run.stderr).not.toMatch(clusterNoise)
    } finally {
      await db.drop()
    }
  }, 30_000)
})
