// The client and the emulator are two independent readings of the contract; this property holds them to
// each other: over generated bodies of each family — valid values, values just outside the allowed
// ones, other families' and unknown models, missing required fields — the client's builder accepts a
// body exactly when the emulator answers it with 2xx. (No unknown top-level fields: the gateway ignores
// those while the client refuses them, by design.)
import { Effect, Result } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildEmbeddingsBody } from "../src/core/media/Embeddings.js"
import { buildRerankBody } from "../src/core/media/Rerank.js"
import { buildSpeechBody } from "../src/core/media/Speech.js"
import { buildChatBody } from "../src/core/text/chat/ChatBody.js"
import { buildMessagesBody } from "../src/core/text/messages/Messages.js"
import { buildNativeBody } from "../src/core/text/native/Native.js"
import { buildVideoBody } from "../src/core/video/VideoBody.js"
import { postStatus } from "../test/support/emulatorStatus.js"
import { startEmulator, type Emulator } from "../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const status = (path: string, body: unknown): Promise<number> => postStatus(emu, path, body)

/** Present with a value, or absent. */
const maybe = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A | undefined> => fc.option(arb, { nil: undefined })
const record = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(fields).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)))

const someModels = fc.constantFrom(
  "epsilon-sonnet-4-5-20250929",
  "zeta-2.5-flash",
  "gpt-4o-mini",
  "gpt-5-pro",
  "text-embedding-3-small",
  "text-embedding-ada-002",
  "zeta-embedding-001",
  "rerank-v1",
  "gpt-4o-mini-tts",
  "beta-3.1-fast-generate-001",
  "gpt-9",
  "epsilon-opus-9"
)

/**
 * A model of the family under test most of the time (so that the body's other rules are reached),
 * else any model of `someModels` (other families', unknown ones) or none.
 */
const modelOf = (...family: ReadonlyArray<string>): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...family), weight: 4 },
    { arbitrary: someModels, weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 }
  )

/** `valid` most of the time, else one of `others` (values just outside the rules, or absent). */
const mostly = <A>(valid: A, ...others: ReadonlyArray<A | undefined>): fc.Arbitrary<A | undefined> =>
  fc.oneof({ arbitrary: fc.constant(valid), weight: 2 * others.length }, fc.constantFrom(...others))

/**
 * What the client does with `input` (builds a body, or refuses it), and what the emulator answers: for
 * the body the client would send when it builds one, else for the input as it was given.
 */
const agree = async (
  path: string,
  input: Record<string, unknown>,
  build: Effect.Effect<unknown, unknown>
): Promise<void> => {
  const built = Effect.runSync(Effect.result(build))
  const clientAccepts = Result.isSuccess(built)
  const body = Result.isSuccess(built) ? built.success : input
  const code = await status(path, body)
  expect({ body, client: clientAccepts ? "accepts" : "refuses", emulator: code }).toEqual({
    body,
    client: clientAccepts ? "accepts" : "refuses",
    emulator: clientAccepts ? 200 : expect.toSatisfy((c: number) => c >= 400 && c < 500)
  })
}

const runs = { numRuns: 60 }

