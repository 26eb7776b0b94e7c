/**
 * What umg costs in a web page: the bundle of one chat-streaming use, beside the same use written
 * with the official OpenAI SDK, the official messages-style SDK and the Vercel AI SDK.
 *
 * Run: `npx tsx bench/bundle.bench.ts` (a few seconds; sizes do not depend on the machine).
 *
 * Each entry creates a client and streams one reply's text into a callback, the way a page would.
 * Every entry is bundled the same way with esbuild: ESM, split where the code imports on first use
 * (`splitting`, as Vite and Rollup do by default), `platform: "browser"` (so a Node built-in fails the
 * build instead of being polyfilled), tree-shaken, `NODE_ENV=production`. Sizes are of what the page
 * loads when it opens (the entry and the chunks it imports statically, `pageLoad`; each file gzipped
 * on its own, as a server sends it), with every chunk's total beside them. It prints the raw size
 * (bundled, not minified), the minified size and the minified+gzipped size (level 9), umg's ratio to
 * each other library and to the floor any Effect client pays (runtime, Stream, Schema, fetch client,
 * no umg), and what umg's minified bytes at start are made of, so a size regression can be traced to
 * the import that caused it.
 */
import { build, type Metafile } from "esbuild"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { pageLoad } from "../examples/browser/build.js"

const root = fileURLToPath(new URL("..", import.meta.url))

interface Entry {
  readonly name: string
  /** umg itself, a comparison SDK, or a reference point that is neither. */
  readonly role: "umg" | "sdk" | "reference"
  readonly code: string
}

// Every entry: create a client, stream one reply, hand each text piece to the page.
const entries: ReadonlyArray<Entry> = [
  {
    name: "umg (umg/rx + textDeltas)",
    role: "umg",
    code: `
      import { createGateway, textDeltas } from "umg/rx"
      export const run = (baseUrl, apiKey, onText) => {
        const gateway = createGateway({ baseUrl, apiKey })
        return gateway.messages
          .stream$({ model: "epsilon-sonnet-4-5", max_tokens: 512, messages: [{ role: "user", content: "Hello" }] })
          .pipe(textDeltas())
          .subscribe(onText)
      }`
  },
  {
    name: "umg (Effect: Gateway + Stream)",
    role: "umg",
    code: `
      import { Effect, Stream } from "effect"
      import { Gateway } from "umg"
      export const run = (baseUrl, apiKey, onText) =>
        Effect.runFork(
          Effect.flatMap(Gateway, (gateway) =>
            Stream.runForEach(
              gateway.messages.stream({ model: "epsilon-sonnet-4-5", max_tokens: 512, messages: [{ role: "user", content: "Hello" }] }),
              (event) => Effect.sync(() => {
                if (event.type === "content_block_delta" && event.delta.type === "text_delta") onText(event.delta.text)
              })
            )
          ).pipe(Effect.provide(Gateway.layer({ baseUrl, apiKey })))
        )`
  },
  {
    // What any Effect client of this shape pays before a line of umg: the runtime, Stream, Schema
    // and the fetch HttpClient, decoding each SSE line with a one-field schema.
    name: "floor: effect + platform, no umg",
    role: "reference",
    code: `
      import { Effect, Schema, Stream } from "effect"
      import { FetchHttpClient, HttpClient } from "effect/http"
      const Delta = Schema.fromJsonString(Schema.Struct({ text: Schema.String }))
      export const run = (baseUrl, apiKey, onText) =>
        Effect.runFork(
          Effect.flatMap(HttpClient.HttpClient, (client) =>
            client.post(baseUrl + "/v1/messages", { headers: { "x-api-key": apiKey } }).pipe(
              Effect.map((response) => Stream.splitLines(Stream.decodeText(response.stream))),
              Stream.unwrap,
              Stream.mapEffect((line) => Schema.decodeUnknownEffect(Delta)(line.slice(6))),
              Stream.runForEach((delta) => Effect.sync(() => onText(delta.text)))
            )
          ).pipe(Effect.provide(FetchHttpClient.layer))
        )`
  },
  {
    name: "openai (chat.completions stream)",
    role: "sdk",
    code: `
      import OpenAI from "openai"
      export const run = async (baseURL, apiKey, onText) => {
        const client = new OpenAI({ baseURL, apiKey, dangerouslyAllowBrowser: true })
        const stream = await client.chat.completions.create({ model: "gpt-4o", stream: true, messages: [{ role: "user", content: "Hello" }] })
        for await (const chunk of stream) onText(chunk.choices[0]?.delta?.content ?? "")
      }`
  },
  {
    name: "@anthropic-ai/sdk (messages stream)",
    role: "sdk",
    code: `
      import Anthropic from "@anthropic-ai/sdk"
      export const run = async (baseURL, apiKey, onText) => {
        const client = new Anthropic({ baseURL, apiKey, dangerouslyAllowBrowser: true })
        const stream = await client.messages.create({ model: "epsilon-sonnet-4-5", max_tokens: 512, stream: true, messages: [{ role: "user", content: "Hello" }] })
        for await (const event of stream)
          if (event.type === "content_block_delta" && event.delta.type === "text_delta") onText(event.delta.text)
      }`
  },
  {
    name: "ai + @ai-sdk/openai (streamText)",
    role: "sdk",
    code: `
      import { streamText } from "ai"
      import { createOpenAI } from "@ai-sdk/openai"
      export const run = async (baseURL, apiKey, onText) => {
        const openai = createOpenAI({ baseURL, apiKey })
        const result = streamText({ model: openai.chat("gpt-4o"), prompt: "Hello" })
        for await (const text of result.textStream) onText(text)
      }`
  }
]

