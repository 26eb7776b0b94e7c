import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import { DecodeError, IncompleteStream } from "../../src/core/errors/GatewayError.js"
import {
  accumulateNative,
  finishNative,
  initialNativeSnapshot,
  isNativeComplete,
  type NativeSnapshot,
  stepNative
} from "../../src/core/text/native/NativeAccumulator.js"
import {
  decodeGenerateContentResponse,
  decodeNativeChunk,
  decodeNativeChunkEither,
  type NativeChunk,
  nativeText
} from "../../src/core/text/native/NativeResponse.js"
import { nativeStream, record, toRecords } from "../fixtures/TextStreams.js"

const chunks = (): Array<NativeChunk> =>
  toRecords(nativeStream).map((r) => Result.getOrThrow(decodeNativeChunkEither(r)))
const text = (t: string, extra: Partial<Record<string, unknown>> = {}): NativeChunk => ({
  candidates: [{ content: { role: "model", parts: [{ text: t, ...extra }] }, index: 0 }]
})
const finish: NativeChunk = { candidates: [{ content: { role: "model" }, finishReason: "STOP", index: 0 }] }

const failure = (list: ReadonlyArray<NativeChunk>): IncompleteStream => {
  const result = accumulateNative(list)
  if (Result.isSuccess(result)) throw new Error("expected an IncompleteStream")
  return result.failure
}

describe("NativeResponse", () => {
  it("decodes a unary response with usage, createTime and an inlineData part, ignoring unknown fields", () => {
    const response = Result.getOrThrow(
      decodeGenerateContentResponse({
        candidates: [
          {
            content: {
              role: "model",
              parts: [{ text: "Here:" }, { inlineData: { mimeType: "image/png", data: "iVBO" } }]
            },
            finishReason: "STOP",
            index: 0,
            safetyRatings: [{ category: "HARM_CATEGORY_HATE_SPEECH", probability: "NEGLIGIBLE" }]
          }
        ],
        usageMetadata: {
          promptTokenCount: 3,
          candidatesTokenCount: 5,
          totalTokenCount: 8,
          thoughtsTokenCount: 0,
          cachedContentTokenCount: 0
        },
        modelVersion: "zeta-2.5-flash-image",
        createTime: "2026-11-21T08:00:00Z",
        turnToken: "v1:x"
      })
    )
    expect(response.candidates?.[0]?.content?.parts?.[1]).toEqual({
      inlineData: { mimeType: "image/png", data: "iVBO" }
    })
    expect(response.createTime).toBe("2026-11-21T08:00:00Z")
    expect("turnToken" in response).toBe(false)
    expect(nativeText(response)).toBe("Here:")
  })

  it("keeps a part of a kind it does not know, and unknown fields beside known ones, whole", () => {
    const parts = [{ someNewPart: { x: 1 } }, { text: "t", someFlag: [1, { y: "z" }] }]
    const response = Result.getOrThrow(decodeGenerateContentResponse({ candidates: [{ content: { parts } }] }))
    expect(response.candidates?.[0]?.content?.parts).toEqual(parts)
    const chunk = Result.getOrThrow(decodeNativeChunkEither(record({ candidates: [{ content: { parts } }] })))
    expect(chunk.candidates?.[0]?.content?.parts).toEqual(parts)
  })

  it("drops __proto__ and constructor keys from the unknown fields of a part", () => {
    const text = '{"candidates":[{"content":{"parts":[{"someNewPart":{"__proto__":{"p":1},"x":1},"constructor":2}]}}]}'
    const response = Result.getOrThrow(decodeGenerateContentResponse(JSON.parse(text)))
    const part = response.candidates?.[0]?.content?.parts?.[0] as Record<string, unknown>
    expect(Object.keys(part)).toEqual(["someNewPart"])
    expect(Object.getOwnPropertyNames(part["someNewPart"])).toEqual(["x"])
    expect(Object.getPrototypeOf(part["someNewPart"])).toBe(Object.prototype)
  })

  it("fails with a DecodeError of family native on a malformed chunk", async () => {
    const error = await Effect.runPromise(
      Effect.flip(decodeNativeChunk(record({ candidates: [{ content: { parts: [{ text: 1 }] } }] })))
    )
    expect(error).toBeInstanceOf(DecodeError)
    expect(error.family).toBe("native")
  })
})

