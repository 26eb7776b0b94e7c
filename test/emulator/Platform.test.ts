import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

// Raw HTTP against the platform-style endpoints, on a virtual clock so token expiry is exact.
let emu: Emulator
const TTL = 60_000

beforeAll(async () => {
  emu = await startEmulator({ virtualClock: true, platform: { tokenTtlMs: TTL } })
})
afterAll(() => emu.close())

/** The platform's answer envelope. */
interface Envelope {
  readonly code: number
  readonly msg: string
  readonly data: unknown
}

const post = async (path: string, body: unknown, authorization?: string) => {
  const r = await fetch(`${emu.platformUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  return { status: r.status, body: (await r.json()) as Envelope }
}

const TOKEN = "/prod-api/v3/auth/getToken"
const T2V = "/prod-api/svc/v4/api/svcVideoCompletions"
const EASY = "/prod-api/svc/v4/api/anyShootEasyModeSubmit"
const ADVANCED = "/prod-api/svc/v4/api/anyShootAdvancedModeSubmit"

const login = async (): Promise<string> => {
  const r = await post(TOKEN, emu.platform)
  expect(r.status).toBe(200)
  return r.body.data as string
}

const t2v = { model: "platform-video-1", prompt: "a cat", duration: "5", aspect_ratio: "16:9" }
const easy = {
  size: "1024x1024",
  contents: [{ parts: [{ text: "a product shot" }, { image: "https://example.com/p.png" }] }]
}
const advanced = {
  productImageUrl: "https://e/p.png",
  productMaskUrl: "https://e/pm.png",
  templateImageUrl: "https://e/t.png",
  templateMaskUrl: "https://e/tm.png"
}

describe("E7 getToken", () => {
  it("returns a Bearer token in the success envelope for the configured credentials", async () => {
    const r = await post(TOKEN, emu.platform)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ code: 200, msg: "success", data: expect.stringMatching(/^Bearer \S+$/) })
  })

  it("refuses wrong credentials with code 401 and missing ones with code 400", async () => {
    const wrong = await post(TOKEN, { username: emu.platform.username, password: "nope" })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toMatchObject({ code: 401, data: null })
    const missing = await post(TOKEN, { username: emu.platform.username })
    expect(missing.status).toBe(400)
    expect(missing.body.code).toBe(400)
    const notJson = await post(TOKEN, "{bad")
    expect(notJson.body.code).toBe(400)
  })

  it("counts token requests under platform.token", async () => {
    const before = emu.counters.get("platform.token")
    await login()
    expect(emu.counters.get("platform.token")).toBe(before + 1)
  })
})

describe("E4 text-to-video", () => {
  it("accepts a valid body with a token and returns data.task_id", async () => {
    const r = await post(T2V, { ...t2v, resolution: "720p", return_url: true, req_key: "k1" }, await login())
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ code: 200, msg: "success", data: { task_id: expect.any(String) } })
  })

  it.each([
    ["no model", { ...t2v, model: undefined }],
    ["no prompt", { ...t2v, prompt: undefined }],
    ["no duration", { ...t2v, duration: undefined }],
    ["duration 4", { ...t2v, duration: "4" }],
    ["duration as a number", { ...t2v, duration: 5 }],
    ["no aspect_ratio", { ...t2v, aspect_ratio: undefined }],
    ["return_url as a string", { ...t2v, return_url: "yes" }]
  ])("answers %s with envelope code 400", async (_name, body) => {
    const r = await post(T2V, body, await login())
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ code: 400, data: null })
    expect(typeof r.body.msg).toBe("string")
  })

  it("requires the token: missing or unknown gives 401 with envelope code 401", async () => {
    for (const auth of [undefined, "Bearer not-a-token", `Bearer ${emu.apiKey}`]) {
      const r = await post(T2V, t2v, auth)
      expect(r.status).toBe(401)
      expect(r.body.code).toBe(401)
    }
  })

  it("rejects a token once its lifetime has passed on the emulator clock", async () => {
    const token = await login()
    emu.advanceTime(TTL - 1)
    expect((await post(T2V, t2v, token)).body.code).toBe(200)
    emu.advanceTime(1)
    const expired = await post(T2V, t2v, token)
    expect(expired.status).toBe(401)
    expect(expired.body.msg).toMatch(/expired/)
    expect((await post(T2V, t2v, await login())).body.code).toBe(200)
  })
})

describe("E5 Any Shoot creative mode", () => {
  it("returns data.url of a real PNG the emulator serves", async () => {
    const r = await post(EASY, easy, await login())
    expect(r.body).toMatchObject({ code: 200, data: { url: expect.stringMatching(/\.png$/) } })
    const img = await fetch((r.body.data as { url: string }).url)
    expect(img.status).toBe(200)
    expect(img.headers.get("content-type")).toBe("image/png")
    expect(Buffer.from(await img.arrayBuffer()).subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    )
    expect((await fetch(`${emu.url}/files/images/img_unknown.png`)).status).toBe(404)
  })

  it.each([
    ["no size", { ...easy, size: undefined }],
    ["size 1024*1024", { ...easy, size: "1024*1024" }],
    ["empty contents", { ...easy, contents: [] }],
    ["a content without parts", { ...easy, contents: [{}] }],
    ["an empty part", { ...easy, contents: [{ parts: [{}] }] }],
    ["a numeric text", { ...easy, contents: [{ parts: [{ text: 3 }] }] }]
  ])("answers %s with envelope code 400", async (_name, body) => {
    const r = await post(EASY, body, await login())
    expect(r.status).toBe(400)
    expect(r.body.code).toBe(400)
  })
})

describe("E6 Any Shoot advanced mode", () => {
  it("returns a task id string as data", async () => {
    const r = await post(ADVANCED, advanced, await login())
    expect(r.body).toEqual({ code: 200, msg: "success", data: expect.stringMatching(/^ptask_/) })
  })

  it.each(Object.keys(advanced))("answers a missing or non-URL %s with envelope code 400", async (field) => {
    const token = await login()
    for (const value of [undefined, "not a url"]) {
      const r = await post(ADVANCED, { ...advanced, [field]: value }, token)
      expect(r.status).toBe(400)
      expect(r.body.msg).toContain(field)
    }
  })

  it("requires the token", async () => {
    expect((await post(ADVANCED, advanced)).body.code).toBe(401)
    expect((await post(EASY, easy)).body.code).toBe(401)
  })
})
