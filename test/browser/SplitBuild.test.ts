/**
 * umg/rx built for browsers and split the way a page's bundler splits it (esbuild, `splitting`), then run
 * on Node 24, which has the browser's `fetch` and `WebSocket`, against the emulator: the page's first
 * chunks hold no deferred group, and each deferred group (structured output, the tool loop, video,
 * realtime, live) works when its chunk is imported on its first call.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { build, type Metafile } from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as z from "zod"
import { pageLoad } from "../../examples/browser/build.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import type * as Rx from "../../src/streams/index.js"

// The page: umg/rx and the rxjs it is used with, from the build (a copy of effect and rxjs of its own).
const PAGE = `
  export { createGateway, textDeltas, tool } from "umg/rx"
  export { lastValueFrom, firstValueFrom, toArray, filter, switchMap } from "rxjs"
`
interface Page {
  readonly createGateway: typeof Rx.createGateway
  readonly textDeltas: typeof Rx.textDeltas
  readonly tool: typeof Rx.tool
  readonly lastValueFrom: typeof import("rxjs").lastValueFrom
  readonly firstValueFrom: typeof import("rxjs").firstValueFrom
  readonly toArray: typeof import("rxjs").toArray
  readonly filter: typeof import("rxjs").filter
  readonly switchMap: typeof import("rxjs").switchMap
}

let emulator: Emulator
let outdir: string
let metafile: Metafile
let page: Page
let gateway: Rx.RxGateway

beforeAll(async () => {
  emulator = await startEmulator({ fast: true })
  outdir = await mkdtemp(join(tmpdir(), "umg-split-"))
  const root = resolve(".")
  const result = await build({
    stdin: { contents: PAGE, resolveDir: root, loader: "js", sourcefile: "page.js" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    conditions: ["umg-source"],
    alias: { "umg/rx": `${root}/src/streams/index.ts` },
    outdir,
    metafile: true,
    logLevel: "silent"
  })
  metafile = result.metafile
  const entry = Object.keys(metafile.outputs).find((path) => metafile.outputs[path]?.entryPoint === "page.js")
  page = (await import(pathToFileURL(resolve(entry ?? "missing")).href)) as Page
  gateway = page.createGateway({ baseUrl: emulator.url, apiKey: emulator.apiKey, minPollIntervalMs: 0 })
}, 60_000)

afterAll(async () => {
  await gateway.dispose()
  await emulator.close()
  await rm(outdir, { recursive: true, force: true })
})

const EPSILON = "epsilon-sonnet-4-5-20250929"

describe("umg/rx split for a page, run on Node", () => {
  it("opens with no deferred group's code; each is in a chunk of its own", () => {
    const entry = Object.keys(metafile.outputs).find((path) => metafile.outputs[path]?.entryPoint === "page.js")!
    const atStart = new Set(pageLoad(metafile, entry).flatMap((path) => Object.keys(metafile.outputs[path]!.inputs)))
    const deferred = Object.values(metafile.outputs).flatMap((output) => output.entryPoint ?? [])
    expect(deferred.sort()).toEqual(
      [
        "page.js",
        "src/adapters/groups/Live.ts",
        "src/adapters/groups/Realtime.ts",
        "src/adapters/groups/TextHelpers.ts",
        "src/adapters/groups/Video.ts"
      ].sort()
    )
    expect(deferred.filter((input) => input !== "page.js" && atStart.has(input))).toEqual([])
    expect(atStart.has("src/adapters/groups/Messages.ts")).toBe(true)
  })

  it("streams text, with nothing deferred", async () => {
    const text = await page.lastValueFrom(
      gateway.messages
        .stream$({ model: EPSILON, max_tokens: 64, messages: [{ role: "user", content: "Hello" }] })
        .pipe(page.textDeltas(), page.toArray())
    )
    expect(text.join("").length).toBeGreaterThan(0)
  })

  it("parses structured output, two first calls sharing the helpers' import", async () => {
    const City = z.object({ city: z.string(), celsius: z.number() })
    const body = { model: EPSILON, max_tokens: 256, messages: [{ role: "user" as const, content: "Oslo weather" }] }
    const [a, b] = await Promise.all([
      page.lastValueFrom(gateway.messages.parse$(body, City)),
      page.lastValueFrom(gateway.chat.parse$({ model: "gpt-4o-mini", messages: body.messages }, City))
    ])
    expect(City.safeParse(a.value).success).toBe(true)
    expect(City.safeParse(b.value).success).toBe(true)
  })

  it("runs a tool loop to its final answer", async () => {
    const weather = page.tool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: z.object({ city: z.string() }),
      handler: ({ city }) => ({ city, celsius: 12 })
    })
    const steps = await page.lastValueFrom(
      gateway.chat
        .runTools$(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "Use get_weather for Oslo." }] },
          { tools: [weather] }
        )
        .pipe(page.toArray())
    )
    expect(steps.some((step) => step._tag === "ToolResult")).toBe(true)
    expect(steps.at(-1)?._tag).toBe("Done")
  })

  it("follows a video task to succeeded", async () => {
    const events = await page.lastValueFrom(
      gateway.video
        .generate$({ model: "beta-3.1-fast-generate-001", prompt: "A paper boat" }, { intervalMs: 20 })
        .pipe(page.toArray())
    )
    expect(events.at(-1)).toMatchObject({ type: "done" })
  })

  it("opens realtime and live sessions", async () => {
    // The session lives while its subscription does: read it inside the subscription to connect$.
    const created = await page.firstValueFrom(
      gateway.realtime.connect$("gpt-realtime").pipe(page.switchMap((session) => session.events$))
    )
    expect(created.type).toBe("session.created")
    const open = await page.firstValueFrom(
      gateway.live.connect$("zeta-live-2.5-flash-native-audio").pipe(
        page.switchMap((session) => session.state$),
        page.filter((state) => state.status === "open")
      )
    )
    expect(open.status).toBe("open")
  })
})
