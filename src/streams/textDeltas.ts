/** `textDeltas()`: the answer's text as it streams, whichever of the four token-stream families produced the events. */
import { type Observable, type OperatorFunction, mergeMap } from "rxjs"
import { type TokenEvent, tokenText } from "../core/text/TokenEvent.js"

/** The pieces one event adds (see `tokenText` in the core). @category getters */
export const textOf = tokenText

/**
 * Maps a token stream to its text pieces, in order; errors and completion pass through, and
 * unsubscribing unsubscribes the source (so the HTTP stream is closed).
 * @category operators
 */
export const textDeltas =
  <E extends TokenEvent>(): OperatorFunction<E, string> =>
  (source: Observable<E>) =>
    source.pipe(mergeMap((event) => textOf(event)))
