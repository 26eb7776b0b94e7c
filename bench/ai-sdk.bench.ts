/**
 * CPU per event of a streamed answer through the AI SDK: `umg/ai-sdk` against the official providers
 * (`@ai-sdk/anthropic` on the messages stream, `@ai-sdk/openai` on the chat stream) on the same fake
 * gateway, the same fixtures (`bench/harness/fixtures.ts`: 2,006/2,004-event streams and 56/54-event
 * short ones, big reads), and against umg's own Effect stream of the same answer.
 *
 * Run: `node --import tsx bench/ai-sdk.bench.ts` (3 repetitions, a few minutes); `BENCH_QUICK=1` for
 * 2 repetitions and fewer streams; `AI_SDK_REPS=n` overrides the repetitions. umg runs as compiled
 * JavaScript, as its users run it: the bench bundles `src/ai-sdk` and the `Gateway` with esbuild
 * (`effect` and the AI SDK packages left external) into `tmp/bench-ai-sdk/` before the workers start
 * (the sources through tsx would cost umg more than its users pay). Nothing is asserted; the table
 * goes to `bench/results/ai-sdk.md`.
 *
 * Contenders, each in its own process, all consuming the text the same way (sum its length, checked
 * against the fixture, so a contender that loses text is not measured):
 * - umg Effect: `gateway.messages.stream(body)` / `gateway.chat.stream(body)` with `Stream.runForEach`,
 *   the text read with `tokenText` — umg's own stream, the baseline;
 * - umg doStream / official doStream: the provider's `doStream` parts read directly (the provider's
 *   own cost, without `streamText`);
 * - umg streamText / official streamText: `streamText({ model, prompt })` from `ai`, its `textStream`
 *   iterated — what a user of the AI SDK runs.
 * Every client gets `maxRetries: 0` and asks a fake gateway in another process over loopback. The
 * contenders alternate, the order rotating each repetition; ratios are taken per repetition and
 * printed as median (min–max). "Per event" divides by the SSE events on the wire.
 */
import { build } from "esbuild"
import { mkdirSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import { askGateway, cpuOf, main, QUICK, report, type CellResult } from "./harness/contest.js"
import { BENCH_API_KEY } from "./harness/fakeGateway.js"
import {
  CHAT_MODEL,
  chatStreamBody,
  chatStreamFixture,
  MESSAGES_MODEL,
  messagesBody,
  messagesStreamFixture
} from "./harness/fixtures.js"

const REPS = Math.max(1, Number(process.env.AI_SDK_REPS ?? (QUICK ? 2 : 3)))
const BIG = QUICK ? { warm: 5, measured: 8, deltas: 2_000 } : { warm: 15, measured: 30, deltas: 2_000 }
const SHORT = QUICK ? { warm: 40, measured: 80, deltas: 50 } : { warm: 150, measured: 300, deltas: 50 }

const CONTENDERS = ["effect", "umg-do", "official-do", "umg-text", "official-text"] as const
type Contender = (typeof CONTENDERS)[number]
const COLUMN: Record<Contender, string> = {
  effect: "umg Effect stream (Stream.runForEach)",
  "umg-do": "umg/ai-sdk doStream",
  "official-do": "official provider doStream",
  "umg-text": "umg/ai-sdk streamText",
  "official-text": "official provider streamText (@ai-sdk/anthropic / @ai-sdk/openai)"
}
type Family = "messages" | "chat"
const CELLS: ReadonlyArray<{ readonly name: string; readonly family: Family; readonly short?: true }> = [
  { name: "messages stream, big reads", family: "messages" },
  { name: "chat stream, big reads", family: "chat" },
  { name: "short messages stream (50 deltas), big reads", family: "messages", short: true },
  { name: "short chat stream (50 deltas), big reads", family: "chat", short: true }
]

const bundleDir = new URL("../tmp/bench-ai-sdk/", import.meta.url)
const bundleFile = new URL("umg.js", bundleDir)

/** Bundles what umg's contenders load (`createUmg`, `Gateway`, `tokenText`) as users run it: compiled JavaScript. */
const bundleUmg = async (): Promise<void> => {
  mkdirSync(fileURLToPath(bundleDir), { recursive: true })
  await build({
    stdin: {
      contents: [
        `export { createUmg } from "./src/ai-sdk/index.ts"`,
        `export { Gateway } from "./src/adapters/Gateway.ts"`,
        `export { tokenText } from "./src/core/text/TokenEvent.ts"`
      ].join("\n"),
      resolveDir: fileURLToPath(new URL("../", import.meta.url)),
      loader: "ts"
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile: fileURLToPath(bundleFile),
    // umg's own `#umg/*` imports resolve to its sources (the Node ones); packages stay external.
    conditions: ["umg-source"],
    external: ["effect", "effect/*", "@effect/*", "@ai-sdk/*", "ai", "ws", "rxjs", "rxjs/*"],
    logLevel: "warning"
  })
}

type UmgBundle = typeof import("../src/ai-sdk/index.js") &
  typeof import("../src/adapters/Gateway.js") &
  typeof import("../src/core/text/TokenEvent.js")

interface Tally {
  text: number
}
type StreamOnce = (family: Family, t: Tally) => Promise<void>

const prompt = messagesBody.messages[0]!.content
const modelOf = (family: Family) => (family === "messages" ? MESSAGES_MODEL : CHAT_MODEL)

const makeContender = async (contender: Contender, baseUrl: string): Promise<StreamOnce> => {
  const umg = (await import(pathToFileURL(fileURLToPath(bundleFile)).href)) as UmgBundle
  if (contender === "effect") {
    const { Effect, ManagedRuntime, Stream } = await import("effect")
    const runtime = ManagedRuntime.make(umg.Gateway.layer({ baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 }))
    const gateway = await runtime.runPromise(Effect.service(umg.Gateway))
    const touch = (t: Tally) => (e: Parameters<typeof umg.tokenText>[0]) =>
      Effect.sync(() => {
        for (const piece of umg.tokenText(e)) t.text += piece.length
      })
    return (family, t) =>
      runtime.runPromise(
        family === "messages"
          ? Stream.runForEach(gateway.messages.stream(messagesBody), touch(t))
          : Stream.runForEach(gateway.chat.stream(chatStreamBody), touch(t))
      )
  }
  const { streamText } = await import("ai")
  const { createAnthropic } = await import("@ai-sdk/anthropic")
  const { createOpenAI } = await import("@ai-sdk/openai")
  const provider = createUmg(umg, baseUrl)
  const anthropic = createAnthropic({ baseURL: `${baseUrl}/v1`, authToken: BENCH_API_KEY })
  const openai = createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: BENCH_API_KEY })
  const model = (family: Family) =>
    contender.startsWith("umg")
      ? provider(modelOf(family))
      : family === "messages"
        ? anthropic(MESSAGES_MODEL)
        : openai.chat(CHAT_MODEL)
  if (contender === "umg-text" || contender === "official-text")
    return async (family, t) => {
      const s = streamText({ model: model(family), prompt, maxOutputTokens: 4_096, maxRetries: 0 })
      for await (const piece of s.textStream) t.text += piece.length
    }
  return async (family, t) => {
    const { stream } = await model(family).doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      maxOutputTokens: 4_096
    })
    const reader = stream.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const part = r.value
      if (part.type === "text-delta") t.text += part.delta.length
      else if (part.type === "error") throw part.error
    }
  }
}

