import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { describe, expect, it } from "vitest"

// Bundlers choose umg's platform modules through package.json `imports` conditions: each `#umg/…`
// is a Node module by default and a browser one under `browser`; `umg-source` points both at the
// sources (tests, tsx, the example's build) and the rest at `dist/`.
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  imports: Record<string, Record<string, unknown>>
}

const inputsFor = async (
  platform: "node" | "browser",
  conditions: Array<string>,
  contents: string
): Promise<Array<string>> => {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform,
    conditions,
    external: ["ws", "effect"],
    metafile: true,
    logLevel: "silent"
  })
  return Object.keys(result.metafile.inputs)
}

/** A package import picked by platform: what imports it, and the module it resolves to on Node and in browsers. */
interface PlatformImport {
  readonly name: string
  readonly what: string
  readonly importer: string
  readonly node: string
  readonly browser: string
}

const platformImports: ReadonlyArray<PlatformImport> = [
  {
    name: "#umg/socket",
    what: "the Node opener on Node and the browser's WebSocket in browsers",
    importer: `export { defaultSocketOpener } from "#umg/socket"`,
    node: "adapters/socket/NodeWebSocket",
    browser: "adapters/socket/BrowserWebSocket"
  },
  {
    name: "#umg/http",
    what: "umg's node:http client on Node and the fetch client in browsers, which never pulls node:http",
    importer: `export { defaultHttpClientLayer } from "#umg/http"`,
    node: "adapters/http/NodeHttpClient",
    browser: "adapters/http/BrowserHttpClient"
  },
  {
    name: "#umg/schema-jit",
    what: "Effect's JIT compiler for the Gateway on Node and no compiler in browsers",
    importer: `export { Gateway } from "./src/adapters/Gateway.ts"`,
    node: "adapters/internal/SchemaJit",
    browser: "adapters/internal/SchemaJitBrowser"
  },
  {
    name: "#umg/bytes",
    what: "Buffer#indexOf for the SSE parser on Node and the core's portable search in browsers, which never pulls node:buffer",
    importer: `export { platformByteText } from "#umg/bytes"`,
    node: "adapters/sse/NodeByteText",
    browser: "adapters/sse/BrowserByteText"
  },
  {
    name: "#umg/group-modules",
    what: "the deferred groups imported with the client on Node and imported on first use in browsers",
    importer: `export { groupModules } from "#umg/group-modules"`,
    node: "adapters/groups/GroupModules",
    browser: "adapters/groups/GroupModulesBrowser"
  }
]

describe.each(platformImports)("the $name import conditions", ({ browser, importer, name, node, what }) => {
  it(`resolve to ${what}`, async () => {
    expect(await inputsFor("node", ["umg-source"], importer)).toContain(`src/${node}.ts`)
    const inBrowser = await inputsFor("browser", ["umg-source"], importer)
    expect(inBrowser).toContain(`src/${browser}.ts`)
    expect(inBrowser).not.toContain(`src/${node}.ts`)
  })

  it("point the published package at the compiled files of the same two modules", () => {
    const map = pkg.imports[name]!
    expect(map["browser"]).toBe(`./dist/${browser}.js`)
    expect(map["default"]).toBe(`./dist/${node}.js`)
    expect(map["umg-source"]).toEqual({ browser: `./src/${browser}.ts`, default: `./src/${node}.ts` })
  })
})

it("maps no other package import than those above", () => {
  expect(Object.keys(pkg.imports).sort()).toEqual(platformImports.map((entry) => entry.name).sort())
})

describe("the #umg/schema-jit import conditions", () => {
  it("leave no code generator in a browser bundle of the Gateway, effect bundled too", async () => {
    const whole = await build({
      stdin: { contents: `export { Gateway } from "./src/adapters/Gateway.ts"`, resolveDir: root, loader: "ts" },
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      conditions: ["umg-source"],
      metafile: true,
      logLevel: "silent"
    })
    const inputs = Object.keys(whole.metafile.inputs)
    // Effect's parser code generator (which runs `new Function`) is not in it.
    expect(inputs.some((input) => input.endsWith("effect/dist/SchemaParser.js"))).toBe(true)
    expect(inputs.filter((input) => /schema\/(SchemaJITCompiler|codegen)\.js$/.test(input))).toEqual([])
  })
})
