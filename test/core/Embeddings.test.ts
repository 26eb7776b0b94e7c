import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Base64 from "../../src/core/wire/Base64.js"
import { extendRouteCatalog } from "../../src/core/gateway/Catalog.js"
import {
  buildEmbeddingsBody,
  decodeEmbeddings,
  embeddingModels,
  encodeEmbeddingBase64
} from "../../src/core/media/Embeddings.js"

const ok = (input: unknown) => buildEmbeddingsBody(input)
const bad = (input: unknown) => Effect.flip(buildEmbeddingsBody(input))

describe("buildEmbeddingsBody", () => {
  it.effect("builds the minimal body and leaves encoding_format to the gateway's default", () =>
    Effect.gen(function* () {
      const body = yield* ok({ model: "text-embedding-3-small", input: "hello" })
      expect(body).toEqual({ model: "text-embedding-3-small", input: "hello" })
      expect("encoding_format" in body).toBe(false)
    })
  )

  it.effect("keeps an explicit float or base64 encoding and refuses any other, naming the allowed ones", () =>
    Effect.gen(function* () {
      expect(
        (yield* ok({ model: "text-embedding-3-small", input: "x", encoding_format: "base64" })).encoding_format
      ).toBe("base64")
      expect(
        (yield* ok({ model: "text-embedding-3-small", input: "x", encoding_format: "float" })).encoding_format
      ).toBe("float")
      const e = yield* bad({ model: "text-embedding-3-small", input: "x", encoding_format: "int8" })
      expect(e).toMatchObject({ field: "encoding_format", rule: "one-of" })
      expect(e.message).toContain('"int8"')
      expect(e.message).toContain("float, base64")
    })
  )

  it.effect("refuses an array input and points to embedMany", () =>
    Effect.gen(function* () {
      const e = yield* bad({ model: "text-embedding-3-small", input: ["a", "b"] })
      expect(e).toMatchObject({ field: "input", rule: "one-text" })
      expect(e.message).toContain("embedMany")
    })
  )

  it.effect("requires model and a non-empty string input", () =>
    Effect.gen(function* () {
      expect(yield* bad({ input: "x" })).toMatchObject({ field: "model", rule: "required" })
      expect(yield* bad({ model: "text-embedding-3-small" })).toMatchObject({ field: "input", rule: "required" })
      expect(yield* bad({ model: "text-embedding-3-small", input: "" })).toMatchObject({ field: "input" })
      expect(yield* bad({ model: "text-embedding-3-small", input: 5 })).toMatchObject({ field: "input", rule: "type" })
      expect(yield* bad("text")).toMatchObject({ rule: "type" })
    })
  )

  it.effect("accepts dimensions from 1 to the native size on models that support it", () =>
    Effect.gen(function* () {
      expect((yield* ok({ model: "text-embedding-3-small", input: "x", dimensions: 1536 })).dimensions).toBe(1536)
      expect((yield* ok({ model: "text-embedding-3-large", input: "x", dimensions: 3072 })).dimensions).toBe(3072)
      expect((yield* ok({ model: "text-embedding-3-large", input: "x", dimensions: 1 })).dimensions).toBe(1)
      const tooBig = yield* bad({ model: "text-embedding-3-small", input: "x", dimensions: 1537 })
      expect(tooBig).toMatchObject({ field: "dimensions", rule: "range" })
      expect(tooBig.message).toContain("1 to 1536")
      expect(yield* bad({ model: "text-embedding-3-small", input: "x", dimensions: 0 })).toMatchObject({
        rule: "range"
      })
      expect(yield* bad({ model: "text-embedding-3-small", input: "x", dimensions: 12.5 })).toMatchObject({
        rule: "type"
      })
    })
  )

  it.effect("refuses dimensions on a model with a fixed size", () =>
    Effect.gen(function* () {
      const e = yield* bad({ model: "text-embedding-ada-002", input: "x", dimensions: 512 })
      expect(e).toMatchObject({ field: "dimensions", rule: "not-supported" })
      expect(e.message).toContain("1536")
    })
  )

  it.effect("lets an unknown model carry any positive dimensions, and a user's catalog entry bound them", () =>
    Effect.gen(function* () {
      const unknown = { allowUnknownModels: true }
      expect(
        (yield* buildEmbeddingsBody({ model: "my-new-embed", input: "x", dimensions: 9999 }, unknown)).dimensions
      ).toBe(9999)
      const catalog = extendRouteCatalog([
        {
          match: { exact: "my-embed" },
          capabilities: ["embeddings"],
          embedding: { nativeDimensions: 256, supportsDimensions: true }
        }
      ])
      expect(
        (yield* buildEmbeddingsBody({ model: "my-embed", input: "x", dimensions: 256 }, { catalog })).dimensions
      ).toBe(256)
      const e = yield* Effect.flip(buildEmbeddingsBody({ model: "my-embed", input: "x", dimensions: 257 }, { catalog }))
      expect(e).toMatchObject({ rule: "range" })
      expect(yield* bad({ model: "my-embed", input: "x" })).toMatchObject({ rule: "unknown-model" })
      expect(embeddingModels["zeta-embedding-001"]).toEqual({ nativeDimensions: 3072, supportsDimensions: true })
      expect((yield* ok({ model: "zeta-embedding-001", input: "x", dimensions: 3072 })).dimensions).toBe(3072)
    })
  )

  it.effect("refuses unknown fields (a __proto__ key too), carries extra, and refuses another family's model", () =>
    Effect.gen(function* () {
      const input = JSON.parse(
        '{"model":"text-embedding-3-small","input":"x","user":"u1","__proto__":{"polluted":true}}'
      )
      expect(yield* bad(input)).toMatchObject({ field: "__proto__", rule: "unknown-field" })
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      const typo = yield* bad({ model: "text-embedding-3-small", input: "x", dimension: 8 })
      expect(typo.message).toContain("unknown field `dimension`; did you mean `dimensions`?")
      const body = yield* ok({ model: "text-embedding-3-small", input: "x", user: "u1", extra: { truncate: "END" } })
      expect(body).toEqual({ model: "text-embedding-3-small", input: "x", user: "u1", truncate: "END" })
      const other = yield* bad({ model: "epsilon-opus-4-5-20251101", input: "x" })
      expect(other).toMatchObject({ field: "model", rule: "route" })
      expect(other.message).toContain("is an epsilon (messages-style) model, served by messages (POST /v1/messages)")
    })
  )
})