const createUmg = (umg: UmgBundle, baseUrl: string) =>
  umg.createUmg({ baseURL: baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 })

const runContender = async (): Promise<void> => {
  const contender = process.env.BENCH_CONTENDER as Contender
  const streamOnce = await makeContender(contender, process.env.BENCH_BASE_URL!)
  const fixtureOf = (family: Family, deltas: number) =>
    family === "messages" ? messagesStreamFixture(deltas) : chatStreamFixture(deltas)
  const cells: Array<CellResult> = []
  for (const cell of CELLS) {
    const plan = cell.short === true ? SHORT : BIG
    const { textLength, events } = fixtureOf(cell.family, plan.deltas)
    const stream = async () => {
      const t: Tally = { text: 0 }
      await streamOnce(cell.family, t)
      if (t.text !== textLength)
        throw new Error(`${contender} ${cell.family}: text length ${t.text}, expected ${textLength}`)
    }
    await askGateway("/__bench/delivery", { mode: "big", deltas: plan.deltas })
    for (let i = 0; i < plan.warm; i++) await stream()
    await askGateway("/__bench/reset")
    const cpuUs = await cpuOf(async () => {
      for (let i = 0; i < plan.measured; i++) await stream()
    })
    const route = cell.family === "messages" ? "POST /v1/messages" : "POST /v1/chat/completions"
    const served = (await askGateway("/__bench/stats"))[route] ?? 0
    cells.push({ cell: cell.name, cpuUs, units: events * plan.measured, served, calls: plan.measured })
  }
  report({ contender, cells })
}

if (process.env.BENCH_ROLE !== "worker") await bundleUmg()
main(
  {
    file: import.meta.url,
    name: "ai-sdk",
    title: "The AI SDK providers: CPU per event (bench/ai-sdk.bench.ts)",
    reps: REPS,
    contenders: CONTENDERS,
    column: COLUMN,
    baseline: "effect",
    sdk: "official-text",
    sdkName: "official provider streamText",
    pairs: [
      ["umg-text", "official-text"],
      ["umg-do", "official-do"],
      ["umg-do", "effect"]
    ],
    cells: CELLS.map((c) => c.name),
    unit: "event",
    plan: `${BIG.measured} streams of ${messagesStreamFixture(BIG.deltas).events}/${chatStreamFixture(BIG.deltas).events} events (messages/chat) per long cell, ${SHORT.measured} of ${messagesStreamFixture(SHORT.deltas).events}/${chatStreamFixture(SHORT.deltas).events} per short cell, after a warm-up; big reads.`
  },
  runContender
)
