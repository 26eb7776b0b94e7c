// The packed tarball of this checkout, for the tests that install umg as a user would. `npm pack`
// runs `prepare`, which rebuilds dist/: two test files packing at once (vitest runs files in
// parallel) would build into the same folder together, so a pack holds a lock (a folder made
// atomically) for as long as it runs, and a run packs once.
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")

/** A command's exit code and its outputs, run with npm's audit and funding notes off. */
export const run = (cmd: string, args: ReadonlyArray<string>, cwd: string) => {
  const out = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" }
  })
  // Both outputs are `undefined` when the command cannot be started, which the type leaves out.
  const stdout = out.stdout as string | undefined
  const stderr = out.stderr as string | undefined
  return { code: out.status ?? -1, stdout: stdout ?? "", stderr: stderr ?? "" }
}

const lock = join(tmpdir(), `umg-pack-${createHash("sha256").update(root).digest("hex").slice(0, 12)}.lock`)
/** A lock older than this was left by a run that died: taken over. */
const staleMs = 10 * 60_000

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const acquire = (): void => {
  for (;;) {
    try {
      mkdirSync(lock)
      return
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > staleMs) rmSync(lock, { recursive: true, force: true })
      } catch {
        // Released between the two looks: try again.
      }
      sleep(250)
    }
  }
}

// One pack per test run: the test files of a run are children of one vitest process, so the first
// to pack leaves its tarball here for the others (a later run has another parent, and packs anew).
const shared = join(
  tmpdir(),
  `umg-pack-${createHash("sha256").update(root).digest("hex").slice(0, 12)}-${process.ppid}`
)

const tarballIn = (dir: string): string | undefined => {
  try {
    const name = readdirSync(dir).find((f) => f.endsWith(".tgz"))
    return name === undefined ? undefined : join(dir, name)
  } catch {
    return undefined
  }
}

/** Removes the tarballs earlier runs left (an hour old or more). */
const forgetOldPacks = (): void => {
  const prefix = basename(shared).replace(/-\d+$/, "-")
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(prefix))) {
    const dir = join(tmpdir(), name)
    try {
      if (Date.now() - statSync(dir).mtimeMs > 60 * 60_000) rmSync(dir, { recursive: true, force: true })
    } catch {
      // Gone already.
    }
  }
}

/**
 * This checkout packed (one pack at a time across processes, and one per test run), copied into
 * `dest`; the copy's path.
 */
export const packUmg = (dest: string): string => {
  acquire()
  try {
    if (tarballIn(shared) === undefined) {
      forgetOldPacks()
      mkdirSync(shared, { recursive: true })
      const packed = run("npm", ["pack", "--pack-destination", shared], root)
      if (packed.code !== 0) throw new Error(`npm pack failed: ${(packed.stdout + packed.stderr).slice(-1000)}`)
    }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
  const tarball = tarballIn(shared)
  if (tarball === undefined) throw new Error("npm pack made no tarball")
  const copy = join(dest, basename(tarball))
  copyFileSync(tarball, copy)
  return copy
}
