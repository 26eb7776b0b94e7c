/** `toolCalls()`: each complete tool call of a token stream as soon as it has finished, whichever family streamed it. */
import { defer, mergeMap, type Observable, type OperatorFunction } from "rxjs"
import { IncompleteStream } from "../core/errors/GatewayError.js"
import type { TokenEvent, TokenFamily } from "./TokenEvent.js"

/**
 * A finished tool call. `arguments` is the JSON text as streamed; `input` is that text parsed (a
 * JSON object). `id` is absent when the family sent none (native calls may have no id).
 * @category models
 */
export interface ToolCall {
  readonly family: TokenFamily
  readonly id: string | undefined
  readonly name: string
  readonly arguments: string
  readonly input: Readonly<Record<string, unknown>>
}

interface Pending {
  readonly id: string | undefined
  readonly name: string
  readonly json: string
  readonly input: Readonly<Record<string, unknown>>
}

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Parses streamed arguments; broken JSON means the fragments were lost or misordered, so it is an error, not a guess. */
const finish = (family: TokenFamily, pending: Pending): ToolCall => {
  if (pending.json === "")
    return {
      family,
      id: pending.id,
      name: pending.name,
      arguments: JSON.stringify(pending.input),
      input: pending.input
    }
  let input: unknown
  try {
    input = JSON.parse(pending.json)
  } catch {
    input = undefined
  }
  if (!isObject(input)) {
    throw new IncompleteStream({
      family: family === "chat" || family === "responses" ? "openai" : family,
      reason: "out-of-order",
      message: `the arguments of tool call ${pending.name} are not a JSON object: ${pending.json.slice(0, 80)}`,
      partial: pending
    })
  }
  return { family, id: pending.id, name: pending.name, arguments: pending.json, input }
}

/** Per-subscription state: open messages blocks and chat calls still receiving arguments. */
const makeTracker = () => {
  const blocks = new Map<number, Pending>()
  const chat = new Map<number, Map<number, Pending>>()
  const flushChat = (choice: number): Array<ToolCall> => {
    const calls = chat.get(choice)
    chat.delete(choice)
    return calls === undefined ? [] : [...calls.values()].map((p) => finish("chat", p))
  }
  return (event: TokenEvent): ReadonlyArray<ToolCall> => {
    if (!("type" in event)) {
      const out: Array<ToolCall> = []
      for (const part of event.candidates?.[0]?.content?.parts ?? []) {
        const call = part.functionCall
        if (call !== undefined)
          out.push(finish("native", { id: call.id, name: call.name, json: "", input: call.args ?? {} }))
      }
      return out
    }
    switch (event.type) {
      case "content_block_start": {
        const block = event.content_block
        if (block.type === "tool_use" || block.type.endsWith("_tool_use")) {
          const b = block as { readonly id?: unknown; readonly name?: unknown; readonly input?: unknown }
          blocks.set(event.index, {
            id: typeof b.id === "string" ? b.id : undefined,
            name: typeof b.name === "string" ? b.name : "",
            json: "",
            input: isObject(b.input) ? b.input : {}
          })
        }
        return []
      }
      case "content_block_delta": {
        const pending = blocks.get(event.index)
        if (pending !== undefined && event.delta.type === "input_json_delta")
          blocks.set(event.index, { ...pending, json: pending.json + event.delta.partial_json })
        return []
      }
      case "content_block_stop": {
        const pending = blocks.get(event.index)
        blocks.delete(event.index)
        return pending === undefined ? [] : [finish("messages", pending)]
      }
      case "chunk": {
        const out: Array<ToolCall> = []
        for (const choice of event.chunk.choices) {
          for (const fragment of choice.delta.tool_calls ?? []) {
            const calls = chat.get(choice.index) ?? new Map<number, Pending>()
            chat.set(choice.index, calls)
            const pending = calls.get(fragment.index)
            const piece = fragment.function?.arguments ?? ""
            calls.set(
              fragment.index,
              pending === undefined
                ? { id: fragment.id ?? undefined, name: fragment.function?.name ?? "", json: piece, input: {} }
                : { ...pending, json: pending.json + piece }
            )
          }
          // Chat has no per-call end marker: a choice's calls are complete at its finish_reason.
          if (typeof choice.finish_reason === "string") out.push(...flushChat(choice.index))
        }
        return out
      }
      case "done":
        return [...chat.keys()].flatMap(flushChat)
      case "response.output_item.done": {
        const item = event.item
        if (item.type !== "function_call") return []
        const call = item as { readonly call_id: string; readonly name: string; readonly arguments: string }
        return [finish("responses", { id: call.call_id, name: call.name, json: call.arguments, input: {} })]
      }
      default:
        return []
    }
  }
}

/**
 * Emits each tool call once it is complete: messages at the block's `content_block_stop`, native as
 * its `functionCall` part arrives, chat at the choice's `finish_reason` (or `[DONE]`), responses at
 * `response.output_item.done`. Arguments that do not parse as a JSON object error the stream with
 * `IncompleteStream` (`out-of-order`).
 * @category operators
 */
export const toolCalls =
  <E extends TokenEvent>(): OperatorFunction<E, ToolCall> =>
  (source: Observable<E>) =>
    defer(() => {
      const track = makeTracker()
      return source.pipe(mergeMap((event) => track(event)))
    })
