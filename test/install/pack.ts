// The packed tarball of this checkout, for the tests that install umg as a user would. `npm pack`
// runs `prepare`, which rebuilds dist/: two test files packing at once (vitest runs files in
// parallel) would build into the same folder together, so a pack holds the run's lock for as long as
// it runs, and a run packs once (test/support/perRun.ts).
import { spawnSync } from "node:child_process"
import { copyFileSync, readdirSync } from "node:fs"
import { basename, dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { runFolder, withRunLock } from "../support/perRun.js"

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

// One pack per test run: the first file to pack leaves its tarball in the run's folder for the others.
const tarballIn = (dir: string): string | undefined => {
  try {
    const name = readdirSync(dir).find((f) => f.endsWith(".tgz"))
    return name === undefined ? undefined : join(dir, name)
  } catch {
    return undefined
  }
}

/**
 * This checkout packed (one pack at a time across processes, and one per test run), copied into
 * `dest`; the copy's path.
 */
export const packUmg = async (dest: string): Promise<string> => {
  const shared = runFolder("pack")
  await withRunLock("pack", () => {
    if (tarballIn(shared) !== undefined) return
    const packed = run("npm", ["pack", "--pack-destination", shared], root)
    if (packed.code !== 0) throw new Error(`npm pack failed: ${(packed.stdout + packed.stderr).slice(-1000)}`)
  })
  const tarball = tarballIn(shared)
  if (tarball === undefined) throw new Error("npm pack made no tarball")
  const copy = join(dest, basename(tarball))
  copyFileSync(tarball, copy)
  return copy
}
