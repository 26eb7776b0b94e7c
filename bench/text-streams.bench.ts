/**
 * CPU per event of a streamed text answer: umg's Effect and Rx faces against the same
 * work written by hand and against the official SDKs, on a 2,006-event messages stream (message_start,
 * content_block_start, a ping, 2,000 text deltas, content_block_stop, message_delta, message_stop) and
 * a 2,003-chunk chat stream (+ `data: [DONE]`) from `bench/harness/fixtures.ts`, delivered in big reads
 * (the whole body written at once) or one event per read 1 ms apart (how tokens really arrive); and
 * short streams of the same kinds (50 deltas: 56/54 events) in big reads, where a stream's start —
 * the request built, checked and sent, the stream set up and torn down — is most of the cost.
 *
 * Run: `npm run bench -- text-streams`, or `node --conditions=umg-source --import tsx
 * bench/text-streams.bench.ts` (5 repetitions, several minutes); `BENCH_QUICK=1` for 2 repetitions,
 * fewer streams and 406/404-event streams in the one-event-per-read cells (about a minute);
 * `TEXT_STREAMS_REPS=n` overrides the repetitions, `TEXT_STREAMS_CELLS=messages|chat stream, big` keeps
 * the cells whose names start so. Nothing is asserted; the table goes to
 * `bench/results/text-streams.md`.
 *
 * Contenders, each in its own process, all consuming every event the same way (count it, sum the
 * text deltas' lengths — checked against the fixture, so a contender that loses text is not measured):
 * - raw fetch: `fetch` + eventsource-parser's callback API + `JSON.parse` (the baseline);
 * - raw node:http: `http.request` on a keep-alive agent + eventsource-parser + `JSON.parse` (umg may
 *   use node:http in Node, so both baselines are shown);
 * - Effect fiber: the raw node:http baseline's events handed to one Effect fiber, woken once per read
 *   (`Effect.callback`), no `Stream` — not how an Effect user consumes a stream, but it splits the floor's
 *   cost over raw node:http into the fiber's wake-up per read and the `Stream`'s own steps;
 * - Effect floor: the raw node:http baseline's events as an Effect `Stream` (one pull per read, an
 *   array of that read's events, in the leanest stream of pulls Effect's public API builds:
 *   `Stream.fromPull`), consumed like umg's with `Stream.runForEach` — what any Effect
 *   stream of these events costs, before umg's own work (bytes to events, validation, the fold, time limits);
 * - official SDK: `@anthropic-ai/sdk` `messages.create({ stream: true })` / `openai`
 *   `chat.completions.create({ stream: true })`, the raw events iterated;
 * - umg Effect: `Gateway.layer(...)`, `gateway.messages.stream(body)` / `gateway.chat.stream(body)`
 *   with `Stream.runForEach`;
 * - umg rx: `createGateway(...)`, `messages.stream$` / `chat.stream$` subscribed.
 * Every client gets the same key, `maxRetries: 0`, and asks a fake gateway in another process over
 * loopback (`bench/harness/fakeGateway.ts`, its CPU not counted). A worker measures its process's CPU
 * (`process.cpuUsage`) over the measured streams of each cell after a warm-up; the order of the
 * contenders rotates each repetition; ratios are taken per repetition and printed as median (min–max).
 * "Per event" divides by the SSE events on the wire (2,006 messages events, 2,004 chat events).
 */
import { once } from "node:events"
import { Agent, type IncomingMessage, request } from "node:http"
import { askGateway, cpuOf, main, QUICK, report, type CellResult } from "./harness/contest.js"
import { gatewayModule, rxModule } from "./harness/umg.js"
import { BENCH_API_KEY, type Delivery } from "./harness/fakeGateway.js"
import { chatStreamBody, chatStreamFixture, messagesBody, messagesStreamFixture } from "./harness/fixtures.js"

const REPS = Math.max(1, Number(process.env.TEXT_STREAMS_REPS ?? (QUICK ? 2 : 5)))
/** Big reads: streams to warm up, streams measured (2,000 deltas each). */
const BIG = QUICK ? { warm: 5, measured: 8, deltas: 2_000 } : { warm: 20, measured: 40, deltas: 2_000 }
/**
 * Short answers (50 deltas, big reads): what a stream's start costs (the request built, checked and
 * sent, the stream set up and ended), spread over a reply of a few sentences rather than 2,000 tokens.
 */
