/**
 * The heap bound of `umg batch video` and `umg batch worker` (`BatchMemory.boundBatchHeap`) holds in
 * a real V8: under an allocation that makes V8 grow its young generation to its limit (many objects
 * made, many of them surviving a collection, the event loop turning as a batch's does), the young
 * generation of a process that bounded its heap stops at 32 MB, where the same work in a process
 * that did not goes past it. Each in its own Node process: the bound is a V8 flag of the process.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { youngGenerationBytes } from "../../src/cli/support/BatchMemory.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")
const dir = mkdtempSync(join(tmpdir(), "umg-batch-memory-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Allocates in small steps with the event loop turning between them, 300,000 objects alive at once;
// prints the largest size a collection left the young generation (V8's `new_space`) at. That is the
// size V8 settles on; between collections it may add a few pages while it allocates (up to 58.5 MiB
// was seen once, under a loaded machine), and those go at the next collection.
const work = `
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapSpaceStatistics } from "node:v8"
const { boundBatchHeap } = await import(${JSON.stringify(pathToFileURL(join(root, "src", "cli", "support", "BatchMemory.ts")).href)})
if (process.argv.includes("bound")) boundBatchHeap()
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0
let largest = 0
new PerformanceObserver(() => (largest = Math.max(largest, newSpace()))).observe({ entryTypes: ["gc"] })
const alive = new Array(300_000)
let made = 0
for (let step = 0; step < 2_000; step++) {
  for (let k = 0; k < 5_000; k++) alive[made++ % alive.length] = { line: made, task: [made, made + 1], state: "s" + (made % 1000) }
  await new Promise((turn) => setImmediate(turn))
}
console.log(largest)
`

const largestYoungGeneration = (bound: boolean) =>
  new Promise<number>((done, reject) => {
    const script = join(dir, "work.mts")
    writeFileSync(script, work)
    const child = spawn(process.execPath, ["--import", "tsx", script, ...(bound ? ["bound"] : [])], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
    child.on("error", reject)
    child.on("close", (code) => (code === 0 ? done(Number(out.trim())) : reject(new Error(`exit ${code}`))))
  })

describe("the heap bound of a batch process", () => {
  it("stops the young generation at 32 MB, where V8 grows it further for the same work", async () => {
    const [free, bounded] = [await largestYoungGeneration(false), await largestYoungGeneration(true)]
    // The work is one V8 grows the young generation for: well past the bound without it (to 128 MiB,
    // doubling), 32 MiB with it, as collections leave it (runs on 29 November: 32 and 128, idle or
    // loaded). A collection's observer may run a step of allocation late, hence the margin.
    expect(free).toBeGreaterThan(youngGenerationBytes * 1.5)
    expect(bounded).toBeLessThanOrEqual(youngGenerationBytes * 1.25)
    expect(bounded).toBeGreaterThan(youngGenerationBytes / 2)
  }, 120_000)
})
