import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

/** The fields of the three list formats the tests read (an answer has those of its format). */
interface ModelListAnswer {
  readonly object?: string
  readonly data?: ReadonlyArray<{ readonly id: string }>
  readonly has_more?: boolean
  readonly first_id?: string
  readonly models?: ReadonlyArray<{ readonly name: string; readonly supportedGenerationMethods?: unknown }>
}

const list = async (headers: Record<string, string>, query = ""): Promise<ModelListAnswer> => {
  const res = await fetch(`${emu.url}/v1/models${query}`, { headers })
  expect(res.status).toBe(200)
  return (await res.json()) as ModelListAnswer
}

describe("GET /v1/models", () => {
  it("answers the OpenAI format with exactly the four record fields by default", async () => {
    const body = await list({ authorization: `Bearer ${emu.apiKey}` })
    expect(body.object).toBe("list")
    for (const m of body.data!) expect(Object.keys(m).sort()).toEqual(["created", "id", "object", "owned_by"])
    const ids = body.data!.map((m) => m.id)
    for (const id of [
      "alpha-2",
      "epsilon-sonnet-4-5-20250929",
      "zeta-2.5-pro",
      "text-embedding-3-large",
      "rerank-v1",
      "gpt-4o-mini-tts",
      "zeta-3-pro-image-preview",
      "gpt-realtime-2",
      "zeta-live-2.5-flash-native-audio",
      "delta-1-5-pro-251215"
    ])
      expect(ids).toContain(id)
  })

  it("answers the messages-style format for x-api-key with anthropic-version", async () => {
    const body = await list({ "x-api-key": emu.apiKey, "anthropic-version": "2023-06-01" })
    expect(body.has_more).toBe(false)
    expect(body.data![0]).toMatchObject({
      type: "model",
      id: body.first_id,
      display_name: expect.any(String),
      created_at: expect.any(String)
    })
  })

  it("answers the native format for x-vendor-api-key or ?key=", async () => {
    const byHeader = await list({ "x-vendor-api-key": emu.apiKey })
    const byQuery = await list({}, `?key=${emu.apiKey}`)
    expect(byHeader.models![0]!.name).toMatch(/^models\//)
    expect(byQuery.models).toEqual(byHeader.models)
    const pro = byHeader.models!.find((m) => m.name === "models/zeta-2.5-pro")!
    expect(pro.supportedGenerationMethods).toContain("generateContent")
  })

  it("lists only the models the restricted key may use", async () => {
    const full = (await list({ authorization: `Bearer ${emu.apiKey}` })).data!.map((m) => m.id)
    const restricted = (await list({ authorization: `Bearer ${emu.restrictedKey!}` })).data!.map((m) => m.id)
    expect(restricted.length).toBeLessThan(full.length)
    for (const hidden of ["alpha-2", "delta-1-0-lite-t2v-250428", "delta-1-0-lite-i2v-250428"]) {
      expect(full).toContain(hidden)
      expect(restricted).not.toContain(hidden)
    }
    expect(restricted).toContain("beta-3.1-fast-generate-001")
  })
})
