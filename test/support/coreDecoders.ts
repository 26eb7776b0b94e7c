// Every decoder of the core, each with a valid input that has a hole in a passed-through field
// (tool input, metadata, session, …) and a typed field, so tests can put hostile values at the top
// level, inside an otherwise valid input, or where a schema will refuse them.
import { Effect, Result } from "effect"
import {
  AnyShootAdvancedResponse,
  AnyShootEasyResponse,
  decodeChatCompletion,
  decodeChatEvent,
  decodeEmbeddings,
  decodeGenerateContentResponse,
  decodeImages,
  decodeLiveServerMessage,
  decodeMessage,
  decodeMessagesEvent,
  decodeModelList,
  decodeNativeChunk,
  decodeRealtimeServerEvent,
  decodeRerank,
  decodeResponsesEvent,
  decodeResponsesResponse,
  decodeVideoDownload,
  PlatformTextToVideoResponse,
  PlatformTokenResponse,
  VideoQueryResponse,
  VideoSubmitResponse
} from "../../src/core/index.js"
import { type DecodeOptions, decodeWith } from "../../src/core/wire/WireJson.js"

/** Marks where a hostile value goes in a template; `BAD` marks a typed field. */
export const HOLE = "$HOLE"
export const BAD = "$BAD"

export interface DecoderCase {
  readonly name: string
  /** How the decoder receives its input: a parsed value, an SSE record (JSON text in `data`), or a frame (either). */
  readonly kind: "value" | "sse" | "frame"
  /** The decoder, as an Effect whatever its own shape. */
  readonly decode: (input: unknown, options?: DecodeOptions) => Effect.Effect<unknown, unknown>
  /** A valid input with `HOLE` in a passed-through field and `BAD` in a typed one. */
  readonly template: unknown
  /** The SSE event name for `sse` decoders. */
  readonly event?: string
}

const fromResult =
  <A>(f: (input: never, options?: DecodeOptions) => Result.Result<A, unknown>) =>
  (input: unknown, options?: DecodeOptions): Effect.Effect<unknown, unknown> =>
    Effect.suspend(() => Effect.fromResult(f(input as never, options)))

const sse =
  (f: (record: never, options?: DecodeOptions) => Effect.Effect<unknown, unknown>) =>
  (input: unknown, options?: DecodeOptions): Effect.Effect<unknown, unknown> =>
    Effect.suspend(() => f(input as never, options))

const usage = { input_tokens: BAD, output_tokens: 2 }
const b64 = "AAAAAA==" // 4 bytes
const rerankDocuments = 2

