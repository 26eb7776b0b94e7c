/**
 * What validation costs per call in umg's core, with Schema parsers compiled by Effect's JIT compiler
 * (installed by the Gateway module outside browsers: `#umg/schema-jit`) against the same parsers interpreted (what the `browser`
 * condition gets: no `new Function`): the request builders (`buildMessagesBody`, `buildChatBody`) and
 * their steps (`conform`, the nested closed-object walk, the sendability walk), and the stream and
 * response decoders (`decodeWith`: messages events that are not text fragments, a chat completion).
 *
 * Run: `node --conditions=umg-source --import tsx bench/validation.bench.ts` (7 repetitions, about a
 * minute); `BENCH_QUICK=1`: 3 repetitions. Nothing is asserted; the table goes to
 * `bench/results/validation.md`.
 *
 * Method: each contender runs in its own process (the `interpreted` one with `--conditions=browser`,
 * which maps `#umg/schema-jit` to no compiler), warms every cell up, then measures one repetition of
 * every cell per request from the bench: CPU time (`process.cpuUsage`) over a fixed number of calls.
 * The bench alternates which contender goes first in each repetition and takes the ratio
 * (interpreted ÷ compiled) per repetition, printed as median (min–max). Both contenders check that
 * every call succeeds, so neither measures a failure path.
 */
import { type Runner, spawnRunner } from "./harness/child.js"
import type { Result as ResultModule } from "effect"
import { fileURLToPath } from "node:url"
import { fmtRatio, fmtUs, QUICK, summarize, table, writeResult } from "./harness/contest.js"

type Contender = "compiled" | "interpreted"
const CONTENDERS: ReadonlyArray<Contender> = ["compiled", "interpreted"]
const REPS = QUICK ? 3 : 7

