// Installing umg elsewhere, as a user would: pack the package (its `prepare` builds dist/) and install
// `effect@^4.1` and the tarball into a fresh project without dev dependencies. First alone: the app's
// tree holds no optional peer, no type package and no redis; the `umg` bin (bundled) runs without them
// and refuses a Node older than `engines`; umg/batch imports without `@effect/platform-node`, and building
// its layer fails naming it. Then with the optional peers of umg/ai-sdk, umg/rx (the oldest rxjs its range
// allows) and umg/batch (not `@effect/sql-pg`): import every entry point from ESM and from CommonJS
// `require`, one copy of effect and of rxjs, type-check files under `tsc --strict` (one importing each
// entry point, one Effect program that provides `Gateway.layer`), run that program against the emulator,
// and a PostgreSQL store without its driver fails saying what to install.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gatewayProgram, packUmg, root, run } from "./pack.js"

const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly exports: Readonly<Record<string, unknown>>
  readonly engines: { readonly node: string }
  readonly peerDependencies: Readonly<Record<string, string>>
}
// Every entry point of the exports map (a new one is covered without editing this test).
const entries = Object.keys(manifest.exports)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? "umg" : `umg/${k.slice(2)}`))
// `>=22.19`: the version the bin names when it refuses an older Node.
const minimumNode = manifest.engines.node.replace(/^>=/, "")
// The oldest rxjs umg/rx accepts (`^7.6.0`), as an app pinned below umg's own dev copy has it.
const oldestRxjs = manifest.peerDependencies.rxjs?.replace(/^\^/, "") ?? "missing"
let work: string
let project: string

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "umg-install-"))
  const tarball = await packUmg(work)
  project = join(work, "app")
  execFileSync("mkdir", ["-p", project])
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "app", private: true, version: "1.0.0", type: "module" })
  )
  const installed = run("npm", ["install", "--omit=dev", "--no-package-lock", "effect@^4.1", tarball], project)
  if (installed.code !== 0) throw new Error(`npm install of the tarball failed: ${installed.stderr.slice(-1000)}`)
}, 600_000)
afterAll(() => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

// The consumer's tsconfig: strict, NodeNext, and its libraries' types checked too (skipLibCheck off).
const consumerTsconfig = () => ({
  compilerOptions: {
    strict: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    lib: ["ES2022", "DOM"],
    noEmit: true,
    skipLibCheck: false,
    // The consumer's own Node types (a dev dependency of theirs), taken from this repository.
    typeRoots: [join(root, "node_modules/@types")],
    types: ["node"]
  }
})

/** The packages in the app's node_modules (`effect`, `@types/node`, …). */
const installedPackages = (): Array<string> => {
  const modules = join(project, "node_modules")
  return readdirSync(modules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) => (name.startsWith("@") ? readdirSync(join(modules, name)).map((n) => `${name}/${n}`) : [name]))
}

/** Runs an ES module script in the app. */
const runScript = (script: string) => run(process.execPath, ["--input-type=module", "-e", script], project)

