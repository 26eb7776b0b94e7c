/**
 * The messages-style (epsilon) request bodies: create message (E8), count tokens (E9) and the
 * two-round tool-use turn, validated before anything is sent.
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute } from "../../gateway/Routing.js"
import { type RoutingOptions } from "../../gateway/Catalog.js"
import { type WithExtra, closedBody, guardReads, sendable, sendableResult } from "../../validation/Closed.js"
import * as Rules from "../../validation/Rules.js"
import { conform } from "../../validation/Conform.js"
import { NonBlank, range } from "../../validation/FieldRules.js"

// ---------------------------------------------------------------------------------------------
// Schemas. The bodies are closed (their fields are E8/E9's; anything else goes in `extra`). Nested
// objects, decided from E8 and protocol-notes §1.2: closed where they name every member — a message
// (`role`, `content`), `cache_control` (`type`, upstream's `ttl`), an image `source` (base64 / url /
// file), a function tool (`name`, `description`, `input_schema`, `cache_control`, `strict`,
// `type: "custom"`), `tool_choice` (its four forms) and `thinking` (`type`, `budget_tokens`,
// `display`). Open where they leave them open: content blocks (upstream grows them: citations, …),
// server tools, `input_schema` (a JSON Schema), `tool_use.input`, `metadata`, `context_management`
// and `mcp_servers` entries. A closed object is refused key by key (`NestedFields`), naming the
// nearest known key.

const Open = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/** The image media types the messages-style API takes in a base64 image source. @category models */
export const MessagesImageMediaTypes = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const

/** `cache_control`: `ephemeral` lives 5 minutes, `persistent` 1 hour. @category schemas */
export const MessagesCacheControl = Schema.Struct({ type: Schema.Literal("ephemeral", "persistent"), ttl: opt(Schema.String) })

/** A text block, also the element of an array `system`. @category schemas */
export const TextBlockParam = Schema.Struct({ type: Schema.Literal("text"), text: NonBlank, cache_control: opt(MessagesCacheControl) }, Open)

/** An image block with a base64, url or file source. @category schemas */
export const ImageBlockParam = Schema.Struct(
  {
    type: Schema.Literal("image"),
    source: Schema.Union(
      Schema.Struct({ type: Schema.Literal("base64"), media_type: Schema.Literal(...MessagesImageMediaTypes), data: NonBlank }),
      Schema.Struct({ type: Schema.Literal("url"), url: NonBlank }),
      Schema.Struct({ type: Schema.Literal("file"), file_id: NonBlank })
    ),
    cache_control: opt(MessagesCacheControl)
  },
  Open
)

/** A tool call echoed back in an assistant turn. @category schemas */
export const ToolUseBlockParam = Schema.Struct(
  { type: Schema.Literal("tool_use"), id: NonBlank, name: NonBlank, input: Open, cache_control: opt(MessagesCacheControl) },
  Open
)

/** A block inside a tool result: text, an image, or another kind (a document, …) passed through. @category schemas */
export const ToolResultContentBlock = Schema.Union(
  TextBlockParam,
  ImageBlockParam,
  Schema.Struct({ type: NonBlank.pipe(Schema.filter((t) => t !== "text" && t !== "image")) }, Open)
)

/** A tool's answer in a user turn. @category schemas */
export const ToolResultBlockParam = Schema.Struct(
  {
    type: Schema.Literal("tool_result"),
    tool_use_id: NonBlank,
    content: opt(Schema.Union(Schema.String, Schema.Array(ToolResultContentBlock))),
    is_error: opt(Schema.Boolean),
    cache_control: opt(MessagesCacheControl)
  },
  Open
)

/** A thinking block echoed back unchanged (its `signature` is checked upstream). @category schemas */
export const ThinkingBlockParam = Schema.Struct({ type: Schema.Literal("thinking"), thinking: Schema.String, signature: Schema.String }, Open)

/** A redacted thinking block echoed back unchanged. @category schemas */
export const RedactedThinkingBlockParam = Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: NonBlank }, Open)

/** The block kinds the Schemas above describe; any other kind passes through as is. */
const KNOWN_BLOCKS: ReadonlyArray<string> = ["text", "image", "tool_use", "tool_result", "thinking", "redacted_thinking"]

