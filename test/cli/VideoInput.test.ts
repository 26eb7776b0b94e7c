import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { dryRunBody, shortenDataUrls, type VideoRequestOptions } from "../../src/cli/commands/video.js"

const dir = mkdtempSync(join(tmpdir(), "umg-video-input-"))
const png = join(dir, "frame.png")
writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]))

const request = (over: Partial<VideoRequestOptions>): VideoRequestOptions => ({
  model: "delta-1-5-pro-251215",
  prompt: Option.some("a fox"),
  duration: Option.none(),
  resolution: Option.none(),
  aspectRatio: Option.none(),
  image: Option.none(),
  lastFrame: Option.none(),
  reference: [],
  seed: Option.none(),
  ...over
})

describe("video options to a body", () => {
  it("sends a local image path as a data URL and a URL unchanged", async () => {
    const body = await Effect.runPromise(
      dryRunBody(request({ image: Option.some(png), lastFrame: Option.some("https://example.com/last.png") }))
    )
    const content = (
      body as unknown as { metadata: { content: Array<{ type: string; role?: string; image_url?: { url: string } }> } }
    ).metadata.content
    const images = content.filter((c) => c.type === "image_url")
    expect(images.map((i) => [i.role, i.image_url?.url])).toEqual([
      ["first_frame", `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString("base64")}`],
      ["last_frame", "https://example.com/last.png"]
    ])
  })

  it("refuses a missing image file as invalid input on the image field", async () => {
    const error = await Effect.runPromise(
      Effect.flip(dryRunBody(request({ image: Option.some(join(dir, "missing.png")) })))
    )
    expect(error).toMatchObject({ _tag: "InvalidRequest", field: "image", rule: "image-file" })
  })

  it("sends --duration as the number the flag parsed, which every family takes", async () => {
    const bodies = await Effect.runPromise(
      Effect.all(
        (
          [
            ["alpha-2", 8],
            ["beta-3.1-fast-generate-001", 8],
            ["gamma2.5-t2v-preview", 10],
            ["delta-1-5-pro-251215", 8]
          ] as const
        ).map(([model, seconds]) => dryRunBody(request({ model, duration: Option.some(seconds) })))
      )
    )
    expect(bodies.map((b) => JSON.stringify(b))).toEqual([
      expect.stringContaining('"seconds":"8"'),
      expect.stringContaining('"durationSeconds":8'),
      expect.stringContaining('"duration":10'),
      expect.stringContaining("--dur 8")
    ])
  })

  it("shortens long data URLs for display only", () => {
    const long = `data:image/png;base64,${"A".repeat(500)}`
    expect(shortenDataUrls({ a: [long, "x"] })).toEqual({ a: [`${long.slice(0, 64)}…(${long.length} chars)`, "x"] })
  })
})