describe("NativeAccumulator", () => {
  it("folds the example stream: thoughts and text joined by kind, the function call kept, the latest usage", () => {
    const response = Result.getOrThrow(accumulateNative(chunks()))
    expect(response).toEqual({
      candidates: [
        {
          index: 0,
          content: {
            role: "model",
            parts: [
              { text: "Thinking about weather.", thought: true },
              { text: "It is sunny.", thoughtSignature: "c2ln" },
              { functionCall: { name: "log", args: { city: "Paris" } } }
            ]
          },
          finishReason: "STOP",
          safetyRatings: []
        }
      ],
      usageMetadata: {
        promptTokenCount: 8,
        candidatesTokenCount: 6,
        thoughtsTokenCount: 4,
        cachedContentTokenCount: 0,
        totalTokenCount: 18
      },
      modelVersion: "zeta-2.5-flash",
      responseId: "r1",
      createTime: "2026-11-21T08:00:00Z"
    })
  })

  it("keeps two signed text parts apart", () => {
    const response = Result.getOrThrow(
      accumulateNative([text("a", { thoughtSignature: "s1" }), text("b", { thoughtSignature: "s2" }), finish])
    )
    expect(response.candidates?.[0]?.content?.parts).toEqual([
      { text: "a", thoughtSignature: "s1" },
      { text: "b", thoughtSignature: "s2" }
    ])
  })

  it("merges candidates by index", () => {
    const response = Result.getOrThrow(
      accumulateNative([
        {
          candidates: [
            { content: { parts: [{ text: "x" }] }, index: 0 },
            { content: { parts: [{ text: "y" }] }, index: 1 }
          ]
        },
        { candidates: [{ content: { parts: [{ text: "Y" }] }, index: 1, finishReason: "STOP" }] },
        { candidates: [{ content: { parts: [{ text: "X" }] }, index: 0, finishReason: "MAX_TOKENS" }] }
      ])
    )
    expect(response.candidates?.map((c) => [c.index, c.content?.parts, c.finishReason])).toEqual([
      [0, [{ text: "xX" }], "MAX_TOKENS"],
      [1, [{ text: "yY" }], "STOP"]
    ])
  })

  it("never mutates the previous snapshot", () => {
    const before = Result.getOrThrow(stepNative(initialNativeSnapshot, text("a")))
    const copy = structuredClone(before)
    Result.getOrThrow(stepNative(before, text("b")))
    expect(before).toEqual(copy)
  })

  it("turns a chunk with a top-level error into error-event with the partial snapshot", () => {
    const error = failure([text("par"), { error: { code: 503, status: "UNAVAILABLE", message: "overloaded" } }])
    expect(error.reason).toBe("error-event")
    expect(error.errorType).toBe("UNAVAILABLE")
    expect(error.family).toBe("native")
    expect((error.partial as NativeSnapshot).candidates?.[0]?.content?.parts).toEqual([{ text: "par" }])
  })

  it("ends a blocked prompt as its unary answer: the promptFeedback and usage, no candidate", () => {
    const blocked = {
      promptFeedback: { blockReason: "SAFETY", safetyRatings: [] },
      usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
      modelVersion: "zeta-2.5-flash"
    }
    const unary = Result.getOrThrow(decodeGenerateContentResponse(blocked))
    const chunk = Result.getOrThrow(decodeNativeChunkEither(record(blocked)))
    expect(Result.getOrThrow(accumulateNative([chunk]))).toEqual(unary)
  })

  it("keeps a part it does not know whole, and does not join a text part carrying an unknown field", () => {
    const response = Result.getOrThrow(
      accumulateNative([
        text("a"),
        { candidates: [{ content: { parts: [{ someNewPart: { x: 1 } }] }, index: 0 }] },
        text("b", { someFlag: true }),
        text("c"),
        finish
      ])
    )
    expect(response.candidates?.[0]?.content?.parts).toEqual([
      { text: "a" },
      { someNewPart: { x: 1 } },
      { text: "b", someFlag: true },
      { text: "c" }
    ])
  })

  it("is complete only once the candidates asked for have all finished", () => {
    const first = Result.getOrThrow(
      accumulateNative([{ candidates: [{ content: { parts: [{ text: "A" }] }, index: 0, finishReason: "STOP" }] }])
    )
    expect([isNativeComplete(first), isNativeComplete(first, 2)]).toEqual([true, false])
    const both = Result.getOrThrow(
      stepNative(first, { candidates: [{ content: { parts: [{ text: "B" }] }, index: 1, finishReason: "STOP" }] })
    )
    expect(isNativeComplete(both, 2)).toBe(true)
    expect(isNativeComplete(initialNativeSnapshot)).toBe(false)
    expect(isNativeComplete({ promptFeedback: { blockReason: "OTHER" } }, 2)).toBe(true)
    expect(isNativeComplete({ promptFeedback: { safetyRatings: [] } })).toBe(false)
  })

  it("fails ended-early when the stream ends without a finishReason", () => {
    const partial = Result.getOrThrow(stepNative(initialNativeSnapshot, text("cut")))
    const result = finishNative(partial)
    expect(Result.isFailure(result) && result.failure.reason).toBe("ended-early")
    expect(Result.isFailure(result) && result.failure.partial).toBe(partial)
    expect(failure([]).reason).toBe("ended-early")
  })

  it("fails out-of-order on new parts after a candidate finished, but accepts a trailing usage chunk", () => {
    expect(failure([text("a"), finish, text("b")]).reason).toBe("out-of-order")
    const response = Result.getOrThrow(accumulateNative([text("a"), finish, { usageMetadata: { totalTokenCount: 9 } }]))
    expect(response.usageMetadata).toEqual({ totalTokenCount: 9 })
  })

  it("returns an IncompleteStream instance", () => {
    expect(failure([text("a")])).toBeInstanceOf(IncompleteStream)
  })
})
