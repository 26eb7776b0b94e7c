/**
 * The messages-style (epsilon) stream accumulator: a pure fold of stream events into a
 * `Message`-shaped snapshot (text, thinking and signature, tool input JSON, usage, stop reason), with
 * events out of order, `error` events and streams cut before `message_stop` as `IncompleteStream`.
 */
import { Either } from "effect"
import { type Accumulator, foldAll, incomplete, replaceAt, type Step } from "../Accumulator.js"
import type { MessagesDeltaUsage, MessagesEvent } from "./MessagesEvents.js"
import { isMessagesBlock, type Message, type MessagesContentBlock, type MessagesUsage } from "./MessagesResponse.js"
import { isRecord, sanitize } from "../../validation/Rules.js"
import { parseJsonText } from "../../wire/WireJson.js"

/** How far one content block has come. @category models */
export interface MessagesBlockProgress {
  /** True between `content_block_start` and `content_block_stop`. */
  readonly open: boolean
  /** The input JSON received so far (tool-use blocks); parsed into `input` at the block's stop. */
  readonly json: string
}

/**
 * The accumulated state: `message` is `undefined` until `message_start`; `blocks[i]` tracks
 * `message.content[i]`.
 * @category models
 */
export interface MessagesSnapshot {
  readonly phase: "awaiting-start" | "streaming" | "stopped"
  readonly message: Message | undefined
  readonly blocks: ReadonlyArray<MessagesBlockProgress>
}

/** The snapshot before any event. @category constructors */
export const initialMessagesSnapshot: MessagesSnapshot = { phase: "awaiting-start", message: undefined, blocks: [] }

const outOfOrder = (snapshot: MessagesSnapshot, message: string) => incomplete("messages", "out-of-order", message, snapshot)

/** Server-side tool calls (`server_tool_use`, `mcp_tool_use`, …) stream their input like `tool_use`. */
const takesInputJson = (block: MessagesContentBlock): boolean => block.type === "tool_use" || block.type.endsWith("_tool_use")

/** Merges cumulative usage: every count present (not null) replaces the earlier one. */
const mergeUsage = (usage: MessagesUsage, delta: MessagesDeltaUsage | null | undefined): MessagesUsage => {
  if (delta === null || delta === undefined) return usage
  const out: Record<string, unknown> = { ...usage }
  for (const [key, value] of Object.entries(delta)) if (value !== null && value !== undefined) out[key] = value
  return out as MessagesUsage
}

/** Applies one `content_block_delta` to its block, or says why it does not fit. */
const applyDelta = (
  block: MessagesContentBlock,
  progress: MessagesBlockProgress,
  delta: Extract<MessagesEvent, { type: "content_block_delta" }>["delta"]
): { block: MessagesContentBlock; progress: MessagesBlockProgress } | string => {
  switch (delta.type) {
    case "text_delta":
      return isMessagesBlock(block, "text") ? { block: { ...block, text: block.text + delta.text }, progress } : "text_delta"
    case "citations_delta":
      return isMessagesBlock(block, "text")
        ? { block: { ...block, citations: [...(block.citations ?? []), delta.citation] }, progress }
        : "citations_delta"
    case "thinking_delta":
      return isMessagesBlock(block, "thinking")
        ? { block: { ...block, thinking: block.thinking + delta.thinking }, progress }
        : "thinking_delta"
    case "signature_delta":
      return isMessagesBlock(block, "thinking") ? { block: { ...block, signature: delta.signature }, progress } : "signature_delta"
    case "input_json_delta":
      return takesInputJson(block) ? { block, progress: { ...progress, json: progress.json + delta.partial_json } } : "input_json_delta"
    default:
      // A delta kind added upstream after this library: kept out of the snapshot, not an error.
      return { block, progress }
  }
}

/** Parses a tool block's input JSON at its stop; `""` means the block's own (empty) input. */
const closeInput = (block: MessagesContentBlock, json: string): MessagesContentBlock | string => {
  if (!takesInputJson(block) || json === "") return block
  // The shared parse bounds the nesting and never quotes the text; sanitize drops `__proto__`-style keys.
  const parsed = parseJsonText(json, "messages", "tool input")
  if (Either.isLeft(parsed)) return parsed.left.message
  const input = sanitize(parsed.right)
  return isRecord(input) ? { ...block, input } : "the input is not a JSON object"
}

/**
 * One fold step: a fresh snapshot (unchanged blocks are shared), or an `IncompleteStream` whose
 * `partial` is the snapshot before `event`. Malformed tool input JSON is reported as `out-of-order`
 * (its fragments did not join into JSON). Never throws.
 * @category folding
 */
