/**
 * The Effect floor of the stream benches, written once (`text-streams` over loopback, `sse-decode` in
 * memory): a body's reads parsed by eventsource-parser, each event's data made a value by `toEvent`
 * (`JSON.parse`), the events of each read handed to one pull as one chunk — in the leanest stream of
 * pulls Effect's public API builds (one channel that runs the pull and writes its chunk until the end;
 * umg's `LeanStream.fromScopedPull` is the same). What any Effect stream of these events costs its
 * `Stream.runForEach` consumer, before umg's own work (its parser, validation, the fold, time limits).
 *
 * Loaded only by the floor's worker (with a dynamic `import`), so the other contenders' processes
 * never load Effect or eventsource-parser because of it.
 */
import { Channel, Chunk, Effect, Stream } from "effect"
import { createParser } from "eventsource-parser"

/** The end of the floor's stream. */
const END = Symbol("end")
/** One pull: the events of one read, or the end. */
type FloorPull = Effect.Effect<Chunk.Chunk<unknown> | typeof END>

/**
 * The floor's stream over a body whose reads `subscribe` delivers: `read` once per read, then `end`.
 * `subscribe` is called when the stream starts (a body already open: its reads are not awaited here).
 */
export const floorEvents = (
  subscribe: (read: (bytes: Uint8Array) => void, end: () => void) => void,
  toEvent: (data: string) => unknown
): Stream.Stream<unknown> =>
  Stream.suspend(() => {
    let pending: Array<unknown> = []
    let done = false
    let waiting: ((next: FloorPull) => void) | undefined
    const decoder = new TextDecoder()
    const parser = createParser({ onEvent: (event) => void pending.push(toEvent(event.data)) })
    const ready = () => pending.length > 0 || done
    const take = (): FloorPull => {
      if (pending.length === 0) return Effect.succeed(END)
      const out = Chunk.unsafeFromArray(pending)
      pending = []
      return Effect.succeed(out)
    }
    const wake = () => {
      const resume = waiting
      if (resume === undefined || !ready()) return
      waiting = undefined
      resume(take())
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
    const wait: FloorPull = Effect.async((resume) => {
      waiting = resume
    })
    const pull = Effect.suspend(() => (ready() ? take() : wait))
    const loop: Channel.Channel<Chunk.Chunk<unknown>> = Channel.flatMap(Channel.fromEffect(pull), (out) =>
      out === END ? Channel.void : Channel.flatMap(Channel.write(out), () => loop)
    )
    return Stream.fromChannel(loop)
  })
