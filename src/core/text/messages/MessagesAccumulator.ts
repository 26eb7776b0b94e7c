/**
 * The messages-style (epsilon) stream accumulator: a pure fold of stream events into a
 * `Message`-shaped snapshot. The snapshot holds text, thinking and signature, tool input JSON, usage
 * and stop reason; events out of order, `error` events and streams cut before `message_stop` are an
 * `IncompleteStream`.
 */
import * as Result from "effect/Result"
import {
  type Accumulator,
  foldAll,
  type Folder,
  incomplete,
  incompleteStream,
  stepOf,
  type Step
} from "../Accumulator.js"
import type { IncompleteStream } from "../../errors/GatewayError.js"
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

/** Server-side tool calls (`server_tool_use`, `mcp_tool_use`, …) stream their input like `tool_use`. */
const takesInputJson = (block: MessagesContentBlock): boolean =>
  block.type === "tool_use" || block.type.endsWith("_tool_use")

/** Merges cumulative usage: every count present (not null) replaces the earlier one. */
const mergeUsage = (usage: MessagesUsage, delta: MessagesDeltaUsage | null | undefined): MessagesUsage => {
  if (delta === null || delta === undefined) return usage
  const out: { -readonly [K in keyof MessagesUsage]: MessagesUsage[K] } = { ...usage }
  for (const key of Object.keys(delta) as Array<keyof MessagesDeltaUsage>) {
    const value = delta[key]
    if (value !== null && value !== undefined) (out as Record<string, unknown>)[key] = value
  }
  return out
}

