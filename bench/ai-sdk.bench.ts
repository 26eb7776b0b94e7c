/**
 * CPU per event of a streamed answer through the AI SDK: `umg/ai-sdk` against the official providers
 * (`@ai-sdk/anthropic` on the messages stream, `@ai-sdk/openai` on the chat stream) on the same fake
 * gateway, the same fixtures (`bench/harness/fixtures.ts`: 2,006/2,004-event streams and 56/54-event
 * short ones, big reads), against umg's own Effect stream of the same answer, and against a baseline
 * provider that maps umg's stream into the same parts by the simplest direct code.
 *
 * Run: `node --import tsx bench/ai-sdk.bench.ts` (5 repetitions, several minutes); `BENCH_QUICK=1` for
 * 2 repetitions and fewer streams; `AI_SDK_REPS=n` overrides the repetitions. Then, for the provider
 * against its baseline on a loaded machine, `AI_SDK_PAIRED=1 node --import tsx bench/ai-sdk.bench.ts`
 * (`AI_SDK_ROUNDS=n`, 30 by default): both alive at once, their blocks alternated (`bench/harness/paired.ts`);
 * it appends its table to the results. umg runs as compiled JavaScript, as its users run it: the bench
 * bundles `src/ai-sdk` and the `Gateway` with esbuild (`effect` and the AI SDK packages left external)
 * into `tmp/bench-ai-sdk/` before the workers start (the sources through tsx would cost umg more than
 * its users pay). Nothing is asserted; the tables go to `bench/results/ai-sdk.md`.
 *
 * Contenders, each in its own process, all consuming the text the same way (sum its length, checked
 * against the fixture, so a contender that loses text is not measured):
 * - umg Effect: `gateway.messages.stream(body)` / `gateway.chat.stream(body)` with `Stream.runForEach`,
 *   the text read with `tokenText` — umg's own stream;
 * - direct parts (the baseline): a `LanguageModelV4` whose `doStream` builds the family's body from the
 *   call's prompt by the simplest direct code (`directBody`, as every provider must), runs umg's own
 *   stream of it (`Stream.runForEachArray`) and maps each event straight into the specification's
 *   parts — stream-start, text-start, text-delta, text-end, response-metadata, finish with usage and
 *   the request id — enqueued on a `ReadableStream` (`directReader`). Its worker checks once per cell,
 *   before the warm-up, that it sends exactly the body and gives exactly the parts umg's provider does
 *   for the same call. So umg doStream ÷ direct doStream is what umg's provider adds beyond the body and
 *   the parts the specification asks for;
 * - umg doStream / official doStream / direct doStream: the provider's `doStream` parts read directly,
 *   one `ReadableStream` read per part (the provider's own cost, without `streamText`);
 * - umg streamText / official streamText / direct streamText: `streamText({ model, prompt })` from `ai`,
 *   its `textStream` iterated — what a user of the AI SDK runs.
 * Every client gets `maxRetries: 0` and asks a fake gateway in another process over loopback. The
 * contenders alternate, the order rotating each repetition; ratios are taken per repetition and
 * printed as median (min–max). "Per event" divides by the SSE events on the wire.
 */
import type {
  JSONObject,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart
} from "@ai-sdk/provider"
import type { Stream } from "effect/Stream"
import { fileURLToPath, pathToFileURL } from "node:url"
import { BENCH_API_KEY } from "./harness/fakeGateway.js"
import { CHAT_MODEL, chatStreamBody, MESSAGES_MODEL, messagesBody } from "./harness/fixtures.js"
import {
  bundleSources,
  type CheckSame,
  type Family,
  firstDifference,
  modelOf,
  prompt,
  runAiBench,
  type StreamOnce,
  type Tally
} from "./harness/paired.js"

const CONTENDERS = ["effect", "direct-do", "umg-do", "official-do", "direct-text", "umg-text", "official-text"] as const
type Contender = (typeof CONTENDERS)[number]
const COLUMN: Record<Contender, string> = {
  effect: "umg Effect stream (Stream.runForEach)",
  "direct-do": "direct parts doStream (baseline)",
  "umg-do": "umg/ai-sdk doStream",
  "official-do": "official provider doStream",
  "direct-text": "direct parts streamText (baseline)",
  "umg-text": "umg/ai-sdk streamText",
  "official-text": "official provider streamText (@ai-sdk/anthropic / @ai-sdk/openai)"
}

