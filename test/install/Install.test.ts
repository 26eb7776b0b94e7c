// Installing umg elsewhere, as a user would: pack the package (its `prepare` builds dist/), install
// `effect@^4.1` (and `@ai-sdk/provider`, umg/ai-sdk's optional peer) and the tarball into a fresh project
// without dev dependencies (effect is a peer dependency, so the app has one copy), then import every entry point from ESM, from CommonJS
// `require`, type-check files under `tsc --strict` (one importing each entry point, one Effect program
// that provides `Gateway.layer`), run that program against the emulator, and run the `umg` bin.
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
// Every entry point of the exports map (a new one is covered without editing this test).
const entries = Object.keys(
  (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> }).exports
)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? "umg" : `umg/${k.slice(2)}`))
let work: string
let project: string

const run = (cmd: string, args: ReadonlyArray<string>, cwd: string) => {
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

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "umg-install-"))
  const packed = run("npm", ["pack", "--pack-destination", work], root)
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr.slice(-1000)}`)
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"))
  if (tarball === undefined) throw new Error("npm pack made no tarball")
  project = join(work, "app")
  execFileSync("mkdir", ["-p", project])
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "app", private: true, version: "1.0.0", type: "module" })
  )
  const installed = run(
    "npm",
    // `@ai-sdk/provider`: the optional peer of `umg/ai-sdk`, which an AI SDK app has through `ai`.
    ["install", "--omit=dev", "--no-package-lock", "effect@^4.1", "@ai-sdk/provider@^4", join(work, tarball)],
    project
  )
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

// tsc and Node processes on the installed package: slow on a loaded machine, so more than 30 s each.
describe("umg installed from its packed tarball", { timeout: 120_000 }, () => {
  it("imports every entry point from ESM", () => {
    const script = `for (const e of ${JSON.stringify(entries)}) { const m = await import(e); if (Object.keys(m).length === 0) throw new Error(e + " exports nothing") }
const { Gateway } = await import("umg"); const { buildChatBody } = await import("umg/core"); const { createGateway } = await import("umg/rx"); const { startEmulator } = await import("umg/emulator")
console.log([typeof Gateway, typeof buildChatBody, typeof createGateway, typeof startEmulator].join(","))`
    const out = run(process.execPath, ["--input-type=module", "-e", script], project)
    expect(out.stderr).toBe("")
    expect(out.stdout.trim()).toBe("function,function,function,function")
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

  it("type-checks a file importing each entry point under tsc --strict", () => {
    writeFileSync(
      join(project, "main.ts"),
      `import { Gateway } from "umg"\nimport { buildChatBody, type ChatBodyInput } from "umg/core"\nimport { createGateway } from "umg/rx"\nimport { startEmulator } from "umg/emulator"\nimport { Batch } from "umg/batch"\n` +
        `const body: ChatBodyInput = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }\nexport const all = [Gateway, buildChatBody(body), createGateway, startEmulator, Batch.video, Batch.layer({ store: Batch.sqlite() })]\n`
    )
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ ...consumerTsconfig(), files: ["main.ts"] }))
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    const out = run(process.execPath, [tsc, "-p", "tsconfig.json"], project)
    expect(out.stdout + out.stderr).toBe("")
    expect(out.code).toBe(0)
  })

  it("has one copy of effect in the app's tree: umg's peer is the app's own", () => {
    const copies = run("npm", ["ls", "effect", "--all", "--parseable"], project)
    expect(copies.code, copies.stderr).toBe(0)
    const paths = [
      ...new Set(
        copies.stdout
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "")
      )
    ]
    expect(paths).toEqual([join(project, "node_modules/effect")])
    const version = (
      JSON.parse(readFileSync(join(project, "node_modules/effect/package.json"), "utf8")) as { version: string }
    ).version
    expect(version).toMatch(/^4\.([1-9]|\d{2,})\./)
  })

  it("type-checks an Effect program that provides Gateway.layer under tsc --strict, and runs it against the emulator", () => {
    writeFileSync(
      join(project, "program.ts"),
      [
        `import { Effect, Stream } from "effect"`,
        `import { Gateway } from "umg"`,
        `import { startEmulator } from "umg/emulator"`,
        `const emulator = await startEmulator()`,
        `const program = Effect.gen(function* () {`,
        `  const gateway = yield* Gateway`,
        `  const models = yield* gateway.models.list()`,
        `  let text = ""`,
        `  yield* gateway.messages.stream({ model: "epsilon-haiku-4-5-20251001", max_tokens: 64, messages: [{ role: "user", content: "Say hi" }] }).pipe(`,
        `    Stream.runForEach((event) => Effect.sync(() => { if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text }))`,
        `  )`,
        `  return { models: models.length, text: text.length }`,
        `})`,
        `const result = await Effect.runPromise(program.pipe(Effect.provide(Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey }))))`,
        `await emulator.close()`,
        `console.log(JSON.stringify(result))`,
        ``
      ].join("\n")
    )
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
    const result = JSON.parse(ran.stdout.trim()) as { models: number; text: number }
    expect(result.models).toBeGreaterThan(0)
    expect(result.text).toBeGreaterThan(0)
  })

  it("runs the umg bin", () => {
    const out = run(join(project, "node_modules/.bin/umg"), ["--help"], project)
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain("umg")
  })
})
