/**
 * Schemas of the messages-style (epsilon) `Message` response: its content blocks and usage, as the
 * non-stream endpoint returns it and as the stream accumulator rebuilds it.
 */
import type { Result } from "effect"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DecodeError } from "../../errors/GatewayError.js"
import { type DecodeOptions, decodeWith, JsonObject, JsonValue, opaqueTagged } from "../../wire/WireJson.js"

/** A text block; `citations` appear when the request enabled them. @category schemas */
export const MessagesTextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  citations: Schema.optional(Schema.NullOr(Schema.Array(JsonValue)))
})

/** A thinking block; `signature` is opaque and must be echoed back unchanged. @category schemas */
export const MessagesThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.String
})

/** A redacted (encrypted) thinking block. @category schemas */
export const MessagesRedactedThinkingBlock = Schema.Struct({
  type: Schema.Literal("redacted_thinking"),
  data: Schema.String
})

/** A client tool call; `input` is the parsed JSON object. @category schemas */
export const MessagesToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject
})

/** Block kinds this library models; any other kind (server-tool blocks, …) passes through opaquely. */
const KNOWN_BLOCKS = ["text", "thinking", "redacted_thinking", "tool_use"] as const

/** A server-tool block (`server_tool_use`, `web_search_tool_result`, …) or a newer kind, kept as is. @category schemas */
export const MessagesOpaqueBlock = opaqueTagged(KNOWN_BLOCKS, "MessagesOpaqueBlock")

/** One output content block. @category schemas */
export const MessagesContentBlock = Schema.Union([
  MessagesTextBlock,
  MessagesThinkingBlock,
  MessagesRedactedThinkingBlock,
  MessagesToolUseBlock,
  MessagesOpaqueBlock
])
/** @category models */
export type MessagesContentBlock = Schema.Schema.Type<typeof MessagesContentBlock>

/** The block kinds this library models, discriminated by `type`. @category models */
export type MessagesKnownBlock =
  | Schema.Schema.Type<typeof MessagesTextBlock>
  | Schema.Schema.Type<typeof MessagesThinkingBlock>
  | Schema.Schema.Type<typeof MessagesRedactedThinkingBlock>
  | Schema.Schema.Type<typeof MessagesToolUseBlock>

/**
 * Narrows a block to a known kind. Sound because the opaque member never decodes a known `type`
 * (TypeScript alone cannot see that, since the opaque `type` is any string).
 * @category guards
 */
export const isMessagesBlock = <K extends MessagesKnownBlock["type"]>(
  block: MessagesContentBlock,
  kind: K
): block is Extract<MessagesKnownBlock, { readonly type: K }> => block.type === kind

/** Optional token counts: tolerated absent or null (older answers only carry input/output). */
const OptionalCount = Schema.optional(Schema.NullOr(Schema.Number))

/**
 * Token usage. In a stream, `message_delta` carries cumulative counts: the accumulator replaces, it
 * does not add.
 * @category schemas
 */
export const MessagesUsage = Schema.Struct({
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  cache_creation_input_tokens: OptionalCount,
  cache_read_input_tokens: OptionalCount,
  cache_creation: Schema.optional(JsonValue),
  server_tool_use: Schema.optional(JsonValue),
  service_tier: Schema.optional(Schema.NullOr(Schema.String)),
  output_tokens_details: Schema.optional(JsonValue)
})
/** @category models */
export type MessagesUsage = Schema.Schema.Type<typeof MessagesUsage>

/** A string or null, null when absent (or undefined). */
const NullByDefault = Schema.NullOr(Schema.String).pipe(Schema.withDecodingDefault(Effect.succeed(null)))

/**
 * The `Message` response. `stop_reason` is one of `end_turn`, `max_tokens`, `stop_sequence`,
 * `tool_use`, `pause_turn`, `refusal`, `model_context_window_exceeded` (kept a string so newer
 * values decode); it is null only in a stream's `message_start`.
 * @category schemas
 */
export const Message = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("message"),
  role: Schema.Literal("assistant"),
  model: Schema.String,
  content: Schema.Array(MessagesContentBlock),
  stop_reason: NullByDefault,
  stop_sequence: NullByDefault,
  usage: MessagesUsage,
  container: Schema.optional(JsonValue),
  stop_details: Schema.optional(JsonValue)
})
/** @category models */
export type Message = Schema.Schema.Type<typeof Message>

/** Decodes a non-stream messages-style response body (already parsed JSON); never throws. @category decoding */
export const decodeMessage: (body: unknown, options?: DecodeOptions) => Result.Result<Message, DecodeError> =
  decodeWith(Message, "messages", "messages response")

/** The concatenated text of a message's text blocks. @category getters */
export const messageText = (message: Message): string => {
  let text = ""
  for (const block of message.content) if (isMessagesBlock(block, "text")) text += block.text
  return text
}
