/** `toolCallDeltas`: the Effect face of each tool call's arguments as they stream, whichever token-stream family produced the events. */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { IncompleteStream } from "../../core/errors/GatewayError.js"
import type { TokenEvent } from "../../core/text/TokenEvent.js"
import { makeToolCallDeltaReader, type ToolCallDelta } from "../../core/text/ToolCallFragments.js"
import type { PartialJsonLimits } from "../../core/wire/PartialJson.js"

export type { ToolCallDelta } from "../../core/text/ToolCallFragments.js"

/**
 * Maps a token stream (`messages.stream`, `chat.stream`, `responses.stream`, `native.stream`) to its
 * tool calls' arguments as they grow: one `ToolCallDelta` per call an event began, grew or ended,
 * the last with `done: true` (see `makeToolCallDeltaReader`). Fails with `IncompleteStream`
 * (`out-of-order`) when a finished call's arguments are not a JSON object or pass
 * `limits.maxLength`; the source's errors pass through. Each run reads with a reader of its own.
 * @category operators
 */
export const toolCallDeltas = <A extends TokenEvent, E, R>(
  stream: Stream.Stream<A, E, R>,
  limits?: PartialJsonLimits
): Stream.Stream<ToolCallDelta, E | IncompleteStream, R> =>
  Stream.mapAccumEffect(
    stream,
    () => makeToolCallDeltaReader(limits),
    (read, event) => Effect.map(Effect.fromResult(read(event)), (deltas) => [read, deltas] as const)
  )
