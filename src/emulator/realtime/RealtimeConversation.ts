/**
 * A realtime connection's conversation: its items in order (bounded), what `conversation.item.retrieve`,
 * `.truncate` and `.delete` read, and the user text the next reply is built from. Truncating an
 * assistant's audio clears its transcript, as upstream does, so no unheard text stays in the context.
 */
import type { ClientProblem } from "./RealtimeEvents.js"

/** Items one connection keeps; the oldest go first. */
export const MAX_REALTIME_ITEMS = 512

/** JSON characters of items one connection keeps (an item larger than this alone is still kept, by itself). */
export const MAX_REALTIME_ITEM_BYTES = 16 * 1024 * 1024

/** User texts the reply is built from (only the last ones matter). */
const PROMPT_ITEMS = 32

interface Entry {
  item: Record<string, unknown>
  bytes: number
  /** The item's text for the prompt: set for user items and items without a role. */
  readonly text: string | undefined
  /** Milliseconds of audio a response streamed into the item's first part; undefined for other items. */
  audioMs: number | undefined
  /** Where the client cut the audio, once it has. */
  truncatedMs: number | undefined
}

/** The outcome of a truncate: the event to answer with, or the problem to report. */
export type TruncateOutcome =
  | { readonly ok: true; readonly event: Record<string, unknown> }
  | { readonly ok: false; readonly problem: ClientProblem }

const withoutTranscript = (item: Record<string, unknown>, contentIndex: number): Record<string, unknown> => {
  const content = Array.isArray(item.content) ? [...(item.content as Array<unknown>)] : []
  const part = content[contentIndex]
  if (typeof part === "object" && part !== null) content[contentIndex] = { ...part, transcript: "" }
  return { ...item, content }
}

/** One connection's items, keyed by id in conversation order. */
export class RealtimeConversation {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0

  has(id: string): boolean {
    return this.entries.has(id)
  }

  /** The id of the last item, what upstream sends as the next item's `previous_item_id` (null when none). */
  lastId(): string | null {
    let last: string | null = null
    for (const id of this.entries.keys()) last = id
    return last
  }

  get(id: string): Record<string, unknown> | undefined {
    return this.entries.get(id)?.item
  }

  /** Appends an item; `audioMs` (0) marks one a response streams audio into. Drops the oldest past the bounds. */
  add(id: string, item: Record<string, unknown>, text: string | undefined, audioMs?: number): void {
    const bytes = JSON.stringify(item).length
    this.entries.set(id, { item, bytes, text, audioMs, truncatedMs: undefined })
    this.bytes += bytes
    for (const [oldest, entry] of this.entries) {
      if (oldest === id || (this.entries.size <= MAX_REALTIME_ITEMS && this.bytes <= MAX_REALTIME_ITEM_BYTES)) break
      this.remove(oldest, entry)
    }
  }

  /** Counts audio a response streamed into its item (an item deleted meanwhile stays deleted). */
  addAudio(id: string, ms: number): void {
    const entry = this.entries.get(id)
    if (entry?.audioMs !== undefined) entry.audioMs += ms
  }

  /** Stores a response's finished item in place; a truncation made while it streamed still holds. */
  finish(id: string, item: Record<string, unknown>): void {
    const entry = this.entries.get(id)
    if (entry === undefined) return
    entry.item = entry.truncatedMs === undefined ? item : withoutTranscript(item, 0)
    const bytes = JSON.stringify(entry.item).length
    this.bytes += bytes - entry.bytes
    entry.bytes = bytes
  }

  delete(id: string): boolean {
    const entry = this.entries.get(id)
    if (entry === undefined) return false
    this.remove(id, entry)
    return true
  }

  /**
   * Cuts an assistant item's audio at `audioEndMs` and clears its transcript. Only audio a response
   * streamed can be cut, and not past its end (nor past an earlier cut); the messages and codes are
   * upstream's.
   */
  truncate(id: string, contentIndex: number, audioEndMs: number): TruncateOutcome {
    const entry = this.entries.get(id)
    if (entry === undefined)
      return {
        ok: false,
        problem: { code: "item_truncate_invalid_item_id", message: `Item with item_id not found: ${id.slice(0, 100)}` }
      }
    // Only a response's audio part (its first) can be cut, once some audio has streamed (also mid-stream).
    if (entry.audioMs === undefined || entry.audioMs === 0 || contentIndex !== 0)
      return {
        ok: false,
        problem: { code: "unsupported_content_type", message: "Only model output audio messages can be truncated" }
      }
    const audioMs = entry.truncatedMs ?? entry.audioMs
    if (audioEndMs > audioMs)
      return {
        ok: false,
        problem: {
          code: "invalid_value",
          message: `Audio content of ${audioMs}ms is already shorter than ${audioEndMs}ms`,
          param: "audio_end_ms"
        }
      }
    entry.truncatedMs = audioEndMs
    entry.item = withoutTranscript(entry.item, contentIndex)
    return {
      ok: true,
      event: { type: "conversation.item.truncated", item_id: id, content_index: contentIndex, audio_end_ms: audioEndMs }
    }
  }

  /** The text of the last user items, oldest first: what the next reply is built from. */
  userText(): Array<string> {
    const texts: Array<string> = []
    for (const entry of this.entries.values()) if (entry.text !== undefined) texts.push(entry.text)
    return texts.slice(-PROMPT_ITEMS)
  }

  private remove(id: string, entry: Entry): void {
    this.entries.delete(id)
    this.bytes -= entry.bytes
  }
}
