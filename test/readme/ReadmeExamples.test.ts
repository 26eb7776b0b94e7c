/**
 * Runs every TypeScript sample of the README and of docs/ against the emulator, as a reader would run it: each
 * sample is its own program (`node --conditions=umg-source --import tsx`), `umg`, `umg/rx`,
 * `umg/batch`… resolving to this package's sources, with `UMG_*` pointing at an emulator. A sample
 * marked `<!-- fragment: … -->` just above its fence (one that needs a browser page) is only
 * compiled (test/Readme.test.ts); every other one must exit 0, print something, log no error and
 * print what its section promises. And every call of the `Gateway` service has a runnable sample.
 * So the README cannot rot.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { documents } from "./documents.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")
// tsx's loader by URL: the samples run from folders of their own, where `tsx` would not resolve.
const tsxLoader = pathToFileURL(join(root, "node_modules", "tsx", "dist", "loader.mjs")).href

/** One ts sample of a markdown text: its page, its code, whether it runs (not marked a fragment), its line and section. */
export interface Sample {
  /** The page it is on, from the package root (`README.md`, `docs/examples.md`). */
  readonly page: string
  readonly code: string
  readonly runnable: boolean
  readonly line: number
  /** The text of the nearest heading above it. */
  readonly heading: string
}

