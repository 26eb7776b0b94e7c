/**
 * The chat completions stream accumulator: a pure fold of chunks into a `chat.completion` (content
 * and refusal per choice, tool calls joined by index, finish reasons, usage of the `include_usage`
 * chunk) that ends at `[DONE]`, with error payloads, fragments out of order and streams cut before
 * `[DONE]` as `IncompleteStream`.
 */
import { Either } from "effect"
import { type Accumulator, foldAll, incomplete, replaceAt, type Step } from "../Accumulator.js"
import type { ChatChoice, ChatCompletion, ChatCompletionChunk, ChatStreamEvent, ChatToolCall, ChatToolCallDelta } from "./ChatResponse.js"

/**
 * The accumulated state. `completion` is `undefined` until the first chunk; `toolCallIndexes[c][k]`
 * is the stream `index` of `completion.choices[c].message.tool_calls[k]` (indexes need not be dense).
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
type ChunkChoice = ChatCompletionChunk["choices"][number]

/** Applies tool call fragments; a fragment for a new index must carry `id` and `function.name`. */
const applyToolCalls = (
  calls: ReadonlyArray<ChatToolCall>,
  indexes: ReadonlyArray<number>,
  fragments: ReadonlyArray<ChatToolCallDelta>
): { calls: ReadonlyArray<ChatToolCall>; indexes: ReadonlyArray<number> } | string => {
  let outCalls = calls
  let outIndexes = indexes
  for (const fragment of fragments) {
    const at = outIndexes.indexOf(fragment.index)
    const current = outCalls[at]
    if (current === undefined) {
      const name = fragment.function?.name
      if (typeof fragment.id !== "string" || typeof name !== "string") {
        return `tool call ${fragment.index} continues before its first fragment (with id and name)`
      }
      const call: ChatToolCall = {
        id: fragment.id,
        type: fragment.type ?? "function",
        function: { name, arguments: fragment.function?.arguments ?? "" }
      }
      outCalls = [...outCalls, call]
      outIndexes = [...outIndexes, fragment.index]
    } else {
      const piece = fragment.function?.arguments ?? ""
      if (piece !== "") {
        const joined = { ...current.function, arguments: current.function.arguments + piece }
        outCalls = replaceAt(outCalls, at, { ...current, function: joined })
      }
    }
  }
  return { calls: outCalls, indexes: outIndexes }
}

/** Applies one chunk choice to its accumulated choice, or says why it does not fit. */
const applyChoice = (
  choice: ChatChoice,
  indexes: ReadonlyArray<number>,
  fragment: ChunkChoice
): { choice: ChatChoice; indexes: ReadonlyArray<number> } | string => {
  const { delta } = fragment
  const adds = (delta.content ?? "") !== "" || (delta.refusal ?? "") !== "" || (delta.tool_calls?.length ?? 0) > 0
  if (choice.finish_reason !== null && adds) return `choice ${choice.index} continues after its finish_reason`
  const message: Mutable<ChatChoice["message"]> = { ...choice.message }
  if (typeof delta.role === "string") message.role = delta.role
  if (typeof delta.content === "string") message.content = (message.content ?? "") + delta.content
  if (typeof delta.refusal === "string") message.refusal = (message.refusal ?? "") + delta.refusal
  let nextIndexes = indexes
  if (delta.tool_calls !== undefined && delta.tool_calls.length > 0) {
    const applied = applyToolCalls(message.tool_calls ?? [], indexes, delta.tool_calls)
    if (typeof applied === "string") return applied
    message.tool_calls = applied.calls
    nextIndexes = applied.indexes
  }
  const next: Mutable<ChatChoice> = { ...choice, message }
  if (typeof fragment.finish_reason === "string") next.finish_reason = fragment.finish_reason
  if (fragment.logprobs !== undefined && fragment.logprobs !== null) next.logprobs = fragment.logprobs
  return { choice: next, indexes: nextIndexes }
}

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
 * One fold step: a fresh snapshot, or an `IncompleteStream` whose `partial` is the snapshot before
 * `event` — `error-event` for an error payload, `out-of-order` for a tool call fragment before its
 * first one, content after a choice's `finish_reason`, or `[DONE]` before any chunk. Anything after
 * `[DONE]` is ignored (as upstream clients do). Never throws.
 * @category folding
 */
export const stepChat = (snapshot: ChatSnapshot, event: ChatStreamEvent): Step<ChatSnapshot> => {
  if (snapshot.phase === "done") return Either.right(snapshot)
  switch (event.type) {
    case "error": {
      const { code, message } = event.error
      const type = event.error.type ?? (code === undefined || code === null ? "error" : String(code))
      return incomplete("openai", "error-event", `stream error ${type}: ${message}`, snapshot, type)
    }
    case "done":
      return snapshot.completion === undefined
        ? incomplete("openai", "out-of-order", "[DONE] before any chunk", snapshot)
        : Either.right({ ...snapshot, phase: "done" })
    case "chunk": {
      const { chunk } = event
      const base = snapshot.completion ?? open(chunk)
      let choices = base.choices
      let toolCallIndexes = snapshot.toolCallIndexes
      for (const fragment of chunk.choices) {
        let at = choices.findIndex((c) => c.index === fragment.index)
        if (at < 0) {
          at = choices.length
          choices = [...choices, { index: fragment.index, message: { role: "assistant", content: null }, finish_reason: null }]
          toolCallIndexes = [...toolCallIndexes, []]
        }
        const applied = applyChoice(choices[at]!, toolCallIndexes[at] ?? [], fragment)
        if (typeof applied === "string") return incomplete("openai", "out-of-order", applied, snapshot)
        choices = replaceAt(choices, at, applied.choice)
        if (applied.indexes !== toolCallIndexes[at]) toolCallIndexes = replaceAt(toolCallIndexes, at, applied.indexes)
      }
      const completion: Mutable<ChatCompletion> = { ...base, choices }
      if (chunk.usage !== undefined && chunk.usage !== null) completion.usage = chunk.usage
      return Either.right({ phase: "streaming", completion, toolCallIndexes })
    }
  }
}

/** The final completion, or `ended-early` when the stream ended before `[DONE]`. @category folding */
export const finishChat = (snapshot: ChatSnapshot): Step<ChatCompletion> =>
  snapshot.phase === "done" && snapshot.completion !== undefined
    ? Either.right(snapshot.completion)
    : incomplete("openai", "ended-early", "the chat stream ended before [DONE]", snapshot)

/** The chat completions accumulator, for `scanStep` and `foldAll`. @category folding */
export const chatAccumulator: Accumulator<ChatStreamEvent, ChatSnapshot, ChatCompletion> = {
  family: "openai",
  initial: initialChatSnapshot,
  step: stepChat,
  finish: finishChat
}

/** Folds a whole list of events into the final completion. @category folding */
export const accumulateChat = (events: Iterable<ChatStreamEvent>): Step<ChatCompletion> => foldAll(chatAccumulator, events)
