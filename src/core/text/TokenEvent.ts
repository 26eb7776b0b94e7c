/**
 * The decoded events of the four token-stream families (messages, native, chat, responses), and pure
 * getters over them. The getters — which family an event belongs to, and the visible text or reasoning
 * each event adds — are shared by Effect `Stream`s and the RxJS operators.
 */
import type { ChatStreamEvent } from "./chat/ChatResponse.js"
import type { MessagesEvent } from "./messages/MessagesEvents.js"
import type { NativeChunk } from "./native/NativeResponse.js"
import type { ResponsesEvent } from "./responses/ResponsesResponse.js"
import { firstCandidate } from "./native/FirstCandidate.js"

/**
 * Any event `messages.stream$`, `native.stream$`, `chat.stream$` or `responses.stream$` emits.
 * @category models
 */
export type TokenEvent = MessagesEvent | NativeChunk | ChatStreamEvent | ResponsesEvent

/** The token-stream families, named by their `Gateway` group. @category models */
export type TokenFamily = "messages" | "native" | "chat" | "responses"

/**
 * The family an event proves it belongs to, or `undefined` for the few event types several families
 * share (`error`, `unknown`, `done`). Native chunks are the only events without a `type`.
 * @category getters
 */
export const tokenFamilyOf = (event: TokenEvent): TokenFamily | undefined => {
  if (!("type" in event) || typeof event.type !== "string") return "native"
  switch (event.type) {
    case "message_start":
    case "content_block_start":
    case "content_block_delta":
    case "content_block_stop":
    case "message_delta":
    case "message_stop":
    case "ping":
      return "messages"
    case "chunk":
      return "chat"
    default:
      return event.type.startsWith("response.") ? "responses" : undefined
  }
}

/**
 * The visible text one event adds (never thinking): messages `text_delta`s, native text parts that
 * are not thoughts (first candidate), chat `delta.content` (first choice), responses
 * `response.output_text.delta`. Empty pieces are left out.
 * @category getters
 */
export const tokenText = (event: TokenEvent): ReadonlyArray<string> => {
  if (!("type" in event)) {
    const parts = firstCandidate(event)?.content?.parts ?? []
    const out: Array<string> = []
    for (const part of parts)
      if (part.text !== undefined && part.text !== "" && part.thought !== true) out.push(part.text)
    return out
  }
  switch (event.type) {
    case "content_block_delta":
      // The opaque-delta member keeps `type` a plain string, so the field is checked, not assumed.
      return event.delta.type === "text_delta" && typeof event.delta["text"] === "string" && event.delta["text"] !== ""
        ? [event.delta["text"]]
        : []
    case "chunk": {
      const choice = event.chunk.choices.find((c) => c.index === 0)
      const content = choice?.delta.content
      return typeof content === "string" && content !== "" ? [content] : []
    }
    case "response.output_text.delta":
      return event.delta === "" ? [] : [event.delta]
    default:
      return []
  }
}

/**
 * The text of an event that carries nothing but text (possibly empty), or `undefined` for any other:
 * a messages `text_delta`; a chat chunk of one choice, the first, with neither tool calls nor a finish
 * reason; a responses `output_text.delta`; a native chunk of one part, text that is not thought. For
 * such an event it is what `tokenText` gives, and nothing else is in it (no reasoning, signature, block
 * or tool-call fragment): a reader may take its text and skip every other getter. Nearly all of a
 * stream's events are of this kind.
 * @category getters
 */
export const tokenOnlyText = (event: TokenEvent): string | undefined => {
  // `type` read once, the families' text events first; only native chunks have none.
  const type = (event as { readonly type?: unknown }).type
  if (type === "content_block_delta") {
    const delta = (event as Extract<TokenEvent, { type: "content_block_delta" }>).delta
    const text = delta.type === "text_delta" ? delta["text"] : undefined
    return typeof text === "string" ? text : undefined
  }
  if (type === "chunk") {
    const choices = (event as Extract<TokenEvent, { type: "chunk" }>).chunk.choices
    if (choices.length !== 1) return undefined
    const choice = choices[0]!
    const calls = choice.delta.tool_calls
    if (choice.index !== 0 || (calls !== undefined && calls.length > 0) || typeof choice.finish_reason === "string")
      return undefined
    const content = choice.delta.content
    return typeof content === "string" ? content : ""
  }
  if (type === "response.output_text.delta")
    return (event as Extract<TokenEvent, { type: "response.output_text.delta" }>).delta
  if (type !== undefined || "type" in event) return undefined
  const parts = firstCandidate(event)?.content?.parts
  if (parts === undefined || parts.length !== 1) return undefined
  const part = parts[0]!
  return part.functionCall === undefined && part.thought !== true && part.text !== undefined ? part.text : undefined
}

/**
 * The reasoning text one event adds: messages `thinking_delta`s, native text parts marked
 * `thought` (first candidate), responses `response.reasoning_summary_text.delta`. Chat completions
 * carry no reasoning text. Empty pieces are left out.
 * @category getters
 */
export const tokenThinking = (event: TokenEvent): ReadonlyArray<string> => {
  if (!("type" in event)) {
    const parts = firstCandidate(event)?.content?.parts ?? []
    const out: Array<string> = []
    for (const part of parts)
      if (part.text !== undefined && part.text !== "" && part.thought === true) out.push(part.text)
    return out
  }
  switch (event.type) {
    case "content_block_delta":
      // The opaque-delta member keeps `type` a plain string, so the field is checked, not assumed.
      return event.delta.type === "thinking_delta" &&
        typeof event.delta["thinking"] === "string" &&
        event.delta["thinking"] !== ""
        ? [event.delta["thinking"]]
        : []
    case "response.reasoning_summary_text.delta":
      return event.delta === "" ? [] : [event.delta]
    default:
      return []
  }
}
