/**
 * The messages-style (epsilon) request bodies: create message (E8), count tokens (E9) and the
 * two-round tool-use turn, validated before anything is sent.
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute } from "../../gateway/Routing.js"
import { type RoutingOptions } from "../../gateway/Catalog.js"
import { type WithExtra, closedBody, buildWith, ModelId, sendable, sendableResult } from "../../validation/Closed.js"
import { at, describe, fail, isRecord, listAllowed, notAllowed, passthrough, sanitize } from "../../validation/Rules.js"
import { type PairedTurn, recordsOf, withToolPairing } from "../ToolPairing.js"
import { conform } from "../../validation/Conform.js"
import {
  acrossFields,
  detailed,
  expected,
  matching,
  NonBlank,
  nonEmptyArray,
  range,
  SamplingTopP
} from "../../validation/FieldRules.js"

// ---------------------------------------------------------------------------------------------
// Schemas. The bodies are closed (their fields are E8/E9's; anything else goes in `extra`). Nested
// objects, decided from E8 and upstream's request: closed where they name every member — a message
// (`role`, `content`), `cache_control` (`type`, upstream's `ttl`), an image `source` (base64 / url /
// file), a function tool (`name`, `description`, `input_schema`, `cache_control`, `strict`,
// `type: "custom"`), `tool_choice` (its four forms) and `thinking` (`type`, `budget_tokens`,
// `display`). Open where they leave them open: content blocks (upstream grows them: citations, …),
// document sources, server tools, `input_schema` (a JSON Schema), `tool_use.input`, `metadata`,
// `context_management` and `mcp_servers` entries. A closed object is refused key by key
// (`NestedFields`), naming the nearest known key. The rules across fields (a turn's blocks of its own
// side, unique tool names, a declared `tool_choice`, the thinking budget within `max_tokens`) are
// refinements of these Schemas too, so a Schema alone refuses what its builder refuses.

const Open = Schema.Record(Schema.String, Schema.Unknown)
// An object whose other members pass through (an index signature besides its fields).
const openStruct = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.StructWithRest(Schema.Struct(fields), [Open])
const opt = Schema.optionalKey

/** The image media types the messages-style API takes in a base64 image source. @category models */
export const MessagesImageMediaTypes = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const

/** The lifetimes upstream's `cache_control.ttl` takes. */
const CACHE_TTLS = ["5m", "1h"] as const

/**
 * `cache_control`: `ephemeral` lives 5 minutes, `persistent` 1 hour; upstream's `ttl` is `5m` or `1h`.
 * @category schemas
 */
export const MessagesCacheControl = Schema.Struct({
  type: Schema.Literals(["ephemeral", "persistent"]),
  ttl: opt(Schema.Literals(CACHE_TTLS))
})

/** A text block, also the element of an array `system`. @category schemas */
export const TextBlockParam = openStruct({
  type: Schema.Literal("text"),
  text: NonBlank,
  cache_control: opt(MessagesCacheControl)
})

/** An image block with a base64, url or file source. @category schemas */
export const ImageBlockParam = openStruct({
  type: Schema.Literal("image"),
  source: Schema.Union([
    Schema.Struct({
      type: Schema.Literal("base64"),
      media_type: Schema.Literals(MessagesImageMediaTypes),
      data: NonBlank
    }),
    Schema.Struct({ type: Schema.Literal("url"), url: NonBlank }),
    Schema.Struct({ type: Schema.Literal("file"), file_id: NonBlank })
  ]),
  cache_control: opt(MessagesCacheControl)
})

/** A tool call echoed back in an assistant turn. @category schemas */
export const ToolUseBlockParam = openStruct({
  type: Schema.Literal("tool_use"),
  id: NonBlank,
  name: NonBlank,
  input: Open,
  cache_control: opt(MessagesCacheControl)
})

/** A thinking block echoed back unchanged (its `signature` is checked upstream). @category schemas */
export const ThinkingBlockParam = openStruct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.String,
  cache_control: opt(MessagesCacheControl)
})

/** A redacted thinking block echoed back unchanged. @category schemas */
export const RedactedThinkingBlockParam = openStruct({
  type: Schema.Literal("redacted_thinking"),
  data: NonBlank,
  cache_control: opt(MessagesCacheControl)
})

