/**
 * `umg` loads what the command being run needs, and only that: starting it builds the command tree
 * (flags, help, the check of a command line) without the gateway, the batch engine, the emulator or
 * the AI providers, and `umg batch status` adds only the store's SQL client. Pinned twice: on the
 * import graph (the static imports from the program's entry, which would reach those modules if
 * someone imported a command's implementation statically again) and on a real run (the modules
 * Node actually loaded, recorded by a module hook, for `--version`, `batch status` and, as the
 * control that shows the recorder sees lazily loaded modules, `batch worker`).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect } from "effect"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as SqliteClient from "../../src/batch/SqliteClient.js"
import * as Store from "../../src/batch/Store.js"
import { cleanEnv } from "./RunUmg.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")
const src = join(root, "src")

// ---------------------------------------------------------------- the static import graph

/** The modules a file imports for their values: `import type` and `export type … from` are erased, everything else is loaded. */
const valueImports = (file: string): Array<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found: Array<string> = []
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly !== true) {
      if (ts.isStringLiteral(statement.moduleSpecifier)) found.push(statement.moduleSpecifier.text)
    } else if (
      ts.isExportDeclaration(statement) &&
      !statement.isTypeOnly &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      found.push(statement.moduleSpecifier.text)
    }
  }
  return found
}

/** Whether a file calls `import(…)`: such an edge is loaded when that code runs, not with the file. */
const dynamicImports = (file: string): Array<string> => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const packageImports = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    readonly imports: Readonly<Record<string, { readonly "umg-source": { readonly default: string } }>>
  }
).imports

/** Every source file and bare package a file loads with it (its static value imports, followed). */
const staticClosure = (entry: string): { readonly files: Set<string>; readonly packages: Set<string> } => {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    for (const spec of valueImports(file)) {
      const mapped = packageImports[spec]?.["umg-source"].default
      if (mapped !== undefined) visit(join(root, mapped))
      else if (spec.startsWith(".")) visit(resolve(dirname(file), spec).replace(/\.js$/, ".ts"))
      else packages.add(spec)
    }
  }
  visit(entry)
  return { files, packages }
}

const rel = (files: Iterable<string>) => [...files].map((f) => relative(src, f)).sort()

// What no command needs to start, nor `umg batch status` to answer.
const heavySource =
  /^(adapters|emulator|ai|ai-sdk|streams)\/|^batch\/(Batch|Slot|Follower|Journal|Ingest|AtomicFile)\.ts$|^cli\/commands\/(?!batchStatus\.ts$)/
const heavyPackage =
  /^(@effect\/platform-node|@effect\/sql-pg|pg|rxjs|ws|effect)$|^effect\/(cluster|workflow|rpc|ai|http|http-api|reactivity|sql)$|^@effect\/platform-node\/Node(Cluster|Http|Redis|Socket|Worker)/

describe("the command tree, as imported", () => {
  it("main imports only the compile cache switch, and starts the program with a dynamic import", () => {
    expect(valueImports(join(src, "cli", "main.ts"))).toEqual(["node:module"])
    expect(dynamicImports(join(src, "cli", "main.ts"))).toEqual(["./Program.js"])
  })

  it("loads no command's implementation at start: no gateway, batch engine, emulator, streams or AI module, no package index", () => {
    const { files, packages } = staticClosure(join(src, "cli", "Program.ts"))
    // The walk itself: the tree of every command and its flag lists were reached.
    expect(rel(files)).toEqual(expect.arrayContaining(["cli/Commands.ts", "cli/tree/batch.ts", "cli/tree/video.ts"]))
    expect(rel(files).filter((f) => heavySource.test(f))).toEqual([])
    expect([...packages].filter((p) => heavyPackage.test(p)).sort()).toEqual([])
  })

  it("every command of the tree reaches its implementation only through a dynamic import", () => {
    const tree = rel(staticClosure(join(src, "cli", "Program.ts")).files).filter((f) => f.startsWith("cli/tree/"))
    expect(tree.length).toBe(13)
    for (const file of tree) {
      const lazy = dynamicImports(join(src, file))
      expect(lazy.length, file).toBeGreaterThan(0)
      expect(
        lazy.every((spec) => spec.startsWith("../commands/")),
        file
      ).toBe(true)
    }
  })

  it("`batch status` loads the store's SQL client, not the batch engine, the gateway or the PostgreSQL driver", () => {
    const { files, packages } = staticClosure(join(src, "cli", "commands", "batchStatus.ts"))
    expect(rel(files)).toEqual(
      expect.arrayContaining(["batch/StoreAccess.ts", "batch/SqliteClient.ts", "batch/Store.ts"])
    )
    expect(rel(files).filter((f) => heavySource.test(f))).toEqual([])
    expect([...packages].filter((p) => heavyPackage.test(p)).sort()).toEqual([])
  })
})