const bundleFile = new URL("../tmp/bench-ai-sdk/umg.js", import.meta.url)

/** Bundles what umg's contenders load (`createUmg`, `Gateway`, `tokenText`) as users run it: compiled JavaScript. */
const bundleUmg = (): Promise<void> =>
  bundleSources(
    bundleFile,
    // Another checkout's sources (its `src/` and `package.json`), for a before/after: `AI_SDK_UMG_ROOT=dir`.
    process.env.AI_SDK_UMG_ROOT ?? fileURLToPath(new URL("../", import.meta.url)),
    [
      `export { createUmg } from "./src/ai-sdk/index.ts"`,
      `export { Gateway } from "./src/adapters/Gateway.ts"`,
      `export { tokenText } from "./src/core/text/TokenEvent.ts"`
    ]
  )

type UmgBundle = typeof import("../src/ai-sdk/index.js") &
  typeof import("../src/adapters/Gateway.js") &
  typeof import("../src/core/text/TokenEvent.js")

/** Set by the baseline's worker: checks, before a cell's warm-up, that it gives the parts umg's provider gives. */
let checkSame: CheckSame | undefined

// ---- the baseline: umg's own stream, mapped by the simplest direct code into the specification's parts ----

type Part = LanguageModelV4StreamPart
type Controller = ReadableStreamDefaultController<Part>
type Unified = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other"

/** The events the baseline reads, as far as it reads them (umg's decoded messages and chat events). */
interface EventSeen {
  readonly type: string
  readonly message?: { readonly id: string; readonly model: string; readonly usage: Readonly<Record<string, unknown>> }
  readonly content_block?: { readonly type: string }
  readonly delta?: { readonly type?: string; readonly text?: unknown; readonly stop_reason?: string | null }
  readonly usage?: Readonly<Record<string, unknown>> | null
  readonly chunk?: {
    readonly id: string
    readonly model: string
    readonly created: number
    readonly choices: ReadonlyArray<{
      readonly delta: { readonly content?: string | null }
      readonly finish_reason?: string | null
    }>
    readonly usage?: Readonly<Record<string, number | Readonly<Record<string, number>>>> | null
  }
}

const messagesReason = (raw: string | undefined): Unified =>
  raw === "end_turn" || raw === "stop_sequence" ? "stop" : raw === "max_tokens" ? "length" : "other"
const chatReason = (raw: string | undefined): Unified =>
  raw === "stop" ? "stop" : raw === "length" ? "length" : raw === "tool_calls" ? "tool-calls" : "other"

/**
 * One family's events straight into parts on `controller`: text-start at the first text, a text-delta
 * per text event, text-end, then response-metadata and finish (usage, reason, the request id) at the end.
 */