/** A document block: its `source` is base64 or plain text data, a url or a file (another source kind passes through). @category schemas */
export const DocumentBlockParam = openStruct({
  type: Schema.Literal("document"),
  source: Schema.Union([
    openStruct({ type: Schema.Literals(["base64", "text"]), media_type: NonBlank, data: Schema.String }),
    openStruct({ type: Schema.Literal("url"), url: NonBlank }),
    openStruct({ type: Schema.Literal("file"), file_id: NonBlank }),
    openStruct({ type: NonBlank.check(Schema.makeFilter((t) => !["base64", "text", "url", "file"].includes(t))) })
  ]),
  cache_control: opt(MessagesCacheControl)
})

/** The block kinds the Schemas here describe; any other kind passes through as is. */
const KNOWN_BLOCKS: ReadonlyArray<string> = [
  "text",
  "image",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "document"
]
// Its `cache_control`, if any, is checked like every block's: upstream caches any block kind.
const OtherBlock = openStruct({
  type: NonBlank.check(Schema.makeFilter((t) => !KNOWN_BLOCKS.includes(t))),
  cache_control: opt(MessagesCacheControl)
})

/** Block kinds that belong to one side of the conversation only. */
const ONLY_IN: Readonly<Record<string, "user" | "assistant">> = {
  tool_use: "assistant",
  thinking: "assistant",
  redacted_thinking: "assistant",
  tool_result: "user"
}

type Side = "user" | "assistant"

/** The rule of a turn's side: a block of the other side only is refused (rule `role`), naming where it is allowed. */
const ofSide = (role: Side) => (blocks: ReadonlyArray<{ readonly type: string }>) => {
  for (const [i, b] of blocks.entries()) {
    const side = ONLY_IN[b.type]
    if (side !== undefined && side !== role)
      return {
        key: [i, "type"],
        detail: `${describe(b.type)} is not allowed in ${role === "user" ? "a" : "an"} ${role} turn; allowed in: ${side} turns`
      }
  }
  return undefined
}

/** The blocks of a turn by `role`, each of that side. */
const blocksOf = <S extends Schema.Codec<{ readonly type: string }, unknown>>(block: S, role: Side) =>
  acrossFields(Schema.Array(block), "role", ofSide(role), detailed)

// A tool result nested in a tool result, passed through with its own fields checked.
const NestedToolResult = openStruct({
  type: Schema.Literal("tool_result"),
  tool_use_id: NonBlank,
  is_error: opt(Schema.Boolean),
  cache_control: opt(MessagesCacheControl)
})

/**
 * A block inside a tool result: text, an image, a document, or another kind passed through; blocks of
 * an assistant turn (a tool call, thinking) are refused there.
 * @category schemas
 */
export const ToolResultContentBlock = Schema.Union([
  TextBlockParam,
  ImageBlockParam,
  DocumentBlockParam,
  NestedToolResult,
  ToolUseBlockParam,
  ThinkingBlockParam,
  RedactedThinkingBlockParam,
  OtherBlock
])

/** A tool's answer in a user turn. @category schemas */
export const ToolResultBlockParam = openStruct({
  type: Schema.Literal("tool_result"),
  tool_use_id: NonBlank,
  content: opt(
    Schema.Union([Schema.String, blocksOf(ToolResultContentBlock, "user")]).pipe(
      expected("a string or an array of content blocks")
    )
  ),
  is_error: opt(Schema.Boolean),
  cache_control: opt(MessagesCacheControl)
})

/** Any content block: the known kinds, or another kind passed through as is. @category schemas */
export const ContentBlockParam = Schema.Union([
  TextBlockParam,
  ImageBlockParam,
  ToolUseBlockParam,
  ToolResultBlockParam,
  ThinkingBlockParam,
  RedactedThinkingBlockParam,
  DocumentBlockParam,
  OtherBlock
])
/** @category models */
export type ContentBlockParam = typeof ContentBlockParam.Type

const turnContent = (role: Side) =>
  Schema.Union([Schema.String, blocksOf(ContentBlockParam, role)]).pipe(
    expected("a string or an array of content blocks")
  )

