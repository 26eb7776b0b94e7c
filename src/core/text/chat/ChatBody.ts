/**
 * The schema of the POST `/v1/chat/completions` (E16) body. It is closed: the contract shows only the
 * minimal payload (`model`, `messages[]` with `role` and `content`); the other fields are the upstream
 * Chat Completions fields, typed where their shape is fixed. Open, as upstream leaves them:
 * `messages[]` items (tool calls, names, audio), `tools`, `tool_choice`, `response_format`,
 * `stream_options`, `audio`, `prediction`, `web_search_options`, `logit_bias`, `metadata`.
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute } from "../../gateway/Routing.js"
import { type RoutingOptions } from "../../gateway/Catalog.js"
import { type WithExtra, closedBody, buildWith, ModelId } from "../../validation/Closed.js"
import {
  acrossFields,
  described,
  expected,
  nonEmptyArray,
  range,
  SamplingTemperature,
  SamplingTopP,
  TopLogprobs
} from "../../validation/FieldRules.js"
import { isRecord, type Json, optional } from "../../validation/Rules.js"
import { misnamedFunctionTool, nameMessage } from "../FunctionToolName.js"
import { type Paired, type PairedTurn, recordsOf, withToolPairing } from "../ToolPairing.js"

const Open = Schema.Record(Schema.String, Schema.Unknown)
// An object whose other members pass through (an index signature besides its fields).
const openStruct = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.StructWithRest(Schema.Struct(fields), [Open])
const opt = Schema.optionalKey

/** The roles of a chat message. @category models */
export const ChatRoles = ["system", "developer", "user", "assistant", "tool", "function"] as const

// An assistant turn that only calls tools carries `content: null` (or none).
const callsTools = (m: Json): boolean =>
  m.role === "assistant" && (optional(m, "tool_calls") !== undefined || optional(m, "function_call") !== undefined)

/** One chat message: a role and its content (`null` only for an assistant turn of tool calls). @category schemas */
export const ChatMessageParam = acrossFields(
  openStruct({
    role: Schema.Literals(ChatRoles),
    content: Schema.Union([Schema.String, Schema.Array(Schema.Unknown), Schema.Null]).pipe(
      expected("a string or an array of content parts")
    )
  }),
  "required",
  (m) => (m.content === null && !callsTools(m) ? { key: "content", detail: "" } : undefined),
  (field) => `${field} is required`
)
/** @category models */
export type ChatMessageParam = typeof ChatMessageParam.Type

/** A structured-output schema's name: chat `json_schema.name`, responses `format.name`. @category schemas */
export const JsonSchemaName = described(
  /^[a-zA-Z0-9_-]{1,64}$/,
  "1 to 64 letters, digits, _ or - (^[a-zA-Z0-9_-]{1,64}$)"
)

/**
 * `response_format`: `text`, `json_object`, or `json_schema` with `json_schema: { name, description?,
 * schema?, strict? }` (structured output; members upstream adds pass through).
 * @category schemas
 */
export const ChatResponseFormat = Schema.Union([
  Schema.Struct({ type: Schema.Literals(["text", "json_object"]) }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    json_schema: openStruct({
      name: JsonSchemaName,
      description: opt(Schema.String),
      schema: opt(Open),
      strict: opt(Schema.NullOr(Schema.Boolean))
    })
  })
])

/** The ids of the tool calls of an assistant message, with where each is. */
const callsOf = (message: unknown, i: number): Array<Paired> =>
  isRecord(message) && message.role === "assistant"
    ? recordsOf(message.tool_calls).map(([c, j]) => ({ id: c.id, key: ["messages", i, "tool_calls", j, "id"] }))
    : []

const isToolMessage = (message: unknown): boolean => isRecord(message) && message.role === "tool"

/**
 * Where a conversation's tool calls and results are: a run of `tool` messages answers the
 * `tool_calls` of the message right before the run, each of which needs one.
 */
