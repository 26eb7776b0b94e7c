/**
 * `umg batch` on a SQLite store, as a user runs it: real processes, the real emulator behind a
 * counting proxy, SIGINT and SIGKILL at random moments. The proxy's counts prove that no line was
 * ever submitted twice.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleUmg } from "../cli/RunUmg.js"
import { inputFile, parseResults, seeded, startGateway, startUmg, waitForStderr, type Gateway } from "./Harness.js"

let bundle: string
let gateway: Gateway
let env: Record<string, string>

beforeAll(async () => {
  bundle = await bundleUmg()
  gateway = await startGateway(600)
  env = { UMG_BASE_URL: gateway.url, UMG_API_KEY: gateway.apiKey, UMG_POLL_INTERVAL_MS: "50" }
}, 60_000)

afterAll(() =>
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  gateway?.close()
)

const submitted = (prefix: string): Map<string, number> =>
  new Map([...gateway.submits].filter(([prompt]) => prompt.startsWith(prefix)))

/** An input file whose prompts start with `tag`, so tests sharing the gateway count their own submits. */
const tagged = (n: number, tag: string) => {
  const { dir, file } = inputFile(n)
  const text = readFileSync(file, "utf8").replaceAll('"prompt":"line ', `"prompt":"${tag} line `)
  writeFileSync(file, text)
  return { dir, file }
}

const expectNoDuplicates = (tag: string) => {
  const twice = [...submitted(tag)].filter(([, n]) => n > 1)
  expect(twice).toEqual([])
}

