// The dependency rule of DESIGN.md on the real import graph: every source file under src is parsed
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

/** Every module specifier a file imports or re-exports, statically, type-only or dynamically (the compiler's own scan). */
export const specifiers = (code: string): Array<string> =>
  ts.preProcessFile(code, true, true).importedFiles.map((f) => f.fileName)

/** A file's imports: relative ones resolved to source files of the graph, the rest as bare names. */
export interface Graph {
  readonly [file: string]: { readonly local: ReadonlyArray<string>; readonly bare: ReadonlyArray<string> }
}

const resolveLocal = (from: string, spec: string, exists: (f: string) => boolean): string => {
  const target = resolve(dirname(from), spec)
  for (const candidate of [target.replace(/\.js$/, ".ts"), target, `${target}.ts`, join(target, "index.ts")]) if (exists(candidate)) return candidate
  return target
}

/** Builds the graph of the given files from their text. */
export const buildGraph = (files: Readonly<Record<string, string>>): Graph => {
  const exists = (f: string) => Object.hasOwn(files, f)
  const graph: Record<string, { local: Array<string>; bare: Array<string> }> = {}
  for (const [file, code] of Object.entries(files)) {
    const local: Array<string> = []
    const bare: Array<string> = []
    for (const spec of specifiers(code)) (spec.startsWith(".") ? local.push(resolveLocal(file, spec, exists)) : bare.push(spec))
    graph[file] = { local, bare }
  }
  return graph
}

/** The layers each layer may import (DESIGN.md); a layer not listed may import only itself. */
const allowed: Readonly<Record<string, ReadonlyArray<string>>> = {
  core: ["core"],
  adapters: ["adapters", "core"],
  streams: ["streams", "adapters", "core"],
  batch: ["batch", "adapters", "core"],
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
      if (!(allowed[layer] ?? [layer]).includes(targetLayer)) out.push(`${where} imports ${relative(base, target)} (${layer} → ${targetLayer})`)
    }
    if (layer === "core") for (const spec of bare) if (!(spec === "effect" || spec.startsWith("effect/"))) out.push(`${where} imports ${spec} (core imports effect only)`)
    if (layer === "emulator")
      for (const spec of bare) if (spec.startsWith("#umg/") || spec === "umg" || spec.startsWith("umg/")) out.push(`${where} imports ${spec} (the emulator stands apart)`)
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
      if (s === "open") found.push([...stack.slice(stack.indexOf(next)), next].map((f) => relative(base, f)).join(" → "))
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

  it("finds static, type-only, re-export, side-effect and dynamic imports", () => {
    const code = [
      `import { Effect } from "effect"`,
      `import type { X } from "./x.js"`,
      `export * from "../adapters/y.js"`,
      `const m = await import("node:fs")`,
      `import "side-effect"`
    ].join("\n")
    expect(specifiers(code).sort()).toEqual(["../adapters/y.js", "./x.js", "effect", "node:fs", "side-effect"])
  })

  it("keeps every arrow pointing down the layer list, and src/core importing only effect", () => {
    expect(violations(graph)).toEqual([])
  })

  it("has no import cycle", () => {
    expect(cycles(graph)).toEqual([])
  })

  it("fails on a synthetic graph with an upward import, a core import of node:fs, a cross import and a cycle", () => {
    const f = (p: string) => join(src, p)
    const bad = buildGraph({
      [f("core/a.ts")]: `import { readFile } from "node:fs"\nimport { b } from "./b.js"`,
      [f("core/b.ts")]: `import { a } from "./a.js"\nimport { H } from "../adapters/Http.js"`,
      [f("adapters/Http.ts")]: `import { s } from "../streams/x.js"`,
      [f("streams/x.ts")]: `export const s = 1`,
      [f("emulator/e.ts")]: `import type { Route } from "../core/b.js"`
    })
    const v = violations(bad)
    expect(v).toContain("core/a.ts imports node:fs (core imports effect only)")
    expect(v).toContain("core/b.ts imports adapters/Http.ts (core → adapters)")
    expect(v).toContain("adapters/Http.ts imports streams/x.ts (adapters → streams)")
    expect(v).toContain("emulator/e.ts imports core/b.ts (emulator → core)")
    expect(cycles(bad)).toEqual(["core/a.ts → core/b.ts → core/a.ts"])
  })
})
