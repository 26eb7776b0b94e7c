import { Effect, Layer, Result, Stream } from "effect"
import { Chat, LanguageModel } from "effect/ai"
import { describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { UmgLanguageModel } from "../../src/ai/index.js"
import { textAnswer } from "../../src/ai/text/TextAnswer.js"
import { textCall } from "../../src/ai/text/TextCall.js"
import type { TextFamily, TextRequest } from "../../src/ai/text/TextRequest.js"
import type { GenerateContentResponse } from "../../src/core/text/native/NativeResponse.js"
import {
  answerText,
  reasoningSignature,
  reasoningText,
  signedModel,
  signedNative,
  signedTurn,
  textSignature
} from "../ai-sdk/SignedNative.js"

// A native-content model's thought signatures on its reasoning and text parts through umg/ai: each
// part keeps its own in `metadata.umg.thoughtSignature` (generated or streamed), and a Chat's next turn
// sends it back on the same part of its `model` turn.
const env = signedNative()

const run = <A, E>(effect: Effect.Effect<A, E, LanguageModel.LanguageModel>): Promise<A> =>
  Effect.runPromise(
    Effect.provide(
      effect,
      UmgLanguageModel.layer({ model: signedModel, config: { reasoning: "high" } }).pipe(
        Layer.provide(Gateway.layer({ baseUrl: env.url, apiKey: "test-key" }))
      )
    )
  )

const prompt = "Tell me about the sea."
const sentBack = () =>
  expect(env.bodies[1]?.["contents"]).toEqual([
    { role: "user", parts: [{ text: prompt }] },
    signedTurn,
    { role: "user", parts: [{ text: "And the sky?" }] }
  ])

describe("a native-content model's thought signatures through umg/ai", () => {
  it("generateText keeps each signature on its reasoning or text part; a Chat sends both back next turn", async () => {
    const first = await run(
      Effect.gen(function* () {
        const chat = yield* Chat.empty
        const r = yield* chat.generateText({ prompt })
        yield* chat.generateText({ prompt: "And the sky?" })
        return r
      })
    )
    const content = first.content.filter((p) => p.type === "reasoning" || p.type === "text")
    expect(content.map((p) => [p.type, p.text, p.metadata["umg"]])).toEqual([
      ["reasoning", reasoningText, { thoughtSignature: reasoningSignature }],
      ["text", answerText, { thoughtSignature: textSignature }]
    ])
    sentBack()
  })

  it("streamText ends each segment with its signature; a Chat sends both back next turn", async () => {
    const parts = await run(
      Effect.gen(function* () {
        const chat = yield* Chat.empty
        const streamed = yield* Stream.runCollect(chat.streamText({ prompt }))
        yield* chat.generateText({ prompt: "And the sky?" })
        return streamed
      })
    )
    const ends = parts.flatMap((p) => (p.type === "reasoning-end" || p.type === "text-end" ? [p.metadata["umg"]] : []))
    expect(ends).toEqual([{ thoughtSignature: reasoningSignature }, { thoughtSignature: textSignature }])
    expect(parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")).toBe(answerText)
    sentBack()
  })
})

describe("thought signatures in umg/ai's requests and answers", () => {
  it("a prompt's signatures go back on their parts, an empty signed text too; an unsigned thought stays out", async () => {
    await run(
      LanguageModel.generateText({
        prompt: [
          { role: "user", content: prompt },
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "r", options: { umg: { thoughtSignature: "R" } } },
              { type: "reasoning", text: "unsigned" },
              { type: "text", text: "", options: { umg: { thoughtSignature: "E" } } },
              { type: "text", text: "t", options: { umg: { thoughtSignature: "T" } } }
            ]
          },
          { role: "user", content: "And the sky?" }
        ]
      })
    )
    expect(env.bodies[0]?.["contents"]).toEqual([
      { role: "user", parts: [{ text: prompt }] },
      {
        role: "model",
        parts: [
          { text: "r", thought: true, thoughtSignature: "R" },
          { text: "", thoughtSignature: "E" },
          { text: "t", thoughtSignature: "T" }
        ]
      },
      { role: "user", parts: [{ text: "And the sky?" }] }
    ])
  })

  it.each([
    ["messages", "epsilon-sonnet-4-5-20250929"],
    ["chat", "gpt-4o"],
    ["responses", "gpt-5"]
  ] as const)("the %s family sends no thought signature back", (family: TextFamily, model) => {
    const request: TextRequest = {
      model,
      tools: [],
      messages: [
        { role: "user", parts: [{ type: "text", text: "Hi" }] },
        {
          role: "assistant",
          parts: [
            { type: "reasoning", text: "r", thoughtSignature: "R" },
            { type: "text", text: "t", thoughtSignature: "T" }
          ]
        },
        { role: "user", parts: [{ type: "text", text: "And?" }] }
      ]
    }
    const body = JSON.stringify(Result.getOrThrow(textCall(family, request, false)).body)
    expect(body).toContain('"t"')
    expect(body).not.toContain("thoughtSignature")
  })

  it("a whole answer's empty signed part signs the part of its kind before it, or stands as its own", () => {
    const answer: GenerateContentResponse = {
      candidates: [
        {
          index: 0,
          finishReason: "STOP",
          content: {
            role: "model",
            parts: [
              { text: "a", thought: true },
              { text: "", thought: true, thoughtSignature: "R" },
              { text: "", thoughtSignature: "E" },
              { text: "b" },
              { text: "", thoughtSignature: "T" }
            ]
          }
        }
      ]
    }
    expect(textAnswer("native", answer, undefined, (i) => `call-${i}`).content).toEqual([
      { type: "reasoning", text: "a", thoughtSignature: "R" },
      { type: "text", text: "", thoughtSignature: "E" },
      { type: "text", text: "b", thoughtSignature: "T" }
    ])
  })
})