/** Any content block: the known kinds, or another kind passed through as is. @category schemas */
export const ContentBlockParam = Schema.Union(
  TextBlockParam,
  ImageBlockParam,
  ToolUseBlockParam,
  ToolResultBlockParam,
  ThinkingBlockParam,
  RedactedThinkingBlockParam,
  Schema.Struct({ type: NonBlank.pipe(Schema.filter((t) => !KNOWN_BLOCKS.includes(t))) }, Open)
)
/** @category models */
export type ContentBlockParam = typeof ContentBlockParam.Type

/** One turn of the conversation. @category schemas */
export const MessageParam = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  content: Schema.Union(Schema.String, Schema.Array(ContentBlockParam))
})
/** @category models */
export type MessageParam = typeof MessageParam.Type

/** A function tool (`name`, `input_schema` of type object) or a server tool with its own `type`. @category schemas */
export const MessagesTool = Schema.Union(
  Schema.Struct({
    type: opt(Schema.Literal("custom")),
    name: Schema.String,
    description: opt(Schema.String),
    input_schema: Schema.Struct({ type: Schema.Literal("object") }, Open),
    cache_control: opt(MessagesCacheControl),
    strict: opt(Schema.Boolean)
  }),
  Schema.Struct({ type: Schema.String, cache_control: opt(MessagesCacheControl) }, Open)
)

/** `tool_choice` in its four forms. @category schemas */
export const MessagesToolChoice = Schema.Union(
  Schema.Struct({ type: Schema.Literal("auto", "any"), disable_parallel_tool_use: opt(Schema.Boolean) }),
  Schema.Struct({ type: Schema.Literal("none") }),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String, disable_parallel_tool_use: opt(Schema.Boolean) })
)

const ThinkingDisplay = Schema.Literal("summarized", "omitted")

/** Extended thinking: `enabled` with a budget, `adaptive` (each with `display`), or `disabled`. @category schemas */
export const MessagesThinkingConfig = Schema.Union(
  Schema.Struct({ type: Schema.Literal("enabled"), budget_tokens: Schema.Int.pipe(range({ min: 1024, minExclusive: true })), display: opt(ThinkingDisplay) }),
  Schema.Struct({ type: Schema.Literal("disabled") }),
  Schema.Struct({ type: Schema.Literal("adaptive"), display: opt(ThinkingDisplay) })
)

const System = Schema.Union(Schema.String, Schema.Array(TextBlockParam))

/** The body of POST `/v1/messages` (E8). @category schemas */
export const MessagesBody = Schema.Struct(
  {
    model: Schema.String,
    messages: Schema.Array(MessageParam),
    max_tokens: Schema.Int.pipe(range({ min: 0, minExclusive: true })),
    system: opt(System),
    temperature: opt(Schema.Number.pipe(range({ min: 0, max: 1 }))),
    top_p: opt(Schema.Number.pipe(range({ min: 0, max: 1 }))),
    top_k: opt(Schema.Int.pipe(range({ min: 0 }))),
    stop_sequences: opt(Schema.Array(NonBlank)),
    stream: opt(Schema.Boolean),
    tools: opt(Schema.Array(MessagesTool)),
    tool_choice: opt(MessagesToolChoice),
    thinking: opt(MessagesThinkingConfig),
    metadata: opt(Open),
    mcp_servers: opt(Schema.Array(Schema.Unknown)),
    context_management: opt(Open),
    cache_control: opt(MessagesCacheControl),
    service_tier: opt(Schema.String)
  }
)
/** @category models */
export type MessagesBody = typeof MessagesBody.Type
/** A messages body as callers write it, with the `extra` escape hatch. @category models */
export type MessagesBodyInput = WithExtra<MessagesBody>

/** The body of POST `/v1/messages/count_tokens` (E9). @category schemas */
export const CountTokensBody = Schema.Struct(
  {
    model: Schema.String,
    messages: Schema.Array(MessageParam),
    system: opt(System),
    tools: opt(Schema.Array(MessagesTool)),
    tool_choice: opt(MessagesToolChoice),
    thinking: opt(MessagesThinkingConfig),
    cache_control: opt(MessagesCacheControl)
  }
)
/** @category models */
export type CountTokensBody = typeof CountTokensBody.Type
/**
 * A count-tokens body as callers write it: a create body may be counted as it is (its output
 * controls are dropped), plus `extra`.
 * @category models
 */
export type CountTokensBodyInput = WithExtra<CountTokensBody & Partial<MessagesBody>>

