/** The decoded events of the four token-stream families, and which family an event belongs to (for the cross-family operators). */
import type { ChatStreamEvent } from "../core/ChatResponse.js"
import type { MessagesEvent } from "../core/MessagesEvents.js"
import type { NativeChunk } from "../core/NativeResponse.js"
import type { ResponsesEvent } from "../core/ResponsesResponse.js"

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
