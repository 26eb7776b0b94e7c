// The hand-over between a body's callbacks and a stream's consumer: a pull interrupted while it
// waits (a timeout around one pull) takes nothing, so what arrives next is there for the next pull.
import { Chunk, Effect, Option, Stream } from "effect"
import { describe, expect, it } from "vitest"
import * as ByteSource from "../../src/adapters/ByteSource.js"

/** A source the test feeds by hand. */
const manual = () => {
  let sink: ByteSource.ByteSink<string> | undefined
  const source = ByteSource.fromOpen<string>((s) => {
    sink = s
    return { pause: () => {}, resume: () => {}, close: () => {} }
  })
  return { source, sink: () => sink! }
}

const bytes = (...xs: Array<number>) => new Uint8Array(xs)

/** Runs `use` with the pull of `toStream(source)`, in a scope closed at its end. */
const withPull = <A>(
  source: ByteSource.ByteSource<string>,
  use: (pull: Effect.Effect<Chunk.Chunk<Uint8Array>, Option.Option<string>>) => Effect.Effect<A, Option.Option<string>>
): Promise<A> => Effect.runPromise(Effect.scoped(Effect.flatMap(Stream.toPull(ByteSource.toStream(source)), use)))

describe("ByteSource.toStream", () => {
  it("loses nothing when a waiting pull is interrupted: the next pull gets what arrived after", async () => {
    const { source, sink } = manual()
    const got = await withPull(source, (pull) =>
      Effect.gen(function* () {
        // Nothing has arrived: the pull waits, and the timeout interrupts it.
        const first = yield* Effect.timeoutOption(pull, "20 millis")
        expect(Option.isNone(first)).toBe(true)
        // Arrives while no pull waits (the interrupted one must not take it).
        sink().chunk(bytes(1, 2))
        const second = yield* pull
        sink().chunk(bytes(3))
        sink().end()
        const third = yield* pull
        const end = yield* Effect.either(pull)
        return { second: Chunk.toReadonlyArray(second), third: Chunk.toReadonlyArray(third), ended: end._tag === "Left" && Option.isNone(end.left) }
      })
    )
    expect(got.second).toEqual([bytes(1, 2)])
    expect(got.third).toEqual([bytes(3)])
    expect(got.ended).toBe(true)
  })

  it("resumes a waiting pull when a chunk arrives later", async () => {
    const { source, sink } = manual()
    const got = await withPull(source, (pull) =>
      Effect.sync(() => setTimeout(() => sink().chunk(bytes(7)), 5)).pipe(Effect.zipRight(pull), Effect.map(Chunk.toReadonlyArray))
    )
    expect(got).toEqual([bytes(7)])
  })
})
