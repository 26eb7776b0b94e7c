/**
 * The runtime side of test/types/fixtures/exact.ts: what the types let a user under
 * `exactOptionalPropertyTypes` pass as `undefined` (a parse option, a batch option, a body's top-level
 * field, a call's or a gateway's setting) is taken as left out, exactly as if it were not given.
 */
import { Effect, Layer, Schema } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import { chatParse } from "../../src/adapters/structured/Parse.js"
import { Batch } from "../../src/batch/index.js"
import type { ChatBodyInput } from "../../src/core/index.js"
import * as core from "../../src/core/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] }
const platform = { model: "m", prompt: "p", aspect_ratio: "16:9", duration: 5 }
const u = undefined

/** The body a builder makes of `input`, or its refusal's message. */
const built = (effect: Effect.Effect<unknown, { readonly message: string }>) =>
  Effect.runSync(Effect.match(effect, { onFailure: (e) => `refused: ${e.message}`, onSuccess: (body) => body }))

describe("a field given as undefined is a field left out", () => {
  it("for every body's top-level optional fields and `extra`", () => {
    const pairs: ReadonlyArray<readonly [unknown, unknown]> = [
      [built(core.buildChatBody({ ...chat, temperature: u, user: u, extra: u })), built(core.buildChatBody(chat))],
      [
        built(core.buildMessagesBody({ ...chat, model: "epsilon-haiku-4-5-20251001", max_tokens: 8, system: u })),
        built(core.buildMessagesBody({ ...chat, model: "epsilon-haiku-4-5-20251001", max_tokens: 8 }))
      ],
      [
        built(core.buildResponsesBody({ model: "gpt-4o-mini", input: "hi", instructions: u })),
        built(core.buildResponsesBody({ model: "gpt-4o-mini", input: "hi" }))
      ],
      [
        built(
          core.buildNativeBody("zeta-2.5-flash", { contents: [{ role: "user", parts: [{ text: "hi" }] }], extra: u })
        ),
        built(core.buildNativeBody("zeta-2.5-flash", { contents: [{ role: "user", parts: [{ text: "hi" }] }] }))
      ],
      [
        built(core.buildEmbeddingsBody({ model: "text-embedding-3-small", input: "a", dimensions: u })),
        built(core.buildEmbeddingsBody({ model: "text-embedding-3-small", input: "a" }))
      ],
      [
        built(core.buildVideoBody({ model: "delta-1-5-pro-251215", prompt: "a cat", duration: u, seed: u })),
        built(core.buildVideoBody({ model: "delta-1-5-pro-251215", prompt: "a cat" }))
      ],
      [
        built(core.buildCountTokensBody({ ...chat, model: "epsilon-haiku-4-5-20251001", system: u, extra: u })),
        built(core.buildCountTokensBody({ ...chat, model: "epsilon-haiku-4-5-20251001" }))
      ],
      [
        built(core.buildRerankBody({ model: "rerank-v1", query: "q", documents: ["a"], top_n: u })),
        built(core.buildRerankBody({ model: "rerank-v1", query: "q", documents: ["a"] }))
      ],
      [
        built(core.buildSpeechBody({ model: "tts-1", input: "hi", voice: "alloy", speed: u })),
        built(core.buildSpeechBody({ model: "tts-1", input: "hi", voice: "alloy" }))
      ],
      [
        built(core.buildImagesBody({ model: "zeta-2.5-flash-image", prompt: "a cat", n: u })),
        built(core.buildImagesBody({ model: "zeta-2.5-flash-image", prompt: "a cat" }))
      ],
      [
        built(core.buildPlatformTextToVideoBody({ ...platform, resolution: u, return_url: u, extra: u })),
        built(core.buildPlatformTextToVideoBody(platform))
      ],
      [
        built(core.buildSessionUpdate("gpt-realtime", { instructions: u, voice: u, extra: u })),
        built(core.buildSessionUpdate("gpt-realtime", {}))
      ],
      [
        built(core.buildSessionUpdate("gpt-realtime-2", { instructions: u, type: u, modalities: u })),
        built(core.buildSessionUpdate("gpt-realtime-2", {}))
      ],
      [
        built(core.buildLiveSetup("zeta-live-2.5-flash-native-audio", { systemInstruction: u, model: u, extra: u })),
        built(core.buildLiveSetup("zeta-live-2.5-flash-native-audio", {}))
      ]
    ]
    for (const [withUndefined, without] of pairs) {
      expect(typeof withUndefined, String(withUndefined)).toBe("object")
      expect(withUndefined).toStrictEqual(without)
    }
  })

  it("for parse's structured-output options", async () => {
    const sent: Array<ChatBodyInput> = []
    const create = (body: ChatBodyInput) => {
      sent.push(body)
      return Effect.fail("not sent" as const)
    }
    const parse = chatParse(create)
    const Person = Schema.Struct({ name: Schema.String })
    await Effect.runPromise(Effect.flip(parse(chat, Person, { name: u, description: u, strict: u, jsonSchema: u })))
    await Effect.runPromise(Effect.flip(parse(chat, Person)))
    expect(sent).toHaveLength(2)
    expect(sent[0]).toEqual(sent[1])
  })
})

