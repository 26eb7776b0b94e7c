/**
 * The Effect floor of the stream benches, written once (`text-streams` over loopback, `sse-decode` in
 * memory): a body's reads parsed by eventsource-parser, each event's data made a value by `toEvent`
 * (`JSON.parse`), the events of each read handed to one pull as one array — in the leanest stream of
 * pulls Effect's public API builds (`Stream.fromPull`). What any Effect stream of these events costs
 * its `Stream.runForEach` consumer, before umg's own work (its parser, validation, the fold, time
 * limits).
 *
 * Loaded only by the floor's worker (with a dynamic `import`), so the other contenders' processes
 * never load Effect or eventsource-parser because of it.
 */
import { Cause, Effect, Stream } from "effect"
import type * as Arr from "effect/Array"
import { createParser } from "eventsource-parser"

/** One pull: the events of one read, or the end (`null`). */
type FloorPull = Effect.Effect<Arr.NonEmptyReadonlyArray<unknown> | null>

/** A body's reads, as `subscribe` delivers them: `read` once per read, then `end`. */
type Subscribe = (read: (bytes: Uint8Array) => void, end: () => void) => void

/**
 * The events of a body's reads, parsed by eventsource-parser as they come, and one waiter resumed
 * when there are events or the end: what the floor and the Effect fiber share. `subscribe` is called
 * at once (a body already open: its reads are not awaited here).
 */
const eventsOf = (subscribe: Subscribe, toEvent: (data: string) => unknown) => {
  let pending: Array<unknown> = []
  let done = false
  let waiting: ((next: Effect.Effect<unknown>) => void) | undefined
  let then: (() => Effect.Effect<unknown>) | undefined
  const decoder = new TextDecoder()
  const parser = createParser({ onEvent: (event) => void pending.push(toEvent(event.data)) })
  const ready = () => pending.length > 0 || done
  const wake = () => {
    const resume = waiting
    if (resume === undefined || !ready()) return
    waiting = undefined
    resume(then!())
  }
  subscribe(
    (bytes) => {
      parser.feed(decoder.decode(bytes, { stream: true }))
      wake()
    },
    () => {
      done = true
      wake()
    }
  )
  return {
    /** Whether there are events or the end. */
    ready,
    /** Whether the body has ended. */
    done: () => done,
    /** The events parsed so far (empty when none), taken. */
    takeAll: (): Array<unknown> => {
      const out = pending
      pending = []
      return out
    },
    /** An effect that waits until `ready()`, then goes on with `next()`. */
    waitThen: <A>(next: () => Effect.Effect<A>): Effect.Effect<A> =>
      Effect.callback<A>((resume) => {
        waiting = resume as (next: Effect.Effect<unknown>) => void
        then = next
      })
  }
}

/**
 * The leanest stream of pulls Effect's public API builds (`Stream.fromPull`): each pull runs `pull`
 * and gives its array, until `pull` gives the end (`null`). The floor's stream, and
 * `bench/effect-stream`'s.
 */
export const streamOfPulls = <A>(pull: Effect.Effect<Arr.NonEmptyReadonlyArray<A> | null>): Stream.Stream<A> =>
  Stream.fromPull(Effect.succeed(Effect.flatMap(pull, (out) => (out === null ? Cause.done() : Effect.succeed(out)))))

/** The floor's stream over a body whose reads `subscribe` delivers. */
export const floorEvents = (subscribe: Subscribe, toEvent: (data: string) => unknown): Stream.Stream<unknown> =>
  Stream.suspend(() => {
    const events = eventsOf(subscribe, toEvent)
    const take = (): FloorPull => {
      const out = events.takeAll()
      return Effect.succeed(out.length === 0 ? null : (out as unknown as Arr.NonEmptyReadonlyArray<unknown>))
    }
    const wait = events.waitThen(take)
    return streamOfPulls(Effect.suspend(() => (events.ready() ? take() : wait)))
  })

/**
 * The floor without its `Stream`: the same reads parsed the same way, each read's events handed to one
 * Effect fiber (an `Effect.callback` resumed once per read) that passes every event to `each`, until the
 * end. Not a way to consume a stream that an Effect user would write; a column that splits the floor's
 * cost over raw node:http in two: the fiber's wake-up per read (this) and the `Stream`'s channel steps
 * and per-element consumer (the floor over this).
 */
export const fiberEvents = (
  subscribe: Subscribe,
  toEvent: (data: string) => unknown,
  each: (event: unknown) => void
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const events = eventsOf(subscribe, toEvent)
    const wait = events.waitThen(() => Effect.void)
    const loop: Effect.Effect<void> = Effect.suspend(() => {
      if (!events.ready()) return Effect.flatMap(wait, () => loop)
      for (const event of events.takeAll()) each(event)
      return events.done() ? Effect.void : loop
    })
    return loop
  })