const SHORT = QUICK ? { warm: 40, measured: 80, deltas: 50 } : { warm: 200, measured: 400, deltas: 50 }
/**
 * One event per read: warm-up streams in this delivery (the per-read path is not the big-read one),
 * as many and as long as the measured ones, then the measured streams (2.5 s each at 2,000 deltas:
 * the 1 ms gaps, not the CPU, set the time). With one 1,000-delta warm-up stream, the measured window
 * still held the optimizing compiler's background work on the process's first ~4,000 events (umg:
 * ~300 optimizations and ~30 deoptimizations in its first stream, a few after its third); the same
 * warm-up for every contender measures each one's steady state, as the requests bench does.
 */
const PER_EVENT = QUICK
  ? { warm: 1, warmDeltas: 400, measured: 1, deltas: 400 }
  : { warm: 2, warmDeltas: 2_000, measured: 2, deltas: 2_000 }

const CONTENDERS = ["fetch", "node:http", "sdk", "fiber", "floor", "effect", "rx"] as const
type Contender = (typeof CONTENDERS)[number]
const COLUMN: Record<Contender, string> = {
  fetch: "raw fetch + eventsource-parser + JSON.parse",
  "node:http": "raw node:http + eventsource-parser + JSON.parse",
  sdk: "official SDK (@anthropic-ai/sdk / openai)",
  fiber: "Effect fiber: raw node:http + eventsource-parser + JSON.parse, one fiber woken per read, no Stream",
  floor: "Effect floor: raw node:http + eventsource-parser + JSON.parse as an Effect Stream",
  effect: "umg Effect, run by Stream.runForEach",
  rx: "umg rx"
}
type Family = "messages" | "chat"
const ALL_CELLS: ReadonlyArray<{
  readonly name: string
  readonly family: Family
  readonly delivery: Delivery
  readonly short?: true
}> = [
  { name: "messages stream, big reads", family: "messages", delivery: "big" },
  { name: "chat stream, big reads", family: "chat", delivery: "big" },
  { name: "messages stream, one event per read", family: "messages", delivery: "event" },
  { name: "chat stream, one event per read", family: "chat", delivery: "event" },
  { name: "short messages stream (50 deltas), big reads", family: "messages", delivery: "big", short: true },
  { name: "short chat stream (50 deltas), big reads", family: "chat", delivery: "big", short: true }
]
/** `TEXT_STREAMS_CELLS=name|…` keeps the cells whose names start with one of those (workers inherit it). */
const ONLY = process.env.TEXT_STREAMS_CELLS?.split("|")
const CELLS = ONLY === undefined ? ALL_CELLS : ALL_CELLS.filter((c) => ONLY.some((name) => c.name.startsWith(name)))

// ---- the consumers: every contender touches every event the same way ----

interface Tally {
  events: number
  text: number
}
interface MessagesEventLike {
  readonly type: string
  readonly delta?: object
}
interface ChatChunkLike {
  readonly choices: ReadonlyArray<{ readonly delta?: { readonly content?: string | null | undefined } }>
}
const touchMessages = (t: Tally, e: MessagesEventLike): void => {
  t.events++
  if (e.type === "content_block_delta") {
    const delta = e.delta as { readonly type: string; readonly text?: string }
    if (delta.type === "text_delta") t.text += delta.text!.length
  }
}
const touchChat = (t: Tally, c: ChatChunkLike): void => {
  t.events++
  const content = c.choices[0]?.delta?.content
  if (typeof content === "string") t.text += content.length
}
/** What the raw baselines do with one SSE event's data. */
const touchRaw = (t: Tally, family: Family, data: string): void => {
  if (data === "[DONE]") return void t.events++
  const value: unknown = JSON.parse(data)
  if (family === "messages") touchMessages(t, value as MessagesEventLike)
  else touchChat(t, value as ChatChunkLike)
}

// ---- the contenders (worker side) ----

/** The Effect floor's stand-in for `data: [DONE]`. */
const DONE = Symbol("done")

/** What the Effect fiber and the floor make of an event's data: the parsed value, or `DONE`. */
const toValue = (data: string): unknown => (data === "[DONE]" ? DONE : JSON.parse(data))
/** What they do with it: as `touchRaw` does with the data. */
const touchValue = (t: Tally, family: Family, value: unknown): void =>
  value === DONE
    ? void t.events++
    : family === "messages"
      ? touchMessages(t, value as MessagesEventLike)
      : touchChat(t, value as ChatChunkLike)

type StreamOnce = (family: Family, t: Tally) => Promise<void>