describe("a call's and a gateway's options given as undefined", () => {
  let emulator: Emulator
  beforeAll(async () => {
    emulator = await startEmulator({ fast: true, port: u, host: u, keys: u, virtualClock: u })
  })
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await emulator?.close()
  })

  it("settings take their defaults", () => {
    const given = { baseUrl: "http://127.0.0.1:1", apiKey: "k" }
    const undefinedSettings = {
      ...given,
      platformUrl: u,
      maxRetries: u,
      timeoutMs: u,
      headers: u,
      nativeAuth: u,
      embedConcurrency: u,
      httpClient: u,
      webSocket: u,
      limits: { maxResponseBytes: u, maxFrameBytes: u, maxPendingBytes: u, maxJsonDepth: u },
      allowUnknownModels: u
    }
    expect(GatewayConfig.make(undefinedSettings)).toStrictEqual(GatewayConfig.make(given))
  })

  it("models.list reads the cached list: no option is given", async () => {
    const layer = Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey })
    const calls = { signal: u, timeoutMs: u, headers: u, maxRetries: u, onResponse: u }
    const counts = await Effect.runPromise(
      Effect.provide(
        Effect.gen(function* () {
          const g = yield* Gateway
          yield* g.models.list()
          const first = emulator.counters.get("models")
          yield* g.models.list({ format: u, refresh: u }, calls)
          yield* g.models.has("gpt-4o-mini", calls)
          return [first, emulator.counters.get("models")]
        }),
        layer
      )
    )
    expect(counts[0]).toBeGreaterThan(0)
    expect(counts[1]).toBe(counts[0])
  })
})

describe("a batch's options given as undefined", () => {
  let emulator: Emulator
  let dir: string
  beforeAll(async () => {
    emulator = await startEmulator({ fast: true, video: { queuedMs: 20, inProgressMs: 40 } })
    dir = mkdtempSync(join(tmpdir(), "umg-exact-"))
  })
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await emulator?.close()
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it("run the batch with the defaults", async () => {
    const gateway = Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey, minPollIntervalMs: 10 })
    const layer = Batch.layer({
      store: Batch.sqlite(join(dir, "batches.db")),
      pollIntervalMs: 20,
      taskTimeoutMs: u,
      progressIntervalMs: u,
      maxFollowed: u,
      maxDownloads: u
    }).pipe(Layer.provide(gateway))
    const program = Effect.flatMap(
      Batch.video({
        inputs: [{ model: "beta-3.0-fast-generate-001", prompt: "a cat" }],
        id: u,
        lines: u,
        concurrency: u,
        dir: join(dir, "videos"),
        resubmitUnknown: u
      }),
      (handle) => handle.results
    )
    const results = await Effect.runPromise(Effect.provide(program, layer))
    expect(results.map((r) => [r.line, r.status])).toEqual([[1, "succeeded"]])
  }, 60_000)
})
