import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { readLines } from "../../src/cli/support/LocalFiles.js"

const dir = mkdtempSync(join(tmpdir(), "umg-lines-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("readLines", () => {
  it("gives the non-blank lines with their numbers in the file, blank lines counted, LF or CRLF", async () => {
    const file = join(dir, "lines.txt")
    writeFileSync(file, "alpha\n\n  \r\nbeta\r\ngamma")
    expect(await Effect.runPromise(readLines(file, "file"))).toEqual([
      { text: "alpha", line: 1 },
      { text: "beta", line: 4 },
      { text: "gamma", line: 5 }
    ])
  })

  it("names the field and the path of a file it cannot read", async () => {
    const error = await Effect.runPromise(Effect.flip(readLines(join(dir, "absent.txt"), "file")))
    expect(error).toMatchObject({ _tag: "InvalidRequest", field: "file", rule: "file" })
    expect(error.message).toContain("absent.txt")
  })
})