const directReader = (family: Family, controller: Controller, response: () => string | undefined) => {
  let text: string | undefined
  let id = ""
  let model = ""
  let created: number | undefined
  let stop: string | undefined
  let usage: Readonly<Record<string, unknown>> = {}
  const delta = (piece: string) => {
    if (text === undefined) controller.enqueue({ type: "text-start", id: (text = "text-0") })
    controller.enqueue({ type: "text-delta", id: text, delta: piece })
  }
  const messages = (e: EventSeen) => {
    if (e.type === "content_block_delta") {
      if (e.delta!.type === "text_delta") delta(e.delta!.text as string)
    } else if (e.type === "message_start") {
      id = e.message!.id
      model = e.message!.model
      usage = e.message!.usage
    } else if (e.type === "content_block_stop") {
      if (text !== undefined) controller.enqueue({ type: "text-end", id: text })
      text = undefined
    } else if (e.type === "message_delta") {
      stop = e.delta!.stop_reason ?? undefined
      usage = { ...usage, ...e.usage }
    }
  }
  const chat = (e: EventSeen) => {
    const c = e.chunk
    if (c === undefined) return
    if (created === undefined) {
      id = c.id
      model = c.model
      created = c.created
    }
    const choice = c.choices[0]
    if (choice !== undefined) {
      const content = choice.delta.content
      if (typeof content === "string" && content !== "") delta(content)
      if (typeof choice.finish_reason === "string") stop = choice.finish_reason
    } else if (c.usage != null) usage = c.usage
  }
  const num = (k: string) => usage[k] as number
  const end = () => {
    if (text !== undefined) controller.enqueue({ type: "text-end", id: text })
    const requestId = response()
    const providerMetadata = { umg: { family, ...(requestId === undefined ? {} : { requestId }) } }
    if (family === "messages") {
      controller.enqueue({ type: "response-metadata", id, modelId: model })
      const noCache = num("input_tokens")
      const cacheRead = num("cache_read_input_tokens")
      const cacheWrite = num("cache_creation_input_tokens")
      controller.enqueue({
        type: "finish",
        usage: {
          inputTokens: { total: noCache + cacheRead + cacheWrite, noCache, cacheRead, cacheWrite },
          outputTokens: { total: num("output_tokens"), text: num("output_tokens"), reasoning: undefined },
          raw: usage as JSONObject
        },
        finishReason: { unified: messagesReason(stop), raw: stop },
        providerMetadata
      })
    } else {
      controller.enqueue({ type: "response-metadata", id, modelId: model, timestamp: new Date(created! * 1000) })
      const cached = (usage["prompt_tokens_details"] as Readonly<Record<string, number>>).cached_tokens!
      const reasoning = (usage["completion_tokens_details"] as Readonly<Record<string, number>>).reasoning_tokens!
      controller.enqueue({
        type: "finish",
        usage: {
          inputTokens: {
            total: num("prompt_tokens"),
            noCache: num("prompt_tokens") - cached,
            cacheRead: cached,
            cacheWrite: undefined
          },
          outputTokens: { total: num("completion_tokens"), text: num("completion_tokens") - reasoning, reasoning },
          raw: usage as JSONObject
        },
        finishReason: { unified: chatReason(stop), raw: stop },
        providerMetadata
      })
    }
  }
  return { read: family === "messages" ? messages : chat, end }
}

/**
 * The family's body of a text-only call, by the simplest direct code: what any provider builds from
 * the prompt on every call (umg's provider builds it through its own request mapping; the worker checks
 * they are the same body).
 */
const directBody = (family: Family, options: LanguageModelV4CallOptions): Record<string, unknown> => {
  const text = (content: unknown): string => {
    let out = ""
    for (const part of content as ReadonlyArray<{ readonly type: string; readonly text?: string }>)
      if (part.type === "text") out += part.text
    return out
  }
  const turns = options.prompt.filter((m) => m.role === "user" || m.role === "assistant")
  const max = options.maxOutputTokens ?? 4_096
  return family === "messages"
    ? {
        model: MESSAGES_MODEL,
        messages: turns.map((m) => ({ role: m.role, content: [{ type: "text", text: text(m.content) }] })),
        max_tokens: max
      }
    : {
        model: CHAT_MODEL,
        messages: turns.map((m) => ({ role: m.role, content: text(m.content) })),
        max_completion_tokens: max,
        stream_options: { include_usage: true }
      }
}

/**
 * The baseline language model: `doStream` builds the body from the call (`directBody`), opens umg's
 * own stream of it and maps its events by `directReader` onto a `ReadableStream`, pushed as the events
 * come (`Stream.runForEachArray`), read one part per read like any provider's.
 */