interface Size {
  readonly name: string
  readonly role: Entry["role"]
  readonly bundled: number
  readonly minified: number
  readonly gzipped: number
  /** min+gzip of every chunk, those loaded on first use included. */
  readonly gzippedAll: number
  /** The outputs loaded at start (paths of `metafile.outputs`). */
  readonly initial: ReadonlyArray<string>
  readonly metafile: Metafile
  /** effect modules bundled whole: their namespace object is built (see `wholeModules`). */
  readonly whole: ReadonlyArray<string>
}

// umg is bundled from its sources (the same modules `dist/` compiles), so no build step is needed;
// the package.json `imports` map (`#umg/socket`, `browser` condition) picks the browser WebSocket, as for users.
const alias = { "umg/rx": `${root}src/streams/index.ts`, umg: `${root}src/index.ts` }

const bundle = async (entry: Entry, minify: boolean) => {
  const result = await build({
    stdin: { contents: entry.code, resolveDir: root, loader: "js", sourcefile: "entry.js" },
    bundle: true,
    // Resolve `#umg/socket` (package.json `imports`) to the sources; the platform condition picks the file.
    conditions: ["umg-source"],
    write: false,
    absWorkingDir: root,
    outdir: `${root}bench-out`,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify,
    treeShaking: true,
    metafile: true,
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    alias,
    logLevel: "silent"
  })
  const bytesOf = new Map(result.outputFiles.map((file) => [file.path, file.contents]))
  const contents = (path: string): Uint8Array => bytesOf.get(resolve(root, path)) ?? new Uint8Array()
  const start = Object.keys(result.metafile.outputs).find(
    (path) => result.metafile.outputs[path]?.entryPoint === "entry.js"
  )
  if (start === undefined) throw new Error(`no output for ${entry.name}`)
  const initial = pageLoad(result.metafile, start)
  const gzipped = (paths: ReadonlyArray<string>) =>
    paths.reduce((sum, path) => sum + gzipSync(contents(path), { level: 9 }).byteLength, 0)
  return {
    bytes: initial.reduce((sum, path) => sum + contents(path).byteLength, 0),
    text: initial.map((path) => new TextDecoder().decode(contents(path))).join("\n"),
    gzipped: gzipped(initial),
    gzippedAll: gzipped(Object.keys(result.metafile.outputs).filter((path) => !path.endsWith(".map"))),
    initial,
    metafile: result.metafile
  }
}

/**
 * The effect modules a bundle keeps whole. A value import from a barrel (`import { Schema } from
 * "effect"`, whose index does `export * as Schema`) makes esbuild build the module's namespace
 * object, which holds every export and so everything they reach (Schema alone pulls JSON Schema
 * generation, crypto, network addresses); `import * as Schema from "effect/Schema"` lets it keep
 * only what is used. Read from the unminified bundle, where each namespace is `var X_exports = {}`
 * under its file's `// path` comment.
 */
