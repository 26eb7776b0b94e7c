/** `writeAtomically`: the file at the final path is absent or whole, whatever fails, races or is killed. */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  hostMark,
  processAlive,
  removeStaleTemporaries,
  staleTemporaries,
  writeAtomically,
  FileWriteFailed
} from "../../src/batch/AtomicFile.js"
import { nodeBinary } from "./Harness.js"

// A mark that is not this machine's (any other 8 hex digits).
const otherMark = hostMark === "00000000" ? "11111111" : "00000000"

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

/** The pid of a process that ran and ended: no process has it now. */
const deadPid = async (): Promise<number> => {
  const child = spawn(nodeBinary, ["-e", ""], { stdio: "ignore" })
  await new Promise<void>((resolve) => child.on("exit", () => resolve()))
  return child.pid!
}

/** `slowAtomicWriter.ts` writing `path` slowly, once its temporary file exists. */
const slowWriter = async (dir: string, path: string) => {
  const child = spawn(
    nodeBinary,
    ["--import", "tsx", join(import.meta.dirname, "fixtures", "slowAtomicWriter.ts"), path, "400"],
    { stdio: ["ignore", "ignore", "inherit"] }
  )
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()))
  const until = Date.now() + 20_000
  while (leftovers(dir).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5))
  return { child, closed }
}

describe("the temporary files of killed writers", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it("are removed: only umg's exact temporary names, of a process that no longer runs; the rest is kept", async () => {
    const dir = folder()
    const dead = await deadPid()
    const stale = `.r300.jsonl.${dead}.${hostMark}.1d8543b3d769.tmp`
    const kept = [
      `.r300.jsonl.${process.pid}.${hostMark}.0123456789ab.tmp`, // this live process
      `.r300.jsonl.1.${hostMark}.0123456789ab.tmp`, // init: alive, even where signalling it is refused (EPERM)
      `.r300.jsonl.${dead}.tmp`,
      `r300.jsonl.${dead}.${hostMark}.1d8543b3d769.tmp`,
      `.r300.jsonl.${dead}.${hostMark}.1D8543B3D769.tmp`,
      `.r300.jsonl.${dead}.${hostMark}.1d8543b3d76.tmp`,
      `.r300.jsonl.${dead}.${hostMark}.1d8543b3d769.tmp.keep`,
      `.r300.jsonl.0${dead}.1d8543b3d769.tmp`,
      `.${dead}.${hostMark}.1d8543b3d769.tmp`, // no target name
      `.r300.jsonl.${dead}.${otherMark}.1d8543b3d769.tmp`, // another machine's (a shared folder)
      `.r300.jsonl.${dead}.1d8543b3d769.tmp`, // no machine mark
      "r300.jsonl"
    ]
    for (const name of [stale, ...kept]) writeFileSync(join(dir, name), "x")
    mkdirSync(join(dir, `.videos.${dead}.${hostMark}.0123456789ab.tmp`))
    expect(await Effect.runPromise(removeStaleTemporaries(dir))).toEqual([stale])
    expect(readdirSync(dir).sort()).toEqual([...kept, `.videos.${dead}.${hostMark}.0123456789ab.tmp`].sort())
    // A missing folder: nothing to remove, no failure.
    expect(await Effect.runPromise(removeStaleTemporaries(join(dir, "missing")))).toEqual([])
  })

  it("are told from a live writer's by signal 0: delivered or refused (EPERM) is alive, ESRCH is not", () => {
    const failing = (code: string) =>
      vi.spyOn(process, "kill").mockImplementation(() => {
        throw Object.assign(new Error(code), { code })
      })
    failing("EPERM")
    expect(processAlive(4242)).toBe(true)
    failing("ESRCH")
    expect(processAlive(4242)).toBe(false)
    failing("EINVAL")
    expect(processAlive(4242)).toBe(true)
    expect(processAlive(process.pid)).toBe(true)
    expect(
      staleTemporaries(
        [
          `.a.7.${hostMark}.0123456789ab.tmp`,
          `.b.8.${hostMark}.0123456789ab.tmp`,
          `.c.7.${otherMark}.0123456789ab.tmp`
        ],
        (pid) => pid === 8
      )
    ).toEqual([`.a.7.${hostMark}.0123456789ab.tmp`])
  })

  it("are never those of a writer still running in another process", async () => {
    const dir = folder()
    const { child, closed } = await slowWriter(dir, join(dir, "video.mp4"))
    const [live] = leftovers(dir)
    expect(live).toMatch(new RegExp(`^\\.video\\.mp4\\.${child.pid}\\.${hostMark}\\.[0-9a-f]{12}\\.tmp$`))
    expect(await Effect.runPromise(removeStaleTemporaries(dir))).toEqual([])
    expect(leftovers(dir)).toEqual([live])
    child.kill("SIGKILL")
    await closed
  }, 30_000)

  it("left by kill -9 are removed by the next write into that folder, which writes its file whole", async () => {
    const dir = folder()
    const path = join(dir, "results.jsonl")
    const { child, closed } = await slowWriter(dir, path)
    child.kill("SIGKILL")
    await closed
    expect(leftovers(dir)).toHaveLength(1)
    await Effect.runPromise(writeAtomically(path, "resumed"))
    expect(leftovers(dir)).toEqual([])
    expect(readFileSync(path, "utf8")).toBe("resumed")
  }, 30_000)
})
