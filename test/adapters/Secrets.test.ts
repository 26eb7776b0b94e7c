// A call's secrets never reach a span or a log: the key under every auth style, searched for in every
// attribute value a span is ever given and the printed cause of every failed span, and in every log
// line. The config holds them Redacted, and `secretsOf` names each one the redaction must hide.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Logger, Option, Redacted, References } from "effect"
import { TestClock } from "effect/testing"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import * as HttpAuth from "../../src/adapters/http/HttpAuth.js"
import * as HttpTransport from "../../src/adapters/http/HttpTransport.js"
import { secretsOf } from "../../src/adapters/internal/Secrets.js"
import { recordingTracer, shownBy } from "../support/tracers.js"
import { makeFake } from "./fakeHttp.js"

const KEY = "sk-span-SECRET-999"

describe("secrets", () => {
  it.effect("never reach span attributes or logs, whatever the auth style", () =>
    Effect.gen(function* () {
      const logs: Array<string> = []
      const logger = Logger.make(({ message, fiber }) =>
        logs.push(JSON.stringify({ message, annotations: fiber.getRef(References.CurrentLogAnnotations) }))
      )
      const { tracer, spans } = recordingTracer()
      const auths: ReadonlyArray<HttpAuth.Auth> = [
        HttpAuth.bearer(Redacted.make(KEY)),
        { _tag: "Header", header: "x-vendor-api-key", value: Redacted.make(KEY) },
        { _tag: "Query", name: "key", value: Redacted.make(KEY) },
        HttpAuth.platformToken(Redacted.make(`Bearer ${KEY}`))
      ]
      for (const auth of auths) {
        const fake = makeFake([
          { status: 500, body: { error: { message: "boom" } } },
          { status: 200, body: {} }
        ])
        const transport = HttpTransport.make(
          GatewayConfig.make({ baseUrl: "http://gw.test", apiKey: KEY }),
          fake.client
        )
        const fiber = yield* Effect.forkChild(
          transport
            .json({
              family: "openai",
              method: "POST",
              url: "http://gw.test/v1/embeddings",
              body: {},
              auth,
              kind: "idempotent"
            })
            .pipe(
              Effect.withSpan("call"),
              Effect.withTracer(tracer),
              Effect.provide(Logger.layer([logger])),
              Effect.provideService(References.MinimumLogLevel, "All")
            )
        )
        yield* TestClock.adjust("10 seconds")
        yield* Fiber.join(fiber)
        expect(fake.requests.length).toBe(2)
      }
      expect(spans.flatMap((s) => s.attributeLog).length).toBeGreaterThan(0)
      expect(logs.length).toBeGreaterThan(0)
      expect(shownBy(spans)).not.toContain(KEY)
      expect(logs.join("\n")).not.toContain(KEY)
    })
  )

  it("are held Redacted in the config", () => {
    const config = GatewayConfig.make({ baseUrl: "http://x", apiKey: KEY, platformPassword: "pw-SECRET" })
    expect(String(config.apiKey)).not.toContain(KEY)
    expect(JSON.stringify(config)).not.toContain(KEY)
    expect(JSON.stringify(config)).not.toContain("pw-SECRET")
    expect(Option.map(config.platformPassword, Redacted.value)).toEqual(Option.some("pw-SECRET"))
  })

  it.each([
    ["no credential of its own", undefined, []],
    ["a bearer token, with and without its prefix", HttpAuth.bearer(Redacted.make("tok-1234")), ["tok-1234"]],
    [
      "a platform token given as `Bearer …`",
      HttpAuth.platformToken(Redacted.make("Bearer ptok-5678")),
      ["Bearer ptok-5678", "ptok-5678"]
    ],
    [
      "a header credential",
      { _tag: "Header", header: "x-vendor-api-key", value: Redacted.make("hdr-4321") },
      ["hdr-4321"]
    ],
    ["a query credential", { _tag: "Query", name: "key", value: Redacted.make("qry-8765") }, ["qry-8765"]],
    [
      "several headers",
      { _tag: "Headers", headers: Redacted.make({ a: "h1-secret", b: "h2-secret" }) },
      ["h1-secret", "h2-secret"]
    ]
  ] as const)("secretsOf: the key, the platform password, the extra headers and %s", (_, auth, own) => {
    const config = GatewayConfig.make({
      baseUrl: "http://x",
      apiKey: KEY,
      platformPassword: "pw-SECRET",
      headers: { "x-team": "team-token" }
    })
    const secrets = secretsOf(config, auth as HttpAuth.Auth | undefined)
    expect(secrets).toEqual(expect.arrayContaining([KEY, "pw-SECRET", "team-token", ...own]))
  })
})