// ---------------------------------------------------------------- the modules a real run loads

const dir = mkdtempSync(join(tmpdir(), "umg-lazy-"))
const recorder = join(dir, "record-modules.mjs")
const store = join(dir, "b.db")

beforeAll(async () => {
  // A module hook that writes every module Node loaded (its URL) to UMG_TEST_MODULES at exit.
  writeFileSync(
    recorder,
    [
      'import { registerHooks } from "node:module"',
      'import { writeFileSync } from "node:fs"',
      "const seen = new Set()",
      "registerHooks({ load(url, context, next) { seen.add(url); return next(url, context) } })",
      'process.on("exit", () => writeFileSync(process.env.UMG_TEST_MODULES, [...seen].join("\\n")))'
    ].join("\n")
  )
  // A stored batch of three lines, one of them succeeded.
  await Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        yield* Store.migrate
        yield* Store.begin({ id: "lazy", digest: "d", concurrency: 1, dir, total: 3 })
      }),
      SqliteClient.layer({ filename: store })
    )
  )
}, 60_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs `umg` from its sources (tsx, as `npm run cli` does) with the recorder; its output and the files and packages it loaded. */
const runRecorded = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stdout: string; files: Array<string>; packages: Array<string> }>(
    (done, reject) => {
      const modules = join(dir, `modules-${Math.random().toString(36).slice(2)}.txt`)
      const base = cleanEnv()
      const child = spawn(
        process.execPath,
        [
          "--conditions=umg-source",
          "--import",
          "tsx",
          "--import",
          pathToFileURL(recorder).href,
          join(src, "cli", "main.ts"),
          ...args
        ],
        { cwd: root, env: { ...base, NO_COLOR: "1", UMG_TEST_MODULES: modules }, stdio: ["ignore", "pipe", "pipe"] }
      )
      let stdout = ""
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
      child.stderr.resume()
      child.on("error", reject)
      child.on("close", (code) => {
        const urls = readFileSync(modules, "utf8").split("\n")
        const local = urls.filter((u) => u.startsWith(pathToFileURL(src).href)).map((u) => fileURLToPath(u))
        // A package's file as `name/dist/…` (`effect/dist/cluster/Sharding.js`, `@effect/sql-pg/dist/PgClient.js`).
        const packages = urls.flatMap((u) => {
          const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+\/.*)$/.exec(u)
          return m?.[1] !== undefined && !m[1].startsWith("tsx/") ? [m[1]] : []
        })
        done({ code, stdout, files: rel(local), packages })
      })
    }
  )

const heavyLoaded =
  /^(@effect\/sql-pg|pg|rxjs|ws|@redis\/[^/]+)\/|^effect\/dist\/(cluster|workflow|rpc|ai|http-api)\/|^@effect\/platform-node\/dist\/(index|NodeRedis|NodeCluster\w*|NodeHttp\w*)\.js$/

describe("the modules a real run loads", () => {
  it("`umg --version` loads the command tree only", async () => {
    const run = await runRecorded(["--version"])
    expect(run.code).toBe(0)
    expect(run.stdout.trim()).toBe("0.1.0")
    expect(run.files).toEqual(expect.arrayContaining(["cli/Program.ts", "cli/Commands.ts", "cli/tree/batch.ts"]))
    expect(run.files.filter((f) => heavySource.test(f) || f.startsWith("cli/commands/"))).toEqual([])
    expect(run.packages.filter((p) => heavyLoaded.test(p))).toEqual([])
  }, 60_000)

  it("`umg batch status ID --json` answers from the store and loads neither the engine, the gateway, the emulator nor the PostgreSQL driver", async () => {
    const run = await runRecorded(["batch", "status", "lazy", "--store", store, "--json"])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({
      pending: 3,
      submitting: 0,
      running: 0,
      succeeded: 0,
      failed: 0,
      unknown: 0,
      cancelled: 0
    })
    expect(run.files).toEqual(
      expect.arrayContaining(["cli/commands/batchStatus.ts", "batch/StoreAccess.ts", "batch/SqliteClient.ts"])
    )
    expect(run.files.filter((f) => heavySource.test(f))).toEqual([])
    expect(run.packages.filter((p) => heavyLoaded.test(p))).toEqual([])
  }, 60_000)

  it("the control: a command that needs the engine loads it (the recorder sees modules imported when a command runs)", async () => {
    // `batch worker` on a SQLite store is refused (exit 2) after its implementation was loaded.
    const run = await runRecorded(["batch", "worker", "--store", store])
    expect(run.code).toBe(2)
    expect(run.files).toEqual(
      expect.arrayContaining(["cli/commands/batch.ts", "batch/Batch.ts", "adapters/Gateway.ts"])
    )
    expect(run.packages.some((p) => p.startsWith("effect/dist/cluster/"))).toBe(true)
  }, 60_000)
})
