/**
 * Writes a file whole or not at all: to a temporary name in the same folder, then renamed over the
 * target, so a reader (or a crash) never sees half a video or half a results file.
 */
import { Data, Effect } from "effect"
import { mkdir, rename, writeFile } from "node:fs/promises"
import { dirname } from "node:path"

/** A file that could not be written. @category errors */
export class FileWriteFailed extends Data.TaggedError("FileWriteFailed")<{
  readonly path: string
  readonly message: string
}> {}

/** Writes `data` to `path` atomically, making its folder first. @category constructors */
export const writeAtomically = (path: string, data: string | Uint8Array): Effect.Effect<void, FileWriteFailed> =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(dirname(path), { recursive: true })
      const tmp = `${path}.${process.pid}.tmp`
      await writeFile(tmp, data)
      await rename(tmp, path)
    },
    catch: (e) => new FileWriteFailed({ path, message: `cannot write ${path}: ${(e as Error).message}` })
  })
