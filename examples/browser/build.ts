/**
 * Builds the browser example into `examples/browser/dist/`: minified ESM with source maps for the
 * browser platform, split where the code imports on first use, plus the page and its style sheet;
 * `--serve` then serves it.
 *
 * Run: `npx tsx examples/browser/build.ts [--serve [port]]`, with an emulator running
 * (`npm run emulator -- --port 8787`), and open the printed address. The build fails when anything pulls a Node built-in
 * (esbuild refuses `node:*` and bare built-ins for the browser platform, and none is marked
 * external) or the Node `ws` package (the package.json `imports` `#umg/socket` browser condition must have swapped
 * `NodeWebSocket.ts` for `BrowserWebSocket.ts`), so the page never ships Node polyfills.
 * esbuild only strips types, so `typecheckExample` checks `main.ts` with its own tsconfig (DOM, no
 * Node types); the browser test runs it.
 */
import { build, type Metafile } from "esbuild"
import { execFile } from "node:child_process"
import { copyFile, mkdir, readFile, rm } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

/** What a build produced. */
export interface ExampleBuild {
  /** The folder holding `index.html`, `main.js`, the chunks it imports, their maps and `style.css`. */
  readonly outdir: string
  /** esbuild's account of every input and output. */
  readonly metafile: Metafile
  /** The scripts the page loads when it opens: `main.js` and the chunks it imports (`pageLoad`). */
  readonly initial: ReadonlyArray<string>
  /** Bytes of those scripts, minified. */
  readonly scriptBytes: number
}

const here = fileURLToPath(new URL(".", import.meta.url))

/** Inputs a page must never contain: the Node WebSocket and the `ws` package behind it. */
export const nodeOnlyInputs = (metafile: Metafile): ReadonlyArray<string> =>
  Object.keys(metafile.inputs).filter(
    (path) => path.includes("node_modules/ws/") || path.endsWith("adapters/socket/NodeWebSocket.ts")
  )

/**
 * The outputs a page loads when it opens `entry` (an output path of `metafile`): the entry and the chunks
 * it imports, statically, all the way down; chunks reached only by `import()` load on first use.
 */
export const pageLoad = (metafile: Metafile, entry: string): ReadonlyArray<string> => {
  const loaded = new Set<string>()
  const visit = (path: string): void => {
    if (loaded.has(path)) return
    loaded.add(path)
    for (const imported of metafile.outputs[path]?.imports ?? [])
      if (imported.kind === "import-statement") visit(imported.path)
  }
  visit(entry)
  return [...loaded]
}

/** Bundles the example; rejects when the bundle would need anything of Node. */
export const buildExample = async (outdir: string = `${here}dist`): Promise<ExampleBuild> => {
  await rm(outdir, { recursive: true, force: true })
  await mkdir(outdir, { recursive: true })
  const result = await build({
    entryPoints: [`${here}main.ts`],
    outdir,
    bundle: true,
    // Resolve `#umg/socket` (package.json `imports`) to the sources; the platform condition picks the file.
    conditions: ["umg-source"],
    format: "esm",
    // What the code imports on first use (umg's video and realtime groups, say) goes in chunks of its own.
    splitting: true,
    platform: "browser",
    target: ["chrome120", "firefox120", "safari17"],
    minify: true,
    sourcemap: true,
    metafile: true,
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent"
  })
  const nodeOnly = nodeOnlyInputs(result.metafile)
  if (nodeOnly.length > 0) throw new Error(`the browser bundle pulls Node-only modules: ${nodeOnly.join(", ")}`)
  await Promise.all([
    copyFile(`${here}index.html`, `${outdir}/index.html`),
    copyFile(`${here}style.css`, `${outdir}/style.css`)
  ])
  const main = Object.keys(result.metafile.outputs).find((path) => path.endsWith("/main.js"))
  if (main === undefined) throw new Error("the build wrote no main.js")
  const initial = pageLoad(result.metafile, main)
  const scriptBytes = initial.reduce((sum, path) => sum + (result.metafile.outputs[path]?.bytes ?? 0), 0)
  return { outdir, metafile: result.metafile, initial, scriptBytes }
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  map: "application/json",
  css: "text/css; charset=utf-8"
}

/** Serves the files of `dir` (flat, no sub-folders) on loopback; `port` 0 picks a free one. */
export const serveExample = async (
  dir: string,
  port = 0
): Promise<{ readonly server: Server; readonly url: string }> => {
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? "/", "http://page.local").pathname.slice(1) || "index.html"
    // Only plain file names of the folder: no path can leave it.
    if (!/^[\w.-]+$/.test(name) || name.startsWith(".")) return void res.writeHead(404).end()
    readFile(`${dir}/${name}`).then(
      (body) =>
        res
          .writeHead(200, { "content-type": CONTENT_TYPES[name.split(".").pop() ?? ""] ?? "application/octet-stream" })
          .end(body),
      () => res.writeHead(404).end()
    )
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the example server has no port")
  return { server, url: `http://127.0.0.1:${address.port}` }
}

/** Type-checks the page's script; resolves to tsc's report, empty when there is no error. */
export const typecheckExample = (): Promise<string> =>
  new Promise((resolve) => {
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    execFile(
      process.execPath,
      [tsc, "-p", `${here}tsconfig.json`, "--pretty", "false"],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve(error === null ? "" : `${stdout}${stderr}`.trim() || String(error))
    )
  })

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [built, report] = await Promise.all([buildExample(), typecheckExample()])
  console.log(
    `built ${built.outdir} (main.js and ${built.initial.length - 1} chunks at start: ${(built.scriptBytes / 1024).toFixed(1)} KiB minified)`
  )
  if (report !== "") {
    console.error(report)
    process.exit(1)
  }
  const serve = process.argv.indexOf("--serve")
  if (serve >= 0) {
    const { url } = await serveExample(built.outdir, Number(process.argv[serve + 1] ?? "5173") || 5173)
    console.log(`open ${url}/?gateway=http://127.0.0.1:8787&key=umg-emulator-key (Ctrl-C stops)`)
  }
}
