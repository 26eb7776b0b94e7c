/** `textDeltas()`: the answer's text as it streams, whichever of the four token-stream families produced the events. */
import { type Observable, type OperatorFunction, mergeMap } from "rxjs"
import type { TokenEvent } from "./TokenEvent.js"

/**
 * The visible text one event adds (never thinking): messages `text_delta`s, native text parts that
 * are not thoughts (first candidate), chat `delta.content` (first choice), responses
 * `response.output_text.delta`. Empty pieces are left out.
 * @category getters
 */
export const textOf = (event: TokenEvent): ReadonlyArray<string> => {
  if (!("type" in event)) {
    const parts = event.candidates?.[0]?.content?.parts ?? []
    const out: Array<string> = []
    for (const part of parts) if (part.text !== undefined && part.text !== "" && part.thought !== true) out.push(part.text)
    return out
  }
  switch (event.type) {
    case "content_block_delta":
      // The opaque-delta member keeps `type` a plain string, so the field is checked, not assumed.
      return event.delta.type === "text_delta" && typeof event.delta["text"] === "string" && event.delta["text"] !== "" ? [event.delta["text"]] : []
    case "chunk": {
      const choice = event.chunk.choices.find((c) => c.index === 0)
      const content = choice?.delta.content
      return typeof content === "string" && content !== "" ? [content] : []
    }
    case "response.output_text.delta":
      return event.delta === "" ? [] : [event.delta]
    default:
      return []
  }
}

/**
 * Maps a token stream to its text pieces, in order; errors and completion pass through, and
 * unsubscribing unsubscribes the source (so the HTTP stream is closed).
 * @category operators
 */
export const textDeltas =
  <E extends TokenEvent>(): OperatorFunction<E, string> =>
  (source: Observable<E>) =>
    source.pipe(mergeMap((event) => textOf(event)))
