/**
 * One process per SQLite batch file. The lock is a listening local socket named after the file's
 * real path: the operating system frees it when its process ends in any way (kill -9 included), so
 * a lock is never stale; a second process finds the name taken and fails with a clear error. On
 * Linux the socket lives in the abstract namespace (no file at all); elsewhere it is a socket file
 * in the temporary folder, removed when found with no process behind it.
 */
import { createHash } from "node:crypto"
import { unlinkSync } from "node:fs"
import { connect, createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { BatchStoreError } from "./BatchError.js"

const socketName = (path: string): string => {
  const digest = createHash("sha256").update(path).digest("hex").slice(0, 32)
  return process.platform === "linux" ? `\0umg-batch-${digest}` : join(tmpdir(), `umg-batch-${digest}.sock`)
}

const listen = (name: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy())
    server.once("error", reject)
    server.listen(name, () => {
      server.off("error", reject)
      server.unref()
      resolve(server)
    })
  })

/** True when a process answers on the socket (the lock is held); false for a file left by a dead one. */
const held = (name: string): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(name)
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const take = async (name: string): Promise<Server | undefined> => {
  try {
    return await listen(name)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e
    if (name.startsWith("\0") || (await held(name))) return undefined
    // A socket file whose process is gone: remove it and try once more.
    try {
      unlinkSync(name)
    } catch {
      // another process may have removed it first
    }
    return listen(name).catch(() => undefined)
  }
}

/**
 * Holds the lock of `path` (a real path) for the scope, or fails with `BatchStoreError` (`locked`)
 * when another process holds it.
 * @category constructors
 */
export const acquire = (path: string): Effect.Effect<void, BatchStoreError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.flatMap(
      Effect.tryPromise({
        try: () => take(socketName(path)),
        catch: (e) =>
          new BatchStoreError({
            reason: "locked",
            message: `batch store ${path}: cannot take its lock (${(e as Error).message})`
          })
      }),
      (server) =>
        server === undefined
          ? Effect.fail(
              new BatchStoreError({
                reason: "locked",
                message: `batch store ${path} is in use by another process; one process at a time may run batches on a SQLite store (use a postgres:// store to run them from several processes). Reading or cancelling a batch needs no lock: umg batch status and umg batch cancel, or Batch.readStatus and Batch.cancelStored in a program`
              })
            )
          : Effect.succeed(server)
    ),
    (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.asVoid)
