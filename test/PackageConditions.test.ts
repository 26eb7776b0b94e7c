import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { describe, expect, it } from "vitest"

// Bundlers choose the WebSocket transport through package.json `imports` conditions: `#umg/socket` is
// Node's `ws` by default and the browser's own WebSocket under `browser`; `umg-source` points both
// at the sources (tests, tsx, the example's build) and the rest at `dist/`.
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  imports: Record<string, Record<string, unknown>>
}

const inputsFor = async (
  platform: "node" | "browser",
  conditions: Array<string>,
  contents = `export { defaultSocketOpener } from "#umg/socket"`
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

describe("the #umg/socket import conditions", () => {
  it("resolve to the Node opener on Node and to the browser's WebSocket in browsers", async () => {
    expect(await inputsFor("node", ["umg-source"])).toContain("src/adapters/socket/NodeWebSocket.ts")
    const browser = await inputsFor("browser", ["umg-source"])
    expect(browser).toContain("src/adapters/socket/BrowserWebSocket.ts")
    expect(browser).not.toContain("src/adapters/socket/NodeWebSocket.ts")
  })

  it("point the published package at the compiled files of the same two modules", () => {
    const map = pkg.imports["#umg/socket"]!
    expect(map["browser"]).toBe("./dist/adapters/socket/BrowserWebSocket.js")
    expect(map["default"]).toBe("./dist/adapters/socket/NodeWebSocket.js")
    expect(map["umg-source"]).toEqual({
      browser: "./src/adapters/socket/BrowserWebSocket.ts",
      default: "./src/adapters/socket/NodeWebSocket.ts"
    })
  })
})

describe("the #umg/http import conditions", () => {
  const http = `export { defaultHttpClientLayer } from "#umg/http"`
  it("resolve to umg's node:http client on Node and to the fetch client in browsers, which never pulls node:http", async () => {
    expect(await inputsFor("node", ["umg-source"], http)).toContain("src/adapters/http/NodeHttpClient.ts")
    const browser = await inputsFor("browser", ["umg-source"], http)
    expect(browser).toContain("src/adapters/http/BrowserHttpClient.ts")
    expect(browser).not.toContain("src/adapters/http/NodeHttpClient.ts")
  })

  it("point the published package at the compiled files of the same two modules", () => {
    const map = pkg.imports["#umg/http"]!
    expect(map["browser"]).toBe("./dist/adapters/http/BrowserHttpClient.js")
    expect(map["default"]).toBe("./dist/adapters/http/NodeHttpClient.js")
    expect(map["umg-source"]).toEqual({
      browser: "./src/adapters/http/BrowserHttpClient.ts",
      default: "./src/adapters/http/NodeHttpClient.ts"
    })
  })
})

describe("the #umg/schema-jit import conditions", () => {
  const gateway = `export { Gateway } from "./src/adapters/Gateway.ts"`
  it("give the Gateway Effect's JIT compiler on Node and no compiler in browsers, whose bundle holds no code generator", async () => {
    expect(await inputsFor("node", ["umg-source"], gateway)).toContain("src/adapters/internal/SchemaJit.ts")
    const browser = await inputsFor("browser", ["umg-source"], gateway)
    expect(browser).toContain("src/adapters/internal/SchemaJitBrowser.ts")
    expect(browser).not.toContain("src/adapters/internal/SchemaJit.ts")
    // With effect bundled too: Effect's parser code generator (which runs `new Function`) is not in it.
    const whole = await build({
      stdin: { contents: gateway, resolveDir: root, loader: "ts" },
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      conditions: ["umg-source"],
      metafile: true,
      logLevel: "silent"
    })
    const inputs = Object.keys(whole.metafile.inputs)
    expect(inputs.some((input) => input.endsWith("effect/dist/SchemaParser.js"))).toBe(true)
    expect(inputs.filter((input) => /schema\/(SchemaJITCompiler|codegen)\.js$/.test(input))).toEqual([])
  })

  it("point the published package at the compiled files of the same two modules", () => {
    const map = pkg.imports["#umg/schema-jit"]!
    expect(map["browser"]).toBe("./dist/adapters/internal/SchemaJitBrowser.js")
    expect(map["default"]).toBe("./dist/adapters/internal/SchemaJit.js")
    expect(map["umg-source"]).toEqual({
      browser: "./src/adapters/internal/SchemaJitBrowser.ts",
      default: "./src/adapters/internal/SchemaJit.ts"
    })
  })
})

describe("the #umg/bytes import conditions", () => {
  const bytes = `export { platformByteText } from "#umg/bytes"`
  it("give the SSE parser Buffer#indexOf on Node and the core's portable search in browsers, which never pulls node:buffer", async () => {
    expect(await inputsFor("node", ["umg-source"], bytes)).toContain("src/adapters/sse/NodeByteText.ts")
    const browser = await inputsFor("browser", ["umg-source"], bytes)
    expect(browser).toContain("src/adapters/sse/BrowserByteText.ts")
    expect(browser).not.toContain("src/adapters/sse/NodeByteText.ts")
  })

  it("point the published package at the compiled files of the same two modules", () => {
    const map = pkg.imports["#umg/bytes"]!
    expect(map["browser"]).toBe("./dist/adapters/sse/BrowserByteText.js")
    expect(map["default"]).toBe("./dist/adapters/sse/NodeByteText.js")
    expect(map["umg-source"]).toEqual({
      browser: "./src/adapters/sse/BrowserByteText.ts",
      default: "./src/adapters/sse/NodeByteText.ts"
    })
  })
})
