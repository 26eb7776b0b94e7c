#!/usr/bin/env node
/**
 * The `umg` command's entry: refuses a Node older than `engines` says, turns on Node's compile cache,
 * then starts the program (`Program.ts`). With the cache, a start after the first reads the compiled
 * code of umg's and effect's modules instead of compiling them again (Node's own cache folder;
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off), which is a good part of what a short command such as
 * `umg batch status` costs. It also keeps Node 22's warning that `node:sqlite` is experimental off
 * stderr.
 */
// A namespace import, not `import { enableCompileCache }`: an older Node that lacks the export must
// reach the version check below instead of failing to link this file with a SyntaxError.
import * as NodeModule from "node:module"

// As `engines` in package.json says.
const minimum = [22, 19] as const
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < minimum[0] || (major === minimum[0] && minor < minimum[1])) {
  process.stderr.write(`umg needs Node >= ${minimum.join(".")} (this is ${process.version})\n`)
  // 2, as for a command line umg refuses before doing anything.
  process.exit(2)
}

// Node 22 calls `node:sqlite` experimental on stderr the first time a command opens a batch store
// (Node 24 does not): a note about umg's own store, nothing for the user to act on, in the middle of
// the command's output. That one warning is dropped; every other warning is printed as before.
const emitWarning = process.emitWarning.bind(process)
process.emitWarning = ((warning: string | Error, ...rest: Array<never>) => {
  if ((typeof warning === "string" ? warning : warning.message).startsWith("SQLite is an experimental feature")) return
  emitWarning(warning, ...rest)
}) as typeof process.emitWarning

// Before the program's modules are loaded: the cache covers only modules loaded after this call. A
// cache that cannot be kept (a read-only temporary folder) is only a slower start.
NodeModule.enableCompileCache()
await import("./Program.js")