/** The content of an assistant turn, as `appendToolRound` takes it: blocks of an assistant turn, at least one. @category schemas */
export const AssistantContent = acrossFields(nonEmptyArray(ContentBlockParam), "role", ofSide("assistant"), detailed)

/** One turn of the conversation: its blocks belong to its side (`tool_use` in an assistant turn, `tool_result` in a user turn). @category schemas */
export const MessageParam = Schema.Union([
  Schema.Struct({ role: Schema.Literal("user"), content: turnContent("user") }),
  Schema.Struct({ role: Schema.Literal("assistant"), content: turnContent("assistant") })
])
/** @category models */
export type MessageParam = typeof MessageParam.Type

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/

/** A function tool (`name`, `input_schema` of type object) or a server tool with its own `type`. @category schemas */
export const MessagesTool = Schema.Union([
  Schema.Struct({
    type: opt(Schema.Literal("custom")),
    name: NonBlank.pipe(matching(TOOL_NAME, "1 to 128 letters, digits, _ or -")),
    description: opt(Schema.String),
    input_schema: openStruct({ type: Schema.Literal("object") }),
    cache_control: opt(MessagesCacheControl),
    strict: opt(Schema.Boolean)
  }),
  // A server tool (web search, code execution, …): its own type says what it needs.
  openStruct({
    type: NonBlank.check(Schema.makeFilter((t) => t !== "custom")),
    name: opt(NonBlank),
    cache_control: opt(MessagesCacheControl)
  })
])

/** `tool_choice` in its four forms. @category schemas */
export const MessagesToolChoice = Schema.Union([
  Schema.Struct({ type: Schema.Literals(["auto", "any"]), disable_parallel_tool_use: opt(Schema.Boolean) }),
  Schema.Struct({ type: Schema.Literal("none") }),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String, disable_parallel_tool_use: opt(Schema.Boolean) })
])

const ThinkingDisplay = Schema.Literals(["summarized", "omitted"])

/** Extended thinking: `enabled` with a budget, `adaptive` (each with `display`), or `disabled`. @category schemas */
export const MessagesThinkingConfig = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("enabled"),
    budget_tokens: Schema.Int.pipe(range({ min: 1024, minExclusive: true })),
    display: opt(ThinkingDisplay)
  }),
  Schema.Struct({ type: Schema.Literal("disabled") }),
  Schema.Struct({ type: Schema.Literal("adaptive"), display: opt(ThinkingDisplay) })
])

const System = Schema.Union([Schema.String, Schema.Array(TextBlockParam)])

/** The fields a create body and a count-tokens body share, and how they are typed. */
const conversationFields = {
  model: ModelId,
  messages: nonEmptyArray(MessageParam),
  system: opt(System),
  tools: opt(Schema.Array(MessagesTool)),
  tool_choice: opt(MessagesToolChoice),
  thinking: opt(MessagesThinkingConfig),
  cache_control: opt(MessagesCacheControl)
}

type Conversation = {
  readonly tools?: ReadonlyArray<{ readonly name?: string }>
  readonly tool_choice?: typeof MessagesToolChoice.Type
}

// A tool name is declared once (rule `unique`).
const uniqueToolNames = (body: Conversation) => {
  const names: Array<string> = []
  for (const [i, tool] of (body.tools ?? []).entries()) {
    if (tool.name === undefined) continue
    if (names.includes(tool.name))
      return {
        key: ["tools", i, "name"],
        detail: `${describe(tool.name)} is declared twice; tool names must be unique`
      }
    names.push(tool.name)
  }
  return undefined
}

// The tool a `tool_choice` names is a declared one (rule `one-of`).
const declaredChoice = (body: Conversation) => {
  const choice = body.tool_choice
  if (choice?.type !== "tool") return undefined
  const declared = (body.tools ?? []).flatMap((t) => (t.name === undefined ? [] : [t.name]))
  return declared.includes(choice.name)
    ? undefined
    : {
        key: ["tool_choice", "name"],
        detail: `${describe(choice.name)} is not allowed for the declared tools; allowed: ${declared.length === 0 ? "(no tools declared)" : listAllowed(declared)}`
      }
}