const makeContender = async (contender: Contender, baseUrl: string): Promise<StreamOnce> => {
  const headers = { authorization: `Bearer ${BENCH_API_KEY}`, "content-type": "application/json" }
  const target = (family: Family) =>
    family === "messages"
      ? { url: `${baseUrl}/v1/messages`, body: JSON.stringify({ ...messagesBody, stream: true }) }
      : { url: `${baseUrl}/v1/chat/completions`, body: JSON.stringify({ ...chatStreamBody, stream: true }) }
  /** A stream's request on node:http (raw node:http, the Effect fiber and the floor): its answer, once its headers came. */
  const openNode = async (agent: Agent, family: Family): Promise<IncomingMessage> => {
    const { url, body } = target(family)
    const req = request(url, {
      method: "POST",
      agent,
      headers: { ...headers, "content-length": Buffer.byteLength(body) }
    })
    req.end(body)
    const [res] = (await once(req, "response")) as [IncomingMessage]
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`)
    return res
  }
  switch (contender) {
    case "fetch": {
      const { createParser } = await import("eventsource-parser")
      return async (family, t) => {
        const { url, body } = target(family)
        const res = await fetch(url, { method: "POST", headers, body })
        if (res.status !== 200 || res.body === null) throw new Error(`HTTP ${res.status}`)
        const decoder = new TextDecoder()
        const parser = createParser({ onEvent: (event) => touchRaw(t, family, event.data) })
        const reader = res.body.getReader()
        for (let r = await reader.read(); !r.done; r = await reader.read())
          parser.feed(decoder.decode(r.value, { stream: true }))
        parser.feed(decoder.decode())
      }
    }
    case "node:http": {
      const { createParser } = await import("eventsource-parser")
      const agent = new Agent({ keepAlive: true })
      return async (family, t) => {
        const res = await openNode(agent, family)
        const decoder = new TextDecoder()
        const parser = createParser({ onEvent: (event) => touchRaw(t, family, event.data) })
        res.on("data", (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })))
        await once(res, "end")
        parser.feed(decoder.decode())
      }
    }
    case "fiber": {
      // The floor's reads handed to one fiber without a `Stream`: the fiber's share of the floor.
      const { Effect } = await import("effect")
      const { fiberEvents } = await import("./harness/floor.js")
      const agent = new Agent({ keepAlive: true })
      return (family, t) =>
        Effect.runPromise(
          Effect.flatMap(
            Effect.promise(() => openNode(agent, family)),
            (res) =>
              fiberEvents(
                (read, end) => void res.on("data", read).on("end", end),
                toValue,
                (value) => touchValue(t, family, value)
              )
          )
        )
    }
    case "floor": {
      // What any Effect stream of these events costs when consumed with `Stream.runForEach`: the raw
      // node:http baseline's work, its events handed to one pull (a chunk of what each read gave).
      const { Effect, Stream } = await import("effect")
      const { floorEvents } = await import("./harness/floor.js")
      const agent = new Agent({ keepAlive: true })
      const events = (family: Family) =>
        Stream.unwrap(
          Effect.promise(async () => {
            const res = await openNode(agent, family)
            return floorEvents((read, end) => void res.on("data", read).on("end", end), toValue)
          })
        )
      return (family, t) =>
        Effect.runPromise(Stream.runForEach(events(family), (value) => Effect.sync(() => touchValue(t, family, value))))
    }
    case "sdk": {
      const { default: Anthropic } = await import("@anthropic-ai/sdk")
      const { default: OpenAI } = await import("openai")
      // authToken: the same `Authorization: Bearer` key every other contender sends.
      const anthropic = new Anthropic({ authToken: BENCH_API_KEY, apiKey: null, baseURL: baseUrl, maxRetries: 0 })
      const openai = new OpenAI({ apiKey: BENCH_API_KEY, baseURL: `${baseUrl}/v1`, maxRetries: 0 })
      return async (family, t) => {
        if (family === "messages") {
          const stream = await anthropic.messages.create({ ...messagesBody, stream: true })
          for await (const event of stream) touchMessages(t, event as MessagesEventLike)
        } else {
          const stream = await openai.chat.completions.create({ ...chatStreamBody, stream: true })
          for await (const chunk of stream) touchChat(t, chunk)
        }
      }
    }
    case "effect": {
      const { Effect, ManagedRuntime, Stream } = await import("effect")
      const { Gateway } = await gatewayModule()
      const runtime = ManagedRuntime.make(Gateway.layer({ baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 }))
      const gateway = await runtime.runPromise(Effect.service(Gateway))
      return (family, t) =>
        family === "messages"
          ? runtime.runPromise(
              Stream.runForEach(gateway.messages.stream(messagesBody), (e) => Effect.sync(() => touchMessages(t, e)))
            )
          : runtime.runPromise(
              Stream.runForEach(gateway.chat.stream(chatStreamBody), (e) =>
                Effect.sync(() => (e.type === "chunk" ? touchChat(t, e.chunk) : void t.events++))
              )
            )
    }
    case "rx": {
      const { createGateway } = await rxModule()
      const gateway = createGateway({ baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 })
      return (family, t) =>
        new Promise<void>((resolve, reject) => {
          if (family === "messages")
            gateway.messages
              .stream$(messagesBody)
              .subscribe({ next: (e) => touchMessages(t, e), error: reject, complete: resolve })
          else
            gateway.chat.stream$(chatStreamBody).subscribe({
              next: (e) => (e.type === "chunk" ? touchChat(t, e.chunk) : void t.events++),
              error: reject,
              complete: resolve
            })
        })
    }
  }
}

const runContender = async (): Promise<void> => {
  const contender = process.env.BENCH_CONTENDER as Contender
  const streamOnce = await makeContender(contender, process.env.BENCH_BASE_URL!)
  // Checks each stream's text against the fixture's: a contender that drops text is not measured.
  // The expected length is computed once per stream kind, before any measured window: building the
  // fixture costs 0.4–0.8 µs per event, which every contender would otherwise pay inside its measure.
  const expectedText = new Map<string, number>()
  const expectedOf = (family: Family, deltas: number): number => {
    const key = `${family}:${deltas}`
    let length = expectedText.get(key)
    if (length === undefined) {
      length = (family === "messages" ? messagesStreamFixture(deltas) : chatStreamFixture(deltas)).textLength
      expectedText.set(key, length)
    }
    return length
  }
  const stream = async (family: Family, deltas: number) => {
    const expected = expectedOf(family, deltas)
    const t: Tally = { events: 0, text: 0 }
    await streamOnce(family, t)
    if (t.text !== expected) throw new Error(`${contender} ${family}: text length ${t.text}, expected ${expected}`)
  }
  const route = (family: Family) => (family === "messages" ? "POST /v1/messages" : "POST /v1/chat/completions")
  const cells: Array<CellResult> = []
  for (const cell of CELLS) {
    const plan =
      cell.short === true
        ? { ...SHORT, warmDeltas: SHORT.deltas }
        : cell.delivery === "big"
          ? { ...BIG, warmDeltas: BIG.deltas }
          : PER_EVENT
    await askGateway("/__bench/delivery", { mode: cell.delivery, deltas: plan.warmDeltas })
    for (let i = 0; i < plan.warm; i++) await stream(cell.family, plan.warmDeltas)
    await askGateway("/__bench/delivery", { mode: cell.delivery, deltas: plan.deltas })
    await askGateway("/__bench/reset")
    expectedOf(cell.family, plan.deltas)
    const cpuUs = await cpuOf(async () => {
      for (let i = 0; i < plan.measured; i++) await stream(cell.family, plan.deltas)
    })
    const served = (await askGateway("/__bench/stats"))[route(cell.family)] ?? 0
    const events = (cell.family === "messages" ? messagesStreamFixture(plan.deltas) : chatStreamFixture(plan.deltas))
      .events
    cells.push({ cell: cell.name, cpuUs, units: events * plan.measured, served, calls: plan.measured })
  }
  report({ contender, cells })
}

// ---- the bench (parent side) ----

main(
  {
    file: import.meta.url,
    name: "text-streams",
    title: "Text streams: CPU per event (bench/text-streams.bench.ts)",
    reps: REPS,
    contenders: CONTENDERS,
    column: COLUMN,
    baseline: "fetch",
    sdk: "sdk",
    sdkName: "official SDK",
    // umg rx against umg Effect (the bar: ≤ 1.1×), and umg Effect over the floor's stream.
    pairs: [
      ["rx", "effect"],
      ["effect", "floor"]
    ],
    cells: CELLS.map((c) => c.name),
    unit: "event",
    plan: `${BIG.measured} streams of ${messagesStreamFixture(BIG.deltas).events}/${chatStreamFixture(BIG.deltas).events} events (messages/chat) per big-read cell, ${PER_EVENT.measured} of ${messagesStreamFixture(PER_EVENT.deltas).events}/${chatStreamFixture(PER_EVENT.deltas).events} per one-event-per-read cell, ${SHORT.measured} of ${messagesStreamFixture(SHORT.deltas).events}/${chatStreamFixture(SHORT.deltas).events} per short-stream cell, after a warm-up.`
  },
  runContender
)
