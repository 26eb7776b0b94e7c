/**
 * `ProviderRuntime.stream`'s scope: closed exactly once whichever way the stream ends — read to its
 * end (closed by the pull that ends it), failed while reading (its error parts, then closed), or
 * cancelled by the reader — and closed before the reader sees the stream's end; and its reading
 * ahead of the reader, bounded by one chunk.
 */
import { Cause, Effect, Scope } from "effect"
import type * as Pull from "effect/Pull"
import { afterAll, describe, expect, it } from "vitest"
import { makeProviderRuntime } from "../../src/ai-sdk/ProviderRuntime.js"

const runtime = makeProviderRuntime({ baseUrl: "http://127.0.0.1:9", apiKey: "test" })
afterAll(() => runtime.dispose())

const site = { url: "http://127.0.0.1:9/v1/messages", requestBody: {} }

/** A stream of `chunks`, then done (or `failure`), whose scope's finalizer counts its runs. */
const open = (chunks: ReadonlyArray<ReadonlyArray<number>>, failure?: Error) => {
  const closes = { count: 0, pulls: 0 }
  let i = 0
  const openEffect = Effect.gen(function* () {
    yield* Scope.addFinalizer(
      yield* Effect.scope,
      Effect.sync(() => closes.count++)
    )
    return Effect.suspend((): Pull.Pull<readonly [number, ...Array<number>], Error> => {
      closes.pulls++
      const chunk = chunks[i++]
      if (chunk !== undefined) return Effect.succeed(chunk as unknown as readonly [number, ...Array<number>])
      return failure === undefined ? Cause.done() : Effect.fail(failure)
    })
  })
  return {
    closes,
    stream: runtime.stream(site, () => openEffect, {
      first: () => ["start"],
      emit: (chunk, enqueue) => {
        for (const n of chunk) enqueue(String(n))
      },
      onError: (error) => [`error: ${(error as Error).message}`, "finish"]
    })
  }
}

const readAll = async (stream: ReadableStream<string>, closes: { readonly count: number }) => {
  const parts: Array<string> = []
  const reader = stream.getReader()
  for (;;) {
    const r = await reader.read()
    if (r.done) return { parts, closedAtEnd: closes.count }
    parts.push(r.value)
  }
}

describe("ProviderRuntime.stream's scope", () => {
  it("a stream read to its end: every part, the scope closed once, before the end is seen", async () => {
    const { stream, closes } = open([[1, 2], [3]])
    const { parts, closedAtEnd } = await readAll(await stream, closes)
    expect(parts).toEqual(["start", "1", "2", "3"])
    expect(closedAtEnd).toBe(1)
    expect(closes.count).toBe(1)
  })

  it("a failure while reading: onError's parts, the scope closed once", async () => {
    const { stream, closes } = open([[1]], new Error("boom"))
    const { parts, closedAtEnd } = await readAll(await stream, closes)
    expect(parts).toEqual(["start", "1", "error: boom", "finish"])
    expect(closedAtEnd).toBe(1)
    expect(closes.count).toBe(1)
  })

  it("reads ahead of its reader by one chunk at most, and gives every part once read", async () => {
    const chunks = Array.from({ length: 50 }, (_, n) => [n])
    const { stream, closes } = open(chunks)
    const reader = (await stream).getReader()
    expect((await reader.read()).value).toBe("start")
    // The reader stops: the stream fills its queue (one part) and pulls nothing more.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(closes.pulls).toBeLessThanOrEqual(2)
    const rest: Array<string> = []
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest.push(r.value)
    expect(rest).toEqual(chunks.map(([n]) => String(n)))
    expect(closes.count).toBe(1)
  })

  it("cancelled by the reader: the scope closed once", async () => {
    const { stream, closes } = open([[1], [2], [3]])
    const reader = (await stream).getReader()
    expect((await reader.read()).value).toBe("start")
    expect((await reader.read()).value).toBe("1")
    await reader.cancel()
    expect(closes.count).toBe(1)
  })
})
