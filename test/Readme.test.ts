import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { documents } from "./readme/documents.js"

// Every TypeScript sample of the README and of docs/ is compiled against the sources, so the
// documentation cannot drift from the API. `umg`, `umg/core`, `umg/rx` and `umg/emulator` map to their entry files.
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

export const samplesOf = (markdown: string): Array<string> =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)

describe("the README", () => {
  it("finds fenced ts samples and nothing else", () => {
    const md = "text\n```ts\nconst a = 1\n```\n```sh\nnpm test\n```\n```ts\nconst b = 2\n```\n"
    expect(samplesOf(md)).toEqual(["const a = 1\n", "const b = 2\n"])
  })

  it("stays at most 600 lines, the rest living on docs/ and bench/results/", () => {
    const readme = documents().find((d) => d.path === "README.md")
    expect(readme?.markdown.split("\n").length).toBeLessThanOrEqual(601)
  })

  it("has code samples that compile against the library (its own and those of docs/)", () => {
    const samples = documents().flatMap((doc) => samplesOf(doc.markdown))
    expect(samples.length).toBeGreaterThanOrEqual(5)
    const dir = join(root, "tmp", "readme-samples")
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    // Each sample is its own module (`export {}` keeps top-level await and names local to it).
    const files = samples.map((code, i) => {
      const file = join(dir, `sample-${i + 1}.ts`)
      writeFileSync(file, `${code}\nexport {}\n`)
      return file
    })
    const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile)
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
    const options: ts.CompilerOptions = {
      ...parsed.options,
      noEmit: true,
      noUnusedLocals: false,
      baseUrl: root,
      paths: {
        umg: ["src/index.ts"],
        "umg/core": ["src/core/index.ts"],
        "umg/rx": ["src/streams/index.ts"],
        "umg/emulator": ["src/emulator/index.ts"],
        "umg/batch": ["src/batch/index.ts"]
      }
    }
    const program = ts.createProgram(files, options)
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || files.includes(resolve(d.file.fileName)))
      .map((d) => {
        const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined
        const name = d.file ? d.file.fileName.slice(dir.length + 1) : ""
        return `${name}${where ? `:${where.line + 1}` : ""} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
      })
    expect(diagnostics).toEqual([])
  }, 120_000)
})