export const decoderCases: ReadonlyArray<DecoderCase> = [
  {
    name: "messages response",
    kind: "value",
    decode: fromResult(decodeMessage),
    template: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "epsilon-1",
      content: [{ type: "tool_use", id: "t1", name: "lookup", input: { q: HOLE } }],
      stop_reason: "tool_use",
      usage
    }
  },
  {
    name: "messages stream event",
    kind: "sse",
    event: "content_block_start",
    decode: sse(decodeMessagesEvent),
    template: {
      type: "content_block_start",
      index: BAD,
      content_block: { type: "tool_use", id: "t1", name: "lookup", input: { q: HOLE } }
    }
  },
  {
    name: "chat completion",
    kind: "value",
    decode: fromResult(decodeChatCompletion),
    template: {
      id: "c1",
      object: "chat.completion",
      created: BAD,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "hi", annotations: [HOLE] }, finish_reason: "stop" }]
    }
  },
  {
    name: "chat stream event",
    kind: "sse",
    decode: sse(decodeChatEvent),
    template: {
      id: "c1",
      object: "chat.completion.chunk",
      created: BAD,
      model: "m",
      choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null, logprobs: HOLE }]
    }
  },
  {
    name: "native-content response",
    kind: "value",
    decode: fromResult(decodeGenerateContentResponse),
    template: {
      candidates: [
        { content: { role: "model", parts: [{ functionCall: { name: "f", args: { q: HOLE } } }] }, index: BAD }
      ]
    }
  },
  {
    name: "native-content stream chunk",
    kind: "sse",
    decode: sse(decodeNativeChunk),
    template: {
      candidates: [
        { content: { role: "model", parts: [{ functionCall: { name: "f", args: { q: HOLE } } }] }, index: BAD }
      ]
    }
  },
  {
    name: "responses response",
    kind: "value",
    decode: fromResult(decodeResponsesResponse),
    template: { id: "r1", object: "response", created_at: BAD, model: "m", output: [], metadata: { m: HOLE } }
  },
  {
    name: "responses stream event",
    kind: "sse",
    event: "response.created",
    decode: sse(decodeResponsesEvent),
    template: {
      type: "response.created",
      sequence_number: 1,
      response: { id: "r1", object: "response", created_at: BAD, model: "m", output: [], metadata: { m: HOLE } }
    }
  },
  {
    name: "embeddings response",
    kind: "value",
    decode: decodeEmbeddings,
    template: {
      object: "list",
      data: [{ object: "embedding", index: BAD, embedding: [0.5, 1] }],
      model: "m",
      extra: HOLE
    }
  },
  {
    name: "rerank response",
    kind: "value",
    decode: (input, options) => decodeRerank(input, rerankDocuments, options),
    template: { model: "m", results: [{ index: 0, relevance_score: BAD, document: { text: "a", meta: HOLE } }] }
  },
  {
    name: "images response",
    kind: "value",
    decode: decodeImages,
    template: { created: BAD, data: [{ b64_json: b64 }], extra: HOLE }
  },
  {
    name: "realtime server event",
    kind: "frame",
    decode: decodeRealtimeServerEvent,
    template: { type: "session.created", event_id: BAD, session: { tools: HOLE } }
  },
  {
    name: "live server message",
    kind: "frame",
    decode: decodeLiveServerMessage,
    template: { toolCall: { functionCalls: [{ id: "f1", name: BAD, args: { q: HOLE } }] } }
  },
  {
    name: "model list (openai format)",
    kind: "value",
    decode: (input, options) => decodeModelList("openai", input, options),
    template: { object: "list", data: [{ id: "m", object: "model", created: BAD, owned_by: "o" }], extra: HOLE }
  },
  {
    name: "model list (messages format)",
    kind: "value",
    decode: (input, options) => decodeModelList("messages", input, options),
    template: { data: [{ type: "model", id: "epsilon-1", created_at: BAD, extra: HOLE }], has_more: false }
  },
  {
    name: "model list (native format)",
    kind: "value",
    decode: (input, options) => decodeModelList("native", input, options),
    template: { models: [{ name: "models/zeta-1", displayName: BAD, extra: HOLE }] }
  },
  {
    name: "video download",
    kind: "value",
    decode: decodeVideoDownload,
    template: {
      success: true,
      generation_id: "g",
      task_id: "t",
      format: "mp4",
      size: BAD,
      base64: b64,
      data_url: `data:video/mp4;base64,${b64}`,
      extra: HOLE
    }
  },
  {
    name: "video submit response",
    kind: "value",
    decode: fromResult(decodeWith(VideoSubmitResponse, "video", "video submit response")),
    template: { task_id: "t", status: BAD, format: "mp4", extra: HOLE }
  },
  {
    name: "video task",
    kind: "value",
    decode: fromResult(decodeWith(VideoQueryResponse, "video", "video task")),
    template: { task_id: "t", status: BAD, extra: HOLE }
  },
  {
    name: "platform text-to-video response",
    kind: "value",
    decode: fromResult(decodeWith(PlatformTextToVideoResponse, "platform", "text to video response")),
    template: { code: 200, msg: "ok", data: { task_id: BAD, extra: HOLE } }
  },
  {
    name: "platform any shoot easy response",
    kind: "value",
    decode: fromResult(decodeWith(AnyShootEasyResponse, "platform", "any shoot easy response")),
    template: { code: 200, msg: "ok", data: { url: BAD, extra: HOLE } }
  },
  {
    name: "platform any shoot advanced response",
    kind: "value",
    decode: fromResult(decodeWith(AnyShootAdvancedResponse, "platform", "any shoot advanced response")),
    template: { code: BAD, msg: "ok", data: "task-1", extra: HOLE }
  },
  {
    name: "platform token response",
    kind: "value",
    decode: fromResult(decodeWith(PlatformTokenResponse, "platform", "token response")),
    template: { code: 200, msg: "ok", data: BAD, extra: HOLE }
  }
]

