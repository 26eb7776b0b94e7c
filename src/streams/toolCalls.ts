/** `toolCalls()`: each complete tool call of a token stream as soon as it has finished, whichever family streamed it. */
import * as Result from "effect/Result"
import { defer, mergeMap, type Observable, type OperatorFunction } from "rxjs"
import {
  endedCall,
  makeToolCallFragmentReader,
  type ToolCallBegin,
  toolCallInput
} from "../core/text/ToolCallFragments.js"
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

/** Per-subscription state: the fragment reader and the calls still receiving arguments. */
const makeTracker = () => {
  const read = makeToolCallFragmentReader()
  const open = new Map<number, { readonly begun: ToolCallBegin; text: string }>()
  return (event: TokenEvent): ReadonlyArray<ToolCall> => {
    const out: Array<ToolCall> = []
    for (const f of read(event)) {
      // Chat: the first choice's calls only, as `textDeltas()`, `toolCallDeltas()` and the final answer's
      // `choices[0]` give (with `n` above 1 every choice streams its own calls, indistinguishable here).
      if (f._tag === "Begin") {
        if (f.choice === 0) open.set(f.call, { begun: f, text: "" })
      } else if (f._tag === "Arguments") {
        const pending = open.get(f.call)
        if (pending !== undefined) pending.text += f.text
      } else {
        const pending = open.get(f.call)
        open.delete(f.call)
        if (pending === undefined) continue
        const begun = endedCall(pending.begun, f)
        // Broken arguments mean the fragments were lost or misordered: the stream errors, nothing is guessed.
        const input = Result.getOrThrow(toolCallInput(begun, f.arguments ?? pending.text))
        out.push({ family: begun.family, id: begun.id, name: begun.name, ...input })
      }
    }
    return out
  }
}

/**
 * Emits each tool call once it is complete: messages at the block's `content_block_stop`, native as
 * its `functionCall` part arrives (first candidate), chat at the first choice's `finish_reason` (or `[DONE]`;
 * with `n` above 1 the other choices' calls are left out, as `toolCallDeltas()` leaves them), responses at
 * `response.function_call_arguments.done` (or `response.output_item.done`). Arguments that do not
 * parse as a JSON object error the stream with `IncompleteStream` (`out-of-order`).
 * @category operators
 */
export const toolCalls =
  <E extends TokenEvent>(): OperatorFunction<E, ToolCall> =>
  (source: Observable<E>) =>
    defer(() => {
      const track = makeTracker()
      return source.pipe(mergeMap((event) => track(event)))
    })
