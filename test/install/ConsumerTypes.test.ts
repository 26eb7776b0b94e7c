// umg's public types as an app sees them: the packed tarball installed into a fresh app with its peers
// (effect, rxjs, @ai-sdk/provider) and what a user would add (the AI SDK's `ai`, zod), then the user
// code of test/types/fixtures/ — every entry point: what calls infer, their error unions, misspelled
// options refused, the names a user writes down — compiled by tsc with the app's libraries checked too
// (`skipLibCheck: false`), under the settings apps use: strict NodeNext with `exactOptionalPropertyTypes`
// and `verbatimModuleSyntax`, and `bundler`.
// An error in a fixture or in umg's declarations fails; other libraries' own are not umg's to fix.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packUmg, root, run } from "./pack.js"

const fixtures = join(root, "test/types/fixtures")
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
let work: string
let app: string

/** The version of a dev dependency installed here, so that the app gets the one umg is tested with. */
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version

/** Copies the fixtures into `dir` (a folder of the app with its own package.json `type`). */
const placeFixtures = (dir: string, type: "module") => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type }))
  for (const name of readdirSync(fixtures).filter((n) => n.endsWith(".ts")))
    copyFileSync(join(fixtures, name), join(dir, name))
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "umg-types-"))
  const tarball = await packUmg(work)
  app = join(work, "app")
  mkdirSync(app)
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, version: "1.0.0" }))
  const packages = ["effect@^4.1", "rxjs", "@ai-sdk/provider@^4", `ai@${versionOf("ai")}`, `zod@${versionOf("zod")}`]
  const installed = run("npm", ["install", "--omit=dev", "--no-package-lock", ...packages, tarball], app)
  if (installed.code !== 0) throw new Error(`npm install failed: ${(installed.stdout + installed.stderr).slice(-1000)}`)
  placeFixtures(join(app, "esm"), "module")
}, 600_000)
afterAll(() => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

/** The settings every configuration shares: strict, the libraries' declarations checked too. */
const base = {
  strict: true,
  target: "ES2022",
  lib: ["ES2022", "DOM", "DOM.Iterable"],
  noEmit: true,
  skipLibCheck: false,
  // The app's own Node types (a dev dependency of theirs), taken from this repository.
  typeRoots: [join(root, "node_modules/@types")],
  types: ["node"]
}

// Two tsc runs (each checks effect's declarations too, about 20 s): the strictest ESM settings in one
// (exact optional properties only add errors, and the fixtures import types with `import type`), and
// the bundler resolution. (A CommonJS app is left out: `effect` is ESM only.)
const configurations: ReadonlyArray<readonly [string, string, Readonly<Record<string, unknown>>]> = [
  [
    "strict NodeNext, exactOptionalPropertyTypes, verbatimModuleSyntax",
    "esm",
    {
      module: "NodeNext",
      moduleResolution: "NodeNext",
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true
    }
  ],
  ["bundler (Preserve)", "esm", { module: "Preserve", moduleResolution: "Bundler" }]
]

/** tsc's errors in the fixtures or in umg's declarations (`file(line,col): error TS…`), or with no file. */
const umgErrors = (output: string, dir: string): Array<string> =>
  output
    .split("\n")
    .filter((line) => /error TS\d+/.test(line))
    .filter((line) => !/^node_modules\//.test(line) || line.startsWith("node_modules/umg/"))
    .map((line) => line.replace(`${dir}/`, "").slice(0, 400))

describe("umg's types in a fresh app, from the packed tarball", { timeout: 180_000 }, () => {
  it.each(configurations)("type-check user code against every entry point: %s", (name, dir, options) => {
    const config = join(app, `tsconfig.${name.replace(/\W+/g, "-")}.json`)
    writeFileSync(config, JSON.stringify({ compilerOptions: { ...base, ...options }, include: [`${dir}/*.ts`] }))
    const out = run(process.execPath, [tsc, "-p", config, "--pretty", "false"], app)
    expect(umgErrors(out.stdout + out.stderr, app)).toEqual([])
  })
})