// ---------------------------------------------------------------------------------------------
// Validation: friendly messages naming the field, the value and what is allowed.

type Check = Effect.Effect<void, InvalidRequest>
const { at, ifPresent } = Rules

/** A present string field (empty allowed). */
const requiredText = (obj: Rules.Json, key: string, path: string): Effect.Effect<string, InvalidRequest> =>
  Effect.flatMap(Rules.required(obj, key, path), (v) => Rules.string(v, at(path, key)))


/** Block kinds that belong to one side of the conversation only. */
const ONLY_IN: Readonly<Record<string, "user" | "assistant">> = {
  tool_use: "assistant",
  thinking: "assistant",
  redacted_thinking: "assistant",
  tool_result: "user"
}

const documentSource = (block: Rules.Json, path: string): Check =>
  Effect.gen(function* () {
    const field = at(path, "source")
    const source = yield* Rules.record(yield* Rules.required(block, "source", path), field)
    const type = yield* Rules.requiredString(source, "type", field)
    if (type === "base64" || type === "text") {
      yield* Rules.requiredString(source, "media_type", field)
      yield* requiredText(source, "data", field)
    } else if (type === "url") yield* Rules.requiredString(source, "url", field)
    else if (type === "file") yield* Rules.requiredString(source, "file_id", field)
  })

/** One content block of a turn by `role`; kinds this client does not know pass through. */
const contentBlock = (value: unknown, path: string, role: "user" | "assistant"): Check =>
  Effect.gen(function* () {
    const block = yield* Rules.record(value, path)
    const type = yield* Rules.requiredString(block, "type", path)
    const side = ONLY_IN[type]
    if (side !== undefined && side !== role)
      return yield* Rules.fail(
        at(path, "type"),
        "role",
        `${at(path, "type")}: ${Rules.describe(type)} is not allowed in a ${role} turn; allowed in: ${side} turns`
      )
    // text, image, tool_use, thinking and redacted_thinking blocks: their rules live in their Schemas.
    if (type === "document") yield* documentSource(block, path)
    else if (type === "tool_result") yield* toolResult(block, path)
  })

const toolResult = (block: Rules.Json, path: string): Check =>
  Effect.gen(function* () {
    yield* Rules.requiredString(block, "tool_use_id", path)
    yield* ifPresent(block, "is_error", (v) => Rules.boolean(v, at(path, "is_error")))
    const content = Rules.optional(block, "content")
    if (content === undefined || typeof content === "string") return
    const field = at(path, "content")
    const items = yield* Rules.array(content, field)
    for (const [i, item] of items.entries()) yield* contentBlock(item, at(field, i), "user")
  })

const content = (value: unknown, field: string, role: "user" | "assistant"): Check =>
  Effect.gen(function* () {
    if (typeof value === "string") return
    if (!Array.isArray(value))
      return yield* Rules.fail(field, "type", `${field}: expected a string or an array of content blocks, got ${Rules.describe(value)}`)
    for (const [i, item] of value.entries()) yield* contentBlock(item, at(field, i), role)
  })

const messageParam = (value: unknown, path: string): Check =>
  Effect.gen(function* () {
    const message = yield* Rules.record(value, path)
    const role = yield* Rules.oneOf(yield* Rules.required(message, "role", path), at(path, "role"), ["user", "assistant"])
    yield* content(yield* Rules.required(message, "content", path), at(path, "content"), role)
  })

const messages = (body: Rules.Json): Check =>
  Effect.gen(function* () {
    const items = yield* Rules.array(yield* Rules.required(body, "messages"), "messages", { nonEmpty: true })
    for (const [i, item] of items.entries()) yield* messageParam(item, at("messages", i))
  })

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/