describe("decodeEmbeddings", () => {
  const response = (embedding: unknown, index = 0) => ({
    object: "list",
    data: [{ object: "embedding", index, embedding }],
    model: "text-embedding-3-small",
    usage: { prompt_tokens: 2, total_tokens: 2 }
  })

  it.effect("turns float arrays into Float32Arrays", () =>
    Effect.gen(function* () {
      const decoded = yield* decodeEmbeddings(response([0.5, -1, 0.25]))
      expect(decoded.data[0]!.embedding).toEqual(new Float32Array([0.5, -1, 0.25]))
      expect(decoded.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 })
      expect(decoded.model).toBe("text-embedding-3-small")
    })
  )

  it.effect("decodes base64 as little-endian float32", () =>
    Effect.gen(function* () {
      // 1.0f little-endian is 00 00 80 3f; -2.0f is 00 00 00 c0.
      const b64 = Base64.encode(new Uint8Array([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0]))
      const decoded = yield* decodeEmbeddings(response(b64))
      expect(Array.from(decoded.data[0]!.embedding)).toEqual([1, -2])
      expect(encodeEmbeddingBase64([1, -2])).toBe(b64)
    })
  )

  it.effect("fails when the base64 byte count is not a multiple of 4", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(decodeEmbeddings(response(Base64.encode(new Uint8Array([1, 2, 3])))))
      expect(e._tag).toBe("DecodeError")
      expect(e.message).toContain("multiple of 4")
    })
  )

  it.effect("fails on base64 that is not strict (whitespace, bad characters)", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(decodeEmbeddings(response("AACAPw==\n")))).message).toContain("data[0].embedding")
      expect((yield* Effect.flip(decodeEmbeddings(response("AAC*Pw==")))).message).toContain("invalid base64")
    })
  )

  it.effect("fails with a DecodeError on the wrong shape, and sorts items by index", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(decodeEmbeddings({ object: "list", data: "nope" }))
      expect(e).toMatchObject({ _tag: "DecodeError", family: "openai", what: "embeddings response" })
      const two = {
        object: "list",
        model: "text-embedding-3-small",
        data: [
          { object: "embedding", index: 1, embedding: [2] },
          { object: "embedding", index: 0, embedding: [1] }
        ]
      }
      const decoded = yield* decodeEmbeddings(two)
      expect(decoded.data.map((d) => d.index)).toEqual([0, 1])
    })
  )
})
