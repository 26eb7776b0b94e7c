/** `writeAtomically`: the file at the final path is absent or whole, whatever fails, races or is killed. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writeAtomically, FileWriteFailed } from "../../src/batch/AtomicFile.js"
import { nodeBinary } from "./Harness.js"

const folder = () => mkdtempSync(join(tmpdir(), "umg-atomic-"))
const leftovers = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".tmp"))

describe("writeAtomically", () => {
  it.effect("writes text, bytes and a stream of chunks, making the folder", () =>
    Effect.gen(function* () {
      const dir = folder()
      yield* writeAtomically(join(dir, "a", "text.txt"), "hello")
      yield* writeAtomically(join(dir, "a", "bytes.bin"), new Uint8Array([1, 2, 3]))
      yield* writeAtomically(
        join(dir, "a", "stream.bin"),
        Stream.fromIterable([new Uint8Array([1]), new Uint8Array(0), new Uint8Array([2, 3])])
      )
      expect(readFileSync(join(dir, "a", "text.txt"), "utf8")).toBe("hello")
      expect([...readFileSync(join(dir, "a", "bytes.bin"))]).toEqual([1, 2, 3])
      expect([...readFileSync(join(dir, "a", "stream.bin"))]).toEqual([1, 2, 3])
      expect(leftovers(join(dir, "a"))).toEqual([])
    })
  )

  it.effect("a failing stream leaves the earlier file untouched and no temporary file", () =>
    Effect.gen(function* () {
      const dir = folder()
      const path = join(dir, "out.bin")
      writeFileSync(path, "before")
      const error = yield* Effect.flip(
        writeAtomically(path, Stream.concat(Stream.make(new Uint8Array([9])), Stream.fail("boom" as const)))
      )
      expect(error).toBe("boom")
      expect(readFileSync(path, "utf8")).toBe("before")
      expect(leftovers(dir)).toEqual([])
    })
  )

  it.live("an interrupted write removes its temporary file", () =>
    Effect.gen(function* () {
      const dir = folder()
      const path = join(dir, "out.bin")
      const fiber = yield* Effect.forkChild(
        writeAtomically(path, Stream.concat(Stream.make(new Uint8Array([1])), Stream.never))
      )
      // Wait until the temporary file exists, so the interruption lands mid-write.
      while (leftovers(dir).length === 0) yield* Effect.sleep("5 millis")
      yield* Fiber.interrupt(fiber)
      expect(existsSync(path)).toBe(false)
      expect(leftovers(dir)).toEqual([])
    })
  )

  it.effect("writes racing on one path never collide: the final file is one writer's whole content", () =>
    Effect.gen(function* () {
      const dir = folder()
      const path = join(dir, "race.txt")
      const contents = Array.from({ length: 24 }, (_, i) => String(i).repeat(10_000 + i))
      yield* Effect.forEach(contents, (c) => writeAtomically(path, c), { concurrency: "unbounded" })
      expect(contents).toContain(readFileSync(path, "utf8"))
      expect(leftovers(dir)).toEqual([])
    })
  )

  it.effect("a folder that cannot be made fails with FileWriteFailed naming the path", () =>
    Effect.gen(function* () {
      const dir = folder()
      writeFileSync(join(dir, "file"), "x")
      const error = yield* Effect.flip(writeAtomically(join(dir, "file", "sub", "out.txt"), "x"))
      expect(error).toBeInstanceOf(FileWriteFailed)
      expect(error.message).toContain(join(dir, "file", "sub", "out.txt"))
    })
  )

  it("kill -9 at any moment leaves no file or the whole file at the final path", async () => {
    const chunks = 40
    const whole = chunks * 65_536
    const outcomes = new Set<string>()
    for (let round = 0; round < 8; round++) {
      const dir = folder()
      const path = join(dir, "video.mp4")
      const child = spawn(
        nodeBinary,
        ["--import", "tsx", join(import.meta.dirname, "fixtures", "slowAtomicWriter.ts"), path, String(chunks)],
        { stdio: ["ignore", "pipe", "inherit"] }
      )
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
      const closed = new Promise<void>((resolve) => child.on("close", () => resolve()))
      while (!out.includes("started")) await new Promise((r) => setTimeout(r, 5))
      // Kill at a different moment each round: early in the write, mid-way, around the rename.
      await new Promise((r) => setTimeout(r, round * 25))
      child.kill("SIGKILL")
      await closed
      if (existsSync(path)) {
        expect(statSync(path).size).toBe(whole)
        const bytes = readFileSync(path)
        for (let i = 0; i < chunks; i++) expect(bytes[i * 65_536 + 65_535]).toBe(i % 251)
        outcomes.add("whole")
      } else outcomes.add("absent")
    }
    // The rounds span the write: at least one kill landed before the rename.
    expect(outcomes.has("absent")).toBe(true)
  }, 60_000)
})
