// Closed bodies as a user meets them: a misspelled field is a compile error (the `@ts-expect-error`
// lines below fail the type check the day a body type opens up again) and, at run time, a refusal
// naming the field and the nearest known one — before anything is sent.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { ChatBodyInput } from "../../src/core/text/chat/ChatBody.js"
import type { EmbeddingsBodyInput } from "../../src/core/media/Embeddings.js"
import type { MessagesBodyInput } from "../../src/core/text/messages/Messages.js"
import type { RerankBodyInput } from "../../src/core/media/Rerank.js"
import type { ResponsesBodyInput } from "../../src/core/text/responses/ResponsesBody.js"
import type { SpeechBodyInput } from "../../src/core/media/Speech.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const messages = [{ role: "user" as const, content: "hi" }]

describe("closed body types", () => {
  it("make a misspelled field a compile error and keep extra typed", () => {
    // @ts-expect-error `temprature` is not a chat field
    const chat: ChatBodyInput = { model: "gpt-4o-mini", temprature: 0.2, messages }
    // @ts-expect-error `maxTokens` is not a messages field
    const msg: MessagesBodyInput = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 8, maxTokens: 8, messages }
    // @ts-expect-error `max_tokens` is not a responses field
    const responses: ResponsesBodyInput = { model: "gpt-5", input: "hi", max_tokens: 8 }
    // @ts-expect-error `dimension` is not an embeddings field
    const embed: EmbeddingsBodyInput = { model: "text-embedding-3-small", input: "x", dimension: 8 }
    // @ts-expect-error `topN` is not a rerank field
    const rerank: RerankBodyInput = { model: "rerank-v1", query: "q", documents: ["a"], topN: 1 }
    // @ts-expect-error `ash` is not one of the six voices
    const speech: SpeechBodyInput = { model: "gpt-4o-mini-tts", input: "x", voice: "ash" }
    // The escape hatch is typed: an object of extra fields.
    const withExtra: ChatBodyInput = { model: "gpt-4o-mini", messages, extra: { logit_bias_v2: { a: 1 } } }
    // @ts-expect-error `extra` must be an object
    const badExtra: ChatBodyInput = { model: "gpt-4o-mini", messages, extra: 5 }
    expect([chat, msg, responses, embed, rerank, speech, withExtra, badExtra]).toHaveLength(8)
  })
})

describe("closed bodies through the Gateway", () => {
  const layer = () => Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey })
  const refusal = (effect: Effect.Effect<unknown, unknown, Gateway>) =>
    Effect.runPromise(
      Effect.flip(Effect.provide(effect, layer())) as Effect.Effect<{ _tag: string; field?: string; message: string }>
    )

  it("refuses an unknown field naming the nearest known one, and sends nothing", async () => {
    emu.counters.reset()
    const e = await refusal(
      Gateway.use((g) => g.chat.create({ model: "gpt-4o-mini", messages, temprature: 0.2 } as unknown as ChatBodyInput))
    )
    expect(e).toMatchObject({ _tag: "InvalidRequest", field: "temprature" })
    expect(e.message).toContain("unknown field `temprature`; did you mean `temperature`?")
    expect(emu.counters.get("chat")).toBe(0)
  })

  it("refuses another family's model and a misspelled model before sending; allowUnknownModels lets an unknown id through", async () => {
    emu.counters.reset()
    const other = await refusal(Gateway.use((g) => g.embeddings.create({ model: "gpt-4o-mini", input: "x" })))
    expect(other.message).toContain("is a chat model")
    const typo = await refusal(Gateway.use((g) => g.chat.create({ model: "gpt-9", messages })))
    expect(typo.message).toContain("known: ")
    expect(emu.counters.get("embeddings") + emu.counters.get("chat")).toBe(0)
    // With the option the id is sent, and the gateway (here the emulator) answers for it.
    const unknownLayer = Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, allowUnknownModels: true })
    const sent: unknown = await Effect.runPromise(
      Effect.flip(
        Effect.provide(
          Gateway.use((g) => g.chat.create({ model: "gpt-9", messages })),
          unknownLayer
        )
      )
    )
    expect(sent).toMatchObject({ status: 404 })
  })

  it("merges extra into the body it sends", async () => {
    const out = await Effect.runPromise(
      Effect.provide(
        Gateway.use((g) => g.chat.create({ model: "gpt-4o-mini", messages, extra: { user_tag: "abc" } })),
        layer()
      )
    )
    expect(out.choices.length).toBeGreaterThan(0)
  })
})