/** Parses a tool block's input JSON at its stop; `""` means the block's own (empty) input. */
const closeInput = (block: MessagesContentBlock, json: string): MessagesContentBlock | string => {
  if (!takesInputJson(block) || json === "") return block
  // The shared parse bounds the nesting and never quotes the text; sanitize drops `__proto__`-style keys.
  const parsed = parseJsonText(json, "messages", "tool input")
  if (Result.isFailure(parsed)) return parsed.failure.message
  const input = sanitize(parsed.success)
  return isRecord(input) ? { ...block, input } : "the input is not a JSON object"
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type ContentDelta = Extract<MessagesEvent, { type: "content_block_delta" }>["delta"]

/**
 * The messages fold, the one place its rules live. A draft changed in place: the message, its
 * content array, one block and one progress entry are copied the first time an event changes them
 * after a snapshot was taken, then changed directly — a text delta appends to the block it already
 * copied. `snapshot()` hands out what the draft holds and gives up ownership, so the next change
 * copies again and a snapshot once taken never changes. The pure `stepMessages` is this draft for
 * one event; a transport folding a whole stream copies the message once, not once per delta.
 */
class MessagesDraft implements Folder<MessagesEvent, MessagesSnapshot> {
  private phase: MessagesSnapshot["phase"]
  private message: Message | undefined
  private blocks: ReadonlyArray<MessagesBlockProgress>
  private last: MessagesSnapshot
  private dirty = false
  // What the draft copied since its last snapshot, and so may change in place.
  private ownMessage = false
  private ownContent = false
  private ownBlocks = false
  private ownBlock = -1
  private ownProgress = -1

  constructor(from: MessagesSnapshot) {
    this.last = from
    this.phase = from.phase
    this.message = from.message
    this.blocks = from.blocks
  }

  snapshot = (): MessagesSnapshot => {
    if (!this.dirty) return this.last
    this.last = { phase: this.phase, message: this.message, blocks: this.blocks }
    this.dirty = false
    this.ownMessage = this.ownContent = this.ownBlocks = false
    this.ownBlock = this.ownProgress = -1
    return this.last
  }

  private outOfOrder(message: string): IncompleteStream {
    return incompleteStream("messages", "out-of-order", message, this.snapshot())
  }

  private mutableMessage(): Mutable<Message> {
    if (!this.ownMessage) {
      this.message = { ...this.message! }
      this.ownMessage = true
    }
    this.dirty = true
    return this.message as Mutable<Message>
  }

  private mutableContent(): Array<MessagesContentBlock> {
    const message = this.mutableMessage()
    if (!this.ownContent) {
      message.content = message.content.slice()
      this.ownContent = true
    }
    return message.content as Array<MessagesContentBlock>
  }

  private mutableBlock(index: number): Record<string, unknown> {
    const content = this.mutableContent()
    if (this.ownBlock !== index) {
      content[index] = { ...content[index]! }
      this.ownBlock = index
    }
    return content[index] as unknown as Record<string, unknown>
  }

  private mutableBlocks(): Array<MessagesBlockProgress> {
    if (!this.ownBlocks) {
      this.blocks = this.blocks.slice()
      this.ownBlocks = true
    }
    this.dirty = true
    return this.blocks as Array<MessagesBlockProgress>
  }

  private mutableProgress(index: number): Mutable<MessagesBlockProgress> {
    const blocks = this.mutableBlocks()
    if (this.ownProgress !== index) {
      blocks[index] = { ...blocks[index]! }
      this.ownProgress = index
    }
    return blocks[index]!
  }

  /** Applies one `content_block_delta` to its block, or says which delta does not fit it. */
  private applyDelta(index: number, block: MessagesContentBlock, delta: ContentDelta): string | undefined {
    switch (delta.type) {
      case "text_delta": {
        if (!isMessagesBlock(block, "text")) return "text_delta"
        const target = this.mutableBlock(index)
        target["text"] = (target["text"] as string) + delta.text
        return undefined
      }
      case "citations_delta": {
        if (!isMessagesBlock(block, "text")) return "citations_delta"
        this.mutableBlock(index)["citations"] = [...(block.citations ?? []), delta.citation]
        return undefined
      }
      case "thinking_delta": {
        if (!isMessagesBlock(block, "thinking")) return "thinking_delta"
        const target = this.mutableBlock(index)
        target["thinking"] = (target["thinking"] as string) + delta.thinking
        return undefined
      }
      case "signature_delta":
        if (!isMessagesBlock(block, "thinking")) return "signature_delta"
        this.mutableBlock(index)["signature"] = delta.signature
        return undefined
      case "input_json_delta": {
        if (!takesInputJson(block)) return "input_json_delta"
        const progress = this.mutableProgress(index)
        progress.json = progress.json + delta.partial_json
        return undefined
      }
      default:
        // A delta kind added upstream after this library: kept out of the snapshot, not an error.
        return undefined
    }
  }

  push = (event: MessagesEvent): IncompleteStream | undefined => {
    switch (event.type) {
      case "ping":
      case "unknown":
        return undefined
      case "error":
        return incompleteStream(
          "messages",
          "error-event",
          `stream error ${event.error.type}: ${event.error.message}`,
          this.snapshot(),
          event.error.type
        )
      case "message_start":
        if (this.phase !== "awaiting-start") return this.outOfOrder("message_start after the message had started")
        // The event's message is shared, not owned: the first change copies it.
        this.phase = "streaming"
        this.message = event.message
        this.blocks = event.message.content.map(() => ({ open: false, json: "" }))
        this.ownMessage = this.ownContent = false
        this.ownBlocks = true
        this.ownBlock = this.ownProgress = -1
        this.dirty = true
        return undefined
      default:
        break
    }
    const message = this.message
    if (message === undefined) return this.outOfOrder(`${event.type} before message_start`)
    if (this.phase === "stopped") return this.outOfOrder(`${event.type} after message_stop`)
    switch (event.type) {
      case "content_block_start": {
        if (event.index !== message.content.length) {
          return this.outOfOrder(
            `content_block_start for block ${event.index}, expected block ${message.content.length}`
          )
        }
        this.mutableContent().push(event.content_block)
        this.mutableBlocks().push({ open: true, json: "" })
        return undefined
      }
      case "content_block_delta": {
        const block = message.content[event.index]
        const progress = this.blocks[event.index]
        if (block === undefined || progress === undefined || !progress.open) {
          return this.outOfOrder(`content_block_delta for block ${event.index}, which is not open`)
        }
        const misfit = this.applyDelta(event.index, block, event.delta)
        return misfit === undefined
          ? undefined
          : this.outOfOrder(`${misfit} for a ${block.type} block (${event.index})`)
      }
      case "content_block_stop": {
        const block = message.content[event.index]
        const progress = this.blocks[event.index]
        if (block === undefined || progress === undefined || !progress.open) {
          return this.outOfOrder(`content_block_stop for block ${event.index}, which is not open`)
        }
        const closed = closeInput(block, progress.json)
        if (typeof closed === "string")
          return this.outOfOrder(`block ${event.index} (${block.type}): invalid input JSON: ${closed}`)
        if (closed !== block) {
          this.mutableContent()[event.index] = closed
          if (this.ownBlock === event.index) this.ownBlock = -1
        }
        this.mutableBlocks()[event.index] = { open: false, json: progress.json }
        if (this.ownProgress === event.index) this.ownProgress = -1
        return undefined
      }
      case "message_delta": {
        const { delta } = event
        const next = this.mutableMessage()
        next.usage = mergeUsage(message.usage, event.usage)
        if (delta.stop_reason !== undefined) next.stop_reason = delta.stop_reason
        if (delta.stop_sequence !== undefined) next.stop_sequence = delta.stop_sequence
        if (delta.stop_details !== undefined) next.stop_details = delta.stop_details
        if (delta.container !== undefined) next.container = delta.container
        return undefined
      }
      case "message_stop": {
        const open = this.blocks.findIndex((b) => b.open)
        if (open >= 0) return this.outOfOrder(`message_stop while block ${open} is open`)
        this.phase = "stopped"
        this.dirty = true
        return undefined
      }
    }
  }
}

/** A messages folder from `from`: the draft the transport folds a stream with. @category folding */
export const messagesFolder = (from: MessagesSnapshot): Folder<MessagesEvent, MessagesSnapshot> =>
  new MessagesDraft(from)

/**
 * One fold step: a fresh snapshot (unchanged parts are shared), or an `IncompleteStream` whose
 * `partial` is the snapshot before `event`. Malformed tool input JSON is reported as `out-of-order`
 * (its fragments did not join into JSON). Never throws.
 * @category folding
 */
export const stepMessages: (snapshot: MessagesSnapshot, event: MessagesEvent) => Step<MessagesSnapshot> =
  stepOf(messagesFolder)

/** The final message, or `ended-early` when the stream ended before `message_stop`. @category folding */
export const finishMessages = (snapshot: MessagesSnapshot): Step<Message> =>
  snapshot.phase === "stopped" && snapshot.message !== undefined
    ? Result.succeed(snapshot.message)
    : incomplete(
        "messages",
        "ended-early",
        snapshot.message === undefined
          ? "the stream ended before message_start"
          : "the stream ended before message_stop",
        snapshot
      )

/** The messages-style accumulator, for `scanStep` and `foldAll`. @category folding */
export const messagesAccumulator: Accumulator<MessagesEvent, MessagesSnapshot, Message> = {
  family: "messages",
  initial: initialMessagesSnapshot,
  step: stepMessages,
  finish: finishMessages,
  folder: messagesFolder
}

/** Folds a whole list of events into the final message. @category folding */
export const accumulateMessages = (events: Iterable<MessagesEvent>): Step<Message> =>
  foldAll(messagesAccumulator, events)
