/**
 * Runs the real `umg` command in a child process for the CLI tests: the CLI is bundled once with
 * esbuild (packages stay external, resolved from this repository's node_modules) so that each spawn
 * costs a Node start, not a TypeScript compile.
 */
import { spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
// Inside node_modules so that the bundle's bare imports resolve to this repository's packages.
const outDir = join(root, "node_modules", ".cache", "umg-cli-test")

/** What one run of `umg` did. */
export interface UmgRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Bundles `src/cli/main.ts` and returns the path of the runnable file. */
export const bundleUmg = async (): Promise<string> => {
  mkdirSync(outDir, { recursive: true })
  const outfile = join(outDir, `umg-${process.pid}.mjs`)
  await build({
    entryPoints: [join(root, "src", "cli", "main.ts")],
    bundle: true,
    // Resolve `#umg/socket` (package.json `imports`) to the sources; the platform condition picks the file.
    conditions: ["umg-source"],
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile,
    logLevel: "error"
  })
  return outfile
}

/**
 * Runs `node <bundle> ...args` with `env` added to a clean environment (no UMG_* from the caller).
 * Standard input is `input`, written and ended, when given; otherwise empty.
 */
export const runUmg = (
  bundle: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {},
  input?: string | Uint8Array
): Promise<UmgRun> =>
  new Promise((resolve, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_")))
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