/** Validates `tools` and answers the declared tool names (for `tool_choice.name`). */
const tools = (body: Rules.Json): Effect.Effect<ReadonlyArray<string> | undefined, InvalidRequest> =>
  Effect.gen(function* () {
    const v = Rules.optional(body, "tools")
    if (v === undefined) return undefined
    const items = yield* Rules.array(v, "tools")
    const names: Array<string> = []
    for (const [i, item] of items.entries()) {
      const path = at("tools", i)
      const tool = yield* Rules.record(item, path)
      const type = Rules.optional(tool, "type")
      if (type !== undefined) yield* Rules.string(type, at(path, "type"), { nonEmpty: true })
      let name: string | undefined
      if (type !== undefined && type !== "custom") {
        // A server tool (web search, code execution, …): its own type says what it needs.
        const n = Rules.optional(tool, "name")
        if (n !== undefined) name = yield* Rules.string(n, at(path, "name"), { nonEmpty: true })
      } else {
        name = yield* Rules.requiredString(tool, "name", path)
        if (!TOOL_NAME.test(name))
          return yield* Rules.notAllowed(at(path, "name"), name, "1 to 128 letters, digits, _ or -")
        yield* ifPresent(tool, "description", (d) => Rules.string(d, at(path, "description")))
        const schemaField = at(path, "input_schema")
        const schema = yield* Rules.record(yield* Rules.required(tool, "input_schema", path), schemaField)
        yield* Rules.oneOf(Rules.optional(schema, "type"), at(schemaField, "type"), ["object"])
      }
      if (name !== undefined) {
        if (names.includes(name))
          return yield* Rules.fail(at(path, "name"), "unique", `${at(path, "name")}: ${Rules.describe(name)} is declared twice; tool names must be unique`)
        names.push(name)
      }
    }
    return names
  })

// tool_choice's forms and thinking's shape and budget are rules of their Schemas; the name a
// tool_choice gives must be a declared tool, and the budget must leave room in max_tokens.
const toolChoice = (body: Rules.Json, declared: ReadonlyArray<string> | undefined): Check =>
  ifPresent(body, "tool_choice", (v) =>
    Effect.gen(function* () {
      if (!Rules.isRecord(v) || v.type !== "tool" || typeof v.name !== "string" || declared === undefined) return
      if (!declared.includes(v.name))
        return yield* Rules.notAllowed("tool_choice.name", v.name, declared.length === 0 ? "(no tools declared)" : declared, "the declared tools")
    })
  )

const common = (body: Rules.Json): Check =>
  Effect.gen(function* () {
    yield* messages(body)
    yield* toolChoice(body, yield* tools(body))
  })

/**
 * Copies a validated input into a body: every field sanitised (no `__proto__`-style keys at any
 * depth), known fields given as `null` left out (null means "absent" to the rules), `drop` left out.
 */
const copy = (input: Rules.Json, known: ReadonlySet<string>, drop: ReadonlySet<string> = new Set()): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(Rules.passthrough(input, drop))) {
    if (value === null && known.has(key)) continue
    out[key] = Rules.sanitize(value)
  }
  return out
}

const MESSAGES_FIELDS = new Set(Object.keys(MessagesBody.fields))
const messagesBody = closedBody(MessagesBody, "a messages body")
// A create body can be counted as it is: count tokens knows every create field and drops the uncounted ones.
const countTokensBody = { ...closedBody(CountTokensBody, "a count-tokens body"), known: [...MESSAGES_FIELDS] }
const countTokensOpen = closedBody(MessagesBody, "a count-tokens body").open

/** Output and generation controls the token counter does not take (protocol notes 1.7). */
const NOT_COUNTED = new Set(["max_tokens", "stream", "temperature", "top_p", "top_k", "stop_sequences", "metadata", "service_tier"])

/**
 * Builds the body of POST `/v1/messages` (E8) from untrusted input: `model` must be a messages
 * (epsilon) model; `messages` non-empty; `max_tokens` an integer greater than 0; `temperature` and
 * `top_p` 0–1; `thinking.budget_tokens` greater than 1024 and less than `max_tokens`; `tool_choice` in
 * its four forms naming a declared tool; tools with `input_schema` objects; `cache_control`
 * `ephemeral`/`persistent` wherever it appears. Unknown fields pass through untouched.
 * @category constructors
 */
export const buildMessagesBody = (input: unknown, options: RoutingOptions = {}): Effect.Effect<MessagesBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const body = yield* messagesBody.open(input)
    const model = yield* Rules.requiredString(body, "model")
    yield* ensureRoute(model, "messages", options)
    yield* common(body)
    const valid = yield* messagesBody.seal(body, copy(body, MESSAGES_FIELDS, new Set(["extra"])), model)
    // The thinking budget is part of max_tokens (protocol notes 1.2), so it must leave room for the answer.
    if (valid.thinking?.type === "enabled" && valid.thinking.budget_tokens >= valid.max_tokens)
      return yield* Rules.fail(
        "thinking.budget_tokens",
        "range",
        `thinking.budget_tokens: ${valid.thinking.budget_tokens} is out of range for ${model}; allowed: greater than 1024 and less than max_tokens (${valid.max_tokens})`
      )
    return valid
  }))