/** The bodies and records every contender validates (valid, so every call takes the success path). */
const messagesBody = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 1024,
  system: "You are a helpful assistant.",
  temperature: 0.7,
  messages: [
    { role: "user", content: "What is the weather in Paris?" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }
      ]
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: "18 C, sunny" },
        { type: "text", text: "Thanks! And tomorrow?" }
      ]
    }
  ],
  tools: [
    {
      name: "get_weather",
      description: "Weather for a city",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
    }
  ],
  metadata: { user_id: "u-1" }
}
const chatBody = {
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Write a haiku about gateways." }
  ],
  temperature: 0.5,
  max_tokens: 200
}
const records = {
  message_start: {
    event: "message_start",
    data: `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"epsilon-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}`
  },
  content_block_start: {
    event: "content_block_start",
    data: `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`
  },
  message_delta: {
    event: "message_delta",
    data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`
  }
}
const completionText = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1763700000,
  model: "gpt-4o-mini",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Hello there, how can I help?", refusal: null },
      logprobs: null,
      finish_reason: "stop"
    }
  ],
  usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
  system_fingerprint: "fp_1"
})

const CELLS = [
  "buildMessagesBody",
  "conform(MessagesBody)",
  "findNestedUnknown(MessagesBody)",
  "findUnsendable (messages body)",
  "buildChatBody",
  "decode message_start event",
  "decode content_block_start event",
  "decode message_delta event",
  "decode chat completion (JSON.parse included)"
] as const
type Cell = (typeof CELLS)[number]

/** Each cell's call; it throws when the call does not succeed. */
const makeCalls = async (): Promise<Record<Cell, () => void>> => {
  const { Effect, Result } = await import("effect")
  // What every umg user gets: the Gateway module installs the platform's parser compiler (none under
  // the `browser` condition) before any parser is made.
  await import("../src/adapters/Gateway.js")
  const messages = await import("../src/core/text/messages/Messages.js")
  const chat = await import("../src/core/text/chat/ChatBody.js")
  const events = await import("../src/core/text/messages/MessagesEvents.js")
  const chatResponse = await import("../src/core/text/chat/ChatResponse.js")
  const { conform } = await import("../src/core/validation/Conform.js")
  const { findNestedUnknown } = await import("../src/core/validation/NestedFields.js")
  const { findUnsendable } = await import("../src/core/wire/JsonSafety.js")
  const ok = (r: ResultModule.Result<unknown, unknown>): void => {
    if (Result.isFailure(r)) throw new Error(`a call failed: ${String(r.failure)}`)
  }
  return {
    buildMessagesBody: () => void Effect.runSync(messages.buildMessagesBody(messagesBody)),
    "conform(MessagesBody)": () => ok(conform(messages.MessagesBody, messagesBody, "")),
    "findNestedUnknown(MessagesBody)": () => {
      if (findNestedUnknown(messages.MessagesBody, messagesBody) !== undefined)
        throw new Error("unexpected unknown field")
    },
    "findUnsendable (messages body)": () => {
      if (findUnsendable(messagesBody) !== undefined) throw new Error("unexpected unsendable value")
    },
    buildChatBody: () => void Effect.runSync(chat.buildChatBody(chatBody)),
    "decode message_start event": () => ok(events.decodeMessagesEventEither(records.message_start)),
    "decode content_block_start event": () => ok(events.decodeMessagesEventEither(records.content_block_start)),
    "decode message_delta event": () => ok(events.decodeMessagesEventEither(records.message_delta)),
    "decode chat completion (JSON.parse included)": () =>
      ok(chatResponse.decodeChatCompletion(JSON.parse(completionText)))
  }
}

const CALLS = 4_000

type ToChild = { readonly run: true }
type FromChild = { readonly ready: true } | { readonly us: Record<string, number> }

const child = async (): Promise<void> => {
  const calls = await makeCalls()
  const cpu = (): number => {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  // Warm-up: every cell, until the JIT (V8's, and the Schema compiler's) has settled.
  for (const cell of CELLS) {
    const call = calls[cell]
    const start = cpu()
    for (let i = 0; i < 2_000 || cpu() - start < 150_000; i++) call()
  }
  const send = (message: FromChild): void => void process.send!(message)
  send({ ready: true })
  process.on("message", (_message: ToChild) => {
    const us: Record<string, number> = {}
    for (const cell of CELLS) {
      const call = calls[cell]
      const t0 = cpu()
      for (let i = 0; i < CALLS; i++) call()
      us[cell] = (cpu() - t0) / CALLS
    }
    send({ us })
  })
}

const spawn = (contender: Contender): Promise<Runner<Extract<FromChild, { ready: true }>, Record<string, number>>> =>
  spawnRunner({
    name: contender,
    file: fileURLToPath(import.meta.url),
    args: ["--child"],
    execArgv: [
      "--conditions=umg-source",
      ...(contender === "interpreted" ? ["--conditions=browser"] : []),
      "--import",
      "tsx"
    ],
    env: process.env,
    resultOf: (message: Exclude<FromChild, { ready: true }>) => message.us
  })

const main = async (): Promise<void> => {
  const runners = { compiled: await spawn("compiled"), interpreted: await spawn("interpreted") }
  const runs: Array<Record<Contender, Record<string, number>>> = []
  try {
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()
      const got: Partial<Record<Contender, Record<string, number>>> = {}
      for (const c of order) got[c] = await runners[c].run()
      runs.push(got as Record<Contender, Record<string, number>>)
      process.stderr.write(`validation: repetition ${rep + 1}/${REPS} done\n`)
    }
  } finally {
    runners.compiled.close()
    runners.interpreted.close()
  }
  const rows = CELLS.map((cell) => {
    const compiled = summarize(runs.map((r) => r.compiled[cell]!))
    const interpreted = summarize(runs.map((r) => r.interpreted[cell]!))
    const ratio = summarize(runs.map((r) => r.interpreted[cell]! / r.compiled[cell]!))
    return [
      cell,
      `${fmtUs(compiled.median)} µs (${fmtUs(compiled.min)}–${fmtUs(compiled.max)})`,
      `${fmtUs(interpreted.median)} µs (${fmtUs(interpreted.min)}–${fmtUs(interpreted.max)})`,
      fmtRatio(ratio)
    ]
  })
  const body = [
    `CPU per call (µs, median (min–max) of ${REPS} repetitions of ${CALLS} calls, umg from its sources), each contender in its own process, the order alternated per repetition; ratio = interpreted ÷ compiled in the same repetition, median (min–max). compiled: Schema parsers compiled by Effect's JIT compiler (\`#umg/schema-jit\`, default condition); interpreted: the same code under the \`browser\` condition (no \`new Function\`), Effect's interpreter.`,
    "",
    table(["cell", "compiled (JIT)", "interpreted (browser condition)", "interpreted ÷ compiled"], rows)
  ].join("\n")
  console.log(writeResult("validation", "validation (bench/validation.bench.ts)", body))
}

if (process.argv[2] === "--child") void child()
else
  void main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    }
  )
