/**
 * The chat completions stream accumulator: a pure fold of chunks into a `chat.completion`, ending at
 * `[DONE]`. It gathers content and refusal per choice, tool calls joined by index, finish reasons and
 * the usage of the `include_usage` chunk; error payloads, fragments out of order and streams cut
 * before `[DONE]` are an `IncompleteStream`.
 */
import * as Result from "effect/Result"
import type { IncompleteStream } from "../../errors/GatewayError.js"
import { isRecord } from "../../validation/Rules.js"
import {
  type Accumulator,
  type Folder,
  foldAll,
  incomplete,
  incompleteStream,
  type Step,
  stepOf
} from "../Accumulator.js"
import type { ChatChoice, ChatCompletion, ChatCompletionChunk, ChatStreamEvent, ChatToolCall } from "./ChatResponse.js"

/**
 * The accumulated state. `completion` is `undefined` until the first chunk, its choices in the order
 * the stream opened them (`finishChat` orders them by `index`); `toolCallIndexes[c][k]` is the stream
 * `index` of `completion.choices[c].message.tool_calls[k]` (indexes need not be dense).
 * @category models
 */
export interface ChatSnapshot {
  readonly phase: "awaiting-chunk" | "streaming" | "done"
  readonly completion: ChatCompletion | undefined
  readonly toolCallIndexes: ReadonlyArray<ReadonlyArray<number>>
}

/** The snapshot before any event. @category constructors */
export const initialChatSnapshot: ChatSnapshot = { phase: "awaiting-chunk", completion: undefined, toolCallIndexes: [] }

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type ChatMessage = ChatChoice["message"]
type DraftChoice = Mutable<ChatChoice> & { message: Mutable<ChatMessage> }
type DraftCall = Mutable<ChatToolCall> & { function: Mutable<ChatToolCall["function"]> }
type ChunkDelta = ChatCompletionChunk["choices"][number]["delta"]

/** The token lists of a choice's logprobs, each chunk carrying its own tokens' entries. */
const LOGPROB_LISTS = ["content", "refusal"] as const

/** Whether a chunk's delta adds text, a refusal or tool calls to its choice. */
const adds = (delta: ChunkDelta): boolean =>
  (delta.content ?? "") !== "" || (delta.refusal ?? "") !== "" || (delta.tool_calls?.length ?? 0) > 0

/** The completion a first chunk opens (no choices yet). */
const open = (chunk: ChatCompletionChunk): ChatCompletion => ({
  id: chunk.id,
  object: "chat.completion",
  created: chunk.created,
  model: chunk.model,
  choices: [],
  usage: null,
  ...(chunk.service_tier === undefined ? {} : { service_tier: chunk.service_tier }),
  ...(chunk.system_fingerprint === undefined ? {} : { system_fingerprint: chunk.system_fingerprint })
})

/**
 * The chat fold, the one place its rules live. A draft changed in place, as the messages fold is:
 * the completion (with its choices array), a choice (with its message), a choice's tool calls (with
 * their stream indexes) and one call are copied the first time a chunk changes them after a snapshot
 * was taken, then changed directly — a content delta appends to the message it already copied.
 * `snapshot()` hands out what the draft holds and gives up ownership, so a snapshot once taken never
 * changes. A chunk is checked whole before any of it is applied, so one that does not fit leaves the
 * draft as it was. The pure `stepChat` is this draft for one event.
 */
class ChatDraft implements Folder<ChatStreamEvent, ChatSnapshot> {
  private phase: ChatSnapshot["phase"]
  private completion: ChatCompletion | undefined
  private indexes: ReadonlyArray<ReadonlyArray<number>>
  private last: ChatSnapshot
  private dirty = false
  // What the draft copied since its last snapshot, and so may change in place: the completion and its
  // choices array; the outer index array; by choice position, the choice and its message, and its tool
  // call array with its index array; by choice and call position, the call and its function.
  private ownCompletion = false
  private ownIndexes = false
  private ownChoice: Array<boolean> = []
  private ownCalls: Array<boolean> = []
  private ownCall: Array<Array<boolean> | undefined> = []
  private ownLogprobs: Array<boolean> = []

  constructor(from: ChatSnapshot) {
    this.last = from
    this.phase = from.phase
    this.completion = from.completion
    this.indexes = from.toolCallIndexes
  }

  snapshot = (): ChatSnapshot => {
    if (!this.dirty) return this.last
    this.last = { phase: this.phase, completion: this.completion, toolCallIndexes: this.indexes }
    this.dirty = false
    this.ownCompletion = this.ownIndexes = false
    this.ownChoice.length = this.ownCalls.length = this.ownCall.length = this.ownLogprobs.length = 0
    return this.last
  }

  private mutableCompletion(): Mutable<ChatCompletion> & { choices: Array<ChatChoice> } {
    if (!this.ownCompletion) {
      const completion = this.completion!
      this.completion = { ...completion, choices: completion.choices.slice() }
      this.ownCompletion = true
    }
    this.dirty = true
    return this.completion as Mutable<ChatCompletion> & { choices: Array<ChatChoice> }
  }