describe("the client accepts a body exactly when the emulator answers 2xx", () => {
  it("embeddings", async () => {
    const body = record({
      model: modelOf(
        "text-embedding-3-small",
        "text-embedding-3-large",
        "text-embedding-ada-002",
        "zeta-embedding-001"
      ),
      input: mostly("hello", "", undefined),
      encoding_format: maybe(fc.constantFrom("float", "base64", "int8")),
      dimensions: maybe(fc.constantFrom(0, 1, 256, 1536, 1537, 3072, 3073, 2.5))
    })
    await fc.assert(
      fc.asyncProperty(body, (b) => agree("/v1/embeddings", b, buildEmbeddingsBody(b))),
      runs
    )
  })

  it("rerank", async () => {
    const body = record({
      model: modelOf("rerank-v1"),
      query: mostly("q", "", undefined),
      documents: mostly(["a", "b", "c"], [], undefined),
      top_n: maybe(fc.constantFrom(0, 1, 3, 4, 1.5)),
      return_documents: maybe(fc.constantFrom(true, false, "yes"))
    })
    await fc.assert(
      fc.asyncProperty(body, (b) => agree("/v1/rerank", b, buildRerankBody(b))),
      runs
    )
  })

  it("speech", async () => {
    const body = record({
      model: modelOf("gpt-4o-mini-tts", "tts-1", "tts-1-hd"),
      input: mostly("hello", "", undefined),
      voice: fc.oneof(
        fc.constantFrom("alloy", "echo", "fable", "onyx", "nova", "shimmer", "ash", "coral"),
        fc.constant(undefined)
      ),
      response_format: maybe(fc.constantFrom("mp3", "opus", "aac", "flac", "wav", "pcm", "ogg")),
      speed: maybe(fc.constantFrom(0.2, 0.25, 1, 4, 4.1))
    })
    await fc.assert(
      fc.asyncProperty(body, (b) => agree("/v1/audio/speech", b, buildSpeechBody(b))),
      runs
    )
  })

  it("messages", async () => {
    const body = record({
      model: modelOf("epsilon-sonnet-4-5-20250929", "epsilon-haiku-4-5-20251001"),
      max_tokens: fc.oneof(fc.constantFrom(1, 4096), fc.constantFrom(0, 2.5, undefined)),
      messages: mostly(
        [{ role: "user", content: "hi" }],
        [],
        [{ role: "system", content: "hi" }],
        [{ role: "user", content: [{ type: "text", text: " " }] }],
        [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "x" } }] }],
        [
          {
            role: "user",
            content: [{ type: "image", source: { type: "base64", media_type: "image/bmp", data: "AAAA" } }]
          }
        ],
        undefined
      ),
      temperature: maybe(fc.constantFrom(0, 0.5, 1, 1.5, -0.1)),
      top_p: maybe(fc.constantFrom(0, 1, 1.1)),
      system: maybe(
        fc.constantFrom(
          "be brief",
          [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
          [{ type: "text", text: "s", cache_control: { type: "x" } }]
        )
      ),
      tools: maybe(
        fc.constantFrom(
          [{ name: "t", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
          [{ name: "t", input_schema: { type: "object" }, cache_control: { type: "x" } }],
          [{ name: "my tool", input_schema: { type: "object" } }],
          [
            { name: "t", input_schema: { type: "object" } },
            { name: "t", input_schema: { type: "object" } }
          ]
        )
      )
    })
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        await agree("/v1/messages", b, buildMessagesBody(b))
      }),
      runs
    )
  })

  it("chat", async () => {
    const body = record({
      model: modelOf("gpt-4o-mini", "gpt-4o", "gpt-4.1"),
      messages: mostly(
        [{ role: "user", content: "hi" }],
        [],
        [{ role: "robot", content: "hi" }],
        [{ role: "user" }],
        undefined
      ),
      stream: maybe(fc.constantFrom(false, "no")),
      max_tokens: maybe(fc.constantFrom(-5, 0, 1, 16, 2.5)),
      max_completion_tokens: maybe(fc.constantFrom(0, 1, 4096, 2.5)),
      temperature: maybe(fc.constantFrom(0, 1, 2, 2.1, -0.1))
    })
    await fc.assert(
      fc.asyncProperty(body, (b) => agree("/v1/chat/completions", b, buildChatBody(b))),
      runs
    )
  })

  it("native content", async () => {
    // The model is in the path here, so it is never absent.
    const model = fc.oneof(
      { arbitrary: fc.constantFrom("zeta-2.5-flash", "zeta-2.5-pro", "zeta-3-pro-preview"), weight: 4 },
      fc.constantFrom("zeta-embedding-001", "epsilon-sonnet-4-5-20250929", "zeta-9"),
      // Thinking suffixes, within and outside what their model's class takes.
      fc.constantFrom(
        "zeta-2.5-flash-thinking-8192",
        "zeta-2.5-flash-thinking-low",
        "zeta-2.5-pro-nothinking",
        "zeta-3-pro-preview-thinking-low"
      )
    )
    const body = record({
      contents: mostly(
        [{ role: "user", parts: [{ text: "hi" }] }],
        [],
        [{ role: "robot", parts: [{ text: "hi" }] }],
        [{ role: "user", parts: [{ inlineData: { data: "AAAA" } }] }],
        undefined
      ),
      generationConfig: maybe(
        fc.constantFrom(
          { temperature: 0 },
          { temperature: 2 },
          { temperature: 2.5 },
          { topP: 1.5 },
          { maxOutputTokens: 0 },
          { thinkingConfig: { thinkingLevel: "low" } },
          { thinkingConfig: { thinkingLevel: "MEDIUM" } },
          { thinkingConfig: { includeThoughts: true } }
        )
      ),
      tools: maybe(
        fc.constantFrom(
          [{ functionDeclarations: [{ name: "f" }] }, { vendorSearch: {} }],
          [{ functionDeclarations: [{ name: "f" }], vendorSearch: {} }]
        )
      )
    })
    await fc.assert(
      fc.asyncProperty(model, body, (m, b) => agree(`/v1beta/models/${m}:generateContent`, b, buildNativeBody(m, b))),
      runs
    )
  })

  it("video submit", async () => {
    const body = record({
      model: fc.oneof(
        { arbitrary: modelOf("beta-3.1-fast-generate-001", "gamma2.5-t2v-preview", "delta-1-5-pro-251215"), weight: 5 },
        fc.constant("beta-9")
      ),
      prompt: maybe(fc.constantFrom("a calm sea", "")),
      duration: maybe(fc.constantFrom(4, 5, 6, 8, 10, 13)),
      resolution: maybe(fc.constantFrom("480p", "720p", "1080p", "4k", "8k")),
      aspect_ratio: maybe(fc.constantFrom("16:9", "9:16", "1:1", "5:4"))
    })
    await fc.assert(
      fc.asyncProperty(body, (b) => agree("/v1/video/generations", b, buildVideoBody(b))),
      runs
    )
  })
})
