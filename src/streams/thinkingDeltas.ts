/** `thinkingDeltas()`: the model's visible reasoning as it streams, across the token-stream families that send it. */
import { type Observable, type OperatorFunction, mergeMap } from "rxjs"
import { type TokenEvent, tokenThinking } from "../core/text/TokenEvent.js"

/** The pieces one event adds (see `tokenThinking` in the core). @category getters */
export const thinkingOf = tokenThinking

/**
 * Maps a token stream to its reasoning pieces, in order; errors and completion pass through.
 * @category operators
 */
export const thinkingDeltas =
  <E extends TokenEvent>(): OperatorFunction<E, string> =>
  (source: Observable<E>) =>
    source.pipe(mergeMap((event) => thinkingOf(event)))
