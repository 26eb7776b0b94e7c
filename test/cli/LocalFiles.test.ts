import { Effect } from "effect"
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { readLines, writingTo } from "../../src/cli/support/LocalFiles.js"

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

  it("drops a leading UTF-8 byte-order mark (a file saved by a Windows editor), and only a leading one", async () => {
    const file = join(dir, "bom.txt")
    writeFileSync(file, "\uFEFFalpha\r\n\uFEFFbeta\r\n")
    expect(await Effect.runPromise(readLines(file, "file"))).toEqual([
      { text: "alpha", line: 1 },
      { text: "\uFEFFbeta", line: 2 }
    ])
  })

  it("names the field and the path of a file it cannot read", async () => {
    const error = await Effect.runPromise(Effect.flip(readLines(join(dir, "absent.txt"), "file")))
    expect(error).toMatchObject({ _tag: "InvalidRequest", field: "file", rule: "file" })
    expect(error.message).toContain("absent.txt")
  })
})

describe("writingTo", () => {
  const failed = (made: string) => Effect.flip(writingTo(join(made, "c", "out.png"), Effect.fail("the call failed")))

  it("removes the folders it made for the path when the call fails, and keeps them when it succeeds", async () => {
    const base = mkdtempSync(join(dir, "write-"))
    expect(await Effect.runPromise(failed(join(base, "a", "b")))).toBe("the call failed")
    expect(readdirSync(base)).toEqual([])
    await Effect.runPromise(writingTo(join(base, "a", "out.png"), Effect.void))
    expect(readdirSync(base)).toEqual(["a"])
  })

  it("keeps a folder it made that something else has filled meanwhile, and the folders above it", async () => {
    const base = mkdtempSync(join(dir, "write-"))
    const program = writingTo(
      join(base, "a", "b", "out.png"),
      Effect.flatMap(
        Effect.sync(() => writeFileSync(join(base, "a", "theirs.txt"), "theirs")),
        () => Effect.fail("the call failed")
      )
    )
    await Effect.runPromise(Effect.flip(program))
    expect(existsSync(join(base, "a", "b"))).toBe(false)
    expect(readdirSync(join(base, "a"))).toEqual(["theirs.txt"])
  })

  it("removes nothing on failure when the folder was there, and checks the path before the call runs", async () => {
    const base = mkdtempSync(join(dir, "write-"))
    await Effect.runPromise(Effect.flip(writingTo(join(base, "out.png"), Effect.fail("the call failed"))))
    expect(existsSync(base)).toBe(true)
    const blocker = join(base, "file.txt")
    writeFileSync(blocker, "x")
    let ran = false
    const error = await Effect.runPromise(
      Effect.flip(
        writingTo(
          join(blocker, "out.png"),
          Effect.sync(() => (ran = true))
        )
      )
    )
    expect(error).toMatchObject({ _tag: "InvalidRequest", field: "output", rule: "writable" })
    expect(ran).toBe(false)
  })
})
