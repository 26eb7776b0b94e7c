/**
 * The OpenAI-style text bodies of E16 — chat completions and responses — validated to their minimal
 * shape, with every other field passed through (the contract does not show the full bodies).
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute, type RoutingOptions } from "../../gateway/Routing.js"
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

/** The body of POST `/v1/chat/completions`. @category schemas */
export const ChatBody = Schema.Struct(
  { model: Schema.String, messages: Schema.Array(ChatMessageParam), stream: opt(Schema.Boolean) },
  Open
)
/** @category models */
export type ChatBody = typeof ChatBody.Type

/** One `input` item of a responses body: a `{role, content}` message, or another typed item passed through. @category schemas */
export const ResponsesInputItem = Schema.Union(
  Schema.Struct({ role: Schema.String, content: Schema.Union(Schema.String, Schema.Array(Schema.Unknown)) }, Open),
  Schema.Struct({ type: Schema.String }, Open)
)

/** The body of POST `/v1/responses`. @category schemas */
export const ResponsesBody = Schema.Struct(
  {
    model: Schema.String,
    input: opt(Schema.Union(Schema.String, Schema.Array(ResponsesInputItem))),
    max_output_tokens: opt(Schema.Int),
    stream: opt(Schema.Boolean)
  },
  Open
)
/** @category models */
export type ResponsesBody = typeof ResponsesBody.Type

const copy = (body: Rules.Json, known: ReadonlySet<string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(Rules.passthrough(body))) {
    if (value === null && known.has(key)) continue
    out[key] = Rules.sanitize(value)
  }
  return out
}

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

/**
 * Builds the body of POST `/v1/chat/completions`: `model` must be a chat model (the GPT-5 Pro family
 * is refused with "use responses"; epsilon and zeta models are refused too), `messages` non-empty,
 * each with a `role` and `content`; `stream` a boolean. Every other field passes through.
 * @category constructors
 */
export const buildChatBody = (input: unknown, options: RoutingOptions = {}): Effect.Effect<ChatBody, InvalidRequest> =>
  Effect.gen(function* () {
    const body = yield* Rules.record(input, "")
    const model = yield* Rules.requiredString(body, "model")
    yield* ensureRoute(model, "chat", options)
    const items = yield* Rules.array(yield* Rules.required(body, "messages"), "messages", { nonEmpty: true })
    for (const [i, item] of items.entries()) yield* chatMessage(item, at("messages", i))
    yield* ifPresent(body, "stream", (v) => Rules.boolean(v, "stream"))
    const out = copy(body, new Set(["stream"]))
    // A tool-calls-only assistant turn without `content` gets the explicit null the wire shape has.
    const messages = out.messages
    if (Array.isArray(messages))
      out.messages = messages.map((m: unknown) => (Rules.isRecord(m) && Rules.optional(m, "content") === undefined ? { ...m, content: null } : m))
    return yield* Rules.conform(ChatBody, out, "")
  })

const responsesInput = (value: unknown): Effect.Effect<void, InvalidRequest> =>
  Effect.gen(function* () {
    if (typeof value === "string") {
      yield* Rules.string(value, "input", { nonEmpty: true })
      return
    }
    if (!Array.isArray(value))
      return yield* Rules.fail("input", "type", `input: expected a string or an array of {role, content} items, got ${Rules.describe(value)}`)
    if (value.length === 0) return yield* Rules.fail("input", "non-empty", "input must not be empty")
    for (const [i, item] of value.entries()) {
      const path = at("input", i)
      const it = yield* Rules.record(item, path)
      const type = Rules.optional(it, "type")
      // Typed items other than messages (function_call_output, reasoning, …) pass through.
      if (type !== undefined && type !== "message") {
        yield* Rules.string(type, at(path, "type"), { nonEmpty: true })
        continue
      }
      yield* Rules.oneOf(yield* Rules.required(it, "role", path), at(path, "role"), ["user", "assistant", "system", "developer"])
      const content = yield* Rules.required(it, "content", path)
      if (typeof content !== "string" && !Array.isArray(content))
        return yield* Rules.fail(at(path, "content"), "type", `${at(path, "content")}: expected a string or an array of content parts, got ${Rules.describe(content)}`)
    }
  })

/** Fields that stand in for `input` (a stored prompt, a previous response or a conversation). */
const INPUT_SOURCES = ["prompt", "previous_response_id", "conversation"]

/**
 * Builds the body of POST `/v1/responses`: `model` must take responses (GPT-5, GPT-5 Pro, o-series
 * and other OpenAI-style chat models; not epsilon or zeta), `input` a string or a non-empty array of
 * `{role, content}` items (required unless `prompt`, `previous_response_id` or `conversation` stands
 * in for it), `max_output_tokens` a positive integer, `stream` a boolean. Every other field passes through.
 * @category constructors
 */
export const buildResponsesBody = (input: unknown, options: RoutingOptions = {}): Effect.Effect<ResponsesBody, InvalidRequest> =>
  Effect.gen(function* () {
    const body = yield* Rules.record(input, "")
    const model = yield* Rules.requiredString(body, "model")
    yield* ensureRoute(model, "responses", options)
    const given = Rules.optional(body, "input")
    if (given === undefined) {
      if (!INPUT_SOURCES.some((k) => Rules.optional(body, k) !== undefined)) yield* Rules.required(body, "input")
    } else yield* responsesInput(given)
    yield* ifPresent(body, "max_output_tokens", (v) =>
      Rules.number(v, "max_output_tokens", { min: 0, minExclusive: true, integer: true, context: model })
    )
    yield* ifPresent(body, "stream", (v) => Rules.boolean(v, "stream"))
    return yield* Rules.conform(ResponsesBody, copy(body, new Set(["input", "max_output_tokens", "stream"])), "")
  })
