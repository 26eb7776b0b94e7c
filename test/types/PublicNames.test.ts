/**
 * Every type a public signature mentions can be named by its users. The declarations are emitted from
 * the sources as the build emits them (in memory), then each entry point's exports are walked: a type
 * declared in umg that any exported declaration refers to (an option object, a callback's argument, a
 * result, transitively) must itself be exported by some entry point, else a user cannot write it down
 * (`const options: WaitOptions = …`), nor would a name of an `internal/` module do. And no public
 * declaration says `any` (besides `AnyTool`'s, on purpose).
 */
import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { beforeAll, describe, expect, it } from "vitest"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
// Where the declarations are put, in memory only: inside the package, so `effect` resolves from here.
const outDir = join(root, "tmp", "public-names")

/** Names referred to and not exported, each with why that is fine. */
const unexportedOnPurpose: Readonly<Record<string, string>> = {
  Args: "a helper of `Rx<F>` (umg/rx): users name `Rx<…>`",
  Value: "a helper of `Rx<F>`",
  Failure: "a helper of `Rx<F>`",
  S: "`GatewayService`, abbreviated inside createGateway's declarations",
  Opened: "the hidden member of `ResultStream` that `runToFinal` reads",
  ChunkPull: "the hidden member of `ResultStream`",
  AdaptiveEvent: "spelled out inside `EmbedManyEvent` and `MapConcurrentEvent`, which are exported",
  Json: "`Readonly<Record<string, unknown>>`, the validators' name for a plain object",
  modelListFormats: "read by `typeof` in `ModelListFormat`, which is exported"
}

/** Names still to be exported by their owners; remove each from here once exported. */
const awaitingExport: ReadonlyArray<string> = []

interface Manifest {
  readonly exports: Readonly<Record<string, string | { readonly types?: string }>>
}

/** The declarations of src as `tsc -p tsconfig.build.json` emits them, by their path under `outDir`. */
const emitDeclarations = (): Map<string, string> => {
  const config = ts.readConfigFile(join(root, "tsconfig.build.json"), ts.sys.readFile)
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
  const options: ts.CompilerOptions = {
    ...parsed.options,
    outDir,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    sourceMap: false
  }
  const files = new Map<string, string>()
  ts.createProgram(parsed.fileNames, options).emit(undefined, (name, text) => files.set(resolve(name), text))
  return files
}

/** A program over the emitted declarations of every entry point, with the package's own options. */
const declarationProgram = (files: Map<string, string>, entries: ReadonlyArray<string>): ts.Program => {
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    noEmit: true,
    skipLibCheck: true
  }
  const host = ts.createCompilerHost(options)
  const virtual = (name: string) => files.get(resolve(name))
  const inOut = (name: string) => resolve(name).startsWith(outDir)
  return ts.createProgram(entries, options, {
    ...host,
    fileExists: (name) => virtual(name) !== undefined || (!inOut(name) && host.fileExists(name)),
    readFile: (name) => virtual(name) ?? (inOut(name) ? undefined : host.readFile(name)),
    directoryExists: (name) => inOut(name) || (host.directoryExists?.(name) ?? ts.sys.directoryExists(name)),
    getSourceFile: (name, language, onError) => {
      const text = virtual(name)
      return text === undefined
        ? host.getSourceFile(name, language, onError)
        : ts.createSourceFile(name, text, language, true)
    }
  })
}

interface Findings {
  /** `Name (file)` → the exported declarations that refer to it. */
  readonly unexported: Map<string, Set<string>>
}