/**
 * Where a conversation's tool uses and results are: the `tool_result` blocks of a user message
 * answer the `tool_use` blocks of the assistant message right before it, each of which needs one.
 */
const toolTurns = (body: { readonly messages: ReadonlyArray<unknown> }): Array<PairedTurn> =>
  body.messages.flatMap((message, i) => {
    const previous = body.messages[i - 1]
    const calls =
      isRecord(previous) && previous.role === "assistant"
        ? recordsOf(previous.content).flatMap(([b, j]) =>
            b.type === "tool_use" ? [{ id: b.id, key: ["messages", i - 1, "content", j, "id"] }] : []
          )
        : []
    const results =
      isRecord(message) && message.role === "user"
        ? recordsOf(message.content).flatMap(([b, j]) =>
            b.type === "tool_result" ? [{ id: b.tool_use_id, key: ["messages", i, "content", j, "tool_use_id"] }] : []
          )
        : []
    return calls.length === 0 && results.length === 0
      ? []
      : [
          {
            calls,
            callsWhere: i === 0 ? "no message before it" : `the tool_use blocks of messages[${i - 1}]`,
            results,
            complete: `tool_result in messages[${i}]`
          }
        ]
  })

/** The body of POST `/v1/messages` (E8). @category schemas */
export const MessagesBody = Schema.Struct({
  model: ModelId,
  messages: nonEmptyArray(MessageParam),
  max_tokens: Schema.Int.pipe(range({ min: 0, minExclusive: true })),
  system: opt(System),
  temperature: opt(Schema.Number.pipe(range({ min: 0, max: 1 }))),
  top_p: opt(SamplingTopP),
  top_k: opt(Schema.Int.pipe(range({ min: 0 }))),
  stop_sequences: opt(Schema.Array(NonBlank)),
  stream: opt(Schema.Boolean),
  tools: conversationFields.tools,
  tool_choice: conversationFields.tool_choice,
  thinking: conversationFields.thinking,
  metadata: opt(Open),
  mcp_servers: opt(Schema.Array(Schema.Unknown)),
  context_management: opt(Open),
  cache_control: conversationFields.cache_control,
  service_tier: opt(Schema.String)
}).pipe(
  (self) => acrossFields(self, "unique", uniqueToolNames, detailed),
  (self) => acrossFields(self, "one-of", declaredChoice, detailed),
  withToolPairing(toolTurns),
  // The thinking budget counts toward max_tokens, so it must stay below max_tokens to leave room for the answer.
  (self) =>
    acrossFields(
      self,
      "range",
      (body) =>
        body.thinking?.type === "enabled" && body.thinking.budget_tokens >= body.max_tokens
          ? {
              key: ["thinking", "budget_tokens"],
              detail: `${body.thinking.budget_tokens} is out of range; allowed: greater than 1024 and less than max_tokens (${body.max_tokens})`
            }
          : undefined,
      (field, detail, context) =>
        `${field}: ${context === undefined ? detail : detail.replace(" is out of range;", ` is out of range for ${context};`)}`
    )
)
/** @category models */
export type MessagesBody = typeof MessagesBody.Type
/** A messages body as callers write it, with the `extra` escape hatch. @category models */
export type MessagesBodyInput = WithExtra<MessagesBody>

/** The body of POST `/v1/messages/count_tokens` (E9). @category schemas */
export const CountTokensBody = Schema.Struct(conversationFields).pipe(
  (self) => acrossFields(self, "unique", uniqueToolNames, detailed),
  (self) => acrossFields(self, "one-of", declaredChoice, detailed)
)
/** @category models */
export type CountTokensBody = typeof CountTokensBody.Type
/**
 * A count-tokens body as callers write it: a create body may be counted as it is (its output
 * controls are dropped), plus `extra`.
 * @category models
 */
export type CountTokensBodyInput = WithExtra<CountTokensBody & Partial<MessagesBody>>

const messagesBody = closedBody(MessagesBody, "a messages body")
// A create body can be counted as it is: count tokens knows every create field and drops the uncounted ones.
const countTokensBody = closedBody(CountTokensBody, "a count-tokens body", messagesBody.known)
const countTokensOpen = closedBody(MessagesBody, "a count-tokens body").open

