import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { currentVideoTable, renderVideoModelTable, replaceVideoTable } from "../scripts/video-table.js"
import { makeVideoCatalog, videoModelIds } from "../src/core/video/VideoCatalog.js"

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "README.md"), "utf8")

describe("the README's video model table", () => {
  it("is the table generated from the catalog (run `npx tsx scripts/video-table.ts --write` after changing it)", () => {
    expect(currentVideoTable(readme)).toBe(renderVideoModelTable())
  })

  it("has a row per catalog model with its limits, and follows catalog changes", () => {
    const table = renderVideoModelTable()
    for (const id of videoModelIds()) expect(table).toContain(`| \`${id}\` |`)
    expect(table).toContain("| `delta-1-5-pro-251215` | delta | t2v, i2v | yes | yes | — | 4–12 | 480p, 720p |")
    expect(table).toContain("| `alpha-2` | alpha | t2v, i2v, v2v | yes | — | — | 4, 8, 12 | 720p | 16:9, 9:16 |")
    expect(renderVideoModelTable(makeVideoCatalog({ "beta-9": { durations: [8] } }))).toContain(
      "| `beta-9` | beta | t2v, i2v | yes | — | — | 8 |"
    )
  })

  it("is replaced only between its markers", () => {
    const doc = "intro\n<!-- video-models:start -->\nold\n<!-- video-models:end -->\noutro"
    expect(replaceVideoTable(doc, "NEW")).toBe(
      "intro\n<!-- video-models:start -->\nNEW\n<!-- video-models:end -->\noutro"
    )
    expect(() => replaceVideoTable("no markers", "x")).toThrow()
  })
})
