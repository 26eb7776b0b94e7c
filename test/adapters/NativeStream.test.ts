// The native group's stream against a scripted HTTP client: where it ends (no final event of its own)
// and that it reaches the answer `generate` gives for the same server's answer. A body may be left
// open after its last chunk, as a server that keeps the socket open leaves it.
import { Effect, Exit, Layer } from "effect"
import { HttpClient } from "effect/http"
import { describe, expect, it } from "vitest"
import { Gateway, type GatewayService } from "../../src/adapters/Gateway.js"
import type { NativeRequest } from "../../src/adapters/groups/Native.js"
import { runToFinal } from "../../src/adapters/sse/Consume.js"
import { makeFake, type Scripted } from "./fakeHttp.js"

const request: NativeRequest = { model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: "hi" }] }] }
const twoCandidates: NativeRequest = { ...request, generationConfig: { candidateCount: 2 } }

/** The chunks as one SSE body, closed after the last one or (`open`) never. */
const sse = (chunks: ReadonlyArray<unknown>, open = false): Scripted => {
  const text = chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join("")
  const bytes = new TextEncoder().encode(text)
  return {
    status: 200,
    headers: { "content-type": "text/event-stream" },
    raw: open
      ? new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(bytes) })
      : new Blob([bytes]).stream()
  }
}

const run = async <A, E>(script: Scripted, f: (g: GatewayService) => Effect.Effect<A, E>) => {
  const fake = makeFake([script])
  const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k", maxRetries: 0 }).pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
  )
  return Effect.runPromiseExit(Effect.provide(Effect.flatMap(Gateway, f), layer))
}
const streamed = (script: Scripted, body: NativeRequest = request) =>
  run(script, (g) => runToFinal(g.native.stream(body), () => Effect.void))
const generated = (answer: unknown) => run({ status: 200, body: answer }, (g) => g.native.generate(request))
const valueOf = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isFailure(exit)) throw new Error(`expected a success, got ${JSON.stringify(exit.cause)}`)
  return exit.value
}

const usage = { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 }
const candidate = (index: number, text: string, finishReason?: string) => ({
  index,
  content: { role: "model", parts: [{ text }] },
  ...(finishReason === undefined ? {} : { finishReason })
})

describe("the native stream", () => {
  it("gives every candidate asked for when one first appears after the others finished", async () => {
    const answer = valueOf(
      await streamed(
        sse([
          { candidates: [candidate(0, "A", "STOP")], usageMetadata: usage },
          { candidates: [candidate(1, "B", "STOP")], usageMetadata: usage }
        ]),
        twoCandidates
      )
    )
    expect(answer.candidates).toEqual([candidate(0, "A", "STOP"), candidate(1, "B", "STOP")])
  })

  it("ends at the chunk that finishes the last candidate asked for, though the server keeps the body open", async () => {
    const answer = valueOf(
      await streamed(
        sse(
          [
            { candidates: [candidate(0, "A", "STOP")] },
            { candidates: [candidate(1, "B")] },
            { candidates: [candidate(1, "b", "MAX_TOKENS")], usageMetadata: usage }
          ],
          true
        ),
        twoCandidates
      )
    )
    expect(answer.candidates?.map((c) => [c.content?.parts, c.finishReason])).toEqual([
      [[{ text: "A" }], "STOP"],
      [[{ text: "Bb" }], "MAX_TOKENS"]
    ])
  })

  it("ends a blocked prompt with the answer generate gives, though the server keeps the body open", async () => {
    const blocked = {
      promptFeedback: { blockReason: "SAFETY", safetyRatings: [] },
      usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
      modelVersion: "zeta-2.5-flash"
    }
    const unary = valueOf(await generated(blocked))
    expect(valueOf(await streamed(sse([blocked])))).toEqual(unary)
    expect(valueOf(await streamed(sse([blocked], true)))).toEqual(unary)
    expect(unary).toEqual(blocked)
  })

  it("keeps a part of a kind umg does not know whole, as generate does", async () => {
    const answer = {
      candidates: [
        {
          index: 0,
          content: {
            role: "model",
            parts: [{ text: "Here", someFlag: 1 }, { someNewPart: { x: 1 } }, { text: "!" }]
          },
          finishReason: "STOP"
        }
      ],
      usageMetadata: usage
    }
    const unary = valueOf(await generated(answer))
    expect(unary).toEqual(answer)
    const chunks = answer.candidates[0]!.content.parts.map((part, i, all) => ({
      candidates: [
        {
          index: 0,
          content: { role: "model", parts: [part] },
          ...(i === all.length - 1 ? { finishReason: "STOP" } : {})
        }
      ],
      usageMetadata: usage
    }))
    expect(valueOf(await streamed(sse(chunks)))).toEqual(unary)
  })
})
