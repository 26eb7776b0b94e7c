// `Batch.jsonLines(path)`, the library's reader of a JSON Lines file of inputs: lines numbered as the
// file numbers them (blank lines counted, a BOM and CRLF taken), and a file it cannot read or a line
// that is not an object refused as `BatchInvalidInput` naming the option or the line.
import { Effect, Stream } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines } from "../../src/batch/Ingest.js"

const dir = mkdtempSync(join(tmpdir(), "umg-jsonlines-"))
const read = (path: string) => Effect.runPromise(Effect.result(Stream.runCollect(jsonLines(path))))

describe("Batch.jsonLines", () => {
  it("reads one input per non-blank line, numbered as the file numbers its lines", async () => {
    const file = join(dir, "ok.jsonl")
    writeFileSync(file, '\uFEFF{"model":"alpha-2","prompt":"a"}\r\n\r\n{"model":"alpha-2","prompt":"b"}\n')
    const result = await read(file)
    expect(result._tag).toBe("Success")
    if (result._tag !== "Success") return
    expect(Array.from(result.success).map((i) => [i.line, (i.input as { prompt: string }).prompt])).toEqual([
      [1, "a"],
      [3, "b"]
    ])
  })

  it("refuses a file it cannot read by its option, inputs (not the CLI's FILE)", async () => {
    const result = await read(join(dir, "missing.jsonl"))
    expect(result._tag).toBe("Failure")
    if (result._tag !== "Failure") return
    expect(result.failure).toMatchObject({ _tag: "BatchInvalidInput", line: 0, field: "inputs", rule: "readable" })
    expect(result.failure.message).toMatch(/^inputs: cannot read .*missing\.jsonl/)
  })

  it("refuses a line that is not a JSON object, naming its line", async () => {
    const file = join(dir, "bad.jsonl")
    writeFileSync(file, '{"model":"alpha-2","prompt":"a"}\n[1, 2]\n')
    const result = await read(file)
    expect(result._tag === "Failure" && result.failure).toMatchObject({ _tag: "BatchInvalidInput", line: 2 })
  })
})
