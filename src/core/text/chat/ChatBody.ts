/**
 * The body of POST `/v1/chat/completions` (E16), closed: the contract shows only the minimal payload
 * (`model`, `messages[]` with `role` and `content`); the other fields are the upstream Chat
 * Completions fields (protocol-notes §3.1), typed where their shape is fixed. Open, as upstream leaves
 * them: `messages[]` items (tool calls, names, audio), `tools`, `tool_choice`, `response_format`,
 * `stream_options`, `audio`, `prediction`, `web_search_options`, `logit_bias`, `metadata`.
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute } from "../../gateway/Routing.js"
import { type RoutingOptions } from "../../gateway/Catalog.js"
import { type WithExtra, closedBody, guardReads } from "../../validation/Closed.js"
import * as Rules from "../../validation/Rules.js"

const Open = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })
const { at, ifPresent } = Rules

/** The roles of a chat message. @category models */
export const ChatRoles = ["system", "developer", "user", "assistant", "tool", "function"] as const

/** One chat message: a role and its content (`null` only for an assistant turn of tool calls). @category schemas */
export const ChatMessageParam = Schema.Struct(
  { role: Schema.Literal(...ChatRoles), content: Schema.Union(Schema.String, Schema.Array(Schema.Unknown), Schema.Null) },
  Open
)
/** @category models */
export type ChatMessageParam = typeof ChatMessageParam.Type

/** The body of POST `/v1/chat/completions`. @category schemas */
export const ChatBody = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(ChatMessageParam),
  stream: opt(Schema.Boolean),
  stream_options: opt(Open),
  temperature: opt(Schema.Number),
  top_p: opt(Schema.Number),
  n: opt(Schema.Int),
  stop: opt(Schema.Union(Schema.String, Schema.Array(Schema.String), Schema.Null)),
  max_tokens: opt(Schema.Int),
  max_completion_tokens: opt(Schema.Int),
  presence_penalty: opt(Schema.Number),
  frequency_penalty: opt(Schema.Number),
  logit_bias: opt(Open),
  logprobs: opt(Schema.Boolean),
  top_logprobs: opt(Schema.Int),
  user: opt(Schema.String),
  seed: opt(Schema.Int),
  tools: opt(Schema.Array(Open)),
  tool_choice: opt(Schema.Union(Schema.String, Open)),
  parallel_tool_calls: opt(Schema.Boolean),
  response_format: opt(Open),
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
})
/** @category models */
export type ChatBody = typeof ChatBody.Type
/** A chat body as callers write it, with the `extra` escape hatch. @category models */
export type ChatBodyInput = WithExtra<ChatBody>

const chat = closedBody(ChatBody, "a chat completions body")

const chatMessage = (value: unknown, path: string): Effect.Effect<void, InvalidRequest> =>
  Effect.gen(function* () {
    const m = yield* Rules.record(value, path)
    const role = yield* Rules.oneOf(yield* Rules.required(m, "role", path), at(path, "role"), ChatRoles)
    const field = at(path, "content")
    const content = Object.hasOwn(m, "content") ? m.content : undefined
    // An assistant turn that only calls tools carries `content: null` (or none).
    const callsTools = role === "assistant" && (Rules.optional(m, "tool_calls") !== undefined || Rules.optional(m, "function_call") !== undefined)
    if ((content === undefined || content === null) && !callsTools) return yield* Rules.fail(field, "required", `${field} is required`)
    if (content !== undefined && content !== null && typeof content !== "string" && !Array.isArray(content))
      return yield* Rules.fail(field, "type", `${field}: expected a string or an array of content parts, got ${Rules.describe(content)}`)
  })

/** Options of the text builders. @category models */
export type TextBodyOptions = RoutingOptions

/**
 * Builds the body of POST `/v1/chat/completions`: only its known fields (plus `extra`); `model` must
 * be a chat model the catalog lists (the GPT-5 Pro family is refused with "use responses"; epsilon
 * and zeta models are refused too), `messages` non-empty, each with a `role` and `content`; `stream`
 * a boolean; `temperature` 0–2 and `top_p` 0–1 when given.
 * @category constructors
 */
export const buildChatBody = (input: unknown, options: TextBodyOptions = {}): Effect.Effect<ChatBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const body = yield* chat.open(input)
    const model = yield* Rules.requiredString(body, "model")
    yield* ensureRoute(model, "chat", options)
    const items = yield* Rules.array(yield* Rules.required(body, "messages"), "messages", { nonEmpty: true })
    for (const [i, item] of items.entries()) yield* chatMessage(item, at("messages", i))
    yield* ifPresent(body, "stream", (v) => Rules.boolean(v, "stream"))
    yield* ifPresent(body, "temperature", (v) => Rules.number(v, "temperature", { min: 0, max: 2 }))
    yield* ifPresent(body, "top_p", (v) => Rules.number(v, "top_p", { min: 0, max: 1 }))
    const out: Record<string, unknown> = {}
    for (const key of chat.known) {
      const value = Rules.optional(body, key)
      if (value !== undefined) out[key] = Rules.sanitize(value)
    }
    // A tool-calls-only assistant turn without `content` gets the explicit null the wire shape has.
    out.messages = items.map((m) => (Rules.isRecord(m) && Rules.optional(m, "content") === undefined ? { ...Rules.sanitize(m) as object, content: null } : Rules.sanitize(m)))
    return yield* chat.seal(body, out)
  }))
