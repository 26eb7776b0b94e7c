import { createOpenAI } from "@ai-sdk/openai"
import { generateText, streamText } from "ai"
import OpenAI from "openai"
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { jsonEvents } from "./RawSse.js"

// `n`, `logprobs`/`top_logprobs` and `stop` on `POST /v1/chat/completions`, read by the official
// openai SDK (its stream helper assembles choices by index) and the AI SDK's openai chat provider.
let emu: Emulator
let openai: OpenAI
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  openai = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.url}/v1`, maxRetries: 0 })
})
afterAll(() => emu.close())

type Body = Omit<ChatCompletionCreateParamsNonStreaming, "model" | "messages" | "stream">
const messages = [{ role: "user" as const, content: "Name a colour." }]
const create = (body: Body = {}): Promise<ChatCompletion> =>
  openai.chat.completions.create({ model: "gpt-4o", messages, ...body })
const streamed = (body: Body = {}): Promise<ChatCompletion> =>
  openai.chat.completions
    .stream({ model: "gpt-4o", messages, ...body, stream_options: { include_usage: true } })
    .finalChatCompletion()

/** The raw chunks of a streamed answer. */
const rawChunks = async (body: Record<string, unknown>): Promise<Array<Chunk>> => {
  const response = await fetch(`${emu.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o", messages, stream: true, ...body })
  })
  return jsonEvents(await response.text()) as unknown as Array<Chunk>
}
interface Chunk {
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly delta: { readonly content?: string | null }
    readonly logprobs: { readonly content: ReadonlyArray<{ readonly token: string }> } | null
    readonly finish_reason: string | null
  }>
  readonly usage?: { readonly completion_tokens: number } | null
}

const texts = (c: ChatCompletion): Array<string | null> => c.choices.map((choice) => choice.message.content)
const utf8 = (s: string): Array<number> => [...new TextEncoder().encode(s)]

/** Checks a choice's `logprobs` against its text: one entry per token, `top` alternatives each. */
const expectLogprobs = (choice: ChatCompletion.Choice, top: number): void => {
  expect(choice.logprobs!.refusal).toBeNull()
  const entries = choice.logprobs!.content!
  expect(entries.length).toBeGreaterThan(0)
  expect(entries.map((e) => e.token).join("")).toBe(choice.message.content)
  for (const e of entries) {
    expect(e.bytes).toEqual(utf8(e.token))
    expect(e.logprob).toBeLessThanOrEqual(0)
    expect(e.top_logprobs).toHaveLength(top)
    if (top === 0) continue
    expect(e.top_logprobs[0]).toEqual({ token: e.token, logprob: e.logprob, bytes: e.bytes })
    for (const alt of e.top_logprobs) expect(alt.bytes).toEqual(utf8(alt.token))
    const probs = e.top_logprobs.map((t) => t.logprob)
    expect(probs).toEqual([...probs].sort((a, b) => b - a))
    expect(new Set(e.top_logprobs.map((t) => t.token)).size).toBe(top)
  }
}

describe("chat n", () => {
  it("answers n choices indexed 0 to n-1, each its own text, the first the n=1 answer", async () => {
    const [one, three] = await Promise.all([create(), create({ n: 3 })])
    expect(three.choices.map((c) => [c.index, c.finish_reason])).toEqual([
      [0, "stop"],
      [1, "stop"],
      [2, "stop"]
    ])
    expect(new Set(texts(three)).size).toBe(3)
    expect(three.choices[0]!.message.content).toBe(one.choices[0]!.message.content)
    expect(three).toEqual({ ...(await create({ n: 3 })), id: three.id, created: three.created })
    expect(three.usage!.completion_tokens).toBeGreaterThan(one.usage!.completion_tokens)
  })

  it("streams the n choices interleaved, one choice a chunk, each with its finish chunk, usage over all", async () => {
    const chunks = await rawChunks({ n: 3, stream_options: { include_usage: true } })
    const choiceChunks = chunks.filter((c) => c.choices.length > 0)
    expect(choiceChunks.every((c) => c.choices.length === 1)).toBe(true)
    const order = choiceChunks.map((c) => c.choices[0]!.index)
    expect(order.slice(0, 6)).toEqual([0, 1, 2, 0, 1, 2])
    const finishes = choiceChunks.filter((c) => c.choices[0]!.finish_reason !== null)
    expect(finishes.map((c) => [c.choices[0]!.index, c.choices[0]!.finish_reason]).sort()).toEqual([
      [0, "stop"],
      [1, "stop"],
      [2, "stop"]
    ])
    const [final, unary] = await Promise.all([streamed({ n: 3 }), create({ n: 3 })])
    expect(final.choices.map((c) => c.index)).toEqual([0, 1, 2])
    expect(texts(final)).toEqual(texts(unary))
    expect(new Set(texts(final)).size).toBe(3)
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(unary.usage!.completion_tokens)
  })

  it("gives every choice its own function call when the rules call one", async () => {
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "paint",
          parameters: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] }
        }
      }
    ]
    for (const answer of [await create({ n: 2, tools }), await streamed({ n: 2, tools })]) {
      expect(answer.choices.map((c) => [c.index, c.finish_reason])).toEqual([
        [0, "tool_calls"],
        [1, "tool_calls"]
      ])
      const calls = answer.choices.map((c) => c.message.tool_calls!)
      expect(calls.map((c) => c.length)).toEqual([1, 1])
      for (const [call] of calls) {
        expect(call).toMatchObject({ type: "function", function: { name: "paint" } })
        if (call!.type === "function")
          expect(Object.keys(JSON.parse(call!.function.arguments) as object)).toEqual(["colour"])
      }
      expect(calls[0]![0]!.id).not.toBe(calls[1]![0]!.id)
    }
  })
})

