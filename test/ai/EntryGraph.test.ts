// The frameworks are peer dependencies of `umg/ai` and `umg/ai-sdk` only: the import graph of every
// other entry point (`umg`, `umg/core`, `umg/rx`, `umg/batch`) never reaches src/ai or src/ai-sdk, nor
// the AI SDK's packages, so `umg` and `umg/rx` users install nothing extra. The providers' own graph
// keeps its arrows: src/ai reaches no AI SDK package, src/ai-sdk only the shared text layer of src/ai
// (never `effect/ai`), and neither a layer above the adapters.
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const src = join(root, "src")

/**
 * The module specifiers of a file: the compiler's scan (dynamic imports too) and every import and
 * export declaration of its syntax tree (the scan misses `export * as Name from "…"`).
 */
const specifiersOf = (code: string): Set<string> => {
  const out = new Set(ts.preProcessFile(code, true, true).importedFiles.map((f) => f.fileName))
  for (const statement of ts.createSourceFile("x.ts", code, ts.ScriptTarget.Latest).statements)
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
    )
      out.add(statement.moduleSpecifier.text)
  return out
}

/** A source file's imports: relative ones resolved to files, the rest as bare names. */
const importsOf = (file: string): { readonly local: Array<string>; readonly bare: Array<string> } => {
  const local: Array<string> = []
  const bare: Array<string> = []
  for (const fileName of specifiersOf(readFileSync(file, "utf8"))) {
    if (!fileName.startsWith(".")) {
      bare.push(fileName)
      continue
    }
    const target = resolve(dirname(file), fileName)
    const found = [target.replace(/\.js$/, ".ts"), target, `${target}.ts`, join(target, "index.ts")].find(existsSync)
    local.push(found ?? target)
  }
  return { local, bare }
}

/** Every file an entry reaches, and every bare import on the way (`#umg/*` maps resolved to their Node targets). */
const reach = (entry: string) => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    readonly imports: Record<string, { readonly "umg-source": { readonly default: string } }>
  }
  const files = new Set<string>()
  const bare = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file) || !file.startsWith(src)) return
    files.add(file)
    const imports = importsOf(file)
    for (const spec of imports.bare) {
      const mapped = pkg.imports[spec]
      if (mapped !== undefined) visit(join(root, mapped["umg-source"].default))
      else bare.add(spec)
    }
    for (const next of imports.local) visit(next)
  }
  visit(join(src, entry))
  return { files: [...files].map((f) => relative(src, f)), bare: [...bare] }
}

const isAiSdkPackage = (spec: string): boolean => spec === "ai" || spec.startsWith("@ai-sdk/")

describe("the frameworks stay behind their own entry points", () => {
  it.each(["index.ts", "core/index.ts", "streams/index.ts", "batch/index.ts"])(
    "%s reaches no file of src/ai or src/ai-sdk and no package of the AI SDK",
    (entry) => {
      const { files, bare } = reach(entry)
      expect(files.length).toBeGreaterThan(20)
      expect(files.filter((f) => f.startsWith("ai/") || f.startsWith("ai-sdk/"))).toEqual([])
      expect(bare.filter(isAiSdkPackage)).toEqual([])
      expect(bare.filter((s) => s.startsWith("effect/ai"))).toEqual([])
    }
  )

  it("umg/ai reaches no package of the AI SDK", () => {
    const { files, bare } = reach("ai/index.ts")
    expect(files).toContain("ai/UmgLanguageModel.ts")
    expect(bare.filter(isAiSdkPackage)).toEqual([])
    expect(files.filter((f) => f.startsWith("ai-sdk/") || f.startsWith("streams/") || f.startsWith("cli/"))).toEqual([])
  })

  it("umg/ai-sdk reaches @ai-sdk/provider only, and of src/ai only its text layer (no effect/ai)", () => {
    const { files, bare } = reach("ai-sdk/index.ts")
    expect(files).toContain("ai-sdk/LanguageModel.ts")
    expect(bare.filter(isAiSdkPackage).sort()).toEqual(["@ai-sdk/provider"])
    expect(files.filter((f) => f.startsWith("ai/") && !f.startsWith("ai/text/"))).toEqual([])
    expect(bare.filter((s) => s.startsWith("effect/ai"))).toEqual([])
    expect(files.filter((f) => f.startsWith("streams/") || f.startsWith("cli/"))).toEqual([])
  })
})