export const stepMessages = (snapshot: MessagesSnapshot, event: MessagesEvent): Step<MessagesSnapshot> => {
  const { message, phase } = snapshot
  switch (event.type) {
    case "ping":
    case "unknown":
      return Either.right(snapshot)
    case "error":
      return incomplete("messages", "error-event", `stream error ${event.error.type}: ${event.error.message}`, snapshot, event.error.type)
    case "message_start":
      if (phase !== "awaiting-start") return outOfOrder(snapshot, "message_start after the message had started")
      return Either.right({
        phase: "streaming",
        message: event.message,
        blocks: event.message.content.map(() => ({ open: false, json: "" }))
      })
    default:
      break
  }
  if (message === undefined) return outOfOrder(snapshot, `${event.type} before message_start`)
  if (phase === "stopped") return outOfOrder(snapshot, `${event.type} after message_stop`)
  switch (event.type) {
    case "content_block_start": {
      if (event.index !== message.content.length) {
        return outOfOrder(snapshot, `content_block_start for block ${event.index}, expected block ${message.content.length}`)
      }
      return Either.right({
        phase,
        message: { ...message, content: [...message.content, event.content_block] },
        blocks: [...snapshot.blocks, { open: true, json: "" }]
      })
    }
    case "content_block_delta": {
      const block = message.content[event.index]
      const progress = snapshot.blocks[event.index]
      if (block === undefined || progress === undefined || !progress.open) {
        return outOfOrder(snapshot, `content_block_delta for block ${event.index}, which is not open`)
      }
      const applied = applyDelta(block, progress, event.delta)
      if (typeof applied === "string") return outOfOrder(snapshot, `${applied} for a ${block.type} block (${event.index})`)
      return Either.right({
        phase,
        message: applied.block === block ? message : { ...message, content: replaceAt(message.content, event.index, applied.block) },
        blocks: applied.progress === progress ? snapshot.blocks : replaceAt(snapshot.blocks, event.index, applied.progress)
      })
    }
    case "content_block_stop": {
      const block = message.content[event.index]
      const progress = snapshot.blocks[event.index]
      if (block === undefined || progress === undefined || !progress.open) {
        return outOfOrder(snapshot, `content_block_stop for block ${event.index}, which is not open`)
      }
      const closed = closeInput(block, progress.json)
      if (typeof closed === "string") return outOfOrder(snapshot, `block ${event.index} (${block.type}): invalid input JSON: ${closed}`)
      return Either.right({
        phase,
        message: closed === block ? message : { ...message, content: replaceAt(message.content, event.index, closed) },
        blocks: replaceAt(snapshot.blocks, event.index, { open: false, json: progress.json })
      })
    }
    case "message_delta": {
      const { delta } = event
      const next: { -readonly [K in keyof Message]: Message[K] } = { ...message, usage: mergeUsage(message.usage, event.usage) }
      if (delta.stop_reason !== undefined) next.stop_reason = delta.stop_reason
      if (delta.stop_sequence !== undefined) next.stop_sequence = delta.stop_sequence
      if (delta.stop_details !== undefined) next.stop_details = delta.stop_details
      if (delta.container !== undefined) next.container = delta.container
      return Either.right({ phase, message: next, blocks: snapshot.blocks })
    }
    case "message_stop": {
      const open = snapshot.blocks.findIndex((b) => b.open)
      if (open >= 0) return outOfOrder(snapshot, `message_stop while block ${open} is open`)
      return Either.right({ phase: "stopped", message, blocks: snapshot.blocks })
    }
  }
}

/** The final message, or `ended-early` when the stream ended before `message_stop`. @category folding */
export const finishMessages = (snapshot: MessagesSnapshot): Step<Message> =>
  snapshot.phase === "stopped" && snapshot.message !== undefined
    ? Either.right(snapshot.message)
    : incomplete(
        "messages",
        "ended-early",
        snapshot.message === undefined ? "the stream ended before message_start" : "the stream ended before message_stop",
        snapshot
      )

/** The messages-style accumulator, for `scanStep` and `foldAll`. @category folding */
export const messagesAccumulator: Accumulator<MessagesEvent, MessagesSnapshot, Message> = {
  family: "messages",
  initial: initialMessagesSnapshot,
  step: stepMessages,
  finish: finishMessages
}

/** Folds a whole list of events into the final message. @category folding */
export const accumulateMessages = (events: Iterable<MessagesEvent>): Step<Message> => foldAll(messagesAccumulator, events)
