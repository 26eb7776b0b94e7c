import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { relevance } from "../../src/emulator/media/Rerank.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const rerank = (body: unknown): Promise<Response> =>
  fetch(`${emu.url}/v1/rerank`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
type Result = {
  model: string
  results: Array<{ index: number; relevance_score: number; document?: string }>
  usage: { total_tokens: number }
}

const documents = [
  "The weather in Paris is rainy.",
  "Bananas are yellow.",
  "Paris is the capital of France.",
  "France exports wine."
]

describe("POST /v1/rerank", () => {
  it("ranks documents by their overlap with the query, scores within 0-1", async () => {
    const r = (await (await rerank({ model: "rerank-v1", query: "capital of France", documents })).json()) as Result
    expect(r.results.map((x) => x.index)).toEqual([2, 3, 0, 1])
    for (const x of r.results) expect(x.relevance_score).toBeGreaterThanOrEqual(0)
    for (const x of r.results) expect(x.relevance_score).toBeLessThanOrEqual(1)
    expect(r.results[0]!.relevance_score).toBeGreaterThan(r.results[1]!.relevance_score)
    expect(r.results.every((x) => x.document === undefined)).toBe(true)
    expect(r.usage.total_tokens).toBeGreaterThan(0)
  })

  it("keeps top_n results and returns documents when asked", async () => {
    const r = (await (
      await rerank({ model: "rerank-v1", query: "Paris", documents, top_n: 2, return_documents: true })
    ).json()) as Result
    expect(r.results).toHaveLength(2)
    expect(r.results.map((x) => x.document)).toEqual([documents[r.results[0]!.index], documents[r.results[1]!.index]])
  })

  it("gives a document with every query word the top score and one with none zero", () => {
    expect(relevance("red apple", "red apple")).toBe(1)
    expect(relevance("red apple", "green pear")).toBe(0)
  })

  it("answers a top_n above the number of documents with every document, ranked (E13 sets no bound)", async () => {
    const res = await rerank({ model: "rerank-v1", query: "capital of France", documents, top_n: 10 })
    expect(res.status).toBe(200)
    expect(((await res.json()) as Result).results.map((x) => x.index)).toEqual([2, 3, 0, 1])
  })

  it("answers a model its catalogue does not hold as a rerank model with 404 model_not_found", async () => {
    for (const model of ["rerank-does-not-exist", "rerank-v2", "text-embedding-3-small"]) {
      const res = await rerank({ model, query: "x", documents })
      expect(res.status).toBe(404)
      expect(await res.json()).toMatchObject({ error: { param: "model", code: "model_not_found" } })
    }
  })

  it("answers missing query, missing documents and a bad top_n (0, 1.5) with 400", async () => {
    for (const body of [
      { model: "rerank-v1", documents },
      { model: "rerank-v1", query: "x" },
      { model: "rerank-v1", query: "x", documents, top_n: 0 },
      { model: "rerank-v1", query: "x", documents, top_n: 1.5 }
    ]) {
      const res = await rerank(body)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error" } })
    }
  })
})
