import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const embed = (body: unknown): Promise<Response> =>
  fetch(`${emu.url}/v1/embeddings`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })

type Result = {
  object: string
  model: string
  data: Array<{ object: string; index: number; embedding: Array<number> | string }>
  usage: { prompt_tokens: number; total_tokens: number }
}
const vector = async (body: unknown): Promise<Array<number>> => {
  const res = await embed(body)
  expect(res.status).toBe(200)
  return ((await res.json()) as Result).data[0]!.embedding as Array<number>
}
const norm = (v: ReadonlyArray<number>): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0))

describe("POST /v1/embeddings", () => {
  it("answers the dimensions of each model", async () => {
    expect(await vector({ model: "text-embedding-3-small", input: "hello" })).toHaveLength(1536)
    expect(await vector({ model: "text-embedding-3-large", input: "hello" })).toHaveLength(3072)
    expect(await vector({ model: "text-embedding-ada-002", input: "hello" })).toHaveLength(1536)
  })

  it("answers deterministic unit-length vectors that differ by input", async () => {
    const a = await vector({ model: "text-embedding-3-small", input: "hello" })
    const b = await vector({ model: "text-embedding-3-small", input: "hello" })
    const c = await vector({ model: "text-embedding-3-small", input: "goodbye" })
    expect(a).toEqual(b)
    expect(a).not.toEqual(c)
    expect(norm(a)).toBeCloseTo(1, 5)
  })

  it("honours dimensions on the -3 models and refuses it on ada-002", async () => {
    const short = await vector({ model: "text-embedding-3-large", input: "hello", dimensions: 256 })
    expect(short).toHaveLength(256)
    expect(norm(short)).toBeCloseTo(1, 5)
    const res = await embed({ model: "text-embedding-ada-002", input: "hello", dimensions: 256 })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { param: "dimensions" } })
  })

  it("encodes base64 as little-endian float32 of the same vector", async () => {
    const floats = await vector({ model: "text-embedding-3-small", input: "hello" })
    const res = (await (
      await embed({ model: "text-embedding-3-small", input: "hello", encoding_format: "base64" })
    ).json()) as Result
    const bytes = Buffer.from(res.data[0]!.embedding as string, "base64")
    expect(bytes.length).toBe(1536 * 4)
    const decoded = Array.from({ length: 1536 }, (_, i) => bytes.readFloatLE(i * 4))
    expect(decoded).toEqual(floats)
    expect(res).toMatchObject({
      object: "list",
      model: "text-embedding-3-small",
      data: [{ object: "embedding", index: 0 }]
    })
  })

  it("answers an array input with 400 because the gateway takes one text per request", async () => {
    const res = await embed({ model: "text-embedding-3-small", input: ["a", "b"] })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param: "input" } })
  })

  it("answers a missing input, a bad encoding_format and an unknown model with errors", async () => {
    expect((await embed({ model: "text-embedding-3-small" })).status).toBe(400)
    expect((await embed({ model: "text-embedding-3-small", input: "x", encoding_format: "int8" })).status).toBe(400)
    const unknown = await embed({ model: "embed-nothing", input: "x" })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: { code: "model_not_found" } })
  })
})