  private mutableIndexes(): Array<ReadonlyArray<number>> {
    if (!this.ownIndexes) {
      this.indexes = this.indexes.slice()
      this.ownIndexes = true
    }
    this.dirty = true
    return this.indexes as Array<ReadonlyArray<number>>
  }

  private mutableChoice(at: number): DraftChoice {
    const choices = this.mutableCompletion().choices
    if (this.ownChoice[at] !== true) {
      const choice = choices[at]!
      choices[at] = { ...choice, message: { ...choice.message } }
      this.ownChoice[at] = true
    }
    return choices[at] as DraftChoice
  }

  private mutableCalls(at: number): { readonly calls: Array<ChatToolCall>; readonly indexes: Array<number> } {
    const message = this.mutableChoice(at).message
    const indexes = this.mutableIndexes()
    if (this.ownCalls[at] !== true) {
      message.tool_calls = (message.tool_calls ?? []).slice()
      indexes[at] = (indexes[at] ?? []).slice()
      this.ownCalls[at] = true
    }
    return { calls: message.tool_calls as Array<ChatToolCall>, indexes: indexes[at] as Array<number> }
  }

  private mutableCall(calls: Array<ChatToolCall>, at: number, k: number): DraftCall {
    const own = (this.ownCall[at] ??= [])
    if (own[k] !== true) {
      const call = calls[k]!
      calls[k] = { ...call, function: { ...call.function } }
      own[k] = true
    }
    return calls[k] as DraftCall
  }

  /**
   * Adds a chunk's logprobs to its choice's: each chunk carries its own tokens' entries, so the
   * `content` and `refusal` lists are joined, as the non-streaming answer has them whole. Logprobs of
   * another shape replace what was there.
   */
  private addLogprobs(at: number, choice: DraftChoice, more: NonNullable<ChatChoice["logprobs"]>): void {
    const had = choice.logprobs
    if (!isRecord(more) || !isRecord(had)) {
      choice.logprobs = more
      this.ownLogprobs[at] = false
      return
    }
    let mine = had as Record<string, unknown>
    if (this.ownLogprobs[at] !== true) {
      mine = { ...had }
      for (const key of LOGPROB_LISTS) if (Array.isArray(mine[key])) mine[key] = (mine[key] as Array<unknown>).slice()
      choice.logprobs = mine as typeof more
      this.ownLogprobs[at] = true
    }
    for (const key of LOGPROB_LISTS) {
      const added = more[key]
      if (!Array.isArray(added)) continue
      const list = mine[key]
      if (Array.isArray(list)) list.push(...(added as Array<unknown>))
      else mine[key] = added.slice()
    }
  }

  /**
   * Why a chunk does not fit what was folded so far (content after a choice's `finish_reason`, a tool
   * call continued before its first fragment, earlier fragments of the same chunk counted), or `undefined`.
   */
  private misfit(chunk: ChatCompletionChunk): string | undefined {
    const choices = this.completion?.choices ?? []
    // Set by earlier fragments of this chunk: choices finished, and (choice, tool call) indexes opened.
    let finishedHere: Array<number> | undefined
    let openedHere: Array<readonly [number, number]> | undefined
    for (const fragment of chunk.choices) {
      const { delta } = fragment
      const at = choices.findIndex((c) => c.index === fragment.index)
      const finished =
        (at >= 0 && choices[at]!.finish_reason !== null) || finishedHere?.includes(fragment.index) === true
      if (finished && adds(delta)) return `choice ${fragment.index} continues after its finish_reason`
      for (const call of delta.tool_calls ?? []) {
        const known =
          (at >= 0 && (this.indexes[at] ?? []).includes(call.index)) ||
          openedHere?.some(([c, k]) => c === fragment.index && k === call.index) === true
        if (known) continue
        if (typeof call.id !== "string" || typeof call.function?.name !== "string") {
          return `tool call ${call.index} continues before its first fragment (with id and name)`
        }
        ;(openedHere ??= []).push([fragment.index, call.index])
      }
      if (typeof fragment.finish_reason === "string") (finishedHere ??= []).push(fragment.index)
    }
    return undefined
  }

