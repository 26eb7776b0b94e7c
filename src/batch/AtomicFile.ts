/**
 * Writes a file whole or not at all, durably, so a reader or a crash (even kill -9) never sees half a
 * video or half a results file at the final path. The bytes go to a unique temporary file in the
 * target's folder, flushed to disk, renamed over the target, and the folder is flushed; the
 * temporary files a killed writer left behind are removed by the next writer in that folder.
 */
import { Data, Effect, Exit, Stream } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { constants } from "node:fs"
import { hostname } from "node:os"
import { mkdir, open, readdir, rename, rm, type FileHandle } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"

/** A file that could not be written. @category errors */
export class FileWriteFailed extends Data.TaggedError("FileWriteFailed")<{
  readonly path: string
  readonly message: string
}> {}

/** What can be written: the bytes or text at once, or a stream of chunks written as they come. */
export type FileContent<E = never> = string | Uint8Array | Stream.Stream<Uint8Array, E>

const failed = (path: string) => (e: unknown) =>
  new FileWriteFailed({ path, message: `cannot write ${path}: ${e instanceof Error ? e.message : String(e)}` })

/** A temporary name next to `path` that no other writer (process or fiber) picks. */
/**
 * This machine's mark in temporary names (8 hex digits of its host name's hash): a pid means something
 * on one machine only, so a folder shared by workers of several machines (a network file system) has
 * each sweep only its own machine's files.
 * @category constants
 */
export const hostMark: string = createHash("sha256").update(hostname()).digest("hex").slice(0, 8)

const temporaryName = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${hostMark}.${randomBytes(6).toString("hex")}.tmp`)

// Exactly the names `temporaryName` makes: `.<target>.<pid>.<host mark>.<12 hex digits>.tmp`.
const temporaryPattern = /^\..+\.([1-9][0-9]{0,9})\.([0-9a-f]{8})\.[0-9a-f]{12}\.tmp$/

/**
 * Whether process `pid` runs on this machine. Signal 0 checks without signalling: it is delivered to
 * a live process, refused (`EPERM`) for a live process of another user, and fails with `ESRCH` only
 * when there is none; any other failure counts as alive, so a file in doubt is kept.
 * @category getters
 */
export const processAlive = (pid: number): boolean => {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/**
 * The names among a folder's `names` that are temporary files of `writeAtomically` made on this
 * machine whose writing process is no longer `alive` (killed mid-write, so never renamed nor removed).
 * Any other name is never one of them: a file of another program, of another machine, or the
 * temporary file of a writer still running.
 * @category getters
 */
export const staleTemporaries = (
  names: ReadonlyArray<string>,
  alive: (pid: number) => boolean = processAlive
): ReadonlyArray<string> =>
  names.filter((name) => {
    const match = temporaryPattern.exec(name)
    return match !== null && match[2] === hostMark && !alive(Number(match[1]))
  })

/**
 * Removes from `folder` the temporary files that writers killed mid-write (kill -9, power loss) left
 * there, and returns their names; a missing or unreadable folder, or a file that cannot be removed,
 * is left as it is (this never fails). Only regular files named as `writeAtomically` names them, of
 * a process that no longer runs on this machine.
 * @category constructors
 */
export const removeStaleTemporaries = (folder: string): Effect.Effect<ReadonlyArray<string>> =>
  Effect.promise(async () => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => [])
    const files = entries.filter((e) => e.isFile()).map((e) => e.name)
    const removed: Array<string> = []
    for (const name of staleTemporaries(files)) {
      const gone = await rm(join(folder, name), { force: true }).then(
        () => true,
        () => false
      )
      if (gone) removed.push(name)
    }
    return removed
  })

// The folders this process has swept: the first write into a folder sweeps it, once (a folder of a
// million videos is read once, not on every download).
const swept = new Set<string>()

/** Sweeps the folder of `path` if no write of this process has yet. */
const sweepOnce = (path: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const folder = resolve(dirname(path))
    if (swept.has(folder)) return Effect.void
    swept.add(folder)
    return Effect.asVoid(removeStaleTemporaries(folder))
  })

/** Flushes a folder's entry list, so a rename in it survives a crash (a no-op where folders cannot be opened). */
const syncFolder = async (folder: string): Promise<void> => {
  let handle: FileHandle | undefined
  try {
    handle = await open(folder, constants.O_RDONLY)
    await handle.sync()
  } catch {
    // Some platforms (Windows) cannot open or fsync a folder; the rename is then as durable as they allow.
  } finally {
    await handle?.close()
  }
}

const writeAll = (handle: FileHandle, chunk: Uint8Array): Promise<unknown> =>
  chunk.byteLength === 0 ? Promise.resolve() : handle.write(chunk, 0, chunk.byteLength)

/**
 * Writes `content` to `path` atomically and durably, making its folder first. A stream is written
 * chunk by chunk (memory bounded by one chunk); its failure, or an interruption, removes the
 * temporary file and leaves any earlier file at `path` untouched. The first write of a process into
 * a folder also removes the temporary files killed writers left there (`removeStaleTemporaries`).
 * @category constructors
 */
export const writeAtomically = <E = never>(
  path: string,
  content: FileContent<E>
): Effect.Effect<void, FileWriteFailed | E> => {
  const tmp = temporaryName(path)
  const acquire = Effect.tryPromise({
    try: async () => {
      await mkdir(dirname(path), { recursive: true })
      return open(tmp, "wx")
    },
    catch: failed(path)
  })
  const write = (handle: FileHandle): Effect.Effect<void, FileWriteFailed | E> =>
    typeof content === "string" || content instanceof Uint8Array
      ? Effect.tryPromise({ try: () => handle.writeFile(content), catch: failed(path) })
      : Stream.runForEach(content, (chunk) =>
          Effect.tryPromise({ try: () => writeAll(handle, chunk), catch: failed(path) })
        )
  const finish = (handle: FileHandle) =>
    Effect.tryPromise({
      try: async () => {
        await handle.sync()
        await handle.close()
        await rename(tmp, path)
        await syncFolder(dirname(path))
      },
      catch: failed(path)
    })
  const written = Effect.acquireUseRelease(
    acquire,
    (handle) => Effect.andThen(write(handle), finish(handle)),
    (handle, exit) =>
      Effect.promise(async () => {
        await handle.close().catch(() => undefined)
        if (Exit.isFailure(exit)) await rm(tmp, { force: true }).catch(() => undefined)
      })
  )
  // Swept before the temporary file is opened, outside the uninterruptible acquire.
  return Effect.andThen(sweepOnce(path), written)
}