describe("chat logprobs", () => {
  it("gives each output token a logprob entry with top_logprobs alternatives", async () => {
    const answer = await create({ logprobs: true, top_logprobs: 3 })
    expectLogprobs(answer.choices[0]!, 3)
    expect(answer.choices[0]!.logprobs!.content).toHaveLength(answer.usage!.completion_tokens)
    expectLogprobs((await create({ logprobs: true })).choices[0]!, 0)
    expect(
      (await create({ logprobs: true, top_logprobs: 20 })).choices[0]!.logprobs!.content![0]!.top_logprobs
    ).toHaveLength(20)
    expect((await create()).choices[0]!.logprobs).toBeNull()
  })

  it("streams each content chunk's tokens with their logprobs", async () => {
    const chunks = await rawChunks({ logprobs: true, top_logprobs: 2 })
    const content = chunks.filter((c) => (c.choices[0]?.delta.content ?? "") !== "")
    expect(content.length).toBeGreaterThan(1)
    for (const c of content)
      expect(c.choices[0]!.logprobs!.content.map((e) => e.token).join("")).toBe(c.choices[0]!.delta.content)
    const [final, unary] = await Promise.all([
      streamed({ logprobs: true, top_logprobs: 2 }),
      create({ logprobs: true, top_logprobs: 2 })
    ])
    expectLogprobs(final.choices[0]!, 2)
    expect(final.choices[0]!.logprobs).toEqual(unary.choices[0]!.logprobs)
  })
})

describe("chat stop", () => {
  /** A word from the middle of the n=1 answer, and that answer. */
  const middleWord = async (): Promise<{ readonly word: string; readonly text: string }> => {
    const text = (await create()).choices[0]!.message.content!
    return { word: text.split(" ")[6]!, text }
  }

  it("cuts the text before the first stop sequence, which it leaves out, with finish_reason stop", async () => {
    const { word, text } = await middleWord()
    const expected = text.slice(0, text.indexOf(word))
    for (const stop of [word, [word], ["no such words here", word]]) {
      const answer = await create({ stop, max_tokens: 100 })
      expect(answer.choices[0]!.message.content).toBe(expected)
      expect(answer.choices[0]!.finish_reason).toBe("stop")
    }
    const short = await create({ stop: word, max_tokens: 2 })
    expect(short.choices[0]!.finish_reason).toBe("length")
    expect((await create({ stop: [word] })).usage!.completion_tokens).toBeLessThan(
      (await create()).usage!.completion_tokens
    )
  })

  it("streams nothing past the stop sequence", async () => {
    const { word, text } = await middleWord()
    const chunks = await rawChunks({ stop: [word] })
    const joined = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")
    expect(joined).toBe(text.slice(0, text.indexOf(word)))
    expect(joined).not.toContain(word)
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop")
  })
})

describe("chat n with stop and logprobs", () => {
  it("cuts each choice at its own first stop sequence, with logprobs of what is left, streamed or not", async () => {
    const whole = await create({ n: 3 })
    // A stop sequence from each of choices 1 and 2 (choice 0 may hold either, or neither).
    const stop = [1, 2].map((i) => whole.choices[i]!.message.content!.split(" ")[4]!)
    const body: Body = { n: 3, stop, logprobs: true, top_logprobs: 2 }
    const [unary, final] = await Promise.all([create(body), streamed(body)])
    for (const answer of [unary, final])
      answer.choices.forEach((choice, i) => {
        const full = whole.choices[i]!.message.content!
        const at = Math.min(...stop.map((s) => full.indexOf(s)).filter((k) => k >= 0))
        expect(choice.index).toBe(i)
        expect(choice.message.content).toBe(at === Infinity ? full : full.slice(0, at))
        expect(choice.finish_reason).toBe("stop")
        expectLogprobs(choice, 2)
      })
    expect(
      unary.choices.slice(1).every((c, i) => c.message.content!.length < whole.choices[i + 1]!.message.content!.length)
    ).toBe(true)
    expect(final.choices.map((c) => c.logprobs)).toEqual(unary.choices.map((c) => c.logprobs))
    expect(final.usage!.completion_tokens).toBe(unary.usage!.completion_tokens)
    expect(unary.usage!.completion_tokens).toBe(unary.choices.reduce((n, c) => n + c.logprobs!.content!.length, 0))
  })
})

describe("the AI SDK's openai chat provider", () => {
  const model = () => createOpenAI({ baseURL: `${emu.url}/v1`, apiKey: emu.apiKey }).chat("gpt-4o")
  const logprobsOf = (metadata: unknown): Array<{ token: string; top_logprobs: Array<unknown> }> =>
    (metadata as { openai: { logprobs: Array<{ token: string; top_logprobs: Array<unknown> }> } }).openai.logprobs

  it("gets providerMetadata.openai.logprobs with logprobs: 2, streamed or not", async () => {
    const providerOptions = { openai: { logprobs: 2 } }
    const generated = await generateText({ model: model(), prompt: "Name a colour.", providerOptions })
    const unary = logprobsOf(generated.providerMetadata)
    expect(unary.map((e) => e.token).join("")).toBe(generated.text)
    expect(unary.every((e) => e.top_logprobs.length === 2)).toBe(true)
    const result = streamText({ model: model(), prompt: "Name a colour.", providerOptions })
    const text = await result.text
    expect(
      logprobsOf(await result.providerMetadata)
        .map((e) => e.token)
        .join("")
    ).toBe(text)
  })
})
