/** `accumulateMessage()`: the running snapshot of a token stream, folded by the core's pure accumulators one event at a time (`scanStep`). */
import * as Result from "effect/Result"
import { Observable, type OperatorFunction } from "rxjs"
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
 * Folds events with the accumulator `pick` gives and emits each snapshot. `pick` may give none for an
 * event that does not tell (a shared `error`, `unknown` or `done`): such events wait, and are folded
 * (their snapshots emitted, in order) as soon as an event tells, or at the end with `fallback`. A fold
 * failure errors the Observable with the core's `IncompleteStream` (its `partial` is the snapshot
 * before the offending event); so does a source that completes before the family's final event
 * (`ended-early`).
 */
const fold =
  <E, S>(
    pick: (event: E) => Accumulator<E, S, unknown> | undefined,
    fallback: (waited: boolean) => Accumulator<E, S, unknown>
  ): OperatorFunction<E, S> =>
  (source) =>
    new Observable<S>((subscriber) => {
      let acc: Accumulator<E, S, unknown> | undefined
      let state: Step<S> | undefined
      let waiting: Array<E> = []
      // Folds one event; false once the fold has failed (the subscriber then has its error).
      const push = (folding: Accumulator<E, S, unknown>, event: E): boolean => {
        state = scanStep(folding)(state ?? seed(folding), event)
        if (Result.isFailure(state)) {
          subscriber.error(state.failure)
          return false
        }
        subscriber.next(state.success)
        return true
      }
      const start = (chosen: Accumulator<E, S, unknown>): boolean => {
        acc = chosen
        const held = waiting
        waiting = []
        return held.every((event) => push(chosen, event))
      }
      return source.subscribe({
        next: (event) => {
          if (subscriber.closed) return
          if (acc === undefined) {
            const chosen = pick(event)
            if (chosen === undefined) return void waiting.push(event)
            if (!start(chosen)) return
          }
          push(acc!, event)
        },
        error: (e: unknown) => subscriber.error(e),
        complete: () => {
          if (acc === undefined && !start(fallback(waiting.length > 0))) return
          const finishing = acc!
          const final = finishing.finish(
            state !== undefined && Result.isSuccess(state) ? state.success : finishing.initial
          )
          if (Result.isFailure(final)) subscriber.error(final.failure)
          else subscriber.complete()
        }
      })
    })

/**
 * The running snapshot of a token stream: `MessagesSnapshot`, `NativeSnapshot`, `ChatSnapshot` or
 * `ResponsesSnapshot`, one per event. Without an argument the family is read from the first event
 * that names it: events before it that several families share (`error`, `unknown`, `done`) are
 * folded, their snapshots emitted, once it arrives (a stream of nothing else is folded as chat, an
 * empty one fails as messages; pass the accumulator to fold such events at once). Errors with
 * `IncompleteStream` on a fold failure or an early end.
 * @category operators
 */
export function accumulateMessage<E extends TokenEvent>(): OperatorFunction<E, SnapshotOf<E>>
export function accumulateMessage<E, S>(accumulator: Accumulator<E, S, unknown>): OperatorFunction<E, S>
export function accumulateMessage(
  accumulator?: Accumulator<unknown, unknown, unknown>
): OperatorFunction<unknown, unknown> {
  if (accumulator !== undefined) {
    const given = () => accumulator
    return fold(given, given)
  }
  const of = (family: TokenFamily) => BY_FAMILY[family] as Accumulator<unknown, unknown, unknown>
  return fold(
    (event) => {
      const family = tokenFamilyOf(event as TokenEvent)
      return family === undefined ? undefined : of(family)
    },
    // Only shared events: folded as chat, as a first shared event always was; none: the messages
    // wording ("ended before message_start") fits every family.
    (waited) => of(waited ? "chat" : "messages")
  )
}
