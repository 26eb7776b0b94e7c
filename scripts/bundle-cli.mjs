/**
 * Bundles the `umg` bin: `dist/cli/main.js` (tsc's build) and everything it loads, effect included,
 * into `dist/bin/` — the entry and one chunk per command implementation, still loaded only when the
 * command runs (`node scripts/bundle-cli.mjs [DIST]` for a build elsewhere than `dist/`). A command then loads a few dozen files instead of about a thousand modules, which is
 * most of what a short command such as `umg batch status` or `umg --version` costs (Node resolves and
 * reads every module of an unbundled tree at start). The library's entry points are not bundled: an
 * app imports them with its own `effect`. Run by `npm run build` after tsc.
 */
import { build } from "esbuild"
import { rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** How the bin is bundled, but for its entry and folder; the CLI tests bundle the sources the same way (test/cli/RunUmg.ts). */
export const binOptions = {
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node22",
  chunkNames: "chunks/[name]-[hash]",
  // Optional native add-ons some dependencies try to load (and go on without).
  external: ["bufferutil", "utf-8-validate", "pg-native"],
  // CommonJS dependencies inside an ES module bundle call `require` for Node's own modules.
  banner: {
    js: 'import { createRequire as umgCreateRequire } from "node:module"\nconst require = umgCreateRequire(import.meta.url)'
  },
  logLevel: "error"
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..")
  const dist = process.argv[2] ?? join(root, "dist")
  const outdir = join(dist, "bin")
  rmSync(outdir, { recursive: true, force: true })
  await build({ ...binOptions, entryPoints: { umg: join(dist, "cli", "main.js") }, outdir })
}