const directModel = async (umg: UmgBundle, baseUrl: string) => {
  const { Effect, ManagedRuntime, Stream } = await import("effect")
  const runtime = ManagedRuntime.make(umg.Gateway.layer({ baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 }))
  const gateway = await runtime.runPromise(Effect.service(umg.Gateway))
  return (family: Family): LanguageModelV4 => ({
    specificationVersion: "v4",
    provider: "direct",
    modelId: modelOf(family),
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("the baseline only streams")),
    doStream: (call) => {
      const body = directBody(family, call)
      let requestId: string | undefined
      const options = { onResponse: (info: { readonly requestId?: string }) => void (requestId = info.requestId) }
      const stream = new ReadableStream<Part>({
        start: (controller) => {
          controller.enqueue({ type: "stream-start", warnings: [] })
          const reader = directReader(family, controller, () => requestId)
          const events: Stream<unknown, unknown> =
            family === "messages"
              ? gateway.messages.stream(body as never, options)
              : gateway.chat.stream(body as never, options)
          void runtime
            .runPromise(
              Stream.runForEachArray(events, (chunk) => {
                for (const e of chunk) reader.read(e as EventSeen)
                return Effect.void
              })
            )
            .then(
              () => {
                reader.end()
                controller.close()
              },
              (error: unknown) => controller.error(error)
            )
        }
      })
      return Promise.resolve({ stream, request: { body } })
    }
  })
}

/** Parts as JSON with sorted keys (undefined fields dropped, dates as ISO text): what "the same parts" means. */
const canonical = (parts: ReadonlyArray<unknown>): string =>
  JSON.stringify(parts, (_key, value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value
  )

/** A call's body, then its parts: what "the same call" compares. */
const partsOf = async (model: LanguageModelV4): Promise<Array<unknown>> => {
  const { stream, request } = await model.doStream(CALL)
  const parts: Array<unknown> = [request?.body]
  const reader = stream.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value)
  return parts
}

const CALL: LanguageModelV4CallOptions = {
  prompt: [{ role: "user", content: [{ type: "text", text: messagesBody.messages[0]!.content }] }],
  maxOutputTokens: 4_096
}

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
  const direct = contender.startsWith("direct") ? await directModel(umg, baseUrl) : undefined
  const model = (family: Family): LanguageModelV4 =>
    direct !== undefined
      ? direct(family)
      : contender.startsWith("umg")
        ? provider(modelOf(family))
        : family === "messages"
          ? anthropic(MESSAGES_MODEL)
          : openai.chat(CHAT_MODEL)
  if (contender === "direct-do")
    // Not measured: the baseline sends exactly the body and gives exactly the parts umg's provider
    // does, checked once per cell.
    checkSame = async (family) => {
      const [mine, umgs] = [
        canonical(await partsOf(model(family))),
        canonical(await partsOf(provider(modelOf(family))))
      ]
      if (mine !== umgs)
        throw new Error(`the baseline's ${family} body or parts differ from umg's ${firstDifference(mine, umgs)}`)
    }
  if (contender.endsWith("-text"))
    return async (family, t) => {
      const s = streamText({ model: model(family), prompt, maxOutputTokens: 4_096, maxRetries: 0 })
      for await (const piece of s.textStream) t.text += piece.length
    }
  return async (family, t) => {
    const { stream } = await model(family).doStream(CALL)
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

await runAiBench<Contender>({
  file: import.meta.url,
  env: "AI_SDK",
  name: "ai-sdk",
  title: "The AI SDK providers: CPU per event (bench/ai-sdk.bench.ts)",
  contenders: CONTENDERS,
  column: COLUMN,
  baseline: "effect",
  sdk: "official-text",
  sdkName: "official provider streamText",
  pairs: [
    ["umg-do", "direct-do"],
    ["umg-text", "direct-text"],
    ["umg-text", "official-text"],
    ["umg-do", "official-do"],
    ["umg-do", "effect"],
    ["direct-do", "effect"]
  ],
  // The baseline against itself first (A/A): the method's resolution, the spread a ratio must leave
  // to be a measured difference.
  paired: [
    ["direct-do", "direct-do"],
    ["direct-text", "direct-text"],
    ["direct-do", "umg-do"],
    ["direct-text", "umg-text"]
  ],
  /** Streams per block: long enough to measure, short enough that the load stays the same across a pair. */
  blockOf: (contender: Contender, short: boolean) =>
    contender.endsWith("-text") ? (short ? 40 : 4) : short ? 200 : 40,
  makeContender,
  checkSame: () => checkSame,
  bundle: bundleUmg,
  bundled: "umg bundled from its sources by esbuild (`tmp/bench-ai-sdk/umg.js`)"
})
