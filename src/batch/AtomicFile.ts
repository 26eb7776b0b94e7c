/**
 * Writes a file whole or not at all, durably, so a reader or a crash (even kill -9) never sees half a
 * video or half a results file at the final path. The bytes go to a unique temporary file in the
 * target's folder, flushed to disk, renamed over the target, and the folder is flushed.
 */
import { Data, Effect, Exit, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { constants } from "node:fs"
import { mkdir, open, rename, rm, type FileHandle } from "node:fs/promises"
import { basename, dirname, join } from "node:path"

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
const temporaryName = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`)

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
 * temporary file and leaves any earlier file at `path` untouched.
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
  return Effect.acquireUseRelease(
    acquire,
    (handle) => Effect.andThen(write(handle), finish(handle)),
    (handle, exit) =>
      Effect.promise(async () => {
        await handle.close().catch(() => undefined)
        if (Exit.isFailure(exit)) await rm(tmp, { force: true }).catch(() => undefined)
      })
  )
}