/**
 * Builds the body of POST `/v1/messages` (E8) from untrusted input: `model` must be a messages
 * (epsilon) model; then the Schema's rules: `messages` non-empty, each block of its turn's side;
 * `max_tokens` an integer greater than 0; `temperature` and `top_p` 0–1; `thinking.budget_tokens`
 * greater than 1024 and less than `max_tokens`; `tool_choice` in its four forms naming a declared tool;
 * tools with unique names and `input_schema` objects; `cache_control` `ephemeral`/`persistent` (its
 * `ttl`, if any, `5m` or `1h`) wherever it appears. Fields umg does not know yet travel in `extra`.
 * @category constructors
 */
export const buildMessagesBody = (
  input: unknown,
  options: RoutingOptions = {}
): Effect.Effect<MessagesBody, InvalidRequest> =>
  buildWith(() => messagesBody.build(input, (model) => ensureRoute(model, "messages", options)))

/**
 * Builds the body of POST `/v1/messages/count_tokens` (E9): `model` (a messages model) and
 * `messages` required; `system`, `tools`, `tool_choice`, `thinking` optional and checked as for
 * create. Output and generation controls (`max_tokens`, `stream`, `temperature`, `top_p`, `top_k`,
 * `stop_sequences`, `metadata`, `service_tier`) are not counted, so they are dropped rather than
 * refused: a create body can be counted as it is.
 * @category constructors
 */
export const buildCountTokensBody = (
  input: unknown,
  options: RoutingOptions = {}
): Effect.Effect<CountTokensBody, InvalidRequest> =>
  buildWith(() =>
    countTokensBody.build(input, (model) => ensureRoute(model, "countTokens", options), { open: countTokensOpen })
  )

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
  sendableResult(
    buildWith(() =>
      Result.gen(function* () {
        yield* sendable(conversation, "conversation")
        yield* sendable(assistantContent, "assistantContent")
        yield* sendable(toolResults, "toolResults")
        const history = yield* conform(Conversation, conversation, "messages")
        const blocks = yield* conform(AssistantContent, assistantContent, "assistantContent")
        const ids = blocks.flatMap((b) =>
          b.type === "tool_use" && "id" in b && typeof b.id === "string" ? [b.id] : []
        )
        if (ids.length === 0)
          return yield* fail(
            "assistantContent",
            "tool-use",
            "assistantContent: holds no tool_use block; a tool round answers tool_use blocks"
          )
        const results = yield* conform(ToolResults, toolResults, "toolResults")
        const answered: Array<string> = []
        const turn: Array<typeof ToolResultBlockParam.Type> = []
        for (const [i, result] of results.entries()) {
          const path = at("toolResults", i)
          // A result may omit `type`: it is a tool_result.
          const block = yield* conform(
            ToolResultBlockParam,
            { type: "tool_result", ...passthrough(result, ["type"]) },
            path
          )
          const id = block.tool_use_id
          if (!ids.includes(id))
            return yield* notAllowed(at(path, "tool_use_id"), id, ids, "the tool_use blocks of the assistant turn")
          if (answered.includes(id))
            return yield* fail(
              at(path, "tool_use_id"),
              "unique",
              `${at(path, "tool_use_id")}: ${describe(id)} is answered twice`
            )
          answered.push(id)
          turn.push(block)
        }
        const missing = ids.filter((id) => !answered.includes(id))
        if (missing.length > 0)
          return yield* fail(
            "toolResults",
            "complete",
            `toolResults: no tool_result for ${missing.map((id) => describe(id)).join(", ")}; every tool_use of the assistant turn needs one`
          )
        const next = [
          ...history.map((m) => sanitize(m)),
          { role: "assistant", content: sanitize(blocks) },
          { role: "user", content: sanitize(turn) }
        ]
        return yield* conform(Conversation, next, "messages")
      })
    )
  )

// The arguments of a tool round: a conversation so far, and results that are tool_result blocks
// (their `type` may be left out).
const Conversation = nonEmptyArray(MessageParam)
const ToolResults = nonEmptyArray(openStruct({ type: opt(Schema.Literal("tool_result")) }))
