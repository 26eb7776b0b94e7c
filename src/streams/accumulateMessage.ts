/** `accumulateMessage()`: the running snapshot of a token stream, folded by the core's pure accumulators through RxJS `scan`. */
import * as Result from "effect/Result"
import { Observable, type OperatorFunction, scan } from "rxjs"
import type { Accumulator, Step } from "../core/text/Accumulator.js"
import { scanStep, seed } from "../core/text/Accumulator.js"
import { chatAccumulator, type ChatSnapshot } from "../core/text/chat/ChatAccumulator.js"
import type { ChatStreamEvent } from "../core/text/chat/ChatResponse.js"
import { messagesAccumulator, type MessagesSnapshot } from "../core/text/messages/MessagesAccumulator.js"
import type { MessagesEvent } from "../core/text/messages/MessagesEvents.js"
import { nativeAccumulator, type NativeSnapshot } from "../core/text/native/NativeAccumulator.js"
import type { NativeChunk } from "../core/text/native/NativeResponse.js"
import { responsesAccumulator, type ResponsesSnapshot } from "../core/text/responses/ResponsesAccumulator.js"
import type { ResponsesEvent } from "../core/text/responses/ResponsesResponse.js"
import { type TokenEvent, type TokenFamily, tokenFamilyOf } from "./TokenEvent.js"

/** The snapshot type of a family's events (whole unions compared, so shared `error`/`done` members do not blur them). @category models */
export type SnapshotOf<E> = [E] extends [MessagesEvent]
  ? MessagesSnapshot
  : [E] extends [ChatStreamEvent]
    ? ChatSnapshot
    : [E] extends [ResponsesEvent]
      ? ResponsesSnapshot
      : [E] extends [NativeChunk]
        ? NativeSnapshot
        : MessagesSnapshot | ChatSnapshot | ResponsesSnapshot | NativeSnapshot

// Each accumulator's event type is a member of TokenEvent; the casts only widen the event parameter.
const BY_FAMILY: Readonly<Record<TokenFamily, Accumulator<TokenEvent, unknown, unknown>>> = {
  messages: messagesAccumulator as unknown as Accumulator<TokenEvent, unknown, unknown>,
  native: nativeAccumulator as unknown as Accumulator<TokenEvent, unknown, unknown>,
  chat: chatAccumulator as unknown as Accumulator<TokenEvent, unknown, unknown>,
  responses: responsesAccumulator as unknown as Accumulator<TokenEvent, unknown, unknown>
}

/**
 * Folds events with `acc` and emits each snapshot. A fold failure errors the Observable with the
 * core's `IncompleteStream` (its `partial` is the snapshot before the offending event); so does a
 * source that completes before the family's final event (`ended-early`).
 */
const fold =
  <E, S>(pick: (first: E) => Accumulator<E, S, unknown>): OperatorFunction<E, S> =>
  (source) =>
    new Observable<S>((subscriber) => {
      let acc: Accumulator<E, S, unknown> | undefined
      let last: S | undefined
      const steps = source.pipe(
        scan((state: Step<S> | undefined, event: E) => {
          acc ??= pick(event)
          return scanStep(acc)(state ?? seed(acc), event)
        }, undefined)
      )
      return steps.subscribe({
        next: (state) => {
          if (state === undefined) return
          if (Result.isFailure(state)) subscriber.error(state.failure)
          else subscriber.next((last = state.success))
        },
        error: (e: unknown) => subscriber.error(e),
        complete: () => {
          // An empty stream ended before any family's first event: the messages wording fits every family.
          const finishing = acc ?? (BY_FAMILY.messages as unknown as Accumulator<E, S, unknown>)
          const final = finishing.finish(last ?? finishing.initial)
          if (Result.isFailure(final)) subscriber.error(final.failure)
          else subscriber.complete()
        }
      })
    })

/**
 * The running snapshot of a token stream: `MessagesSnapshot`, `NativeSnapshot`, `ChatSnapshot` or
 * `ResponsesSnapshot`, one per event. Without an argument the family is read from the first event
 * that names it (pass the accumulator when a stream may open with an event several families share,
 * such as `error`). Errors with `IncompleteStream` on a fold failure or an early end.
 * @category operators
 */
export function accumulateMessage<E extends TokenEvent>(): OperatorFunction<E, SnapshotOf<E>>
export function accumulateMessage<E, S>(accumulator: Accumulator<E, S, unknown>): OperatorFunction<E, S>
export function accumulateMessage(
  accumulator?: Accumulator<unknown, unknown, unknown>
): OperatorFunction<unknown, unknown> {
  if (accumulator !== undefined) return fold(() => accumulator)
  return fold(
    (first) => BY_FAMILY[tokenFamilyOf(first as TokenEvent) ?? "chat"] as Accumulator<unknown, unknown, unknown>
  )
}