/**
 * Builds the body of POST `/v1/messages/count_tokens` (E9): `model` (a messages model) and
 * `messages` required; `system`, `tools`, `tool_choice`, `thinking` optional and checked as for
 * create. Output and generation controls (`max_tokens`, `stream`, `temperature`, `top_p`, `top_k`,
 * `stop_sequences`, `metadata`, `service_tier`) are not counted, so they are dropped rather than
 * refused: a create body can be counted as it is.
 * @category constructors
 */
export const buildCountTokensBody = (input: unknown, options: RoutingOptions = {}): Effect.Effect<CountTokensBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const body = yield* countTokensOpen(input)
    const model = yield* Rules.requiredString(body, "model")
    yield* ensureRoute(model, "countTokens", options)
    yield* common(body)
    return yield* countTokensBody.seal(body, copy(body, MESSAGES_FIELDS, new Set([...NOT_COUNTED, "extra"])), model)
  }))

/**
 * The second round of tool use: the conversation so far, then the assistant's turn exactly as it
 * came back (every block kept and in order, thinking blocks included — altering them is refused
 * upstream), then a user turn of `tool_result` blocks. Each result needs a `tool_use_id` naming a
 * `tool_use` of that assistant turn, and every `tool_use` needs its result. A result may omit
 * `type` (it is `tool_result`).
 * @category constructors
 */
export const appendToolRound = (
  conversation: unknown,
  assistantContent: unknown,
  toolResults: unknown
): Effect.Effect<ReadonlyArray<MessageParam>, InvalidRequest> =>
  sendableResult(guardReads(Effect.gen(function* () {
    yield* sendable(conversation, "conversation")
    yield* sendable(assistantContent, "assistantContent")
    yield* sendable(toolResults, "toolResults")
    const history = yield* Rules.array(conversation, "messages", { nonEmpty: true })
    for (const [i, item] of history.entries()) yield* messageParam(item, at("messages", i))
    const blocks = yield* Rules.array(assistantContent, "assistantContent", { nonEmpty: true })
    const ids: Array<string> = []
    for (const [i, item] of blocks.entries()) {
      yield* contentBlock(item, at("assistantContent", i), "assistant")
      if (Rules.isRecord(item) && item.type === "tool_use" && typeof item.id === "string") ids.push(item.id)
    }
    if (ids.length === 0)
      return yield* Rules.fail("assistantContent", "tool-use", "assistantContent: holds no tool_use block; a tool round answers tool_use blocks")
    const results = yield* Rules.array(toolResults, "toolResults", { nonEmpty: true })
    const answered: Array<string> = []
    const turn: Array<Record<string, unknown>> = []
    for (const [i, item] of results.entries()) {
      const path = at("toolResults", i)
      const result = yield* Rules.record(item, path)
      const type = Rules.optional(result, "type")
      if (type !== undefined) yield* Rules.oneOf(type, at(path, "type"), ["tool_result"])
      const block = { type: "tool_result", ...Rules.passthrough(result, ["type"]) }
      yield* contentBlock(block, path, "user")
      const id = yield* Rules.requiredString(result, "tool_use_id", path)
      if (!ids.includes(id)) return yield* Rules.notAllowed(at(path, "tool_use_id"), id, ids, "the tool_use blocks of the assistant turn")
      if (answered.includes(id))
        return yield* Rules.fail(at(path, "tool_use_id"), "unique", `${at(path, "tool_use_id")}: ${Rules.describe(id)} is answered twice`)
      answered.push(id)
      turn.push(block)
    }
    const missing = ids.filter((id) => !answered.includes(id))
    if (missing.length > 0)
      return yield* Rules.fail(
        "toolResults",
        "complete",
        `toolResults: no tool_result for ${missing.map((id) => Rules.describe(id)).join(", ")}; every tool_use of the assistant turn needs one`
      )
    const next = [
      ...history.map((m) => Rules.sanitize(m)),
      { role: "assistant", content: Rules.sanitize(blocks) },
      { role: "user", content: Rules.sanitize(turn) }
    ]
    return yield* conform(Schema.Array(MessageParam), next, "messages")
  })))