/** A page's ts samples, each with whether it is runnable (not marked as a fragment), its line and heading. */
export const samplesWithMarks = (markdown: string, page = "README.md"): Array<Sample> =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => {
    const before = markdown.slice(0, m.index)
    const last = before.trimEnd().split("\n").at(-1) ?? ""
    // Headings outside fences only: a `# comment` line of a sh sample is not one.
    const outside = before.replace(/^```[\s\S]*?^```$/gm, "")
    const heading = [...outside.matchAll(/^#{1,6} (.+)$/gm)].at(-1)?.[1] ?? ""
    return { page, code: m[1]!, runnable: !/^<!-- fragment\b/.test(last), line: before.split("\n").length, heading }
  })

/** The samples of the README and of every page of docs/, in that order. */
const allSamples = (): Array<Sample> => documents().flatMap((doc) => samplesWithMarks(doc.markdown, doc.path))

/**
 * What the samples of a section must print (all of that section's stdout together), by the
 * section's heading on whichever page it is. A section not listed still has to exit 0, print
 * something and log no error; a listed one must exist.
 */
const expectations: Record<string, ReadonlyArray<RegExp>> = {
  "Quick start: an Effect pipeline": [/\w+ \w+/],
  "Quick start: a batch script": [/^3 vectors of 1536 dimensions$/m],
  Models: [/^\d+ models, e\.g\. \S+, \S+, \S+$/m],
  "Messages: create, stream and count tokens": [
    /^end_turn: \S/m,
    /^usage: [1-9]\d* in, [1-9]\d* out$/m,
    /^with the image: [1-9]\d{3} input tokens$/m,
    /^streamed [1-9]\d* events; [1-9]\d* tokens, stop: end_turn$/m
  ],
  "Messages: tools, thinking and prompt caching": [
    /^tool_use get_weather\(\{"city":"[^"]+"\}\)$/m,
    /^end_turn The tool returned: 12 °C and windy in /m,
    /^thinking: \S/m,
    /^answer: \S/m,
    /^cache written [1-9]\d*, read 0$/m,
    /^cache written 0, read [1-9]\d*$/m
  ],
  "Native content: text, a stream, an image": [
    /^[1-9]\d* prompt tokens, [1-9]\d* thinking tokens$/m,
    /^image: image\/png, [1-9]\d* bytes$/m
  ],
  "Chat completions and responses": [/^chat: \S/m, /^responses: completed$/m],
  "Embeddings and rerank": [/^dimensions: 256$/m, /^vectors: 3$/m, /^\d: [01]\.\d{3}, \d: [01]\.\d{3}$/m],
  "Speech and images": [
    /^speech: [1-9]\d* bytes of audio\/wav$/m,
    /^streamed speech: [1-9]\d* bytes$/m,
    /^image: [1-9]\d* bytes$/m
  ],
  "Video: generate, or submit and follow": [
    /^delta body: \{.*--dur 5/m,
    /^succeeded https?:\/\/\S+\.mp4$/m,
    /^alpha video video_\w+: [1-9]\d* bytes$/m,
    /^streamed: the same bytes$/m,
    /^succeeded after \d+ polls$/m,
    /^first: https?:\/\/\S+\.mp4$/m,
    /^succeeded, succeeded$/m
  ],
  "Realtime and live sessions (WebSocket)": [/^realtime: [1-9]\d* events$/m, /^live: [1-9]\d* messages$/m],
  "Platform endpoints": [
    /^text to video: \S+$/m,
    /^any shoot: https?:\/\/\S+$/m,
    /^any shoot, advanced mode: task \S+$/m
  ],
  "The same on `umg/rx`": [/^\d+ models$/m, /^2 ranked$/m],
  "More on `umg/rx`: tool calls, video progress, a realtime session": [
    /^get_weather\(\{"city":"[^"]+"\}\)$/m,
    /^submitted video_\w+$/m,
    /^succeeded after \d+ polls$/m,
    /^video at https?:\/\/\S+\.mp4$/m,
    /^alpha video: [1-9]\d* bytes streamed$/m,
    /^realtime: [1-9]\d* events, the last response\.done$/m
  ],
  "Examples per family": [
    /seconds: '8'/,
    /lastFrame: 'https:\/\/example\.com\/last\.png'/,
    /size: '1080\*1920'/,
    /role: 'first_frame'/
  ],
  "Closed bodies, `extra` and unknown models": [/did you mean `temperature`\?/, /user_tag: 't1'/],
  Tracing: [/'umg\.models\.list'/],
  "The emulator": [/^http:\/\/127\.0\.0\.1:\d+ \S+ \S+$/m],
  "Structured output and tools": [
    /^3 steps; report: \S[\s\S]*^3 steps; report: \S/m,
    /^get_time interrupted$/m,
    /^get_time aborted$/m
  ],
  "Structured output: `parse` and `parseStream`": [
    ...["chat", "responses", "native", "messages"].map(
      (f) => new RegExp(`^${f}: [^,]+, ([1-9]|1[0-4]) days, \\d+ tags$`, "m")
    ),
    /^zod: (yes|no)$/m,
    ...["chat", "responses", "native", "messages"].map(
      (f) => new RegExp(`^${f}: [1-9]\\d* partial values, then .+ for ([1-9]|1[0-4]) days$`, "m")
    )
  ],
  "Tools: `runTools`": [
    ...["messages", "responses", "native"].map(
      (f) => new RegExp(`^${f}: ModelTurn → ToolCall → ToolResult → ModelTurn → Done$`, "m")
    ),
    /^arguments in ([2-9]|[1-9]\d+) deltas; get_weather\(\{"city":"[^"]+"\}\), done: true$/m
  ],
  "Per-call options": [
    /^answered: stop$/m,
    /^status 200, request id present, chat\.completion$/m,
    /^aborted \(openai\)$/m
  ],
  "Using umg from the AI SDK and from Effect AI": [
    /^epsilon-sonnet-4-5-20250929: [1-9]\d* pieces, stop$/m,
    /^zeta-2\.5-flash: [1-9]\d* pieces, stop$/m,
    /^gpt-4o: stop$/m
  ],
  "Using umg from the AI SDK": [
    ...["messages", "chat", "responses", "native"].map(
      (f) => new RegExp(`^${f}: stop, [1-9]\\d* words; streamed in [1-9]\\d* pieces$`, "m")
    ),
    /^tools: tool-calls → stop$/m,
    /^fallback: gpt-4o answered "/m,
    /^embeddings: 3 × 1536$/m
  ],
  "Using umg from Effect AI": [
    /^epsilon-sonnet-4-5-20250929: stop, [1-9]\d* tokens; .+; [1-9]\d* deltas$/m,
    /^agent: tool-calls → stop: /m,
    /^plan: gpt-4o answered: /m
  ],
  "The official SDKs against the emulator": [/^chat: stop$/m, /^messages-style: end_turn$/m, /^native content: STOP$/m],
  "Testing an AI SDK app against the emulator": [
    ...["messages-style", "chat", "responses", "native content"].map(
      (f) => new RegExp(`^${f}: [1-9]\\d* words; tool-calls → stop; shade \\d+$`, "m")
    ),
    /^chat after a 429: 1 refused, then "\S+…"$/m
  ]
}

/**
 * Calls of the `Gateway` service a README sample need not show, each with why. Every other call
 * (found on the real service, so a new one is noticed) must appear in a runnable sample.
 */
const notShown: Record<string, string> = {
  "video.follow": "the fiber-less form of `wait` that umg/rx builds `poll$` on"
}

let emulator: Emulator
beforeAll(async () => {
  emulator = await startEmulator({ fast: true })
})
afterAll(() =>
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  emulator?.close()
)

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

const runSample = (file: string, cwd: string): Promise<Run> =>
  new Promise((done) => {
    const started = Date.now()
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_")))
    const child = spawn(process.execPath, ["--conditions=umg-source", "--import", tsxLoader, file], {
      cwd,
      env: {
        ...base,
        NO_COLOR: "1",
        UMG_BASE_URL: emulator.url,
        UMG_API_KEY: emulator.apiKey,
        UMG_PLATFORM_URL: emulator.platformUrl,
        UMG_PLATFORM_USERNAME: emulator.platform.username,
        UMG_PLATFORM_PASSWORD: emulator.platform.password
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000)
    child.on("close", (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr, ms: Date.now() - started })
    })
  })

/** What is wrong with one finished run, beyond its section's expectations. */
const problemsOf = (run: Run): Array<string> => {
  const problems: Array<string> = []
  if (run.code !== 0) problems.push(`exit ${run.code}`)
  if (run.stdout.trim() === "") problems.push("printed nothing on stdout")
  // A field read wrong prints `undefined` or `NaN`; a caught failure is still logged as an error.
  const wrong = /\bundefined\b|\bNaN\b|\[object Object\]/.exec(run.stdout)
  if (wrong !== null) problems.push(`printed \`${wrong[0]}\``)
  if (/level=(ERROR|FATAL)/.test(run.stdout + run.stderr)) problems.push("logged an error")
  return problems
}

describe("the samples of the README and docs/, run", () => {
  it("tells fragments from programs and knows each one's section", () => {
    const md =
      "# A\n```sh\n# not a heading\n```\n```ts\nconst a = 1\n```\n## B\n<!-- fragment: browser -->\n```ts\ndocument.body\n```\n"
    expect(samplesWithMarks(md).map((s) => [s.runnable, s.heading, s.line])).toEqual([
      [true, "A", 5],
      [false, "B", 10]
    ])
  })

  it("show every call of the Gateway service", async () => {
    const runnable = allSamples().filter((s) => s.runnable)
    const calls = await Effect.runPromise(
      Effect.map(Gateway, (service) =>
        Object.entries(service).flatMap(([group, members]) =>
          Object.keys(members as object).map((name) => `${group}.${name}`)
        )
      ).pipe(Effect.provide(Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey })))
    )
    expect(calls.length).toBeGreaterThan(30)
    for (const call of Object.keys(notShown)) expect(calls).toContain(call)
    const shown = (call: string) => {
      const [group, name] = call.split(".")
      const pattern = new RegExp(`\\.${group}\\s*\\.${name}\\(`)
      return runnable.some((s) => pattern.test(s.code))
    }
    expect(calls.filter((call) => notShown[call] === undefined && !shown(call))).toEqual([])
    // And a few on umg/rx.
    expect(runnable.filter((s) => s.code.includes('from "umg/rx"')).length).toBeGreaterThanOrEqual(3)
  })

  it("runs every runnable sample against the emulator: each exits 0 and prints what its section promises", async () => {
    const samples = allSamples()
    const runnable = samples.filter((s) => s.runnable)
    expect(runnable.length).toBeGreaterThanOrEqual(20)
    expect(samples.length - runnable.length).toBeLessThanOrEqual(2)
    const headings = new Set(runnable.map((s) => s.heading))
    expect(Object.keys(expectations).filter((h) => !headings.has(h))).toEqual([])
    // Inside the package (so `umg/…` resolves to it by name); each sample runs in its own folder.
    const dir = join(root, "tmp", "readme-run")
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const runs = new Map<Sample, Run>()
    // The slow samples wait on video polls (4 s apart), not on the CPU: they start first, and three
    // run at a time, which keeps two cores busy.
    const polls = (s: Sample) => /\bvideo\.|\bBatch\.video\(/.test(s.code)
    const queue = [...runnable.filter(polls), ...runnable.filter((s) => !polls(s))]
    let next = 0
    const worker = async () => {
      while (next < queue.length) {
        const sample = queue[next++]!
        const file = join(dir, `sample-${sample.page.replace(/\W+/g, "-")}-line-${sample.line}.ts`)
        writeFileSync(file, `${sample.code}\nexport {}\n`)
        const cwd = mkdtempSync(join(tmpdir(), "umg-readme-"))
        runs.set(sample, await runSample(file, cwd))
        rmSync(cwd, { recursive: true, force: true })
      }
    }
    await Promise.all([worker(), worker(), worker()])

    const failures: Array<string> = []
    for (const sample of runnable) {
      const run = runs.get(sample)!
      const problems = problemsOf(run)
      if (problems.length > 0)
        failures.push(
          `${sample.page} line ${sample.line} (${sample.heading}), ${run.ms} ms: ${problems.join("; ")}\n${run.stdout.slice(-800)}${run.stderr.slice(0, 1500)}`
        )
    }
    for (const [heading, patterns] of Object.entries(expectations)) {
      const stdout = runnable
        .filter((s) => s.heading === heading)
        .map((s) => runs.get(s)!.stdout)
        .join("\n")
      const missing = patterns.filter((p) => !p.test(stdout))
      if (missing.length > 0)
        failures.push(`section "${heading}" did not print ${missing.join(", ")}\n${stdout.slice(-1500)}`)
    }
    expect(failures).toEqual([])
  }, 240_000)
})