// tsc and Node processes on the installed package: slow on a loaded machine, so more than 30 s each.
describe("umg installed from its packed tarball, with effect alone", { timeout: 120_000 }, () => {
  it("brings no optional peer, no type package and no redis into the app's tree", () => {
    const optional = ["rxjs", "@effect/platform-node", "@effect/sql-pg", "@ai-sdk/provider", "redis"]
    expect(installedPackages().filter((p) => p.startsWith("@types/") || optional.includes(p))).toEqual([])
  })

  it("runs the umg bin, whose bundle holds the batch engine and the PostgreSQL driver", () => {
    const bin = join(project, "node_modules/.bin/umg")
    const help = run(bin, ["--help"], project)
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toContain("umg")
    const sqlite = run(bin, ["batch", "status", "b1", "--store", join(work, "none.db")], project)
    expect(sqlite.stdout + sqlite.stderr).toContain("no batch store at")
    // Refused by the server (nothing listens on port 1): the driver was loaded and tried.
    const postgres = run(bin, ["batch", "status", "b1", "--store", "postgres://u:secret@127.0.0.1:1/db"], project)
    expect(postgres.stdout + postgres.stderr).toContain("ECONNREFUSED")
    expect(postgres.stdout + postgres.stderr).not.toContain("secret")
  })

  it("refuses a Node older than engines says, with exit 2, before loading anything", () => {
    // A name Node 20 lacks, imported statically by the bin's entry, would fail to link before the check runs.
    const entry = readFileSync(join(project, "node_modules/umg/dist/bin/umg.js"), "utf8")
    const staticImports = [...entry.matchAll(/^import\s+(.*?)\s+from\s+"([^"]+)"/gm)].map((m) => `${m[1]} ${m[2]}`)
    expect(staticImports.filter((i) => !/^(\* as \w+|\{ createRequire as \w+ \}) node:module$/.test(i))).toEqual([])
    const older = `Object.defineProperty(process.versions, "node", { value: "20.20.2" }); Object.defineProperty(process, "version", { value: "v20.20.2" })`
    const out = run(
      process.execPath,
      [
        "--import",
        `data:text/javascript,${encodeURIComponent(older)}`,
        join(project, "node_modules/umg/dist/bin/umg.js"),
        "--help"
      ],
      project
    )
    expect(out.stderr).toBe(`umg needs Node >= ${minimumNode} (this is v20.20.2)\n`)
    expect(out.stdout).toBe("")
    expect(out.code).toBe(2)
  })

  it("imports umg/batch without @effect/platform-node; building Batch.layer fails saying what to install", () => {
    const db = join(work, "peerless.db")
    const script = `const { Batch } = await import("umg/batch"); const { Gateway } = await import("umg"); const { Effect, Layer } = await import("effect")
const layer = Batch.layer({ store: Batch.sqlite(${JSON.stringify(db)}) }).pipe(Layer.provide(Gateway.layer({ baseUrl: "http://127.0.0.1:1", apiKey: "k" })))
const error = await Effect.runPromise(Effect.flip(Effect.provide(Effect.void, layer)))
console.log(error._tag + ": " + error.message)`
    const out = runScript(script)
    expect(out.stderr).toBe("")
    expect(out.stdout.trim()).toBe(
      `BatchStoreError: batch store ${db}: Batch.layer needs the package @effect/platform-node: npm install @effect/platform-node`
    )
  })
})

