/**
 * Renders the README's table of video models and their limits from the catalog, so that it cannot
 * drift. `npx tsx scripts/video-table.ts` prints it; `--write` rewrites the README block between
 * `<!-- video-models:start -->` and `<!-- video-models:end -->`.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect } from "effect"
import {
  defaultVideoCatalog,
  lookupVideoModel,
  type VideoCatalog,
  type VideoFamily,
  type VideoModelLimits,
  videoModelIds
} from "../src/core/video/VideoCatalog.js"

/** The README markers around the generated block. */
export const videoTableMarkers = { start: "<!-- video-models:start -->", end: "<!-- video-models:end -->" } as const

/** `4, 5, 6, 7` → `4–7`; other lists stay as they are. */
const durations = (ds: ReadonlyArray<number>): string => {
  const contiguous = ds.length >= 3 && ds.every((d, i) => i === 0 || d === ds[i - 1]! + 1)
  return contiguous ? `${ds[0]}–${ds[ds.length - 1]}` : ds.join(", ")
}
const yes = (b: boolean) => (b ? "yes" : "—")
const list = (xs: ReadonlyArray<string>, none = "—") => (xs.length === 0 ? none : xs.join(", "))

const row = (name: string, m: VideoModelLimits): string =>
  `| ${name} | ${m.family} | ${m.modes.join(", ")} | ${yes(m.firstFrame)} | ${yes(m.firstLastFrame)} | ${yes(m.referenceImages)} | ${durations(m.durations)} | ${list(m.resolutions)} | ${list(m.aspectRatios, "from image")} | ${m.audio} | ${m.notes ?? ""} |`

const header = [
  "| Model | Family | Modes | First frame | First/last frame | Reference images | Durations (s) | Resolutions | Aspect ratios | Audio | Notes |",
  "|---|---|---|---|---|---|---|---|---|---|---|"
]

/** The markdown table of every catalog model, then the limits an unlisted id of each family gets. */
export const renderVideoModelTable = (catalog: VideoCatalog = defaultVideoCatalog): string => {
  const models = videoModelIds(catalog).map((id) => row(`\`${id}\``, Effect.runSync(lookupVideoModel(id, catalog))))
  const families: ReadonlyArray<[VideoFamily, string]> = [
    ["alpha", "alpha-*"],
    ["beta", "beta-*"],
    ["gamma", "gamma*"],
    ["delta", "delta-*"]
  ]
  const defaults = families.map(([f, prefix]) => row(`other \`${prefix}\``, catalog.defaults[f]))
  return [...header, ...models, ...defaults].join("\n")
}

/** Replaces the block between the markers of `readme` with `table`. */
export const replaceVideoTable = (readme: string, table: string): string => {
  const start = readme.indexOf(videoTableMarkers.start)
  const end = readme.indexOf(videoTableMarkers.end)
  if (start === -1 || end < start) throw new Error("README.md has no video-models markers")
  return `${readme.slice(0, start + videoTableMarkers.start.length)}\n${table}\n${readme.slice(end)}`
}

/** The block between the markers, without the surrounding newlines. */
export const currentVideoTable = (readme: string): string | undefined => {
  const start = readme.indexOf(videoTableMarkers.start)
  const end = readme.indexOf(videoTableMarkers.end)
  return start === -1 || end < start ? undefined : readme.slice(start + videoTableMarkers.start.length, end).trim()
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href
if (isMain) {
  const table = renderVideoModelTable()
  if (process.argv.includes("--write")) {
    const readmePath = join(dirname(fileURLToPath(import.meta.url)), "..", "README.md")
    writeFileSync(readmePath, replaceVideoTable(readFileSync(readmePath, "utf8"), table))
    console.log(`wrote the video model table to ${readmePath}`)
  } else console.log(table)
}