const wholeModules = (code: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  let file = ""
  for (const line of code.split("\n")) {
    if (line.startsWith("// ")) file = line.slice(3)
    else if (/^var \w+_exports = \{\};$/.test(line) && file.includes("node_modules/effect/dist/"))
      found.push(file.replace(/.*node_modules\/effect\/dist\//, "").replace(/\.js$/, ""))
  }
  return found
}

const measure = async (entry: Entry): Promise<Size | string> => {
  try {
    const plain = await bundle(entry, false)
    const min = await bundle(entry, true)
    const nodeWs = Object.keys(min.metafile.inputs).filter((p) => p.includes("node_modules/ws/"))
    if (nodeWs.length > 0) return `pulls the Node ws package (${nodeWs[0]})`
    return {
      name: entry.name,
      role: entry.role,
      bundled: plain.bytes,
      minified: min.bytes,
      gzipped: min.gzipped,
      gzippedAll: min.gzippedAll,
      initial: min.initial,
      metafile: min.metafile,
      whole: wholeModules(plain.text)
    }
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error)
    return `build failed: ${message}`
  }
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KiB`
const pad = (s: string, n: number): string => s.padEnd(n)
const lpad = (s: string, n: number): string => s.padStart(n)

const results = await Promise.all(entries.map(async (e) => ({ entry: e, size: await measure(e) })))

console.log(
  "Chat-streaming use, bundled by esbuild for the browser (ESM, tree-shaken, split); what the page loads at start\n"
)
console.log(
  `${pad("library", 36)}${lpad("raw", 12)}${lpad("minified", 12)}${lpad("min+gzip", 12)}${lpad("all chunks", 12)}`
)
for (const { entry, size } of results) {
  if (typeof size === "string") console.log(`${pad(entry.name, 36)}  ${size}`)
  else
    console.log(
      `${pad(size.name, 36)}${lpad(kb(size.bundled), 12)}${lpad(kb(size.minified), 12)}${lpad(kb(size.gzipped), 12)}${lpad(kb(size.gzippedAll), 12)}`
    )
}

const ok = results.flatMap((r) => (typeof r.size === "string" ? [] : [r.size]))
const umgSizes = ok.filter((s) => s.role === "umg")
const others = ok.filter((s) => s.role !== "umg")
for (const umg of umgSizes) {
  console.log(`\n${umg.name}: ratio of min+gzip size to each (below 1 = smaller)`)
  for (const other of others) console.log(`  vs ${pad(other.name, 36)} ${(umg.gzipped / other.gzipped).toFixed(2)}×`)
}

/** The part of the page an input belongs to. */
const partOf = (path: string): string => {
  if (
    path.includes("node_modules/effect/node_modules/fast-check/") ||
    path.includes("node_modules/effect/node_modules/pure-rand/")
  )
    return "fast-check (imported by effect/Schema)"
  if (/node_modules\/effect\/dist\/(Schema\w*|internal\/schema\/.*)\.js$/.test(path)) return "effect Schema"
  if (
    /node_modules\/effect\/dist\/(internal\/(stream|channel|sink|pubsub)|Stream|Channel|Sink|Pull|Queue|PubSub)\.js$/.test(
      path
    )
  )
    return "effect Stream"
  if (path.includes("node_modules/effect/dist/http/")) return "effect/http (HttpClient, fetch)"
  if (path.includes("node_modules/effect/")) return "effect runtime (Effect, Layer, Fiber, …)"
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)
  if (pkg !== null) return pkg[1] ?? path
  const layer = /src\/([^/]+)\//.exec(path)
  return layer === null ? path : `umg src/${layer[1] ?? ""}`
}

// Where umg's bytes come from, from esbuild's per-input output bytes.
for (const umg of umgSizes) {
  const byPart = new Map<string, number>()
  for (const output of umg.initial.flatMap((path) => umg.metafile.outputs[path] ?? [])) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs))
      byPart.set(partOf(path), (byPart.get(partOf(path)) ?? 0) + bytesInOutput)
  }
  console.log(
    `\n${umg.name}: effect modules bundled whole (namespace objects built; see wholeModules): ${umg.whole.length === 0 ? "none" : umg.whole.join(", ")}`
  )
  console.log(`\n${umg.name}: where the minified bytes loaded at start come from`)
  for (const [part, bytes] of [...byPart.entries()].sort((a, b) => b[1] - a[1]))
    console.log(`  ${pad(part, 44)}${lpad(kb(bytes), 10)}`)
}
