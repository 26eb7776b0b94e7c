// The dependency rule (docs/ARCHITECTURE.md) on the real import graph: every source file under src is parsed
// with the TypeScript compiler (imports, type-only imports, re-exports, dynamic imports, require), its
// relative specifiers resolved to files, and the graph checked: arrows point down the layer list
// (cli → batch/streams → adapters → core), the emulator stands apart, src/core imports only effect,
// and no file reaches itself through its imports.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const src = join(root, "src")

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? filesUnder(p) : /\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts") ? [p] : []
  })

/**
 * Every module specifier a file imports or re-exports, statically, type-only or dynamically, read from
 * its syntax tree (`ts.preProcessFile` misses `export * as X from "…"`).
 */
export const specifiers = (code: string): Array<string> => {
  const source = ts.createSourceFile("file.ts", code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text)
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal.text)
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression
      if (ts.isStringLiteral(expression)) found.push(expression.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** A file's imports: relative ones resolved to source files of the graph, the rest as bare names. */
export interface Graph {
  readonly [file: string]: { readonly local: ReadonlyArray<string>; readonly bare: ReadonlyArray<string> }
}

const resolveLocal = (from: string, spec: string, exists: (f: string) => boolean): string => {
  const target = resolve(dirname(from), spec)
  for (const candidate of [target.replace(/\.js$/, ".ts"), target, `${target}.ts`, join(target, "index.ts")])
    if (exists(candidate)) return candidate
  return target
}

/** Builds the graph of the given files from their text. */
export const buildGraph = (files: Readonly<Record<string, string>>): Graph => {
  const exists = (f: string) => Object.hasOwn(files, f)
  const graph: Record<string, { local: Array<string>; bare: Array<string> }> = {}
  for (const [file, code] of Object.entries(files)) {
    const local: Array<string> = []
    const bare: Array<string> = []
    for (const spec of specifiers(code)) {
      if (spec.startsWith(".")) local.push(resolveLocal(file, spec, exists))
      else bare.push(spec)
    }
    graph[file] = { local, bare }
  }
  return graph
}

/** The layers each layer may import (docs/ARCHITECTURE.md); a layer not listed may import only itself. */
const allowed: Readonly<Record<string, ReadonlyArray<string>>> = {
  core: ["core"],
  adapters: ["adapters", "core"],
  streams: ["streams", "adapters", "core"],
  batch: ["batch", "adapters", "core"],
  // The framework providers (`umg/ai`, `umg/ai-sdk`) sit on the Effect service, like the Rx face.
  ai: ["ai", "adapters", "core"],
  "ai-sdk": ["ai-sdk", "ai", "adapters", "core"],
  emulator: ["emulator"],
  cli: ["cli", "batch", "streams", "adapters", "core", "emulator"],
  // The package entry (`umg`) re-exports the core and the Effect service.
  "index.ts": ["core", "adapters"]
}

const layerOf = (base: string, file: string): string => relative(base, file).split(sep)[0]!

/** Every broken arrow of the graph: an upward or cross-layer import, core importing past effect, an import leaving src. */
export const violations = (graph: Graph, base: string = src): Array<string> => {
  const out: Array<string> = []
  for (const [file, { local, bare }] of Object.entries(graph)) {
    const layer = layerOf(base, file)
    const where = relative(base, file)
    for (const target of local) {
      const targetLayer = target.startsWith(base + sep) ? layerOf(base, target) : "(outside src)"
      if (!(allowed[layer] ?? [layer]).includes(targetLayer))
        out.push(`${where} imports ${relative(base, target)} (${layer} → ${targetLayer})`)
    }
    if (layer === "core")
      for (const spec of bare)
        if (!(spec === "effect" || spec.startsWith("effect/")))
          out.push(`${where} imports ${spec} (core imports effect only)`)
    if (layer === "emulator")
      for (const spec of bare)
        if (spec.startsWith("#umg/") || spec === "umg" || spec.startsWith("umg/"))
          out.push(`${where} imports ${spec} (the emulator stands apart)`)
  }
  return out
}

/** The import cycles of the graph (each as the files around it), found by depth-first search. */
export const cycles = (graph: Graph, base: string = src): Array<string> => {
  const state = new Map<string, "open" | "done">()
  const found: Array<string> = []
  const stack: Array<string> = []
  const visit = (file: string): void => {
    state.set(file, "open")
    stack.push(file)
    for (const next of graph[file]?.local ?? []) {
      if (!Object.hasOwn(graph, next)) continue
      const s = state.get(next)
      if (s === "open")
        found.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(base, f)).join(" → "))
      else if (s === undefined) visit(next)
    }
    stack.pop()
    state.set(file, "done")
  }
  for (const file of Object.keys(graph)) if (!state.has(file)) visit(file)
  return found
}

const realGraph = (): Graph => {
  const files: Record<string, string> = {}
  for (const f of filesUnder(src)) files[f] = readFileSync(f, "utf8")
  return buildGraph(files)
}

