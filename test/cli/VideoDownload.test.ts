/**
 * `umg video download`'s engine, in process, against an emulator on a virtual clock: a succeeded task's
 * video is written; a failed one is `VideoTaskFailed` with its code and id, one still queued a
 * `VideoNotFinished`, both exit 1 (the task was queried: not invalid input) and write nothing.
 */
import { ConfigProvider, Effect, Option } from "effect"
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { runVideoDownload } from "../../src/cli/commands/video.js"
import { describeReport, ExitCode, reportOf } from "../../src/cli/support/ExitCode.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
const dir = mkdtempSync(join(tmpdir(), "umg-video-download-"))
beforeAll(async () => {
  emu = await startEmulator({ fast: true, virtualClock: true })
})
afterAll(async () => {
  await emu.close()
  rmSync(dir, { recursive: true, force: true })
})

const withEnv = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.provideService(
    effect,
    ConfigProvider.ConfigProvider,
    ConfigProvider.fromEnvRecord({ UMG_BASE_URL: emu.url, UMG_API_KEY: emu.apiKey, UMG_MAX_RETRIES: "0" })
  )

const submit = (model: string, prompt: string) =>
  Effect.runPromise(
    Effect.flatMap(Gateway, (g) => g.video.submit({ model, prompt })).pipe(
      Effect.provide(Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey }))
    )
  ).then((t) => t.task_id)

const download = (taskId: string, output: string) =>
  Effect.runPromise(
    Effect.result(withEnv(runVideoDownload({ json: false, emulator: false, taskId, model: Option.none(), output })))
  )

const failureOf = async (taskId: string, output: string) => {
  const result = await download(taskId, output)
  if (result._tag === "Success") throw new Error("the download succeeded")
  return result.failure
}

describe("umg video download", () => {
  it("writes a succeeded alpha task's video", async () => {
    const id = await submit("alpha-2", "a calm sea")
    emu.advanceTime(10_000)
    const output = join(dir, "ok.mp4")
    expect((await download(id, output))._tag).toBe("Success")
    expect(statSync(output).size).toBeGreaterThan(0)
  })

  it("reports a failed task as VideoTaskFailed with its code, message and id, exit 1, and writes nothing", async () => {
    const id = await submit("gamma2.5-t2v-preview", "something inappropriate")
    emu.advanceTime(10_000)
    const error = await failureOf(id, join(dir, "failed.mp4"))
    expect(error).toMatchObject({ _tag: "VideoTaskFailed", taskId: id, code: 1301 })
    const report = reportOf(error)
    expect(report).toMatchObject({ exitCode: ExitCode.failure, type: "VideoTaskFailed", taskId: id, code: 1301 })
    expect(describeReport(report)).toBe(
      `VideoTaskFailed (task ${id}, code 1301, family video): The prompt was rejected as inappropriate content by the content safety check.`
    )
    expect(readdirSync(dir)).not.toContain("failed.mp4")
  })

  it("reports a task not finished yet as such, exit 1, never as invalid input with nothing sent", async () => {
    const id = await submit("alpha-2", "a calm sea")
    const error = await failureOf(id, join(dir, "queued.mp4"))
    expect(error).toMatchObject({ _tag: "VideoNotFinished", taskId: id, taskStatus: "queued" })
    const report = reportOf(error)
    expect(report).toMatchObject({ exitCode: ExitCode.failure, type: "VideoNotFinished", taskId: id })
    const text = describeReport(report)
    expect(text).toContain(`task ${id} is not finished yet (status queued)`)
    expect(text).toContain(`umg video status ${id}`)
    expect(text).not.toContain("invalid input")
    expect(text).not.toContain("nothing was sent")
    expect(readdirSync(dir)).not.toContain("queued.mp4")
  })
})
