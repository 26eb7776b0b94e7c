/**
 * Seeded fixtures of the gateway answers the loopback contests measure with — a messages-style text stream
 * (message_start, content_block_start, ping, n text deltas, content_block_stop, message_delta,
 * message_stop), a chat completions stream (a role chunk, n content chunks, a finish chunk, a usage
 * chunk, then `data: [DONE]`), a 40-model list and a non-stream chat completion — shared by the fake
 * gateway of the benches and by any test that wants the same bytes.
 */
import { prng } from "../../test/fixtures/sseStreams.js"

/** One SSE event as the fake gateway writes it: one `res.write` per event in the one-event-per-read delivery. */
export interface StreamFrame {
  /** The SSE `event:` field, absent for chat chunks (data-only records). */
  readonly event?: string
  readonly data: string
}

/** A whole stream: its frames, and what a consumer that sums the text deltas must find. */
export interface StreamFixture {
  readonly frames: ReadonlyArray<StreamFrame>
  /** The SSE events on the wire (the chat stream's `[DONE]` included): the divisor of "per event". */
  readonly events: number
  /** The sum of the text deltas' lengths (UTF-16 code units, as `string.length` counts them). */
  readonly textLength: number
}

/** The messages-family model the stream benches ask for (a catalog id). */
export const MESSAGES_MODEL = "epsilon-sonnet-4-5-20250929"
/** The chat model the benches ask for (a catalog id). */
export const CHAT_MODEL = "gpt-4o-mini"

// Mostly short English tokens as models send them, with a few multi-byte characters and a JSON escape.
const TOKENS = [
  " the",
  " of",
  " and",
  " to",
  " a",
  " in",
  " is",
  " that",
  " stream",
  " token",
  "Hello",
  ",",
  ".",
  " 42",
  " café",
  " 日本",
  " 😀",
  ' "q"',
  "\n"
]

/** The text of `n` deltas, seeded: the same seed always gives the same tokens. */
export const deltaTexts = (n: number, seed = 13): ReadonlyArray<string> => {
  const random = prng(seed)
  return Array.from({ length: n }, () => TOKENS[Math.floor(random() * TOKENS.length)]!)
}

/** The SSE text of one frame. */
export const renderFrame = (frame: StreamFrame): string =>
  frame.event === undefined ? `data: ${frame.data}\n\n` : `event: ${frame.event}\ndata: ${frame.data}\n\n`

const sum = (texts: ReadonlyArray<string>): number => texts.reduce((n, t) => n + t.length, 0)

/** The messages-style stream: `deltas + 6` events (2,006 for the benches' 2,000 deltas), a `ping` among them. */
export const messagesStreamFixture = (deltas = 2_000, model = MESSAGES_MODEL): StreamFixture => {
  const texts = deltaTexts(deltas)
  const frame = (type: string, rest: object): StreamFrame => ({ event: type, data: JSON.stringify({ type, ...rest }) })
  const frames: Array<StreamFrame> = [
    frame("message_start", {
      message: {
        id: "msg_bench_01",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 25, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 }
      }
    }),
    frame("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    // Real messages streams send a keep-alive here; consumers may drop it.
    frame("ping", {})
  ]
  for (const text of texts) frames.push(frame("content_block_delta", { index: 0, delta: { type: "text_delta", text } }))
  frames.push(
    frame("content_block_stop", { index: 0 }),
    frame("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: deltas }
    }),
    frame("message_stop", {})
  )
  return { frames, events: frames.length, textLength: sum(texts) }
}

/** The chat completions stream: `deltas + 3` chunks and `[DONE]` (2,003 + 1 for the benches' 2,000 deltas). */
export const chatStreamFixture = (deltas = 2_000, model = CHAT_MODEL): StreamFixture => {
  const texts = deltaTexts(deltas)
  const chunk = (choices: ReadonlyArray<object>, usage: object | null = null): StreamFrame => ({
    data: JSON.stringify({
      id: "chatcmpl-bench01",
      object: "chat.completion.chunk",
      created: 1_764_000_000,
      model,
      service_tier: "default",
      system_fingerprint: "fp_bench",
      choices,
      usage
    })
  })
  const choice = (delta: object, finish_reason: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason
  })
  const frames: Array<StreamFrame> = [chunk([choice({ role: "assistant", content: "", refusal: null })])]
  for (const content of texts) frames.push(chunk([choice({ content })]))
  frames.push(
    chunk([choice({}, "stop")]),
    chunk([], {
      prompt_tokens: 25,
      completion_tokens: deltas,
      total_tokens: 25 + deltas,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 }
    }),
    { data: "[DONE]" }
  )
  return { frames, events: frames.length, textLength: sum(texts) }
}

/** Model ids the catalog knows, then dated snapshots, to make a list of `n` as a real gateway answers. */
const LISTED = [
  "gpt-4o-mini",
  "gpt-4o",
  "gpt-4.1",
  "epsilon-sonnet-4-5-20250929",
  "epsilon-haiku-4-5-20251001",
  "epsilon-opus-4-5-20251101",
  "zeta-2.5-pro",
  "zeta-2.5-flash",
  "rerank-v1",
  "tts-1"
]

/** `GET /v1/models` in the OpenAI format: `n` model records (40 by default). */
export const modelListFixture = (
  n = 40
): {
  readonly object: "list"
  readonly data: ReadonlyArray<{ id: string; object: "model"; created: number; owned_by: string }>
} => ({
  object: "list",
  data: Array.from({ length: n }, (_, i) => {
    const id =
      i < LISTED.length
        ? LISTED[i]!
        : `${LISTED[i % LISTED.length]!}-snapshot-${2024 + (i % 3)}-${String((i % 12) + 1).padStart(2, "0")}-01`
    return {
      id,
      object: "model" as const,
      created: 1_700_000_000 + i * 86_400,
      owned_by: id.startsWith("epsilon") ? "epsilon" : id.startsWith("zeta") ? "zeta" : "system"
    }
  })
})

/** A non-stream `chat.completion` answer, as the OpenAI-style endpoint sends it. */
export const chatCompletionFixture = (model = CHAT_MODEL) => ({
  id: "chatcmpl-bench02",
  object: "chat.completion",
  created: 1_764_000_000,
  model,
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "Hello! How can I help you with the gateway today?",
        refusal: null,
        annotations: []
      },
      logprobs: null,
      finish_reason: "stop"
    }
  ],
  usage: {
    prompt_tokens: 25,
    completion_tokens: 12,
    total_tokens: 37,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0
    }
  },
  service_tier: "default",
  system_fingerprint: "fp_bench"
})

/** The request bodies every contender sends (the same JSON for each; `stream` set per call). */
export const messagesBody = {
  model: MESSAGES_MODEL,
  max_tokens: 4_096,
  messages: [{ role: "user" as const, content: "Write a long story about a gateway." }]
}
export const chatBody = {
  model: CHAT_MODEL,
  messages: [{ role: "user" as const, content: "Write a long story about a gateway." }]
}
/** The chat body of the stream benches: the usage chunk is asked for, as the fixture sends it. */
export const chatStreamBody = { ...chatBody, stream_options: { include_usage: true } }
