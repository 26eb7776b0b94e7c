import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import * as HttpAuth from "../../src/adapters/http/HttpAuth.js"
import * as HttpTransport from "../../src/adapters/http/HttpTransport.js"
import { makeFake, type Scripted } from "./fakeHttp.js"

const KEY = "sk-test-SECRET-key-123"
const config = GatewayConfig.make({ baseUrl: "http://gw.test/", apiKey: KEY, timeoutMs: 1_000 })

const request = (over: Partial<HttpTransport.TransportRequest> = {}): HttpTransport.TransportRequest => ({
  family: "messages",
  method: "POST",
  url: "http://gw.test/v1/messages",
  body: { model: "epsilon-x" },
  auth: HttpAuth.bearer(Redacted.make(KEY)),
  kind: "idempotent",
  ...over
})

const run = (script: ReadonlyArray<Scripted>, over: Partial<HttpTransport.TransportRequest> = {}) => {
  const fake = makeFake(script)
  const transport = HttpTransport.make(config, fake.client)
  return { fake, effect: transport.json(request(over)) }
}

const messagesError = (type: string, message: string) => ({
  type: "error",
  error: { type, message },
  request_id: "req_1"
})

describe("HttpTransport", () => {
  it.effect("sends the key as a Bearer header and the body as JSON", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([{ status: 200, body: { ok: true } }])
      const answer = yield* effect
      expect(answer.body).toEqual({ ok: true })
      expect(fake.requests[0]!.headers["authorization"]).toBe(`Bearer ${KEY}`)
      expect(fake.requests[0]!.body).toEqual({ model: "epsilon-x" })
    })
  )

  it.effect("retries 500, 500 and succeeds on the third attempt after the backoff delays", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([
        { status: 500, body: messagesError("api_error", "boom") },
        { status: 500, body: messagesError("api_error", "boom") },
        { status: 200, body: { ok: 1 } }
      ])
      const fiber = yield* Effect.forkChild(effect)
      yield* TestClock.adjust("10 millis")
      expect(fake.requests.length).toBe(1)
      yield* TestClock.adjust("500 millis")
      expect(fake.requests.length).toBe(2)
      yield* TestClock.adjust("1 second")
      const answer = yield* Fiber.join(fiber)
      expect(answer.body).toEqual({ ok: 1 })
      expect(fake.requests.length).toBe(3)
    })
  )

  it.effect("stops after the retry budget when the gateway answers 503 forever", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([{ status: 503, body: messagesError("overloaded_error", "busy") }])
      const fiber = yield* Effect.forkChild(Effect.exit(effect))
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.join(fiber)
      expect(fake.requests.length).toBe(3)
      expect(Exit.isFailure(exit) && Option.getOrUndefined(Cause.findErrorOption(exit.cause))?._tag).toBe("ServerError")
    })
  )

  it.effect("waits exactly what Retry-After asks on a 429", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([
        { status: 429, body: messagesError("rate_limit_error", "slow down"), headers: { "retry-after": "3" } },
        { status: 200, body: {} }
      ])
      const fiber = yield* Effect.forkChild(effect)
      yield* TestClock.adjust("2999 millis")
      expect(fake.requests.length).toBe(1)
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(fiber)
      expect(fake.requests.length).toBe(2)
    })
  )

  it.effect("maps a 401 to AuthenticationError without retrying", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([
        {
          status: 401,
          body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
          headers: { "request-id": "req_9" }
        }
      ])
      const error = yield* Effect.flip(effect)
      expect(error._tag).toBe("AuthenticationError")
      expect(error).toMatchObject({ status: 401, family: "messages", type: "authentication_error", requestId: "req_9" })
      expect(fake.requests.length).toBe(1)
    })
  )

  it.effect("does not repeat a paid submit that failed with 500", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([{ status: 500, body: { error: { message: "boom" } } }], {
        family: "video",
        kind: "paid-submit"
      })
      const fiber = yield* Effect.forkChild(Effect.flip(effect))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("ServerError")
      expect(fake.requests.length).toBe(1)
    })
  )

  it.effect("repeats a paid submit whose connection was refused", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([{ fail: "ECONNREFUSED" }, { status: 200, body: { task_id: "video_1" } }], {
        family: "video",
        kind: "paid-submit"
      })
      const fiber = yield* Effect.forkChild(effect)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(fake.requests.length).toBe(2)
    })
  )

  it.effect("does not repeat a paid submit whose connection was reset", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([{ fail: "ECONNRESET" }, { status: 200, body: {} }], {
        family: "video",
        kind: "paid-submit"
      })
      const fiber = yield* Effect.forkChild(Effect.flip(effect))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "TransportError", reason: "reset" })
      expect(fake.requests.length).toBe(1)
    })
  )

  it.effect("gives a request TimeoutError when no answer comes, and aborts the request", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([{ hang: true }], { kind: "paid-submit" })
      const fiber = yield* Effect.forkChild(Effect.flip(effect))
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "TimeoutError", phase: "request", timeoutMs: 1000 })
      expect(fake.requests[0]!.signal.aborted).toBe(true)
    })
  )

  it.effect("aborts the request when the caller interrupts", () =>
    Effect.gen(function* () {
      const { fake, effect } = run([{ hang: true }])
      const fiber = yield* Effect.forkChild(effect)
      yield* TestClock.adjust("10 millis")
      yield* Fiber.interrupt(fiber)
      expect(fake.requests[0]!.signal.aborted).toBe(true)
    })
  )

  it.effect("fails with DecodeError when a 2xx body is not JSON", () =>
    Effect.gen(function* () {
      const { effect } = run([{ status: 200, raw: "<html>oops</html>" }])
      const error = yield* Effect.flip(effect)
      expect(error._tag).toBe("DecodeError")
    })
  )

  it.effect("never puts the key into any error it gives", () =>
    Effect.gen(function* () {
      const scripts: ReadonlyArray<ReadonlyArray<Scripted>> = [
        [{ status: 401, body: messagesError("authentication_error", "bad key") }],
        [{ status: 400, body: messagesError("invalid_request_error", "bad") }],
        [{ status: 404, raw: "not found" }],
        [{ status: 500, body: messagesError("api_error", "x") }],
        [{ fail: "ECONNREFUSED" }],
        [{ fail: "ECONNRESET" }],
        [{ hang: true }],
        [{ status: 200, raw: "not json" }]
      ]
      const tags = new Set<string>()
      for (const script of scripts) {
        for (const auth of [
          HttpAuth.bearer(Redacted.make(KEY)),
          { _tag: "Query" as const, name: "key", value: Redacted.make(KEY) }
        ]) {
          const { effect } = run(script, { auth })
          const fiber = yield* Effect.forkChild(Effect.flip(effect))
          yield* TestClock.adjust("1 minute")
          const error = yield* Fiber.join(fiber)
          tags.add(error._tag)
          for (const text of [JSON.stringify(error), String(error), error.message, JSON.stringify(Exit.fail(error))]) {
            expect(text).not.toContain(KEY)
          }
        }
      }
      expect([...tags].sort()).toEqual([
        "AuthenticationError",
        "BadRequest",
        "DecodeError",
        "NotFound",
        "ServerError",
        "TimeoutError",
        "TransportError"
      ])
    })
  )
})
