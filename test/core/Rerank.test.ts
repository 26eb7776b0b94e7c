import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { buildRerankBody, decodeRerank } from "../../src/core/media/Rerank.js"

const base = { model: "rerank-v1", query: "capital of France", documents: ["Paris is the capital.", "Berlin is big."] }
const bad = (input: unknown) => Effect.flip(buildRerankBody(input))

describe("buildRerankBody", () => {
  it.effect("builds the minimal body and keeps top_n, return_documents and unknown fields", () =>
    Effect.gen(function* () {
      expect(yield* buildRerankBody(base)).toEqual(base)
      const full = yield* buildRerankBody({ ...base, top_n: 2, return_documents: true, max_chunks_per_doc: 3 })
      expect(full).toEqual({ ...base, top_n: 2, return_documents: true, max_chunks_per_doc: 3 })
    })
  )

  it.effect("accepts documents as objects with text", () =>
    Effect.gen(function* () {
      const body = yield* buildRerankBody({ ...base, documents: [{ text: "a", id: "d1" }, "b"] })
      expect(body.documents).toEqual([{ text: "a", id: "d1" }, "b"])
    })
  )

  it.effect("refuses missing or empty documents and documents of other kinds", () =>
    Effect.gen(function* () {
      expect(yield* bad({ model: "rerank-v1", query: "q" })).toMatchObject({ field: "documents", rule: "required" })
      expect(yield* bad({ ...base, documents: [] })).toMatchObject({ field: "documents", rule: "non-empty" })
      expect(yield* bad({ ...base, documents: "one" })).toMatchObject({ field: "documents", rule: "type" })
      expect(yield* bad({ ...base, documents: ["a", 3] })).toMatchObject({ field: "documents[1]", rule: "type" })
      expect(yield* bad({ ...base, documents: [{ title: "no text" }] })).toMatchObject({
        field: "documents[0].text",
        rule: "required"
      })
      expect((yield* bad({ ...base, documents: ["a", 3] })).message).toBe(
        "documents[1]: expected a string or an object with text, got 3"
      )
    })
  )

  it.effect("requires model and a non-empty query", () =>
    Effect.gen(function* () {
      expect(yield* bad({ ...base, model: undefined })).toMatchObject({ field: "model", rule: "required" })
      expect(yield* bad({ ...base, query: "  " })).toMatchObject({ field: "query", rule: "non-empty" })
    })
  )

  it.effect("takes top_n as an integer of at least 1, with no upper bound (E13: default all)", () =>
    Effect.gen(function* () {
      expect((yield* buildRerankBody({ ...base, top_n: 1 })).top_n).toBe(1)
      // A fixed top_n with however many documents retrieval found: more than the documents keeps them all.
      expect((yield* buildRerankBody({ ...base, top_n: 5 })).top_n).toBe(5)
      const zero = yield* bad({ ...base, top_n: 0 })
      expect(zero).toMatchObject({ field: "top_n", rule: "range" })
      expect(zero.message).toBe("top_n: 0 is out of range; allowed: at least 1")
      expect(yield* bad({ ...base, top_n: 1.5 })).toMatchObject({ field: "top_n", rule: "type" })
    })
  )

  it.effect("requires return_documents to be a boolean", () =>
    Effect.gen(function* () {
      expect(yield* bad({ ...base, return_documents: "yes" })).toMatchObject({
        field: "return_documents",
        rule: "type"
      })
    })
  )
})

describe("decodeRerank", () => {
  const response = {
    model: "rerank-v1",
    results: [
      { index: 0, relevance_score: 0.98, document: "Paris is the capital." },
      { index: 1, relevance_score: 0.02 }
    ],
    usage: { total_tokens: 12 }
  }

  it.effect("decodes results with their index, score and optional document", () =>
    Effect.gen(function* () {
      const decoded = yield* decodeRerank(response, ["Paris is the capital.", "Berlin is big."])
      expect(decoded.results[0]).toEqual({ index: 0, relevance_score: 0.98, document: "Paris is the capital." })
      expect(decoded.usage?.total_tokens).toBe(12)
    })
  )

  it.effect("fails when an index is outside the documents sent or repeated", () =>
    Effect.gen(function* () {
      const outside = yield* Effect.flip(decodeRerank(response, 1))
      expect(outside).toMatchObject({ _tag: "DecodeError", what: "rerank response" })
      expect(outside.message).toContain("results[1].index")
      const twice = {
        results: [
          { index: 0, relevance_score: 0.5 },
          { index: 0, relevance_score: 0.4 }
        ]
      }
      expect((yield* Effect.flip(decodeRerank(twice, 2))).message).toContain("twice")
    })
  )

  it.effect("fails when a relevance score is outside 0..1", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(decodeRerank({ results: [{ index: 0, relevance_score: 1.5 }] }, 1))
      expect(e._tag).toBe("DecodeError")
    })
  )
})
