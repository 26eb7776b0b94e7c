/**
 * `umg batch video` on a streamed input, as a user runs it: an invalid line far into the file stops
 * the batch before that line is sent (exit 2, naming the line and the field), and running the same
 * command on the corrected file goes on with the same batch, sending no line twice; a process killed
 * (SIGKILL) in the middle of an alpha download leaves no partial video at its path, and a rerun
 * writes the whole one.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { SAMPLE_MP4 } from "../../src/emulator/video/Mp4.js"
import { bundleUmg } from "../cli/RunUmg.js"
import { cliRun, inputFile, parseResults, startUmg, waitForStderr } from "./Harness.js"

const cli = cliRun(bundleUmg)

const submitted = (prefix: string): Map<string, number> =>
  new Map([...cli.gateway.submits].filter(([prompt]) => prompt.startsWith(prefix)))

const lineOf = (prompt: string): number => Number(/line (\d+)$/.exec(prompt)?.[1])

describe("umg batch video on a streamed input", () => {
  it("stops at an invalid line far into the file before sending it; the corrected file goes on with the same batch, nothing sent twice", async () => {
    const n = 3_000
    const bad = 2_500
    const { dir, file } = inputFile(n)
    const lines = readFileSync(file, "utf8")
      .replaceAll('"prompt":"line ', '"prompt":"far line ')
      .replaceAll('"model":"alpha-2"', '"model":"beta-3.0-fast-generate-001"')
      .split("\n")
    const good = lines[bad - 1]!
    lines[bad - 1] = JSON.stringify({ model: "beta-3.0-fast-generate-001", prompt: `far line ${bad}`, duration: 99 })
    writeFileSync(file, lines.join("\n"))
    const store = join(dir, "b.db")
    const run = startUmg(cli.bundle, ["batch", "video", file, "--store", store, "--concurrency", "8"], dir, cli.env)
    expect((await run.done).code).toBe(2)
    expect(run.stderr()).toMatch(new RegExp(`line ${bad}`))
    expect(run.stderr()).toMatch(/duration/)
    // Nothing at or after the invalid line was sent.
    expect([...submitted("far line ")].filter(([prompt]) => lineOf(prompt) >= bad)).toEqual([])
    const id = /batch (\S+):/.exec(run.stderr())![1]!

    // The same command on the corrected file: the same batch goes on.
    lines[bad - 1] = good
    writeFileSync(file, lines.join("\n"))
    const out = join(dir, "results.jsonl")
    const rerun = startUmg(
      cli.bundle,
      ["batch", "video", file, "--store", store, "--concurrency", "8", "--out", out],
      dir,
      cli.env
    )
    expect((await rerun.done).code).toBe(0)
    expect(/batch (\S+):/.exec(rerun.stderr())![1]).toBe(id)
    const results = parseResults(readFileSync(out, "utf8"))
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: n }, (_, i) => i + 1))
    expect(results.every((r) => r.status === "succeeded")).toBe(true)
    expect(submitted("far line ").size).toBe(n)
    expect([...submitted("far line ").values()].every((count) => count === 1)).toBe(true)
  }, 180_000)

  it("a SIGKILL in the middle of an alpha download leaves no partial video at its path; a rerun writes the whole one", async () => {
    const { dir, file } = inputFile(3)
    writeFileSync(
      file,
      readFileSync(file, "utf8")
        .replaceAll('"model":"beta-3.0-fast-generate-001"', '"model":"alpha-2"')
        .replaceAll('"prompt":"line ', '"prompt":"cut line ')
    )
    const store = join(dir, "b.db")
    const videos = join(dir, "videos")
    const args = ["batch", "video", file, "--store", store, "--dir", videos, "--out", join(dir, "results.jsonl")]
    cli.gateway.stallDownloads = true
    const before = cli.gateway.stalled()
    const run = startUmg(cli.bundle, args, dir, cli.env)
    expect(await waitForStderr(run, (s) => /batch \S+:/.test(s))).toBe(true)
    const until = Date.now() + 30_000
    while (cli.gateway.stalled() === before && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
    expect(cli.gateway.stalled()).toBeGreaterThan(before)
    run.child.kill("SIGKILL")
    await run.done
    const finals = () => (existsSync(videos) ? readdirSync(videos).filter((f) => f.endsWith(".mp4")) : [])
    // Half a video was received: nothing is at a video's path.
    expect(finals()).toEqual([])

    cli.gateway.stallDownloads = false
    const rerun = startUmg(cli.bundle, args, dir, cli.env)
    expect((await rerun.done).code).toBe(0)
    const results = parseResults(readFileSync(join(dir, "results.jsonl"), "utf8"))
    expect(results.every((r) => r.status === "succeeded")).toBe(true)
    expect(finals()).toHaveLength(3)
    for (const r of results) expect(Buffer.compare(readFileSync(r.file!), Buffer.from(SAMPLE_MP4))).toBe(0)
    expect([...submitted("cut line ").values()]).toEqual([1, 1, 1])
  }, 120_000)
})