describe("the dependency rule", () => {
  const graph = realGraph()

  it("reads the real sources: every layer of src is in the graph", () => {
    const layers = new Set(Object.keys(graph).map((f) => layerOf(src, f)))
    for (const layer of ["core", "adapters", "streams", "emulator", "cli"]) expect(layers).toContain(layer)
    expect(Object.keys(graph).length).toBeGreaterThan(150)
  })

  it("finds static, type-only, re-export (`export * as` too), side-effect, dynamic and type-query imports", () => {
    const code = [
      `import { Effect } from "effect"`,
      `import type { X } from "./x.js"`,
      `export * from "../adapters/y.js"`,
      `export * as Z from "../streams/z.js"`,
      `const m = await import("node:fs")`,
      `type T = import("./t.js").T`,
      `import "side-effect"`
    ].join("\n")
    expect(specifiers(code).sort()).toEqual([
      "../adapters/y.js",
      "../streams/z.js",
      "./t.js",
      "./x.js",
      "effect",
      "node:fs",
      "side-effect"
    ])
  })

  it("keeps every arrow pointing down the layer list, and src/core importing only effect", () => {
    expect(violations(graph)).toEqual([])
  })

  it("maps each package import (`#umg/…`, picked by platform) to modules of the adapters, none of the core", () => {
    const imports = (
      JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { imports: Record<string, unknown> }
    ).imports
    const targets = (value: unknown): Array<string> =>
      typeof value === "string"
        ? [value]
        : value !== null && typeof value === "object"
          ? Object.values(value).flatMap(targets)
          : []
    expect(Object.keys(imports).length).toBeGreaterThanOrEqual(3)
    for (const [spec, value] of Object.entries(imports)) {
      const all = targets(value)
      expect(all.length, spec).toBeGreaterThanOrEqual(4)
      for (const target of all) expect(target, spec).toMatch(/^\.\/(src|dist)\/adapters\//)
    }
  })

  it("has no import cycle", () => {
    expect(cycles(graph)).toEqual([])
  })

  it("fails on a synthetic graph with an upward import, a core import of node:fs, a cross import and a cycle", () => {
    const f = (p: string) => join(src, p)
    const bad = buildGraph({
      [f("core/a.ts")]:
        `import { readFile } from "node:fs"\nimport { b } from "./b.js"\nimport { j } from "#umg/schema-jit"`,
      [f("core/b.ts")]: `import { a } from "./a.js"\nimport { H } from "../adapters/Http.js"`,
      [f("adapters/Http.ts")]: `import { s } from "../streams/x.js"`,
      [f("streams/x.ts")]: `export const s = 1`,
      [f("emulator/e.ts")]: `import type { Route } from "../core/b.js"`
    })
    const v = violations(bad)
    expect(v).toContain("core/a.ts imports node:fs (core imports effect only)")
    expect(v).toContain("core/a.ts imports #umg/schema-jit (core imports effect only)")
    expect(v).toContain("core/b.ts imports adapters/Http.ts (core → adapters)")
    expect(v).toContain("adapters/Http.ts imports streams/x.ts (adapters → streams)")
    expect(v).toContain("emulator/e.ts imports core/b.ts (emulator → core)")
    expect(cycles(bad)).toEqual(["core/a.ts → core/b.ts → core/a.ts"])
  })
})

/**
 * Value imports from one of Effect's barrels (`"effect"`, `"effect/http"`, …) in a file: each module
 * such an import names is bundled whole (the barrels re-export with `export * as X`), which cost the
 * browser chat page ~110 KB min+gz. Type-only imports cost nothing and are allowed.
 */
export const barrelValueImports = (file: string, code: string): Array<string> => {
  const out: Array<string> = []
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest)
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue
    const spec = statement.moduleSpecifier.text
    if (!(spec === "effect" || /^effect\/[a-z-]+$/.test(spec))) continue
    const clause = statement.importClause
    if (clause === undefined || clause.isTypeOnly) continue
    const bindings = clause.namedBindings
    const values =
      bindings === undefined
        ? []
        : ts.isNamespaceImport(bindings)
          ? [`* as ${bindings.name.text}`]
          : bindings.elements.filter((e) => !e.isTypeOnly).map((e) => e.name.text)
    if (clause.name !== undefined) values.push(clause.name.text)
    if (values.length > 0) out.push(`${file} imports ${values.join(", ")} from "${spec}"`)
  }
  return out
}

describe("the browser path's imports of Effect", () => {
  it("name Effect's modules one by one (`effect/Schema`), never a barrel's values, in src/core, src/adapters and src/streams", () => {
    const found: Array<string> = []
    for (const layer of ["core", "adapters", "streams"])
      for (const f of filesUnder(join(src, layer)))
        found.push(...barrelValueImports(relative(src, f), readFileSync(f, "utf8")))
    expect(found).toEqual([])
  })

  it("finds a barrel's value import and lets type-only ones and single modules through", () => {
    const code = [
      `import { Effect, type Layer } from "effect"`,
      `import type { Stream } from "effect"`,
      `import * as Schema from "effect/Schema"`,
      `import { HttpClient } from "effect/http"`,
      `import { dual } from "effect/Function"`
    ].join("\n")
    expect(barrelValueImports("x.ts", code)).toEqual([
      `x.ts imports Effect from "effect"`,
      `x.ts imports HttpClient from "effect/http"`
    ])
  })
})
