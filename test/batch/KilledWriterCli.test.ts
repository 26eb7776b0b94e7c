/**
 * `umg batch video` killed (SIGKILL) while it writes its results file and downloads a video leaves
 * their temporary files behind; the run that resumes the batch removes them, so none stays next to
 * `--out` or in `--dir` for ever.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bundleUmg } from "../cli/RunUmg.js"
import { cliRun, inputFile, startUmg, waitForStderr } from "./Harness.js"

const cli = cliRun(bundleUmg)

const temporaries = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".tmp")) : [])

describe("umg batch video after kill -9", () => {
  it("the resumed run removes the temporary files the killed one left next to --out and in --dir", async () => {
    const { dir, file } = inputFile(3)
    writeFileSync(
      file,
      readFileSync(file, "utf8")
        .replaceAll('"model":"beta-3.0-fast-generate-001"', '"model":"alpha-2"')
        .replaceAll('"prompt":"line ', '"prompt":"swept line ')
    )
    const videos = join(dir, "videos")
    const args = ["batch", "video", file, "--store", join(dir, "b.db"), "--dir", videos, "--out", join(dir, "r.jsonl")]
    cli.gateway.stallDownloads = true
    const before = cli.gateway.stalled()
    const run = startUmg(cli.bundle, args, dir, cli.env)
    expect(await waitForStderr(run, (s) => /batch \S+:/.test(s))).toBe(true)
    const until = Date.now() + 30_000
    while ((cli.gateway.stalled() === before || temporaries(videos).length === 0) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20))
    run.child.kill("SIGKILL")
    await run.done
    expect(temporaries(dir)).toEqual([expect.stringMatching(/^\.r\.jsonl\.\d+\.[0-9a-f]{8}\.[0-9a-f]{12}\.tmp$/)])
    expect(temporaries(videos).length).toBeGreaterThan(0)

    cli.gateway.stallDownloads = false
    const rerun = startUmg(cli.bundle, args, dir, cli.env)
    expect((await rerun.done).code).toBe(0)
    expect(temporaries(dir)).toEqual([])
    expect(temporaries(videos)).toEqual([])
  }, 120_000)
})
