/** `toolCallDeltas()`: each tool call's arguments as they stream, parsed as far as they go, whichever family streamed them. */
import * as Result from "effect/Result"
import { defer, mergeMap, type Observable, type OperatorFunction } from "rxjs"
import { makeToolCallDeltaReader, type ToolCallDelta } from "../core/text/ToolCallFragments.js"
import type { PartialJsonLimits } from "../core/wire/PartialJson.js"
import type { TokenEvent } from "./TokenEvent.js"

export type { ToolCallDelta } from "../core/text/ToolCallFragments.js"

/**
 * Maps a token stream to its tool calls' arguments as they grow: one `ToolCallDelta` per call an
 * event began, grew or ended, the last with `done: true` and the input `toolCalls()` gives (see
 * `makeToolCallDeltaReader`). Errors with `IncompleteStream` (`out-of-order`) when a finished call's
 * arguments are not a JSON object or pass `limits.maxLength`; unsubscribing unsubscribes the source.
 * @category operators
 */
export const toolCallDeltas =
  <E extends TokenEvent>(limits?: PartialJsonLimits): OperatorFunction<E, ToolCallDelta> =>
  (source: Observable<E>) =>
    defer(() => {
      const read = makeToolCallDeltaReader(limits)
      return source.pipe(mergeMap((event) => Result.getOrThrow(read(event))))
    })
