/**
 * `@effect/platform-node` is an optional peer dependency of umg: `umg/batch` imports without it, and
 * building a batch layer without it fails saying what to install. Its absence is simulated: each of
 * its modules the batch engine loads fails to load as Node fails for a package not installed.
 */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, expect, it, vi } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { Batch, BatchStoreError } from "../../src/batch/index.js"

// Hoisted with the mocks, which run before the imports above.
const { missing } = vi.hoisted(() => ({
  missing: () => {
    throw Object.assign(new Error("Cannot find package '@effect/platform-node' imported from umg"), {
      code: "ERR_MODULE_NOT_FOUND"
    })
  }
}))
vi.mock("@effect/platform-node/NodeCrypto", missing)
vi.mock("@effect/platform-node/NodeClusterSocket", missing)

const dir = mkdtempSync(join(tmpdir(), "umg-batch-peer-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it("imports umg/batch without @effect/platform-node; Batch.layer then fails saying what to install", async () => {
  // Reached here: the import above did not load the package.
  expect(typeof Batch.layer).toBe("function")
  const store = Batch.sqlite(join(dir, "peerless.db"))
  const layer = Batch.layer({ store }).pipe(
    Layer.provide(Gateway.layer({ baseUrl: "http://127.0.0.1:1", apiKey: "k" }))
  )
  const error = await Effect.runPromise(Effect.flip(Effect.provide(Effect.void, layer)))
  expect(error).toBeInstanceOf(BatchStoreError)
  expect(error.message).toContain(
    "Batch.layer needs the package @effect/platform-node: npm install @effect/platform-node"
  )
})
