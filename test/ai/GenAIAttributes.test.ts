/**
 * umg/ai's GenAI span attributes, written with fixed snake_case keys (`annotateRequest`,
 * `annotateResponse`), against what effect/ai's `addGenAIAnnotations` writes for the same request and
 * answer: the same names, values and order, absent values left out alike.
 */
import { Effect } from "effect"
import { addGenAIAnnotations } from "effect/ai/Telemetry"
import type { Span } from "effect/Tracer"
import { describe, expect, it } from "vitest"
import { annotateRequest, annotateResponse } from "../../src/ai/LanguageModelHooks.js"
import type { AnswerEnd } from "../../src/ai/text/TextAnswer.js"
import type { TextRequest } from "../../src/ai/text/TextRequest.js"

/** The attributes `write` sets on a fresh span, in the order they were set. */
const attributesOf = (write: (span: Span) => void): Array<[string, unknown]> =>
  Effect.runSync(
    Effect.withSpan(
      Effect.map(Effect.currentSpan, (span) => {
        write(span)
        return [...span.attributes.entries()]
      }),
      "sample"
    )
  )

const request = (fields: Partial<TextRequest>): TextRequest => ({ model: "m", messages: [], tools: [], ...fields })

const requestSamples: ReadonlyArray<TextRequest> = [
  request({ model: "claude-sonnet-4-5" }),
  request({
    model: "gpt-4.1",
    temperature: 0.7,
    topP: 0.9,
    topK: 40,
    maxOutputTokens: 1_024,
    stopSequences: ["END", "STOP"]
  }),
  // Zero and empty are values, not absent.
  request({ model: "gemini-2.5-flash", temperature: 0, topK: 0, maxOutputTokens: 0, stopSequences: [] }),
  request({ model: "x", topP: undefined, stopSequences: undefined })
]

const end = (fields: Partial<AnswerEnd>): AnswerEnd => ({
  finish: { unified: "stop", raw: "end_turn" },
  usage: {
    inputTokens: 12,
    inputNoCache: 12,
    cacheRead: undefined,
    cacheWrite: undefined,
    outputTokens: 34,
    reasoningTokens: undefined,
    raw: {}
  },
  id: "msg_1",
  modelId: "claude-sonnet-4-5",
  timestamp: undefined,
  ...fields
})

const endSamples: ReadonlyArray<AnswerEnd> = [
  end({}),
  end({ finish: { unified: "other", raw: undefined }, id: undefined, modelId: undefined }),
  end({
    usage: {
      inputTokens: undefined,
      inputNoCache: undefined,
      cacheRead: undefined,
      cacheWrite: undefined,
      outputTokens: 0,
      reasoningTokens: undefined,
      raw: undefined
    }
  })
]

describe("GenAI span attributes", () => {
  it.each(requestSamples.map((r, i) => [i, r] as const))(
    "request sample %i: the attributes addGenAIAnnotations writes",
    (_i, r) => {
      const mine = attributesOf((span) => annotateRequest(span, r))
      const theirs = attributesOf((span) =>
        addGenAIAnnotations(span, {
          provider: { name: "umg" },
          operation: { name: "chat" },
          request: {
            model: r.model,
            temperature: r.temperature,
            topP: r.topP,
            topK: r.topK,
            maxTokens: r.maxOutputTokens,
            stopSequences: r.stopSequences
          }
        })
      )
      expect(mine).toEqual(theirs)
      expect(mine.map(([k]) => k)).toContain("gen_ai.request.model")
    }
  )

  it.each(endSamples.map((e, i) => [i, e] as const))(
    "answer sample %i: the attributes addGenAIAnnotations writes",
    (_i, e) => {
      const mine = attributesOf((span) => annotateResponse(span, e))
      const theirs = attributesOf((span) =>
        addGenAIAnnotations(span, {
          response: { id: e.id, model: e.modelId, finishReasons: e.finish.raw === undefined ? [] : [e.finish.raw] },
          usage: { inputTokens: e.usage.inputTokens, outputTokens: e.usage.outputTokens }
        })
      )
      expect(mine).toEqual(theirs)
    }
  )
})
