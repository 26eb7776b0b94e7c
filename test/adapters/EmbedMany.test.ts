import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { Gateway } from "../../src/adapters/Gateway.js"
import { makeFake, type Recorded } from "./fakeHttp.js"

// The vector of a text: its length and first char code, so the order of answers can be checked.
const vectorOf = (text: string) => [text.length, text.charCodeAt(text.length - 1)]

describe("embeddings.embedMany", () => {
  it.effect("halves its concurrency on a 429, retries the text, and answers in input order", () =>
    Effect.gen(function* () {
      let inFlight = 0
      let firstAfter429: number | undefined
      let saw429 = false
      const inputs = Array.from({ length: 20 }, (_, i) => `text ${String.fromCharCode(65 + i)}`)
      const fake = makeFake((n: number, req: Recorded) => {
        const input = (req.body as { input: string }).input
        inFlight++
        if (saw429 && firstAfter429 === undefined) firstAfter429 = inFlight
        if (n === 8) {
          saw429 = true
          return {
            status: 429,
            body: { error: { message: "slow down", type: "requests" } },
            headers: { "retry-after-ms": "100" }
          }
        }
        return {
          status: 200,
          delayMs: 50 + (n % 7) * 5,
          body: {
            object: "list",
            model: "text-embedding-3-small",
            data: [{ object: "embedding", index: 0, embedding: vectorOf(input) }]
          }
        }
      })
      const client = HttpClient.transformResponse(fake.client, (effect) =>
        Effect.ensuring(
          effect,
          Effect.sync(() => inFlight--)
        )
      )
      const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k" }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, client))
      )
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(Gateway, (g) =>
          g.embeddings.embedMany({ model: "text-embedding-3-small", inputs, concurrency: 8 })
        ).pipe(Effect.provide(layer))
      )
      yield* TestClock.adjust("1 minute")
      const vectors = yield* Fiber.join(fiber)
      expect(vectors.map((v) => Array.from(v))).toEqual(inputs.map(vectorOf))
      expect(fake.requests.length).toBe(21)
      // Eight were in flight when the 429 came; the next request waited until at most three were.
      expect(firstAfter429).toBeLessThanOrEqual(4)
    })
  )

  it.effect("validates every text before sending any", () =>
    Effect.gen(function* () {
      const fake = makeFake([{ status: 200, body: {} }])
      const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k" }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
      )
      const error = yield* Effect.flip(
        Effect.flatMap(Gateway, (g) =>
          g.embeddings.embedMany({ model: "text-embedding-3-small", inputs: ["a", "b", ""] })
        ).pipe(Effect.provide(layer))
      )
      expect(error).toMatchObject({
        _tag: "InvalidRequest",
        field: "inputs[2]",
        rule: "non-empty",
        message: "inputs[2] must not be empty"
      })
      expect(fake.requests.length).toBe(0)
    })
  )

  it.effect("refuses inputs that are not an array, and an input beside inputs, before sending", () =>
    Effect.gen(function* () {
      const fake = makeFake([{ status: 200, body: {} }])
      const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k" }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
      )
      const refusal = (request: object) =>
        Effect.flip(
          Effect.flatMap(Gateway, (g) => g.embeddings.embedMany(request as never)).pipe(Effect.provide(layer))
        )
      // From JavaScript, a string was embedded a character at a time.
      expect(yield* refusal({ model: "text-embedding-3-small", inputs: "abc" })).toMatchObject({
        _tag: "InvalidRequest",
        field: "inputs",
        message: 'inputs: expected an array of strings, got "abc"'
      })
      expect(yield* refusal({ model: "text-embedding-3-small", inputs: ["a"], input: "b" })).toMatchObject({
        _tag: "InvalidRequest",
        field: "input"
      })
      expect(fake.requests.length).toBe(0)
    })
  )

  it.effect("fails with a DecodeError, not a defect, on an answer without its vector", () =>
    Effect.gen(function* () {
      const fake = makeFake([{ status: 200, body: { object: "list", model: "text-embedding-3-small", data: [] } }])
      const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k" }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
      )
      const error = yield* Effect.flip(
        Effect.flatMap(Gateway, (g) => g.embeddings.embedMany({ model: "text-embedding-3-small", inputs: ["a"] })).pipe(
          Effect.provide(layer)
        )
      )
      expect(error).toMatchObject({ _tag: "DecodeError", message: expect.stringContaining("data is empty") })
    })
  )

  it.effect("refuses a concurrency or a retry count out of range before sending, naming it", () =>
    Effect.gen(function* () {
      const fake = makeFake([{ status: 200, body: {} }])
      const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k" }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
      )
      // Before: NaN retried without end, and NaN, Infinity or -3 ran at concurrency 1 (or NaN).
      for (const [options, field] of [
        [{ concurrency: Number.NaN }, "concurrency"],
        [{ concurrency: Infinity }, "concurrency"],
        [{ concurrency: -3 }, "concurrency"],
        [{ concurrency: "3" as unknown as number }, "concurrency"],
        [{ maxRateLimitRetries: Number.NaN }, "maxRateLimitRetries"],
        [{ maxRateLimitRetries: 1.5 }, "maxRateLimitRetries"]
      ] as const) {
        const error = yield* Effect.flip(
          Effect.flatMap(Gateway, (g) =>
            g.embeddings.embedMany({ model: "text-embedding-3-small", inputs: ["a"], ...options })
          ).pipe(Effect.provide(layer))
        )
        expect(error).toMatchObject({ _tag: "InvalidRequest", field, rule: "range" })
      }
      expect(fake.requests.length).toBe(0)
    })
  )

  it.effect("stops on a 429 asking an hour, as the transport does, instead of pausing the batch for an hour", () =>
    Effect.gen(function* () {
      const fake = makeFake(() => ({
        status: 429,
        body: { error: { message: "slow down", type: "requests" } },
        headers: { "retry-after": "3600" }
      }))
      const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k" }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
      )
      const embedMany = Effect.flatMap(Gateway, (g) =>
        g.embeddings.embedMany({ model: "text-embedding-3-small", inputs: ["a", "b", "c"], concurrency: 1 })
      )
      const create = Effect.flatMap(Gateway, (g) =>
        g.embeddings.create({ model: "text-embedding-3-small", input: "a" })
      )
      // No clock is moved: both fail at once.
      const [many, one] = yield* Effect.all([Effect.flip(embedMany), Effect.flip(create)]).pipe(Effect.provide(layer))
      expect(many).toMatchObject({ _tag: "RateLimited", retryAfterMs: 3_600_000 })
      expect(one).toMatchObject({ _tag: "RateLimited", retryAfterMs: 3_600_000 })
      // One request each: embedMany's first text, and create's single attempt (the transport does not wait an hour either).
      expect(fake.requests.length).toBe(2)
    })
  )
})