/** Walks the exports of every entry point and every umg declaration they refer to. */
const walk = (program: ts.Program, entries: ReadonlyArray<readonly [string, string]>): Findings => {
  const checker = program.getTypeChecker()
  const ours = (d: ts.Node) => resolve(d.getSourceFile().fileName).startsWith(outDir)
  const target = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s)
  const exported = new Map<ts.Symbol, string>()
  const addExports = (module: ts.Symbol, prefix: string) => {
    for (const s of checker.getExportsOfModule(module)) {
      const t = target(s)
      if (exported.has(t)) continue
      exported.set(t, prefix + s.name)
      // `export * as Batch from "./Batch.js"`: its members are named `Batch.X`.
      if (t.declarations?.some(ts.isSourceFile) === true) addExports(t, `${prefix}${s.name}.`)
    }
  }
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(file)
    const module = source && checker.getSymbolAtLocation(source)
    if (module === undefined) throw new Error(`no declarations for ${entry} at ${file}`)
    addExports(module, `${entry}:`)
  }
  const unexported = new Map<string, Set<string>>()
  const seen = new Set<ts.Node>()
  const visit = (declaration: ts.Node, from: string): void => {
    if (seen.has(declaration)) return
    seen.add(declaration)
    const refer = (node: ts.Node): void => {
      const name = ts.isTypeReferenceNode(node)
        ? node.typeName
        : ts.isExpressionWithTypeArguments(node)
          ? node.expression
          : ts.isTypeQueryNode(node)
            ? node.exprName
            : ts.isImportTypeNode(node) && node.qualifier !== undefined
              ? ts.isQualifiedName(node.qualifier)
                ? node.qualifier.right
                : node.qualifier
              : undefined
      const symbol = name && checker.getSymbolAtLocation(name)
      for (const d of (symbol && target(symbol).declarations) ?? []) {
        if (!ours(d) || ts.isTypeParameterDeclaration(d)) continue
        const s = target(symbol!)
        if (!exported.has(s) && !s.name.endsWith("_base")) {
          const key = `${s.name} (${relativeName(d)})`
          unexported.set(key, (unexported.get(key) ?? new Set()).add(from))
        }
        visit(d, s.name)
      }
      ts.forEachChild(node, refer)
    }
    refer(declaration)
  }
  for (const [s, name] of exported)
    for (const d of s.declarations ?? []) if (ours(d) && !ts.isSourceFile(d)) visit(d, name)
  return { unexported }
}

const relativeName = (d: ts.Node) => resolve(d.getSourceFile().fileName).slice(outDir.length + 1)

let files: Map<string, string>
let findings: Findings

beforeAll(() => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest
  const entries = Object.entries(manifest.exports).flatMap(([key, value]) =>
    typeof value === "object" && value.types !== undefined
      ? [[key === "." ? "umg" : `umg/${key.slice(2)}`, join(outDir, value.types.replace(/^\.\/dist\//, ""))] as const]
      : []
  )
  files = emitDeclarations()
  findings = walk(
    declarationProgram(
      files,
      entries.map(([, file]) => file)
    ),
    entries
  )
}, 300_000)

describe("the public types", () => {
  it("name only types their users can import: each one a public signature mentions is exported", () => {
    const names = [...findings.unexported.keys()].map((key) => key.replace(/ \(.*$/, ""))
    const missing = [...findings.unexported].filter(([key]) => {
      const name = key.replace(/ \(.*$/, "")
      return !(name in unexportedOnPurpose) && !awaitingExport.includes(name)
    })
    expect(missing.map(([key, from]) => `${key} <- ${[...from].slice(0, 3).join(", ")}`)).toEqual([])
    // A name allowed here that no signature mentions any more is dropped from the lists.
    expect(awaitingExport.filter((name) => !names.includes(name))).toEqual([])
  })

  it("say `any` nowhere but in AnyTool", () => {
    const anys = [...files]
      .filter(([name]) => name.endsWith(".d.ts") && !name.includes("/cli/"))
      .flatMap(([name, text]) =>
        text
          .split("\n")
          .filter((line) => !/^\s*(\*|\/\*\*|\/\/)/.test(line))
          .filter((line) => /(:\s*any\b|\bany\[\]|<any\b|\bany>|,\s*any\b|\|\s*any\b)/.test(line))
          // Data.TaggedError's and Context.Service's emitted base classes.
          .filter((line) => !line.includes("_base: new <A extends Record<string, any> = {}>"))
          .map((line) => `${name.slice(outDir.length + 1)}: ${line.trim()}`)
      )
    expect(anys).toEqual(["core/tools/Tool.d.ts: export type AnyTool<R = never> = Tool<any, unknown, unknown, R>;"])
  })
})
