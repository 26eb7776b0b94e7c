/**
 * Builds the browser example into `examples/browser/dist/`: one minified ESM bundle with source maps
 * for the browser platform, plus the page and its style sheet.
 *
 * Run: `npx tsx examples/browser/build.ts`. The build fails when anything pulls a Node built-in
 * (esbuild refuses `node:*` and bare built-ins for the browser platform, and none is marked
 * external) or the Node `ws` package (the package.json `browser` map must have swapped
 * `NodeWebSocket.ts` for `BrowserWebSocket.ts`), so the page never ships Node polyfills.
 */
import { build, type Metafile } from "esbuild"
import { copyFile, mkdir, rm } from "node:fs/promises"
import { fileURLToPath } from "node:url"

/** What a build produced. */
export interface ExampleBuild {
  /** The folder holding `index.html`, `main.js`, `main.js.map` and `style.css`. */
  readonly outdir: string
  /** esbuild's account of every input and output. */
  readonly metafile: Metafile
  /** Bytes of the minified script. */
  readonly scriptBytes: number
}

const here = fileURLToPath(new URL(".", import.meta.url))

/** Inputs a page must never contain: the Node WebSocket and the `ws` package behind it. */
export const nodeOnlyInputs = (metafile: Metafile): ReadonlyArray<string> =>
  Object.keys(metafile.inputs).filter((path) => path.includes("node_modules/ws/") || path.endsWith("adapters/NodeWebSocket.ts"))

/** Bundles the example; rejects when the bundle would need anything of Node. */
export const buildExample = async (outdir: string = `${here}dist`): Promise<ExampleBuild> => {
  await rm(outdir, { recursive: true, force: true })
  await mkdir(outdir, { recursive: true })
  const result = await build({
    entryPoints: [`${here}main.ts`],
    outdir,
    bundle: true,
    format: "esm",
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
  await Promise.all([copyFile(`${here}index.html`, `${outdir}/index.html`), copyFile(`${here}style.css`, `${outdir}/style.css`)])
  const script = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith("main.js"))
  return { outdir, metafile: result.metafile, scriptBytes: script?.[1].bytes ?? 0 }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildExample()
  console.log(`built ${built.outdir} (main.js ${(built.scriptBytes / 1024).toFixed(1)} KiB minified)`)
}
