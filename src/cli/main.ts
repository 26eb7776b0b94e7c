#!/usr/bin/env node
/**
 * The `umg` command's entry: turns on Node's compile cache, then starts the program (`Program.ts`).
 * With the cache, a start after the first reads the compiled code of umg's and effect's modules
 * instead of compiling them again (Node's own cache folder; `NODE_DISABLE_COMPILE_CACHE=1` turns it
 * off), which is a good part of what a short command such as `umg batch status` costs.
 */
import { enableCompileCache } from "node:module"

// Before the program's modules are loaded: the cache covers only modules loaded after this call. A
// cache that cannot be kept (a read-only temporary folder) is only a slower start.
enableCompileCache()
await import("./Program.js")
