import { lastValueFrom, of, toArray } from "rxjs"
import { describe, expect, it } from "vitest"
import type { DecodedEmbeddings, EmbeddingsBody } from "../../src/core/media/Embeddings.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { embedMany$ } from "../../src/streams/embedMany.js"

const fake = (sent: Array<EmbeddingsBody>) => (body: EmbeddingsBody) => {
  sent.push(body)
  const answer: DecodedEmbeddings = { model: body.model, data: [{ index: 0, embedding: new Float32Array([body.input.length]) }] }
  return of(answer)
}

describe("embedMany$", () => {
  it("emits one vector per input with its index, one request per text", async () => {
    const sent: Array<EmbeddingsBody> = []
    const events = await lastValueFrom(embedMany$(fake(sent), ["a", "bb", "ccc"], { model: "text-embedding-3-small", concurrency: 2 }).pipe(toArray()))
    expect(events.map((e) => (e.type === "result" ? [e.index, e.result[0], e.done, e.total] : e.type))).toEqual([
      [0, 1, 1, 3],
      [1, 2, 2, 3],
      [2, 3, 3, 3]
    ])
    expect(sent.map((b) => b.input)).toEqual(["a", "bb", "ccc"])
  })

  it("validates every input before the first request", async () => {
    const sent: Array<EmbeddingsBody> = []
    const inputs = ["fine", "fine too", ["not", "a", "string"] as unknown as string]
    const error = await lastValueFrom(embedMany$(fake(sent), inputs, { model: "text-embedding-3-small", concurrency: 2 })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidRequest)
    expect(sent).toEqual([])
  })
})
