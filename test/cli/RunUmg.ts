/**
 * Runs the real `umg` command in a child process for the CLI tests. The CLI is bundled from the
 * sources as `npm run build` bundles the bin (scripts/bundle-cli.mjs): effect and the other packages
 * inside, one chunk per command loaded when it runs, under a `"type": "module"` package.json. A spawn
 * then loads a few dozen files rather than about a thousand modules (about 0.45 s of CPU against
 * 1.3 s for a bundle that left the packages to Node's resolver). One bundle serves a whole test run:
 * the test files of a run are children of one vitest process, so the first to ask builds it (under a
 * lock) in the temporary folder and the others reuse it, unless a source it was built from changed
 * since (then it is built again, so a run never tests stale code).
 */
import { spawn } from "node:child_process"
import { copyFileSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { binOptions } from "../../scripts/bundle-cli.mjs"
import { runFolder, withRunLock } from "../support/perRun.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")

/** What one run of `umg` did. */
export interface UmgRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** A build: its folder, and the size and time of every file it was made from. */
interface Manifest {
  readonly dir: string
  readonly inputs: ReadonlyArray<readonly [path: string, size: number, mtimeMs: number]>
}

const stamp = (path: string): readonly [string, number, number] => {
  const s = statSync(path)
  return [path, s.size, s.mtimeMs]
}

/** The current build, when every file it was made from is as it was then. */
const upToDate = (manifestFile: string): Manifest | undefined => {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest
    statSync(join(manifest.dir, "umg.js"))
    for (const [path, size, mtimeMs] of manifest.inputs) {
      const [, nowSize, nowMtime] = stamp(path)
      if (nowSize !== size || nowMtime !== mtimeMs) return undefined
    }
    return manifest
  } catch {
    return undefined
  }
}

/** Bundles `src/cli/main.ts` as the bin is bundled, into a new folder of `shared`; its manifest. */
const bundle = async (shared: string): Promise<Manifest> => {
  const started = Date.now()
  const dir = join(shared, `build-${process.pid}-${started}`)
  const result = await build({
    ...binOptions,
    absWorkingDir: root,
    entryPoints: { umg: join(root, "src", "cli", "main.ts") },
    // Resolve `#umg/socket` (package.json `imports`) to the sources; the platform condition picks the file.
    conditions: ["umg-source"],
    outdir: dir,
    metafile: true
  })
  // As the bin's files are, under the package's `"type": "module"` (Node need not guess the format).
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n')
  // A file changed while it was read may be in the bundle as it was before: stamped so as to be built again.
  const inputs = Object.keys(result.metafile.inputs).map((input) => {
    const [path, size, mtimeMs] = stamp(resolve(root, input))
    return [path, size, mtimeMs >= started - 1_000 ? -1 : mtimeMs] as const
  })
  return { dir, inputs }
}

/**
 * The bundled CLI, built from the current sources (once per test run, rebuilt when a source
 * changed): the path of an entry file of this process's own, which the caller may delete.
 */
export const bundleUmg = async (): Promise<string> => {
  const shared = runFolder("cli-test")
  const manifestFile = join(shared, "current.json")
  const manifest = await withRunLock(
    "cli-test",
    async () => {
      const current = upToDate(manifestFile)
      if (current !== undefined) return current
      const made = await bundle(shared)
      const next = `${manifestFile}.${process.pid}`
      writeFileSync(next, JSON.stringify(made))
      renameSync(next, manifestFile)
      return made
    },
    // A build takes seconds: a lock this old was left by a run that died.
    5 * 60_000
  )
  // The entry is a few lines that import the shared chunks by relative path: a copy beside it works.
  const entry = join(manifest.dir, `umg-${process.pid}-${Date.now()}.js`)
  copyFileSync(join(manifest.dir, "umg.js"), entry)
  return entry
}

/** The proxy variables the bin follows (src/cli/support/EnvProxy.ts), in both cases. */
const PROXY_VARIABLES = new Set(["http_proxy", "https_proxy", "no_proxy", "node_use_env_proxy"])

/**
 * The caller's environment without what would change a CLI run: the `UMG_*` settings, and the proxy
 * variables (a developer's `HTTPS_PROXY` would send a test's calls through the proxy, or load the
 * proxy check at start).
 */
export const cleanEnv = (): Record<string, string | undefined> =>
  Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_") && !PROXY_VARIABLES.has(k.toLowerCase()))
  )

/**
 * Runs `node <bundle> ...args` with `env` added to a clean environment (`cleanEnv`).
 * Standard input is `input`, written and ended, when given; otherwise empty.
 */
export const runUmg = (
  bundle: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {},
  input?: string | Uint8Array
): Promise<UmgRun> =>
  new Promise((resolve, reject) => {
    const base = cleanEnv()
    const child = spawn(process.execPath, [bundle, ...args], {
      cwd: root,
      env: { ...base, NO_COLOR: "1", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    // A command that stops reading early (a refused input) closes the pipe: that is not the test's failure.
    child.stdin.on("error", () => undefined)
    if (input === undefined) child.stdin.end()
    else child.stdin.end(input)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })
