/**
 * CPU per event of a streamed answer through Effect AI (`effect/ai`'s `LanguageModel.streamText`):
 * `umg/ai` (`UmgLanguageModel.layer`) against a baseline Effect AI provider made with the framework's
 * own `LanguageModel.make`, whose `streamText` maps umg's own stream of the same answer into the same
 * encoded parts by the simplest direct code, and against umg's own Effect stream. The same fake gateway
 * and fixtures as `bench/ai-sdk.bench.ts` (2,006/2,004-event streams and 56/54-event short ones, big
 * reads). The only other Effect AI providers for these APIs, `@effect/ai-openai` 4.0.0-beta.106 and
 * `@effect/ai-openai-compat` 4.0.0-beta.98, import `effect/unstable/*`, which Effect 4.1 does not
 * export: they cannot run beside umg on Effect 4.1, so no official provider is in this contest.
 *
 * Run: `node --import tsx bench/ai-effect.bench.ts` (5 repetitions, several minutes); `BENCH_QUICK=1`
 * for 2 repetitions and fewer streams; `AI_EFFECT_REPS=n` overrides the repetitions. Then, for umg
 * against the baseline on a loaded machine, `AI_EFFECT_PAIRED=1 node --import tsx bench/ai-effect.bench.ts`
 * (`AI_EFFECT_ROUNDS=n`, 30 by default): both alive at once, their blocks of streams alternated
 * (`bench/harness/paired.ts`); it appends its table to the results. umg runs as
 * compiled JavaScript: the bench bundles `src/ai` and the `Gateway` with esbuild (`effect` left
 * external) into `tmp/bench-ai-effect/` before the workers start. Nothing is asserted; the table goes
 * to `bench/results/ai-effect.md`.
 *
 * Contenders, each in its own process, all summing the text's length (checked against the fixture):
 * - umg Effect: `gateway.messages.stream(body)` / `gateway.chat.stream(body)` with `Stream.runForEach`;
 * - baseline parts / umg parts: the provider's own `streamText` hook (what it gives `LanguageModel.make`)
 *   run directly with `Stream.runForEachArray`: the provider's cost without the framework's;
 * - baseline streamText / umg streamText: `LanguageModel.streamText({ prompt })` with the provider's
 *   layer, as a user runs it (the framework decodes every part with its schema).
 * The baseline's worker checks once per cell, before its warm-up, that its parts are umg's. The
 * contenders alternate, the order rotating each repetition; ratios are taken per repetition and printed
 * as median (min–max). "Per event" divides by the SSE events on the wire.
 */
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import type { Stream } from "effect/Stream"
import { existsSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import { BENCH_API_KEY, lastBody } from "./harness/fakeGateway.js"
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

const CONTENDERS = ["effect", "direct-parts", "umg-parts", "direct-text", "umg-text"] as const
type Contender = (typeof CONTENDERS)[number]
const COLUMN: Record<Contender, string> = {
  effect: "umg Effect stream (Stream.runForEach)",
  "direct-parts": "baseline provider's parts (its streamText hook)",
  "umg-parts": "umg/ai's parts (its streamText hook)",
  "direct-text": "baseline provider LanguageModel.streamText",
  "umg-text": "umg/ai LanguageModel.streamText"
}

const bundleFile = new URL("../tmp/bench-ai-effect/umg.js", import.meta.url)

/** Bundles what umg's contenders load (`UmgLanguageModel`, its hooks, `Gateway`, `tokenText`) as users run it: compiled JavaScript. */
const bundleUmg = (): Promise<void> => {
  // Another checkout's sources (its `src/` and `package.json`), for a before/after: `AI_EFFECT_UMG_ROOT=dir`.
  const root = process.env.AI_EFFECT_UMG_ROOT ?? fileURLToPath(new URL("../", import.meta.url))
  return bundleSources(bundleFile, root, [
    `export { UmgLanguageModel } from "./src/ai/index.ts"`,
    // Absent before the hooks had a module of their own: then only the streamText contenders run.
    existsSync(`${root}/src/ai/LanguageModelHooks.ts`)
      ? `export { languageModelHooks } from "./src/ai/LanguageModelHooks.ts"`
      : "",
    `export { Gateway } from "./src/adapters/Gateway.ts"`,
    `export { tokenText } from "./src/core/text/TokenEvent.ts"`
  ])
}

type UmgBundle = typeof import("../src/ai/index.js") &
  typeof import("../src/ai/LanguageModelHooks.js") &
  typeof import("../src/adapters/Gateway.js") &
  typeof import("../src/core/text/TokenEvent.js")

/** Set by the baseline's worker: checks, before a cell's warm-up, that it gives the parts umg's provider gives. */
let checkSame: CheckSame | undefined

// ---- the baseline: umg's own stream, mapped by the simplest direct code into Effect AI's encoded parts ----

type Part = Response.StreamPartEncoded
type Unified = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other"

/** The events the baseline reads, as far as it reads them (umg's decoded messages and chat events). */
interface EventSeen {
  readonly type: string
  readonly message?: { readonly id: string; readonly model: string; readonly usage: Readonly<Record<string, unknown>> }
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
    readonly usage?: Readonly<Record<string, unknown>> | null
  }
}

/** What the baseline keeps of the answer's headers: status, headers and request id. */
interface Seen {
  readonly status: number
  readonly requestId?: string
  readonly headers: Readonly<Record<string, string>>
}

/**
 * The family's body of a text-only prompt, by the simplest direct code: what any provider builds from
 * the prompt on every call (umg's provider builds it through its own request mapping; the worker checks
 * the gateway got the same body from both).
 */
const directBody = (family: Family, prompt: Prompt.Prompt): Record<string, unknown> => {
  const messages: Array<{ role: "user" | "assistant"; text: string }> = []
  for (const m of prompt.content) {
    if (m.role !== "user" && m.role !== "assistant") continue
    let text = ""
    for (const part of m.content) if (part.type === "text") text += part.text
    messages.push({ role: m.role, text })
  }
  return family === "messages"
    ? {
        model: MESSAGES_MODEL,
        messages: messages.map((m) => ({ role: m.role, content: [{ type: "text", text: m.text }] })),
        max_tokens: 4_096
      }
    : {
        model: CHAT_MODEL,
        messages: messages.map((m) => ({ role: m.role, content: m.text })),
        stream_options: { include_usage: true }
      }
}

const messagesReason = (raw: string | undefined): Unified =>
  raw === "end_turn" || raw === "stop_sequence" ? "stop" : raw === "max_tokens" ? "length" : "other"
const chatReason = (raw: string | undefined): Unified =>
  raw === "stop" ? "stop" : raw === "length" ? "length" : raw === "tool_calls" ? "tool-calls" : "other"

/**
 * One family's events straight into parts pushed on `out`: text-start at the first text, a text-delta
 * per text event, text-end, then response-metadata and finish (usage, reason, the answer's headers) at the end.
 */
const directReader = (family: Family, response: () => Seen | undefined) => {
  let text: string | undefined
  let id = ""
  let model = ""
  let created: number | undefined
  let stop: string | undefined
  let usage: Readonly<Record<string, unknown>> = {}
  const delta = (out: Array<Part>, piece: string) => {
    if (text === undefined) out.push({ type: "text-start", id: (text = "text-0") })
    out.push({ type: "text-delta", id: text, delta: piece })
  }
  const messages = (e: EventSeen, out: Array<Part>) => {
    if (e.type === "content_block_delta") {
      if (e.delta!.type === "text_delta") delta(out, e.delta!.text as string)
    } else if (e.type === "message_start") {
      id = e.message!.id
      model = e.message!.model
      usage = e.message!.usage
    } else if (e.type === "content_block_stop") {
      if (text !== undefined) out.push({ type: "text-end", id: text })
      text = undefined
    } else if (e.type === "message_delta") {
      stop = e.delta!.stop_reason ?? undefined
      usage = { ...usage, ...e.usage }
    }
  }
  const chat = (e: EventSeen, out: Array<Part>) => {
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
      if (typeof content === "string" && content !== "") delta(out, content)
      if (typeof choice.finish_reason === "string") stop = choice.finish_reason
    } else if (c.usage != null) usage = c.usage
  }
  const num = (k: string) => usage[k] as number
  const end = (): Array<Part> => {
    const out: Array<Part> = []
    if (text !== undefined) out.push({ type: "text-end", id: text })
    const info = response()
    const head = info === undefined ? {} : { response: { status: info.status, headers: { ...info.headers } } }
    const metadata = { umg: { family, ...(info?.requestId === undefined ? {} : { requestId: info.requestId }) } }
    if (family === "messages") {
      out.push({ type: "response-metadata", id, modelId: model })
      const uncached = num("input_tokens")
      const cacheRead = num("cache_read_input_tokens")
      const cacheWrite = num("cache_creation_input_tokens")
      out.push({
        type: "finish",
        reason: messagesReason(stop),
        usage: {
          inputTokens: { total: uncached + cacheRead + cacheWrite, uncached, cacheRead, cacheWrite },
          outputTokens: { total: num("output_tokens"), text: num("output_tokens") }
        },
        ...head,
        metadata
      })
    } else {
      out.push({
        type: "response-metadata",
        id,
        modelId: model,
        timestamp: new Date(created! * 1000).toISOString()
      })
      const cached = (usage["prompt_tokens_details"] as Readonly<Record<string, number>>).cached_tokens!
      const reasoning = (usage["completion_tokens_details"] as Readonly<Record<string, number>>).reasoning_tokens!
      out.push({
        type: "finish",
        reason: chatReason(stop),
        usage: {
          inputTokens: { total: num("prompt_tokens"), uncached: num("prompt_tokens") - cached, cacheRead: cached },
          outputTokens: { total: num("completion_tokens"), reasoning, text: num("completion_tokens") - reasoning }
        },
        ...head,
        metadata
      })
    }
    return out
  }
  return { read: family === "messages" ? messages : chat, end }
}

/** Parts as JSON with sorted keys (undefined fields dropped, the answer's `date` header left out): what "the same parts" means. */
const canonical = (parts: ReadonlyArray<unknown>): string =>
  JSON.stringify(parts, (key, value: unknown) =>
    key === "date"
      ? undefined
      : typeof value === "object" && value !== null && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
        : value
  )

const makeContender = async (contender: Contender, baseUrl: string): Promise<StreamOnce> => {
  const umg = (await import(pathToFileURL(fileURLToPath(bundleFile)).href)) as UmgBundle
  const { Effect, Layer, ManagedRuntime, Stream } = await import("effect")
  const { LanguageModel, Prompt } = await import("effect/ai")
  const gatewayLayer = umg.Gateway.layer({ baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 })
  const runtime = ManagedRuntime.make(gatewayLayer)
  const gateway = await runtime.runPromise(Effect.service(umg.Gateway))

  if (contender === "effect") {
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

  /**
   * The baseline's hooks: `streamText` builds the family's body from the call's prompt by the simplest
   * direct code (`directBody`, as every provider must) and maps umg's stream of it.
   */
  const directHooks = (family: Family): Parameters<typeof LanguageModel.make>[0] => ({
    generateText: () => Effect.die(new Error("the baseline only streams")),
    streamText: (options) =>
      Stream.suspend(() => {
        let seen: Seen | undefined
        const body = directBody(family, options.prompt)
        const call = { onResponse: (info: Seen) => void (seen = info) }
        const events: Stream<unknown, unknown> =
          family === "messages"
            ? gateway.messages.stream(body as never, call)
            : gateway.chat.stream(body as never, call)
        return Stream.mapAccumArray(
          events,
          () => directReader(family, () => seen),
          (reader, chunk) => {
            const out: Array<Part> = []
            for (const e of chunk) reader.read(e as EventSeen, out)
            return [reader, out] as const
          },
          { onHalt: (reader) => reader.end() }
        ) as Stream<Part, never>
      })
  })
  const umgHooks = (family: Family) => umg.languageModelHooks(gateway, modelOf(family), Effect.succeed({}))

  if (contender === "direct-parts" || contender === "umg-parts") {
    const hooks = { messages: umgHooks("messages"), chat: umgHooks("chat") }
    const direct = { messages: directHooks("messages"), chat: directHooks("chat") }
    const partsOf = (family: Family, baseline: boolean) =>
      Effect.flatMap(Effect.makeSpan("bench"), (span) =>
        Effect.succeed(
          (baseline ? direct : hooks)[family].streamText({
            prompt: Prompt.make(prompt),
            tools: [],
            toolChoice: "none",
            responseFormat: { type: "text" },
            span,
            previousResponseId: undefined,
            incrementalPrompt: undefined
          }) as Stream<Part, unknown>
        )
      )
    if (contender === "direct-parts")
      checkSame = async (family) => {
        const collect = (baseline: boolean) =>
          runtime.runPromise(Effect.flatMap(partsOf(family, baseline), (s) => Stream.runCollect(s)))
        const a = canonical(await collect(true))
        const sentA = await lastBody(baseUrl)
        const b = canonical(await collect(false))
        const sentB = await lastBody(baseUrl)
        if (sentA !== sentB)
          throw new Error(`the baseline's ${family} body differs from umg's ${firstDifference(sentA, sentB)}`)
        if (a !== b) throw new Error(`the baseline's ${family} parts differ from umg's ${firstDifference(a, b)}`)
      }
    const baseline = contender === "direct-parts"
    return (family, t) =>
      runtime.runPromise(
        Effect.flatMap(partsOf(family, baseline), (s) =>
          Stream.runForEachArray(s, (parts) => {
            for (const p of parts) if (p.type === "text-delta") t.text += p.delta.length
            return Effect.void
          })
        )
      )
  }

  // LanguageModel.streamText over the provider's layer, as a user runs it: one runtime per family.
  const layerOf = (family: Family) =>
    contender === "umg-text"
      ? umg.UmgLanguageModel.layer({ model: modelOf(family) }).pipe(Layer.provide(gatewayLayer))
      : Layer.effect(LanguageModel.LanguageModel, LanguageModel.make(directHooks(family)))
  const runtimes = { messages: ManagedRuntime.make(layerOf("messages")), chat: ManagedRuntime.make(layerOf("chat")) }
  return (family, t) =>
    runtimes[family].runPromise(
      Stream.runForEachArray(LanguageModel.streamText({ prompt }), (parts) => {
        for (const p of parts) if (p.type === "text-delta") t.text += p.delta.length
        return Effect.void
      })
    )
}

await runAiBench<Contender>({
  file: import.meta.url,
  env: "AI_EFFECT",
  name: "ai-effect",
  title: "The Effect AI provider: CPU per event (bench/ai-effect.bench.ts)",
  contenders: CONTENDERS,
  column: COLUMN,
  baseline: "effect",
  sdk: "direct-text",
  sdkName: "baseline provider LanguageModel.streamText",
  pairs: [
    ["umg-parts", "direct-parts"],
    ["umg-text", "direct-text"],
    ["umg-parts", "effect"],
    ["direct-parts", "effect"]
  ],
  // The baseline against itself first (A/A): the method's resolution, the spread a ratio must leave
  // to be a measured difference.
  paired: [
    ["direct-parts", "direct-parts"],
    ["direct-text", "direct-text"],
    ["direct-parts", "umg-parts"],
    ["direct-text", "umg-text"]
  ],
  /** Streams per block: long enough to measure, short enough that the load stays the same across a pair. */
  blockOf: (contender: Contender, short: boolean) =>
    contender.endsWith("-text") ? (short ? 80 : 10) : short ? 200 : 40,
  makeContender,
  checkSame: () => checkSame,
  bundle: bundleUmg,
  bundled: "umg bundled from its sources by esbuild (`tmp/bench-ai-effect/umg.js`)"
})
