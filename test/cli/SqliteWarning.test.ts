/**
 * On Node 22 (which `engines` allows), loading `node:sqlite` prints "ExperimentalWarning: SQLite is an
 * experimental feature…" on stderr; Node 24 prints nothing. The `umg` bin drops that one warning, so a
 * batch command's stderr is the same on both, and keeps printing every other warning. The second test
 * emits the warning itself (as Node 22 would, once the program loads), so it checks the filter on any Node.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SqliteClient from "../../src/batch/SqliteClient.js"
import * as Store from "../../src/batch/Store.js"
import { bundleUmg, runUmg } from "./RunUmg.js"

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string
}
const dir = mkdtempSync(join(tmpdir(), "umg-sqlite-warning-"))
const store = join(dir, "b.db")
const preload = join(dir, "warn.mjs")
let umg: string

beforeAll(async () => {
  umg = await bundleUmg()
  await Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        yield* Store.migrate
        yield* Store.begin({ id: "warned", digest: "d", concurrency: 1, dir, total: 2 })
      }),
      SqliteClient.layer({ filename: store })
    )
  )
  // Emits Node 22's SQLite warning and another one when the entry imports the program (after the
  // entry's own top-level code ran), as `node:sqlite` would when a command loads it.
  writeFileSync(
    preload,
    [
      'import { registerHooks } from "node:module"',
      "let emitted = false",
      "registerHooks({ resolve(specifier, context, next) {",
      "  if (!emitted && /Program/.test(specifier)) {",
      "    emitted = true",
      '    process.emitWarning("SQLite is an experimental feature and might change at any time", "ExperimentalWarning")',
      '    process.emitWarning("umg test: another feature is experimental", "ExperimentalWarning")',
      "  }",
      "  return next(specifier, context)",
      "} })"
    ].join("\n")
  )
}, 60_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("the umg bin and Node 22's node:sqlite warning", () => {
  it("`umg batch status` on a SQLite store writes its answer and nothing on stderr", async () => {
    const run = await runUmg(umg, ["batch", "status", "warned", "--store", store, "--json"])
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ pending: 2, succeeded: 0 })
    expect(run.stderr).toBe("")
  }, 60_000)

  it("drops the SQLite warning only: another warning is still printed", async () => {
    const run = await runUmg(umg, ["--version"], { NODE_OPTIONS: `"--import=${pathToFileURL(preload).href}"` })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe(version)
    expect(run.stderr).toContain("ExperimentalWarning: umg test: another feature is experimental")
    expect(run.stderr).not.toContain("SQLite")
  }, 60_000)
})