  /** Applies a chunk `misfit` accepted. */
  private apply(chunk: ChatCompletionChunk): void {
    if (this.completion === undefined) {
      this.completion = open(chunk)
      this.ownCompletion = true
    }
    if (this.phase !== "streaming") {
      this.phase = "streaming"
      this.dirty = true
    }
    for (const fragment of chunk.choices) {
      let at = this.completion.choices.findIndex((c) => c.index === fragment.index)
      if (at < 0) {
        const choices = this.mutableCompletion().choices
        at = choices.length
        // `refusal` and `logprobs` null until a chunk gives them, as the non-streaming answer has them.
        choices.push({
          index: fragment.index,
          message: { role: "assistant", content: null, refusal: null },
          logprobs: null,
          finish_reason: null
        })
        this.ownChoice[at] = true
        this.mutableIndexes()[at] = []
      }
      const choice = this.mutableChoice(at)
      const { delta } = fragment
      const message = choice.message
      if (typeof delta.role === "string") message.role = delta.role
      if (typeof delta.content === "string") message.content = (message.content ?? "") + delta.content
      if (typeof delta.refusal === "string") message.refusal = (message.refusal ?? "") + delta.refusal
      if (delta.tool_calls !== undefined && delta.tool_calls.length > 0) {
        const { calls, indexes } = this.mutableCalls(at)
        for (const piece of delta.tool_calls) {
          const k = indexes.indexOf(piece.index)
          if (k < 0) {
            // `misfit` checked that a call's first fragment has its id and name.
            calls.push({
              id: piece.id as string,
              type: piece.type ?? "function",
              function: { name: piece.function?.name as string, arguments: piece.function?.arguments ?? "" }
            })
            indexes.push(piece.index)
            ;(this.ownCall[at] ??= [])[calls.length - 1] = true
          } else {
            const more = piece.function?.arguments ?? ""
            if (more !== "") this.mutableCall(calls, at, k).function.arguments += more
          }
        }
      }
      if (typeof fragment.finish_reason === "string") choice.finish_reason = fragment.finish_reason
      if (fragment.logprobs !== undefined && fragment.logprobs !== null) this.addLogprobs(at, choice, fragment.logprobs)
    }
    if (chunk.usage !== undefined && chunk.usage !== null) this.mutableCompletion().usage = chunk.usage
  }

  push = (event: ChatStreamEvent): IncompleteStream | undefined => {
    // Anything after [DONE] is ignored (as upstream clients do).
    if (this.phase === "done") return undefined
    switch (event.type) {
      case "error": {
        const { code, message } = event.error
        const type = event.error.type ?? (code === undefined || code === null ? "error" : String(code))
        return incompleteStream("openai", "error-event", `stream error ${type}: ${message}`, this.snapshot(), type)
      }
      case "done":
        if (this.completion === undefined)
          return incompleteStream("openai", "out-of-order", "[DONE] before any chunk", this.snapshot())
        this.phase = "done"
        this.dirty = true
        return undefined
      case "chunk": {
        const misfit = this.misfit(event.chunk)
        if (misfit !== undefined) return incompleteStream("openai", "out-of-order", misfit, this.snapshot())
        this.apply(event.chunk)
        return undefined
      }
    }
  }
}

/** A chat folder from `from`: the draft the transport folds a stream with. @category folding */
export const chatFolder = (from: ChatSnapshot): Folder<ChatStreamEvent, ChatSnapshot> => new ChatDraft(from)

/**
 * One fold step: a fresh snapshot (unchanged parts are shared), or an `IncompleteStream` whose
 * `partial` is the snapshot before `event` — `error-event` for an error payload, `out-of-order` for a
 * tool call fragment before its first one, content after a choice's `finish_reason`, or `[DONE]`
 * before any chunk. Anything after `[DONE]` is ignored (as upstream clients do). Never throws.
 * @category folding
 */
export const stepChat: (snapshot: ChatSnapshot, event: ChatStreamEvent) => Step<ChatSnapshot> = stepOf(chatFolder)

/**
 * The completion with its choices ordered by `index`, as the non-streaming answer has them: a stream
 * with several choices may open them in any order, and the fold keeps them in that order (so each
 * chunk finds its choice without moving the others). Sorted once, at the end, and only when out of order.
 */
const byIndex = (completion: ChatCompletion): ChatCompletion => {
  const { choices } = completion
  for (let i = 1; i < choices.length; i++) {
    if (choices[i - 1]!.index > choices[i]!.index)
      return { ...completion, choices: choices.slice().sort((a, b) => a.index - b.index) }
  }
  return completion
}

/**
 * The final completion, its choices ordered by `index`, or `ended-early` when the stream ended
 * before `[DONE]`. @category folding
 */
export const finishChat = (snapshot: ChatSnapshot): Step<ChatCompletion> =>
  snapshot.phase === "done" && snapshot.completion !== undefined
    ? Result.succeed(byIndex(snapshot.completion))
    : incomplete("openai", "ended-early", "the chat stream ended before [DONE]", snapshot)

/** The chat completions accumulator, for `scanStep` and `foldAll`. @category folding */
export const chatAccumulator: Accumulator<ChatStreamEvent, ChatSnapshot, ChatCompletion> = {
  family: "openai",
  initial: initialChatSnapshot,
  step: stepChat,
  finish: finishChat,
  folder: chatFolder
}

/** Folds a whole list of events into the final completion. @category folding */
export const accumulateChat = (events: Iterable<ChatStreamEvent>): Step<ChatCompletion> =>
  foldAll(chatAccumulator, events)
