/**
 * `umg batch` on PostgreSQL: three `umg batch worker` processes and the submitting process form a
 * cluster; one worker is killed (SIGKILL) in the middle of the batch and the others take its slots
 * over, and with them the tasks it was following. Every line ends final and the counting proxy saw
 * no line submitted twice.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleUmg } from "../cli/RunUmg.js"
import { freshDatabase, query } from "../support/postgres.js"
import {
  inputFile,
  parseResults,
  startGateway,
  startUmg,
  waitForStderr,
  type Gateway,
  type Running
} from "./Harness.js"

let bundle: string
let gateway: Gateway
let db: { readonly url: string; readonly drop: () => Promise<void> }
const processes: Array<Running> = []

beforeAll(async () => {
  bundle = await bundleUmg()
  gateway = await startGateway(1_200)
  db = await freshDatabase()
}, 120_000)

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL")
  await Promise.all(processes.map((p) => p.done))
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await gateway?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await db?.drop()
}, 60_000)

describe("umg batch on PostgreSQL", () => {
  it("three workers and the submitter share a batch; a worker killed mid-batch is taken over; every line final, none submitted twice", async () => {
    const env = { UMG_BASE_URL: gateway.url, UMG_API_KEY: gateway.apiKey, UMG_POLL_INTERVAL_MS: "50" }
    const n = 120
    const { dir, file } = inputFile(n)
    writeFileSync(file, readFileSync(file, "utf8").replaceAll('"prompt":"line ', '"prompt":"pg line '))
    const workers = [0, 1, 2].map(() => startUmg(bundle, ["batch", "worker", "--store", db.url], dir, env))
    processes.push(...workers)
    for (const w of workers)
      expect(await waitForStderr(w, (s) => /Listening on/.test(s), 60_000), w.stderr()).toBe(true)

    // The runners divide the shards among themselves once all are registered.
    const registered = Date.now() + 30_000
    while (Date.now() < registered) {
      const rows = (
        await query(db.url, "SELECT COUNT(*) AS n FROM umg_cluster_runners WHERE healthy")
      )[0] as ReadonlyArray<{ n: string }>
      if (Number(rows[0]?.n ?? 0) >= 3) break
      await new Promise((r) => setTimeout(r, 200))
    }
    await new Promise((r) => setTimeout(r, 5_000))

    const out = join(dir, "results.jsonl")
    const submitter = startUmg(
      bundle,
      ["batch", "video", file, "--store", db.url, "--concurrency", "24", "--out", out],
      dir,
      env
    )
    processes.push(submitter)
    // Once the batch is well under way, kill the worker that has submitted the most lines.
    const deadline = Date.now() + 60_000
    const perPid = new Map<number, number>()
    while (Date.now() < deadline && gateway.submits.size < 20) await new Promise((r) => setTimeout(r, 100))
    const claimed = (
      await query(db.url, "SELECT runner, COUNT(*) AS n FROM umg_batch_lines WHERE runner IS NOT NULL GROUP BY runner")
    )[0] as ReadonlyArray<{ runner: string; n: string }>
    for (const row of claimed) perPid.set(Number(row.runner.split(":").pop()), Number(row.n))
    const victim = [...workers].sort((a, b) => (perPid.get(b.child.pid!) ?? 0) - (perPid.get(a.child.pid!) ?? 0))[0]!
    const victimPid = victim.child.pid!
    const victimLines = perPid.get(victimPid) ?? 0
    expect(victimLines).toBeGreaterThanOrEqual(3)
    // Every worker had work: the shards were shared.
    for (const w of workers) expect(perPid.get(w.child.pid!) ?? 0).toBeGreaterThan(0)
    expect(gateway.submits.size).toBeLessThan(n)
    victim.child.kill("SIGKILL")
    await victim.done
    // The tasks the killed runner was following: submitted by it, to be followed on by the others.
    const orphaned = (
      (
        await query(db.url, `SELECT line FROM umg_batch_lines WHERE runner LIKE '%:${victimPid}' AND state = 'running'`)
      )[0] as ReadonlyArray<{ line: number }>
    ).map((r) => Number(r.line))

    const { code } = await submitter.done
    expect([0, 1]).toContain(code)
    const results = parseResults(readFileSync(out, "utf8"))
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: n }, (_, i) => i + 1))
    for (const r of results) expect(["succeeded", "failed", "unknown"]).toContain(r.status)
    // No line reached the gateway twice.
    expect([...gateway.submits].filter(([, count]) => count > 1)).toEqual([])
    for (const r of results.filter((x) => x.status === "succeeded"))
      expect(gateway.submits.get(`pg line ${r.line}`)).toBe(1)

    // Lines were claimed after the kill by the processes still alive.
    const runners = (
      await query(db.url, "SELECT runner, COUNT(*) AS n FROM umg_batch_lines GROUP BY runner")
    )[0] as ReadonlyArray<{ runner: string; n: string }>
    const alive = runners.filter((r) => !r.runner.endsWith(`:${victimPid}`))
    expect(alive.length).toBeGreaterThanOrEqual(2)
    // Every task the killed runner followed was followed to its end by the others, without a second submit.
    expect(orphaned.length).toBeGreaterThan(0)
    for (const line of orphaned) {
      expect(results[line - 1]!.status).toBe("succeeded")
      expect(gateway.submits.get(`pg line ${line}`)).toBe(1)
    }
    const unknown = results.filter((r) => r.status === "unknown").length
    console.info(
      `postgres: ${runners.map((r) => `${r.runner.split(":")[1]} ${r.n}`).join(", ")} lines per runner (killed ${victimPid}, following ${orphaned.length} tasks, all taken over); ${results.filter((r) => r.status === "succeeded").length} succeeded, ${unknown} unknown`
    )
    expect(results.filter((r) => r.status === "succeeded").length).toBeGreaterThanOrEqual(n - 24)
  }, 240_000)
})
