// What the test files of one run share across their worker processes: a folder of the run and a
// lock. The files of a run are children of one vitest process, so a folder named for the parent's pid
// is the run's (a later run has another parent, and makes its own); the folders earlier runs left are
// removed once an hour old. The lock is a folder made atomically, holding its holder's pid: one whose
// holder died, or older than `staleMs`, is taken over.
import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")
// The checkout's own names: two checkouts on one machine (a worktree, a fresh clone) share nothing.
const checkout = createHash("sha256").update(root).digest("hex").slice(0, 12)

/** Removes the folders earlier runs left under `prefix` (an hour old or more), `keep` aside. */
const forgetOld = (prefix: string, keep: string): void => {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(prefix))) {
    const dir = join(tmpdir(), name)
    try {
      if (dir !== keep && Date.now() - statSync(dir).mtimeMs > 60 * 60_000)
        rmSync(dir, { recursive: true, force: true })
    } catch {
      // Gone already.
    }
  }
}

/** This run's folder for `name` (made if need be, and marked in use so no later run removes it meanwhile). */
export const runFolder = (name: string): string => {
  const prefix = `umg-${name}-${checkout}-`
  const dir = join(tmpdir(), `${prefix}${process.ppid}`)
  forgetOld(prefix, dir)
  mkdirSync(dir, { recursive: true })
  const now = new Date()
  utimesSync(dir, now, now)
  return dir
}

const holderAlive = (lock: string): boolean => {
  try {
    process.kill(Number(readFileSync(join(lock, "pid"), "utf8")), 0)
    return true
  } catch (e) {
    // EPERM: the process exists (another user's). No pid file yet: taken a moment ago.
    const code = (e as NodeJS.ErrnoException).code
    return code === "EPERM" || code === "ENOENT"
  }
}

/** Runs `f` holding the lock `name` of this checkout, across processes. */
export const withRunLock = async <A>(name: string, f: () => Promise<A> | A, staleMs = 10 * 60_000): Promise<A> => {
  const lock = join(tmpdir(), `umg-${name}-${checkout}.lock`)
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, "pid"), String(process.pid))
      break
    } catch {
      try {
        const age = Date.now() - statSync(lock).mtimeMs
        // A holder that died (a worker killed mid-build) leaves the lock: taken over.
        if (age > staleMs || (age > 2_000 && !holderAlive(lock))) rmSync(lock, { recursive: true, force: true })
      } catch {
        // Released between the two looks: try again.
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  try {
    return await f()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