/** Valid values for the `BAD` field of each template (so the template decodes when nothing is hostile). */
export const goodValueFor: Readonly<Record<string, unknown>> = {
  "messages response": 1,
  "messages stream event": 0,
  "chat completion": 1,
  "chat stream event": 1,
  "native-content response": 0,
  "native-content stream chunk": 0,
  "responses response": 1,
  "responses stream event": 1,
  "embeddings response": 0,
  "rerank response": 0.5,
  "images response": 1,
  "realtime server event": "e1",
  "live server message": "f",
  "model list (openai format)": 1,
  "model list (messages format)": "2025-02-19T00:00:00Z",
  "model list (native format)": "Zeta",
  "video download": 4,
  "video submit response": "submitted",
  "video task": "queued",
  "platform text-to-video response": "task-1",
  "platform any shoot easy response": "https://example.test/a.png",
  "platform any shoot advanced response": 200,
  "platform token response": "Bearer abc"
}

/** The template with `HOLE` replaced by `hole` and `BAD` by `bad` (templates are small and shallow). */
export const fill = (template: unknown, hole: unknown, bad: unknown): unknown => {
  if (template === HOLE) return hole
  if (template === BAD) return bad
  if (Array.isArray(template)) return template.map((t) => fill(t, hole, bad))
  if (template !== null && typeof template === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(template)) out[k] = fill(v, hole, bad)
    return out
  }
  return template
}

/** The template as JSON text with `HOLE` replaced by `holeText` (JSON text, possibly too deep to build as a value). */
export const fillText = (template: unknown, holeText: string, bad: unknown): string =>
  JSON.stringify(fill(template, HOLE, bad)).replace(JSON.stringify(HOLE), holeText)

/** What the decoder is given for a filled template: the parsed value, an SSE record, or a text frame. */
export const inputOf = (c: DecoderCase, holeText: string, bad: unknown = goodValueFor[c.name]): unknown => {
  const text = fillText(c.template, holeText, bad)
  return c.kind === "sse" ? { event: c.event ?? "message", data: text } : c.kind === "frame" ? text : JSON.parse(text)
}

/** Runs a decoder to its Result; a defect (or a thrown exception) is returned as `defect`. */
export const runDecoder = (
  c: DecoderCase,
  input: unknown,
  options?: DecodeOptions
):
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown }
  | { readonly defect: unknown } => {
  try {
    const exit = Effect.runSyncExit(Effect.result(c.decode(input, options)))
    if (exit._tag === "Failure") return { defect: exit.cause }
    return Result.isSuccess(exit.value)
      ? { ok: true, value: exit.value.success }
      : { ok: false, error: exit.value.failure }
  } catch (e) {
    return { defect: e }
  }
}

/** How deep the hole of a decoder's template sits (the top-level value is depth 1; the hole's own value counts). */
export const holeDepth = (c: DecoderCase): number => {
  const input = inputOf(c, '{"__hole__":1}')
  const root: unknown =
    typeof input === "string"
      ? JSON.parse(input)
      : c.kind === "sse"
        ? JSON.parse((input as { data: string }).data)
        : input
  const stack: Array<[unknown, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== "object") continue
    if (Object.hasOwn(v, "__hole__")) return depth
    for (const item of Object.values(v)) stack.push([item, depth + 1])
  }
  throw new Error(`no hole in the template of ${c.name}`)
}

/** Text of `depth` nested arrays (`[[[…]]]`), as a hostile server would send it. */
export const deepArrayText = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`

/** A value of `depth` nested arrays, built without recursion. */
export const deepArray = (depth: number): unknown => {
  let v: unknown = []
  for (let i = 1; i < depth; i++) v = [v]
  return v
}

/** JSON text of objects nested `depth` deep whose innermost object has `__proto__` (and friends) keys. */
export const protoAtDepthText = (depth: number): string =>
  `${'{"a":'.repeat(depth - 1)}{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"ok":1}${"}".repeat(depth - 1)}`

/** The first `__proto__`, `constructor` or `prototype` own key anywhere in `value` (walked without recursion). */
export const findUnsafeKey = (value: unknown): string | undefined => {
  const stack: Array<unknown> = [value]
  const seen = new Set<unknown>()
  while (stack.length > 0) {
    const v = stack.pop()
    if (v === null || typeof v !== "object" || seen.has(v)) continue
    seen.add(v)
    for (const key of Object.keys(v)) {
      if (key === "__proto__" || key === "constructor" || key === "prototype") return key
      stack.push((v as Record<string, unknown>)[key])
    }
  }
  return undefined
}