describe("umg installed with the peers of umg/ai-sdk, umg/rx and umg/batch", { timeout: 120_000 }, () => {
  beforeAll(() => {
    const installed = run(
      "npm",
      // `@ai-sdk/provider`: an AI SDK app has it through `ai`; rxjs pinned below umg's own copy; a
      // SQLite batch app, without `@effect/sql-pg`.
      [
        "install",
        "--omit=dev",
        "--no-package-lock",
        "@ai-sdk/provider@^4",
        `rxjs@${oldestRxjs}`,
        `@effect/platform-node@${manifest.peerDependencies["@effect/platform-node"] ?? "missing"}`
      ],
      project
    )
    if (installed.code !== 0) throw new Error(`npm install of the peers failed: ${installed.stderr.slice(-1000)}`)
  }, 600_000)

  it("imports every entry point from ESM, without loading node:sqlite; umg/rx's Observables are the app's", () => {
    const script = `const { registerHooks } = await import("node:module"); const resolved = []
registerHooks({ resolve: (specifier, context, next) => { resolved.push(specifier); return next(specifier, context) } })
for (const e of ${JSON.stringify(entries)}) { const m = await import(e); if (Object.keys(m).length === 0) throw new Error(e + " exports nothing") }
if (resolved.includes("node:sqlite")) throw new Error("an entry point loaded node:sqlite")
const { Gateway } = await import("umg"); const { buildChatBody } = await import("umg/core"); const { createGateway } = await import("umg/rx"); const { startEmulator } = await import("umg/emulator")
const { Observable } = await import("rxjs"); const gateway = createGateway({ baseUrl: "http://127.0.0.1:1", apiKey: "k" })
const observable = gateway.models.list$() instanceof Observable; await gateway.dispose()
console.log([typeof Gateway, typeof buildChatBody, typeof createGateway, typeof startEmulator, observable].join(","))`
    const out = runScript(script)
    expect(out.stderr).toBe("")
    expect(out.stdout.trim()).toBe("function,function,function,function,true")
  })

  it("requires every entry point from CommonJS", () => {
    // A CommonJS file of the app (not `node -e`, whose global `__filename` of "[eval]" misleads ESM
    // packages that look for a CommonJS `__filename` first).
    writeFileSync(
      join(project, "require-all.cjs"),
      `for (const e of ${JSON.stringify(entries)}) { const m = require(e); if (Object.keys(m).length === 0) throw new Error(e + " exports nothing") }
console.log(typeof require("umg/core").buildChatBody)\n`
    )
    const out = run(process.execPath, ["require-all.cjs"], project)
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout.trim()).toBe("function")
  })

  it("type-checks a file importing each entry point under tsc --strict, without the types of ws", () => {
    writeFileSync(
      join(project, "main.ts"),
      `import { Gateway } from "umg"\nimport { buildChatBody, type ChatBodyInput } from "umg/core"\nimport { createGateway } from "umg/rx"\nimport { startEmulator } from "umg/emulator"\nimport { Batch } from "umg/batch"\nimport type { Observable } from "rxjs"\n` +
        `const body: ChatBodyInput = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }\nexport const all = [Gateway, buildChatBody(body), createGateway, startEmulator, Batch.video, Batch.layer({ store: Batch.sqlite() })]\n` +
        `export const models = (gateway: ReturnType<typeof createGateway>): Observable<unknown> => gateway.models.list$()\n`
    )
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ ...consumerTsconfig(), files: ["main.ts"] }))
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    // `--listFiles`: the files of the program, one a line, and the errors if any.
    const out = run(process.execPath, [tsc, "-p", "tsconfig.json", "--listFiles"], project)
    const lines = (out.stdout + out.stderr).split("\n")
    expect(lines.filter((l) => l.includes("error TS"))).toEqual([])
    expect(out.code).toBe(0)
    // `@types/ws` is a dev dependency of umg: no declaration the entry points reach may need it.
    expect(lines.filter((l) => l.includes("/node_modules/@types/ws/"))).toEqual([])
    expect(lines.some((l) => l.endsWith("/node_modules/umg/dist/emulator/index.d.ts"))).toBe(true)
  })

  it("has one copy of effect and of rxjs in the app's tree: umg's peers are the app's own", () => {
    const copiesOf = (name: string) => {
      const copies = run("npm", ["ls", name, "--all", "--parseable"], project)
      expect(copies.code, copies.stderr).toBe(0)
      return [
        ...new Set(
          copies.stdout
            .split("\n")
            .map((l) => l.trim())
            .filter((l) => l !== "")
        )
      ]
    }
    expect(copiesOf("effect")).toEqual([join(project, "node_modules/effect")])
    expect(copiesOf("rxjs")).toEqual([join(project, "node_modules/rxjs")])
    const versionOf = (name: string) =>
      (JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")) as { version: string })
        .version
    expect(versionOf("effect")).toMatch(/^4\.([1-9]|\d{2,})\./)
    expect(versionOf("rxjs")).toBe(oldestRxjs)
  })

  it("fails a PostgreSQL store without @effect/sql-pg, saying what to install", () => {
    const script = `const { Batch } = await import("umg/batch"); const { Effect } = await import("effect")
const error = await Effect.runPromise(Effect.flip(Batch.readStatus(Batch.postgres("postgres://u:secret@127.0.0.1:1/db"), "b1")))
console.log(error._tag + ": " + error.message)`
    const out = runScript(script)
    expect(out.stderr).toBe("")
    expect(out.stdout.trim()).toBe(
      "BatchStoreError: batch store postgres://u:***@127.0.0.1:1/db: a PostgreSQL store needs the package @effect/sql-pg: npm install @effect/sql-pg"
    )
  })

  it("type-checks an Effect program that provides Gateway.layer under tsc --strict, and runs it against the emulator", () => {
    writeFileSync(join(project, "program.ts"), gatewayProgram)
    writeFileSync(
      join(project, "tsconfig.program.json"),
      JSON.stringify({ ...consumerTsconfig(), files: ["program.ts"] })
    )
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    const checked = run(process.execPath, [tsc, "-p", "tsconfig.program.json"], project)
    expect(checked.stdout + checked.stderr).toBe("")
    expect(checked.code).toBe(0)
    // Node runs the TypeScript file itself (type stripping, Node 22.18+).
    const ran = run(process.execPath, ["program.ts"], project)
    expect(ran.code, ran.stderr).toBe(0)
    const result = JSON.parse(ran.stdout.trim()) as { models: number; text: number; chat: number }
    expect(result.models).toBeGreaterThan(0)
    expect(result.text).toBeGreaterThan(0)
    expect(result.chat).toBeGreaterThan(0)
  })
})
