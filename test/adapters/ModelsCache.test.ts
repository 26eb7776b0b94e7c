// The model list cache: concurrent reads share one fetch, `refresh` always asks the gateway (never
// waiting behind another caller) and leaves its answer for the next read, a failure is not kept,
// and a list expires after five minutes.
import { Effect, Latch, Layer } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import { makeFake, type Scripted } from "./fakeHttp.js"

const list = (ids: ReadonlyArray<string>): Scripted => ({
  status: 200,
  body: { object: "list", data: ids.map((id) => ({ id, object: "model", created: 1, owned_by: "x" })) }
})

const run = <A, E>(
  script: ReadonlyArray<Scripted> | ((n: number) => Scripted),
  program: (g: GatewayService) => Effect.Effect<A, E>
) => {
  const fake = makeFake(script)
  const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k", maxRetries: 0 }).pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
  )
  return Effect.runPromise(
    Effect.provide(Effect.flatMap(Gateway, program), Layer.merge(layer, TestClock.layer()))
  ).then((value) => ({
    value,
    requests: fake.requests.length
  }))
}

const ids = (models: ReadonlyArray<{ readonly id: string }>) => models.map((m) => m.id)

describe("the model list cache", () => {
  it("refuses an unknown format before asking, naming the allowed ones", async () => {
    const { value, requests } = await run([list(["a"])], (g) =>
      Effect.flip(g.models.list({ format: "bogus" as never, refresh: true }))
    )
    expect(value).toMatchObject({
      _tag: "InvalidRequest",
      field: "format",
      rule: "one-of",
      message: 'format: "bogus" is not allowed; allowed: openai, messages, native'
    })
    expect(requests).toBe(0)
  })

  it("serves concurrent reads from one request", async () => {
    const { value, requests } = await run([list(["a"])], (g) =>
      Effect.all(
        Array.from({ length: 8 }, () => g.models.list()),
        { concurrency: "unbounded" }
      )
    )
    expect(value.map(ids)).toEqual(Array.from({ length: 8 }, () => ["a"]))
    expect(requests).toBe(1)
  })

  it("asks the gateway once per refresh, also when refreshes run at once", async () => {
    const { value, requests } = await run(
      (n) => list([`m${n}`]),
      (g) =>
        Effect.all(
          Array.from({ length: 8 }, () => g.models.list({ refresh: true })),
          { concurrency: "unbounded" }
        )
    )
    expect(requests).toBe(8)
    expect(new Set(value.map((v) => ids(v)[0])).size).toBe(8)
  })

  it("runs refreshes side by side: none waits for another's answer", async () => {
    // Every answer is held until all eight requests have arrived: refreshes queued behind one
    // another would never get there, and the call fails instead of hanging.
    let arrived = 0
    const gate = Latch.makeUnsafe(false)
    const client = HttpClient.make((request) =>
      Effect.gen(function* () {
        if (++arrived === 8) yield* gate.open
        yield* gate.await
        return HttpClientResponse.fromWeb(
          request,
          new Response(
            JSON.stringify({ object: "list", data: [{ id: "a", object: "model", created: 1, owned_by: "x" }] }),
            { headers: { "content-type": "application/json" } }
          )
        )
      })
    )
    const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k", maxRetries: 0 }).pipe(
      Layer.provide(Layer.succeed(HttpClient.HttpClient, client))
    )
    const refreshes = Effect.flatMap(Gateway, (g) =>
      Effect.all(
        Array.from({ length: 8 }, () => g.models.list({ refresh: true })),
        { concurrency: "unbounded" }
      )
    )
    const done = await Effect.runPromise(Effect.provide(Effect.timeout(refreshes, "5 seconds"), layer))
    expect(done.map(ids)).toEqual(Array.from({ length: 8 }, () => ["a"]))
  })

  it("keeps a refreshed list for the next read", async () => {
    const { value, requests } = await run(
      (n) => list([`m${n}`]),
      (g) => Effect.andThen(Effect.andThen(g.models.list(), g.models.list({ refresh: true })), g.models.list())
    )
    expect(ids(value)).toEqual(["m1"])
    expect(requests).toBe(2)
  })

  it("does not keep a failure: the next read asks again", async () => {
    const { value, requests } = await run(
      [{ status: 503, body: { error: { type: "overloaded", message: "busy" } } }, list(["a"])],
      (g) => Effect.andThen(Effect.result(g.models.list()), g.models.list())
    )
    expect(ids(value)).toEqual(["a"])
    expect(requests).toBe(2)
  })

  it("asks again once the list is five minutes old, not before", async () => {
    const { value, requests } = await run(
      (n) => list([`m${n}`]),
      (g) =>
        Effect.gen(function* () {
          yield* g.models.list()
          yield* TestClock.adjust("299 seconds")
          const early = yield* g.models.list()
          yield* TestClock.adjust("2 seconds")
          const late = yield* g.models.list()
          return [ids(early), ids(late)]
        })
    )
    expect(value).toEqual([["m0"], ["m1"]])
    expect(requests).toBe(2)
  })

  it("keeps each answer format apart", async () => {
    const { requests } = await run(
      (n) => list([`m${n}`]),
      (g) =>
        Effect.andThen(g.models.list({ format: "openai" }), g.models.list({ format: "messages" }).pipe(Effect.result))
    )
    expect(requests).toBe(2)
  })
})
