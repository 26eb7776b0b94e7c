import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

// The layers of DESIGN.md: arrows only point down (cli → streams → adapters → core); the emulator
// stands apart and imports no other layer.
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const src = join(root, "src")

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? filesUnder(p) : /\.(ts|tsx|mts)$/.test(name) ? [p] : []
  })

/** Every module specifier a file imports or re-exports, statically or dynamically. */
export const specifiers = (code: string): Array<string> => {
  const found: Array<string> = []
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g
  ]
  for (const re of patterns) for (const m of code.matchAll(re)) found.push(m[1]!)
  return found
}

const layerOf = (file: string): string => relative(src, file).split(sep)[0]!

const allowedLayers: Record<string, ReadonlyArray<string>> = {
  core: ["core"],
  adapters: ["adapters", "core"],
  streams: ["streams", "adapters", "core"],
  emulator: ["emulator"],
  cli: ["cli", "streams", "adapters", "core", "emulator"]
}

const violations = (layer: string): Array<string> => {
  const dir = join(src, layer)
  let files: Array<string> = []
  try {
    files = filesUnder(dir)
  } catch {
    return []
  }
  const out: Array<string> = []
  for (const file of files) {
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      const where = relative(root, file)
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec)
        const targetLayer = target.startsWith(src + sep) ? layerOf(target) : "(outside src)"
        if (!allowedLayers[layer]!.includes(targetLayer)) out.push(`${where} imports ${spec} (${targetLayer})`)
      } else if (layer === "core" && !(spec === "effect" || spec.startsWith("effect/"))) {
        out.push(`${where} imports ${spec}`)
      }
    }
  }
  return out
}

describe("the dependency rule", () => {
  it("finds static, type-only, re-export and dynamic imports", () => {
    const code = [
      `import { Effect } from "effect"`,
      `import type { X } from "./x.js"`,
      `export * from "../adapters/y.js"`,
      `const m = await import("node:fs")`,
      `import "side-effect"`
    ].join("\n")
    expect(specifiers(code)).toEqual(["effect", "./x.js", "../adapters/y.js", "side-effect", "node:fs"])
  })

  it("keeps src/core importing only effect and other src/core files", () => {
    expect(violations("core")).toEqual([])
  })

  it("keeps every other layer's imports pointing down the layer list", () => {
    for (const layer of ["adapters", "streams", "emulator", "cli"]) expect(violations(layer)).toEqual([])
  })

  it("would flag a core file that imports a Node built-in or another layer", () => {
    const code = `import { readFile } from "node:fs"\nimport { x } from "../adapters/Http.js"`
    const specs = specifiers(code)
    expect(specs.some((s) => !(s === "effect" || s.startsWith("effect/") || s.startsWith(".")))).toBe(true)
    expect(specs).toContain("../adapters/Http.js")
  })
})
