/** `thinkingDeltas()`: the model's visible reasoning as it streams, across the token-stream families that send it. */
import { type Observable, type OperatorFunction, mergeMap } from "rxjs"
import type { TokenEvent } from "./TokenEvent.js"

/**
 * The reasoning text one event adds: messages `thinking_delta`s, native text parts marked
 * `thought` (first candidate), responses `response.reasoning_summary_text.delta`. Chat completions
 * carry no reasoning text. Empty pieces are left out.
 * @category getters
 */
export const thinkingOf = (event: TokenEvent): ReadonlyArray<string> => {
  if (!("type" in event)) {
    const parts = event.candidates?.[0]?.content?.parts ?? []
    const out: Array<string> = []
    for (const part of parts) if (part.text !== undefined && part.text !== "" && part.thought === true) out.push(part.text)
    return out
  }
  switch (event.type) {
    case "content_block_delta":
      // The opaque-delta member keeps `type` a plain string, so the field is checked, not assumed.
      return event.delta.type === "thinking_delta" && typeof event.delta["thinking"] === "string" && event.delta["thinking"] !== ""
        ? [event.delta["thinking"]]
        : []
    case "response.reasoning_summary_text.delta":
      return event.delta === "" ? [] : [event.delta]
    default:
      return []
  }
}

/**
 * Maps a token stream to its reasoning pieces, in order; errors and completion pass through.
 * @category operators
 */
export const thinkingDeltas =
  <E extends TokenEvent>(): OperatorFunction<E, string> =>
  (source: Observable<E>) =>
    source.pipe(mergeMap((event) => thinkingOf(event)))
