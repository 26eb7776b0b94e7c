/**
 * `umg batch status` on a batch that an invalid line stopped: it says so (the line, the field, what
 * to do) and exits 2, rather than showing the batch pending forever with exit 0.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bundleUmg } from "../cli/RunUmg.js"
import { cliRun, inputFile, startUmg } from "./Harness.js"

const cli = cliRun(bundleUmg)

describe("umg batch status", () => {
  it("shows a batch refused at a line as refused: the line, the field and what to do, exit 2", async () => {
    const { dir, file } = inputFile(3)
    const lines = readFileSync(file, "utf8").replaceAll('"prompt":"line ', '"prompt":"status line ').split("\n")
    lines[1] = JSON.stringify({ model: "beta-3.0-fast-generate-001", prompt: "status line 2", duration: 99 })
    writeFileSync(file, lines.join("\n"))
    const store = join(dir, "b.db")
    const run = startUmg(cli.bundle, ["batch", "video", file, "--store", store], dir, cli.env)
    expect((await run.done).code).toBe(2)
    const id = /batch (\S+):/.exec(run.stderr())?.[1] ?? /umg batch status (\S+)/.exec(run.stderr())?.[1]
    expect(id, run.stderr()).toBeDefined()

    const json = startUmg(cli.bundle, ["batch", "status", id!, "--store", store, "--json"], dir, {})
    expect((await json.done).code).toBe(2)
    const shown = JSON.parse(json.stdout()) as Record<string, unknown>
    expect(shown.refused).toMatchObject({ line: 2, field: "duration" })
    expect((shown.refused as { message: string }).message).toMatch(/duration/)
    expect(Object.keys(shown.refused as object).sort()).toEqual(["field", "line", "message"])

    const human = startUmg(cli.bundle, ["batch", "status", id!, "--store", store], dir, {})
    expect((await human.done).code).toBe(2)
    expect(human.stdout()).toMatch(/refused at line 2 \(field duration\)/)
    expect(human.stdout()).toMatch(/fix line 2 and run the same command again/)
  }, 60_000)
})
