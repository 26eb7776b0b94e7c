/**
 * What the emulator keeps of the responses API between requests: the responses it stored and the
 * conversations, per emulator and bounded, so that `previous_response_id` and `conversation` work.
 *
 * Bounds (the contract says nothing of retention; upstream keeps stored responses for 30 days): at
 * most `MAX_STORED_RESPONSES` responses and `MAX_CONVERSATIONS` conversations, each store at most
 * `MAX_STORED_CHARS` characters of JSON; beyond them the oldest response, or the least recently used
 * conversation (the one least recently added to), is dropped and then answers as unknown. A
 * conversation that alone outgrows the characters bound loses its oldest items.
 */
import { BoundedStore } from "../../server/BoundedStore.js"
import type { EmulatorContext } from "../../server/Context.js"

type Obj = Record<string, unknown>

/** Responses kept per emulator; beyond it the oldest is dropped. */
export const MAX_STORED_RESPONSES = 1_000
/** Conversations kept per emulator; beyond it the least recently used is dropped. */
export const MAX_CONVERSATIONS = 1_000
/** JSON characters each store keeps (1,000 bodies of 32 MiB must not hold 32 GB). */
export const MAX_STORED_CHARS = 64 * 1024 * 1024

/** A stored response: the items it was asked with, the response object (with its output), its parent. */
export interface StoredResponse {
  readonly id: string
  /** The key that created it: only that key sees it (as a project sees only its own upstream). */
  readonly key: string | undefined
  readonly previous: string | undefined
  readonly input: ReadonlyArray<Obj>
  readonly response: Obj
}

/** A conversation: its items in order (inputs and outputs of each response made in it). */
export interface StoredConversation {
  readonly id: string
  readonly key: string | undefined
  readonly createdAt: number
  readonly metadata: unknown
  readonly items: Array<Obj>
  /** The JSON length of each item, to trim the oldest when the conversation alone is too large. */
  readonly sizes: Array<number>
}

/** The JSON length of a value (what a stored value is bounded by). */
export const charsOf = (value: unknown): number =>
  // `undefined` stringifies to `undefined`, whatever the declared type says.
  (JSON.stringify(value) as string | undefined)?.length ?? 0

/** Bounds of one emulator's state (tests set small ones through `resetResponsesState`). */
export interface ResponsesBounds {
  readonly responses?: number
  readonly conversations?: number
  readonly chars?: number
}

/** The responses and conversations of one emulator. */
export class ResponsesState {
  readonly responses: BoundedStore<StoredResponse>
  readonly conversations: BoundedStore<StoredConversation>
  private readonly maxChars: number
  constructor(bounds: ResponsesBounds = {}) {
    this.maxChars = bounds.chars ?? MAX_STORED_CHARS
    this.responses = new BoundedStore(bounds.responses ?? MAX_STORED_RESPONSES, this.maxChars)
    this.conversations = new BoundedStore(bounds.conversations ?? MAX_CONVERSATIONS, this.maxChars)
  }

  /** The response `id` if `key` may see it. */
  response(id: string, key: string | undefined): StoredResponse | undefined {
    const r = this.responses.get(id)
    return r !== undefined && (key === undefined || r.key === key) ? r : undefined
  }

  /** The conversation `id` if `key` may see it. */
  conversation(id: string, key: string | undefined): StoredConversation | undefined {
    const c = this.conversations.get(id)
    return c !== undefined && (key === undefined || c.key === key) ? c : undefined
  }

  /**
   * The items of the chain ending at response `id`, oldest first: each response's input then output.
   * A chain whose older responses were dropped starts at the oldest one still held.
   */
  chain(id: string, key: string | undefined): Array<Obj> {
    const links: Array<StoredResponse> = []
    // Each link was stored before its child, so the walk ends; the bound only guards a corrupt store.
    for (let r = this.response(id, key); r !== undefined && links.length <= this.responses.size;) {
      links.push(r)
      r = r.previous === undefined ? undefined : this.response(r.previous, key)
    }
    return links.reverse().flatMap((r) => [...r.input, ...(r.response.output as ReadonlyArray<Obj>)])
  }

  /** Appends `items` to a conversation (making it the most recently used), trimming its oldest beyond the bound. */
  append(c: StoredConversation, items: ReadonlyArray<Obj>): void {
    for (const item of items) {
      c.items.push(item)
      c.sizes.push(charsOf(item))
    }
    let chars = c.sizes.reduce((n, s) => n + s, 0)
    while (chars > this.maxChars && c.items.length > 0) {
      c.items.shift()
      chars -= c.sizes.shift()!
    }
    this.conversations.put(c.id, c, chars)
  }
}

const states = new WeakMap<EmulatorContext, ResponsesState>()

/** The responses state of an emulator (one per context, created on first use). */
export const responsesStateOf = (ctx: EmulatorContext): ResponsesState => {
  let state = states.get(ctx)
  if (state === undefined) {
    state = new ResponsesState()
    states.set(ctx, state)
  }
  return state
}

/** Replaces an emulator's responses state with an empty one of `bounds` (for tests of the bounds). */
export const resetResponsesState = (ctx: EmulatorContext, bounds: ResponsesBounds = {}): ResponsesState => {
  const state = new ResponsesState(bounds)
  states.set(ctx, state)
  return state
}
