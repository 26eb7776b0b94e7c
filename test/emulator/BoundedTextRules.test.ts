// The emulator answers 400 where the client refuses, for four text fields: a budget suffix on a
// 3-class zeta model (a thinkingBudget alone is taken, notes §2.6), temperature and top_p of a
// responses body, a messages-style cache_control.ttl other than 5m or 1h, and a native function
// declaration's name outside upstream's form.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const post = async (path: string, body: unknown): Promise<{ status: number; json: unknown }> => {
  const res = await fetch(emu.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: res.status, json: await res.json() }
}
const contents = [{ role: "user", parts: [{ text: "hi" }] }]
const generate = (model: string, body: unknown) => post(`/v1beta/models/${model}:generateContent`, body)

describe("native thinking on the 3 class", () => {
  it("takes a thinkingBudget alone, and refuses it beside a thinkingLevel", async () => {
    for (const thinkingBudget of [-1, 0, 1024])
      expect(
        (await generate("zeta-3-pro-preview", { contents, generationConfig: { thinkingConfig: { thinkingBudget } } }))
          .status
      ).toBe(200)
    const both = { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: "LOW" } }
    expect((await generate("zeta-3-pro-preview", { contents, generationConfig: both })).status).toBe(400)
  })

  it("refuses a budget suffix on the 3 class (budget suffixes are for the 2.5 class)", async () => {
    const { status, json } = await generate("zeta-3-pro-preview-thinking-8192", { contents })
    expect(status).toBe(400)
    expect(json).toMatchObject({ error: { status: "INVALID_ARGUMENT", message: expect.stringContaining("2.5 class") } })
  })
})

describe("responses temperature and top_p", () => {
  const base = { model: "gpt-5", input: "hi", max_output_tokens: 64 }
  it("takes them within 0 to 2 and 0 to 1", async () => {
    expect((await post("/v1/responses", { ...base, temperature: 2, top_p: 1 })).status).toBe(200)
    expect((await post("/v1/responses", { ...base, temperature: 0, top_p: 0 })).status).toBe(200)
  })
  for (const [field, value] of [
    ["temperature", 2.1],
    ["temperature", -0.1],
    ["temperature", "1"],
    ["top_p", 1.5],
    ["top_p", -1]
  ] as const)
    it(`answers ${field}: ${JSON.stringify(value)} with 400 naming the field`, async () => {
      const { status, json } = await post("/v1/responses", { ...base, [field]: value })
      expect(status).toBe(400)
      expect(json).toMatchObject({ error: { param: field, message: expect.stringContaining(field) } })
    })
})

describe("messages-style cache_control.ttl", () => {
  const body = (cache_control: unknown) => ({
    model: "epsilon-sonnet-4-5-20250929",
    max_tokens: 64,
    messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control }] }]
  })
  it("takes 5m and 1h", async () => {
    for (const ttl of ["5m", "1h"])
      expect((await post("/v1/messages", body({ type: "ephemeral", ttl }))).status).toBe(200)
  })
  it("refuses another ttl, naming the field and the allowed values", async () => {
    const { status, json } = await post("/v1/messages", body({ type: "ephemeral", ttl: "10m" }))
    expect(status).toBe(400)
    expect(json).toMatchObject({ error: { message: expect.stringMatching(/cache_control\.ttl.*5m.*1h/) } })
    const counted = await post("/v1/messages/count_tokens", {
      model: "epsilon-sonnet-4-5-20250929",
      messages: [{ role: "user", content: "hi" }],
      cache_control: { type: "ephemeral", ttl: "2h" }
    })
    expect(counted.status).toBe(400)
  })
})

describe("native function declaration names", () => {
  const tools = (name: string) => ({ contents, tools: [{ functionDeclarations: [{ name }] }] })
  it("takes a letter or _ then letters, digits, _ . : or -, 128 at most", async () => {
    for (const name of ["f", "_f", "ns.get:weather-v2", "a".repeat(128)])
      expect((await generate("zeta-2.5-flash", tools(name))).status).toBe(200)
  })
  it("refuses other names", async () => {
    for (const name of ["1f", "-f", "my tool", "f$", "a".repeat(129), ""]) {
      const { status, json } = await generate("zeta-2.5-flash", tools(name))
      expect(status, name).toBe(400)
      expect(json).toMatchObject({ error: { status: "INVALID_ARGUMENT", message: expect.stringContaining("name") } })
    }
  })
  it("refuses a name declared twice, in one tools element or two", async () => {
    const f = { name: "f" }
    for (const tools of [
      [{ functionDeclarations: [f, f] }],
      [{ functionDeclarations: [f] }, { functionDeclarations: [f] }]
    ])
      expect((await generate("zeta-2.5-flash", { contents, tools })).status).toBe(400)
  })
})