describe("umg batch video (SQLite)", () => {
  it("checks every line first: an invalid line exits 2 naming the line and the field, and nothing is sent", async () => {
    const { dir, file } = tagged(5, "invalid")
    const lines = readFileSync(file, "utf8").split("\n")
    lines[3] = JSON.stringify({ model: "beta-3.0-fast-generate-001", prompt: "invalid line 4", duration: 99 })
    writeFileSync(file, lines.join("\n"))
    const run = startUmg(bundle, ["batch", "video", file, "--store", join(dir, "b.db")], dir, env)
    const { code } = await run.done
    expect(code).toBe(2)
    expect(run.stderr()).toMatch(/line 4/)
    expect(run.stderr()).toMatch(/duration/)
    expect(submitted("invalid").size).toBe(0)
  }, 60_000)

  it("refuses a line that is not a JSON object, naming its line number (blank lines are skipped)", async () => {
    const { dir, file } = tagged(3, "notjson")
    writeFileSync(file, `${readFileSync(file, "utf8")}\n\n{"model": oops}\n`)
    const run = startUmg(bundle, ["batch", "video", file, "--store", join(dir, "b.db")], dir, env)
    expect((await run.done).code).toBe(2)
    expect(run.stderr()).toMatch(/line 6: not JSON/)
    expect(submitted("notjson").size).toBe(0)
  }, 60_000)

  it("runs a batch to the end: one result per line in line order, alpha videos written, urls recorded, exit 0", async () => {
    const { dir, file } = tagged(12, "basic")
    const out = join(dir, "results.jsonl")
    const run = startUmg(
      bundle,
      [
        "batch",
        "video",
        file,
        "--store",
        join(dir, "b.db"),
        "--out",
        out,
        "--concurrency",
        "4",
        "--dir",
        join(dir, "videos")
      ],
      dir,
      env
    )
    const { code } = await run.done
    expect(run.stderr()).toMatch(/12\/12/)
    expect(code).toBe(0)
    const results = parseResults(readFileSync(out, "utf8"))
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    for (const r of results) {
      expect(r.status).toBe("succeeded")
      expect(r.task_id).toMatch(/^video_/)
      if ((r.line - 1) % 3 === 0) {
        expect(r.file).toBeDefined()
        expect(existsSync(r.file!)).toBe(true)
        expect(readFileSync(r.file!).subarray(4, 8).toString("latin1")).toBe("ftyp")
      } else expect(r.url).toMatch(/^http/)
    }
    expect([...submitted("basic").values()]).toEqual(Array(12).fill(1))

    // Rerunning the same command finds the batch by the file's digest: nothing is sent again.
    const again = startUmg(bundle, ["batch", "video", file, "--store", join(dir, "b.db")], dir, env)
    expect((await again.done).code).toBe(0)
    expect(parseResults(again.stdout())).toEqual(results)
    expect([...submitted("basic").values()]).toEqual(Array(12).fill(1))

    // status: counts per state, and with --json an object with exactly the seven states.
    const id = /batch (\S+):/.exec(run.stderr())![1]!
    const status = startUmg(bundle, ["batch", "status", id, "--store", join(dir, "b.db"), "--json"], dir, {})
    expect((await status.done).code).toBe(0)
    expect(JSON.parse(status.stdout())).toEqual({
      pending: 0,
      submitting: 0,
      running: 0,
      succeeded: 12,
      failed: 0,
      unknown: 0,
      cancelled: 0
    })

    // The same id with other inputs is refused.
    const { file: other } = tagged(3, "other")
    const mismatch = startUmg(bundle, ["batch", "video", other, "--id", id, "--store", join(dir, "b.db")], dir, env)
    expect((await mismatch.done).code).toBe(2)
    expect(mismatch.stderr()).toMatch(/exists for other inputs/)
    expect(submitted("other").size).toBe(0)
  }, 120_000)

  it("never prints a store password: an unreachable PostgreSQL is a store error (exit 2) with the URL redacted", async () => {
    const { dir } = tagged(1, "secret")
    const status = startUmg(
      bundle,
      ["batch", "status", "x", "--store", "postgres://umg:s3cr3t-pw@127.0.0.1:1/umg"],
      dir,
      {}
    )
    expect((await status.done).code).toBe(2)
    expect(status.stderr()).toMatch(/BatchStoreError/)
    expect(status.stderr()).toMatch(/postgres:\/\/umg:\*\*\*@127\.0\.0\.1:1\/umg/)
    expect(status.stderr() + status.stdout()).not.toMatch(/s3cr3t/)
    // A worker needs a shared PostgreSQL store.
    const worker = startUmg(bundle, ["batch", "worker", "--store", join(dir, "b.db")], dir, env)
    expect((await worker.done).code).toBe(2)
    expect(worker.stderr()).toMatch(/postgres:\/\//)
  }, 60_000)

  it("lets one process run batches on a SQLite store at a time: a second one gets a clear error (exit 2); status and cancel still work", async () => {
    const { dir, file } = tagged(6, "locked")
    gateway.hold.add("locked line 1")
    const first = startUmg(
      bundle,
      ["batch", "video", file, "--store", join(dir, "b.db"), "--concurrency", "1"],
      dir,
      env
    )
    expect(await waitForStderr(first, (s) => /batch \S+:/.test(s))).toBe(true)
    const second = startUmg(bundle, ["batch", "video", file, "--store", join(dir, "b.db")], dir, env)
    expect((await second.done).code).toBe(2)
    expect(second.stderr()).toMatch(/in use by another process/)
    expect(second.stderr()).toMatch(/umg batch status and umg batch cancel, or Batch.readStatus and Batch.cancelStored/)
    // What the message says works: reading and cancelling the batch while the first process runs it.
    const id = /batch (\S+):/.exec(first.stderr())![1]!
    const status = startUmg(bundle, ["batch", "status", id, "--store", join(dir, "b.db"), "--json"], dir, env)
    expect((await status.done).code).toBe(0)
    const cancel = startUmg(bundle, ["batch", "cancel", id, "--store", join(dir, "b.db")], dir, env)
    expect((await cancel.done).code).toBe(0)
    first.child.kill("SIGKILL")
    await first.done
    gateway.hold.delete("locked line 1")
  }, 60_000)

  it("after SIGINT the journal is consistent (nothing unknown, exit 130) and a rerun finishes it without a second submit", async () => {
    const { dir, file } = tagged(24, "sigint")
    const store = join(dir, "b.db")
    // Six tasks followed at once: the batch lasts a few of the gateway's task lengths, so SIGINT lands in it.
    const run = startUmg(
      bundle,
      ["batch", "video", file, "--store", store, "--concurrency", "6", "--max-followed", "6"],
      dir,
      env
    )
    expect(await waitForStderr(run, (s) => /batch \S+:/.test(s))).toBe(true)
    await new Promise((r) => setTimeout(r, 900))
    run.child.kill("SIGINT")
    expect((await run.done).code).toBe(130)
    const id = /batch (\S+):/.exec(run.stderr())![1]!
    const status = startUmg(bundle, ["batch", "status", id, "--store", store, "--json"], dir, {})
    await status.done
    const counts = JSON.parse(status.stdout()) as Record<string, number>
    expect(counts.unknown).toBe(0)
    expect(counts.submitting).toBe(0)
    expect(counts.pending).toBeGreaterThan(0)

    const rerun = startUmg(bundle, ["batch", "video", file, "--store", store, "--concurrency", "6"], dir, env)
    expect((await rerun.done).code).toBe(0)
    expect(parseResults(rerun.stdout()).every((r) => r.status === "succeeded")).toBe(true)
    expect(submitted("sigint").size).toBe(24)
    expectNoDuplicates("sigint")
  }, 120_000)

  it("a submit whose answer never came is `unknown` after a crash, never resent, and sent again only with --resubmit-unknown", async () => {
    const { dir, file } = tagged(4, "lost")
    const store = join(dir, "b.db")
    gateway.hold.add("lost line 2")
    const run = startUmg(bundle, ["batch", "video", file, "--store", store, "--concurrency", "2"], dir, env)
    // Line 2's submit is held by the proxy; the other lines finish (read from the store meanwhile).
    expect(await waitForStderr(run, (s) => /batch \S+:/.test(s))).toBe(true)
    const id = /batch (\S+):/.exec(run.stderr())![1]!
    const until = Date.now() + 60_000
    for (;;) {
      const status = startUmg(bundle, ["batch", "status", id, "--store", store, "--json"], dir, {})
      await status.done
      if ((JSON.parse(status.stdout() || "{}") as { succeeded?: number }).succeeded === 3 || Date.now() > until) break
      await new Promise((r) => setTimeout(r, 200))
    }
    run.child.kill("SIGKILL")
    await run.done
    gateway.hold.delete("lost line 2")

    const rerun = startUmg(bundle, ["batch", "video", file, "--store", store, "--concurrency", "2"], dir, env)
    expect((await rerun.done).code).toBe(1)
    const results = parseResults(rerun.stdout())
    expect(results.find((r) => r.line === 2)).toMatchObject({ status: "unknown", task_id: null })
    expect(results.filter((r) => r.status === "succeeded")).toHaveLength(3)
    expect(submitted("lost").get("lost line 2")).toBeUndefined()

    const resubmit = startUmg(bundle, ["batch", "video", file, "--store", store, "--resubmit-unknown"], dir, env)
    expect((await resubmit.done).code).toBe(0)
    expect(parseResults(resubmit.stdout()).every((r) => r.status === "succeeded")).toBe(true)
    expect(submitted("lost").get("lost line 2")).toBe(1)
    expectNoDuplicates("lost")
  }, 120_000)

  it("survives 20+ SIGKILLs at random moments: every line ends final and none was submitted twice", async () => {
    // Its own gateway with slower tasks (1.5 s): the batch lasts long enough for 20 kills to land in it.
    const slow = await startGateway(1_500)
    const slowEnv = { ...env, UMG_BASE_URL: slow.url }
    const n = 160
    const { dir, file } = tagged(n, "crash")
    const store = join(dir, "b.db")
    const out = join(dir, "results.jsonl")
    const random = seeded(20261124)
    let kills = 0
    let killedMidBatch = 0
    for (let attempt = 0; attempt < 60; attempt++) {
      const run = startUmg(
        bundle,
        // Eight tasks followed at once: the batch lasts long enough for 20 kills to land in it.
        ["batch", "video", file, "--store", store, "--concurrency", "8", "--max-followed", "8", "--out", out],
        dir,
        slowEnv
      )
      if (kills < 24) {
        // Most kills once the batch runs (any moment of its work); some during start-up.
        const early = random() < 0.2
        if (!early) await waitForStderr(run, (s) => /batch \S+:/.test(s))
        await new Promise((r) => setTimeout(r, Math.floor(random() * (early ? 400 : 1_000))))
        if (run.child.exitCode === null) {
          const before = slow.submits.size
          run.child.kill("SIGKILL")
          await run.done
          kills++
          if (before > 0 && before < n) killedMidBatch++
          continue
        }
      }
      const { code } = await run.done
      expect([0, 1]).toContain(code)
      break
    }
    expect(kills).toBeGreaterThanOrEqual(20)
    expect(killedMidBatch).toBeGreaterThanOrEqual(10)
    const results = parseResults(readFileSync(out, "utf8"))
    expect(results).toHaveLength(n)
    for (const r of results) expect(["succeeded", "failed", "unknown"]).toContain(r.status)
    // Every line that succeeded was submitted exactly once; none twice.
    expect([...slow.submits].filter(([, count]) => count > 1)).toEqual([])
    for (const r of results.filter((x) => x.status === "succeeded"))
      expect(slow.submits.get(`crash line ${r.line}`)).toBe(1)
    expect(results.filter((r) => r.status === "succeeded").length).toBeGreaterThan(n / 2)
    const by = (status: string) => results.filter((r) => r.status === status).length
    console.info(
      `crash loop: ${kills} SIGKILLs (${killedMidBatch} mid-batch); ${by("succeeded")} succeeded, ${by("failed")} failed, ${by("unknown")} unknown; ${slow.submits.size} submits for ${n} lines, 0 twice`
    )
    await slow.close()
  }, 300_000)
})
