import { generateText, type ModelMessage, streamText } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import {
  answerText,
  reasoningSignature,
  reasoningText,
  signedModel,
  signedNative,
  signedTurn,
  textSignature
} from "./SignedNative.js"

// A native-content model's thought signatures on its reasoning and text parts through umg/ai-sdk: each
// part keeps its own in `providerMetadata.umg.thoughtSignature` (generated or streamed), and the next
// turn sends it back on the same part of its `model` turn, as Google's own provider does.
const env = signedNative()
let umg: UmgProvider
beforeAll(() => {
  umg = createUmg({ baseURL: env.url, apiKey: "test-key" })
})
afterAll(() => umg.dispose())

const prompt = "Tell me about the sea."
const nextTurn = (history: ReadonlyArray<ModelMessage>): Array<ModelMessage> => [
  { role: "user", content: prompt },
  ...history,
  { role: "user", content: "And the sky?" }
]

describe("a native-content model's thought signatures through umg/ai-sdk", () => {
  it("generateText keeps each signature on its reasoning or text part and sends both back next turn", async () => {
    const first = await generateText({ model: umg(signedModel), prompt, reasoning: "high" })
    expect(first.content).toEqual([
      { type: "reasoning", text: reasoningText, providerMetadata: { umg: { thoughtSignature: reasoningSignature } } },
      { type: "text", text: answerText, providerMetadata: { umg: { thoughtSignature: textSignature } } }
    ])
    await generateText({ model: umg(signedModel), messages: nextTurn(first.response.messages), reasoning: "high" })
    expect(env.bodies[1]?.["contents"]).toEqual([
      { role: "user", parts: [{ text: prompt }] },
      signedTurn,
      { role: "user", parts: [{ text: "And the sky?" }] }
    ])
  })

  it("streamText ends each segment with its signature and sends both back next turn", async () => {
    const first = streamText({ model: umg(signedModel), prompt, reasoning: "high" })
    const ends: Array<unknown> = []
    for await (const part of first.fullStream)
      if (part.type === "text-end" || part.type === "reasoning-end") ends.push(part.providerMetadata)
    expect(ends).toEqual([
      { umg: { thoughtSignature: reasoningSignature } },
      { umg: { thoughtSignature: textSignature } }
    ])
    expect(await first.text).toBe(answerText)
    const history = (await first.response).messages
    await generateText({ model: umg(signedModel), messages: nextTurn(history), reasoning: "high" })
    expect(env.bodies[1]?.["contents"]).toEqual([
      { role: "user", parts: [{ text: prompt }] },
      signedTurn,
      { role: "user", parts: [{ text: "And the sky?" }] }
    ])
  })

  it("a prompt's signatures go back on their parts, an empty signed text too; an unsigned thought stays out", async () => {
    await generateText({
      model: umg(signedModel),
      messages: nextTurn([
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "r", providerOptions: { umg: { thoughtSignature: "R" } } },
            { type: "reasoning", text: "unsigned" },
            { type: "text", text: "", providerOptions: { umg: { thoughtSignature: "E" } } },
            { type: "text", text: "t", providerOptions: { umg: { thoughtSignature: "T" } } }
          ]
        }
      ])
    })
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
})
