/**
 * `umg batch video` killed (SIGKILL) while it writes its results file and downloads a video leaves
 * their temporary files behind; the run that resumes the batch removes them, so none stays next to
 * `--out` or in `--dir` for ever.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleUmg } from "../cli/RunUmg.js"
import { inputFile, startGateway, startUmg, waitForStderr, type Gateway } from "./Harness.js"

let bundle: string
let gateway: Gateway
let env: Record<string, string>

beforeAll(async () => {
  bundle = await bundleUmg()
  gateway = await startGateway(300)
  env = { UMG_BASE_URL: gateway.url, UMG_API_KEY: gateway.apiKey, UMG_POLL_INTERVAL_MS: "50" }
}, 60_000)

afterAll(() =>
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  gateway?.close()
)

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
    gateway.stallDownloads = true
    const before = gateway.stalled()
    const run = startUmg(bundle, args, dir, env)
    expect(await waitForStderr(run, (s) => /batch \S+:/.test(s))).toBe(true)
    const until = Date.now() + 30_000
    while ((gateway.stalled() === before || temporaries(videos).length === 0) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20))
    run.child.kill("SIGKILL")
    await run.done
    expect(temporaries(dir)).toEqual([expect.stringMatching(/^\.r\.jsonl\.\d+\.[0-9a-f]{8}\.[0-9a-f]{12}\.tmp$/)])
    expect(temporaries(videos).length).toBeGreaterThan(0)

    gateway.stallDownloads = false
    const rerun = startUmg(bundle, args, dir, env)
    expect((await rerun.done).code).toBe(0)
    expect(temporaries(dir)).toEqual([])
    expect(temporaries(videos)).toEqual([])
  }, 120_000)
})