const toolTurns = (body: { readonly messages: ReadonlyArray<unknown> }): Array<PairedTurn> => {
  const turns: Array<{ at: number; calls: Array<Paired>; results: Array<Paired> }> = []
  body.messages.forEach((message, i) => {
    if (isRecord(message) && message.role === "tool") {
      if (!isToolMessage(body.messages[i - 1]))
        turns.push({ at: i - 1, calls: callsOf(body.messages[i - 1], i - 1), results: [] })
      turns[turns.length - 1]!.results.push({ id: message.tool_call_id, key: ["messages", i, "tool_call_id"] })
    } else if (!isToolMessage(body.messages[i + 1])) {
      const calls = callsOf(message, i)
      if (calls.length > 0) turns.push({ at: i, calls, results: [] })
    }
  })
  return turns.map(({ at, calls, results }) => ({
    calls,
    callsWhere: at < 0 ? "no message before it" : `the tool_calls of messages[${at}]`,
    results,
    complete: `tool message answering it after messages[${at}]`
  }))
}

/** A chat tool's function name: `{type: "function", function: {name}}`. */
const chatToolName = (tool: Json) =>
  isRecord(tool.function) ? { name: tool.function.name, key: ["function", "name"] } : undefined

/** The body of POST `/v1/chat/completions`. @category schemas */
export const ChatBody = Schema.Struct({
  model: ModelId,
  messages: nonEmptyArray(ChatMessageParam),
  stream: opt(Schema.Boolean),
  stream_options: opt(Open),
  temperature: opt(SamplingTemperature),
  top_p: opt(SamplingTopP),
  n: opt(Schema.Int.pipe(range({ min: 1, max: 128 }))),
  stop: opt(Schema.Union([Schema.String, Schema.Array(Schema.String), Schema.Null])),
  max_tokens: opt(Schema.Int.pipe(range({ min: 0, minExclusive: true }))),
  max_completion_tokens: opt(Schema.Int.pipe(range({ min: 0, minExclusive: true }))),
  presence_penalty: opt(Schema.Number.pipe(range({ min: -2, max: 2 }))),
  frequency_penalty: opt(Schema.Number.pipe(range({ min: -2, max: 2 }))),
  logit_bias: opt(Open),
  logprobs: opt(Schema.Boolean),
  top_logprobs: opt(TopLogprobs),
  user: opt(Schema.String),
  seed: opt(Schema.Int),
  tools: opt(Schema.Array(Open)),
  tool_choice: opt(Schema.Union([Schema.String, Open])),
  parallel_tool_calls: opt(Schema.Boolean),
  response_format: opt(ChatResponseFormat),
  service_tier: opt(Schema.String),
  store: opt(Schema.Boolean),
  metadata: opt(Open),
  modalities: opt(Schema.Array(Schema.String)),
  audio: opt(Open),
  prediction: opt(Open),
  reasoning_effort: opt(Schema.String),
  verbosity: opt(Schema.String),
  web_search_options: opt(Open),
  prompt_cache_key: opt(Schema.String),
  safety_identifier: opt(Schema.String)
}).pipe(
  (self) => acrossFields(self, "one-of", (body) => misnamedFunctionTool(body.tools, chatToolName), nameMessage),
  withToolPairing(toolTurns)
)
/** @category models */
export type ChatBody = typeof ChatBody.Type
/** A chat body as callers write it, with the `extra` escape hatch. @category models */
export type ChatBodyInput = WithExtra<ChatBody>

const chat = closedBody(ChatBody, "a chat completions body")

/** Options of the text builders. @category models */
export type TextBodyOptions = RoutingOptions

/**
 * Builds the body of POST `/v1/chat/completions`: only its known fields (plus `extra`); `model` must
 * be a chat model the catalog lists (the GPT-5 Pro family is refused with "use responses"; epsilon
 * and zeta models are refused too); then the Schema's rules: `messages` non-empty, each with a `role`
 * and `content`, `stream` a boolean, `temperature` 0–2, `top_p` 0–1, `n` 1–128, the penalties −2–2,
 * `top_logprobs` 0–20, and `max_tokens` and `max_completion_tokens` positive integers when given. `content` may be null or left out only on
 * an assistant turn that calls tools (sent as `content: null`).
 * @category constructors
 */
export const buildChatBody = (input: unknown, options: TextBodyOptions = {}): Effect.Effect<ChatBody, InvalidRequest> =>
  buildWith(() =>
    chat.build(input, (model) => ensureRoute(model, "chat", options), {
      adjust: (out) => {
        // A tool-calls-only assistant turn without `content` gets the explicit null the wire shape has.
        if (Array.isArray(out.messages))
          out.messages = out.messages.map((m: unknown) =>
            isRecord(m) && callsTools(m) && optional(m, "content") === undefined ? { ...m, content: null } : m
          )
      }
    })
  )
