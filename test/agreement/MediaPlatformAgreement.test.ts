// The image body (E15) and the platform bodies (E4–E7) checked on both sides: the client's builder
// refuses a body exactly when the emulator answers 400, both naming the field, and the emulator
// accepts the body the client builds (a platform submit answers 200; E7 answers 200 or, for other
// credentials, 401).
import { Effect, Result } from "effect"
import { firstValueFrom } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { buildImagesBody } from "../../src/core/media/Images.js"
import {
  buildAnyShootAdvancedBody,
  buildAnyShootEasyBody,
  buildPlatformCredentials,
  buildPlatformTextToVideoBody
} from "../../src/core/platform/Platform.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway } from "../../src/streams/index.js"

let emu: Emulator
let token: string
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  token = (await send("platform", "/prod-api/v3/auth/getToken", emu.platform)).message
})
afterAll(() => emu.close())

/** The emulator's answer: its status and its error message (or, for E7, the token it gave). */
interface Answer {
  readonly status: number
  readonly message: string
}

/** POSTs a JSON body to the gateway routes (API key) or the platform routes (E7 token, none for E7). */
async function send(side: "gateway" | "platform", path: string, body: unknown): Promise<Answer> {
  const authorization = side === "gateway" ? `Bearer ${emu.apiKey}` : path.endsWith("/getToken") ? undefined : token
  const res = await fetch(`${side === "gateway" ? emu.url : emu.platformUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) },
    body: JSON.stringify(body)
  })
  const json = (await res.json()) as { error?: { message?: string }; msg?: string; data?: unknown }
  const message = side === "gateway" ? (json.error?.message ?? "") : res.ok ? String(json.data) : (json.msg ?? "")
  return { status: res.status, message }
}

interface Endpoint {
  readonly side: "gateway" | "platform"
  readonly path: string
  readonly base: Record<string, unknown>
  readonly build: (body: unknown) => Effect.Effect<unknown, InvalidRequest>
  /** Each field, and values for it: valid ones and ones just outside its rules. */
  readonly vary: Record<string, ReadonlyArray<unknown>>
}

const IMAGES = "/v1/images/generations"
const T2V = "/prod-api/svc/v4/api/svcVideoCompletions"
const EASY = "/prod-api/svc/v4/api/anyShootEasyModeSubmit"
const ADVANCED = "/prod-api/svc/v4/api/anyShootAdvancedModeSubmit"
const TOKEN = "/prod-api/v3/auth/getToken"

const turn = [{ role: "user", parts: [{ text: "make it blue" }] }]
const parts = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `part ${i}` }))

const images = { model: "zeta-2.5-flash-image", prompt: "a red fox in snow" }
const t2v = { model: "platform-video-1", prompt: "a cat", duration: "5", aspect_ratio: "16:9" }
const easy = { size: "1024x1024", contents: [{ parts: [{ text: "a bag" }, { image: "https://e.com/p.png" }] }] }
const advanced = {
  productImageUrl: "https://e.com/p.png",
  productMaskUrl: "https://e.com/pm.png",
  templateImageUrl: "https://e.com/t.png",
  templateMaskUrl: "https://e.com/tm.png"
}

const endpoints: Record<string, Endpoint> = {
  images: {
    side: "gateway",
    path: IMAGES,
    base: images,
    build: (b) => buildImagesBody(b),
    vary: {
      n: [1, 4, 5, 10, 11, 0, 1.5, "2"],
      prompt: ["a cat", "", "  ", 5],
      size: ["16:9", "1:1", "21:9", "1024x1024", "1024*768", "0:1", "1.5:1", "wide", 16],
      image_size: ["1K", "2K", "3K", "4K", "2k", "8K", 2],
      quality: ["high", 5],
      // The types a generated image comes in (png, jpeg, webp), one list on both sides.
      mime_type: ["image/png", "image/jpeg", "image/webp", "image/gif", "image/x-icon", "IMAGE/PNG", "text/plain", 5],
      response_modalities: ["image", ["image", "text"], 5, [5]],
      response_format: ["b64_json", "url"],
      contents: [turn, [], {}, "x"]
    }
  },
  "images without a prompt": {
    side: "gateway",
    path: IMAGES,
    base: { model: images.model },
    build: (b) => buildImagesBody(b),
    vary: { contents: [turn, [], { parts: [{ text: "x" }] }, "x"] }
  },
  "E4 text-to-video": {
    side: "platform",
    path: T2V,
    base: t2v,
    build: (b) => buildPlatformTextToVideoBody(b),
    vary: {
      model: ["m".repeat(201), "", " ", 5],
      prompt: ["x".repeat(10_001), "", " ", 5],
      duration: ["3", "12", 5, "6", 6, 5.5],
      aspect_ratio: ["16:9", "9:16", "21:9", "adaptive", "wide", "16:", "0:9", "16x9", "", 169],
      resolution: ["1080p", "", 5],
      return_url: [true, "yes"],
      req_key: ["k", "k".repeat(201), "", "  ", 5]
    }
  },
  "E5 Any Shoot creative": {
    side: "platform",
    path: EASY,
    base: easy,
    build: (b) => buildAnyShootEasyBody(b),
    vary: {
      size: ["768x1024", "123456x1", "0x1", "1024*768", "1024X768", "", 1024],
      contents: [
        [{ parts: parts(17) }],
        Array.from({ length: 17 }, () => ({ parts: parts(1) })),
        [],
        [{ parts: [] }],
        [{}],
        [{ parts: [{}] }],
        [{ parts: [{ text: "" }] }],
        [{ parts: [{ image: "" }] }],
        [{ parts: [{ text: 5 }] }],
        [{ parts: ["x"] }]
      ]
    }
  },
  "E6 Any Shoot advanced": {
    side: "platform",
    path: ADVANCED,
    base: advanced,
    build: (b) => buildAnyShootAdvancedBody(b),
    vary: {
      productImageUrl: [
        "HTTPS://e.com/a",
        "Http://e.com/a",
        `https://e.com/${"a".repeat(9000)}`,
        "ftp://e.com/a",
        "e.com/a",
        "https://e.com/a b",
        "",
        5
      ]
    }
  },
  "E7 credentials": {
    side: "platform",
    path: TOKEN,
    base: { username: "someone", password: "secret" },
    build: (b) => buildPlatformCredentials(b),
    vary: {
      username: ["u".repeat(300), "", "  ", 5],
      password: ["   ", "p".repeat(2000), "", 5]
    }
  }
}

/** What each side says of a body: the client builds it (and sends what it built) or refuses it (and the raw body is sent). */
const verdicts = async (endpoint: Endpoint, body: Record<string, unknown>) => {
  const built = Effect.runSync(Effect.result(endpoint.build(body)))
  const answer = await send(endpoint.side, endpoint.path, Result.isSuccess(built) ? built.success : body)
  return { built, answer }
}

describe("one field at a time, the client builds a media or platform body exactly when the emulator takes it", () => {
  for (const [name, endpoint] of Object.entries(endpoints)) {
    it(name, async () => {
      const disagreements: Array<string> = []
      for (const [field, values] of Object.entries(endpoint.vary))
        for (const value of values) {
          const { built, answer } = await verdicts(endpoint, { ...endpoint.base, [field]: value })
          if (Result.isSuccess(built) === (answer.status === 400))
            disagreements.push(
              `${field}: ${JSON.stringify(value).slice(0, 40)}: client ${
                Result.isSuccess(built) ? "builds it" : `refuses it (${built.failure.message})`
              }, emulator answers ${answer.status} ${answer.message}`
            )
        }
      expect(disagreements).toEqual([])
    })
  }
})

describe("both sides name the field and what it allows", () => {
  const both = async (endpoint: Endpoint, body: Record<string, unknown>) => {
    const { built, answer } = await verdicts(endpoint, body)
    if (Result.isSuccess(built)) throw new Error(`the client built ${JSON.stringify(body).slice(0, 80)}`)
    return { client: built.failure, emulator: answer }
  }

  it("images n above 10 (the images API's range, protocol notes §3.7)", async () => {
    const { client, emulator } = await both(endpoints.images!, { ...images, n: 11 })
    expect(client).toMatchObject({
      field: "n",
      rule: "range",
      message: "n: 11 is out of range for zeta-2.5-flash-image; allowed: 1 to 10"
    })
    expect(emulator).toEqual({ status: 400, message: "Invalid 'n': must be an integer between 1 and 10." })
    expect((await verdicts(endpoints.images!, { ...images, n: 5 })).answer.status).toBe(200)
  })

  it("images contents that are empty or not an array, with or without a prompt", async () => {
    for (const body of [
      { model: images.model, contents: [] },
      { model: images.model, contents: {} },
      { ...images, contents: [] }
    ]) {
      const { client, emulator } = await both(endpoints.images!, body)
      expect(client.field).toBe("contents")
      expect(emulator.status).toBe(400)
      expect(emulator.message).toMatch(/^Invalid 'contents': /)
    }
  })

  it("images size as pixels (the contract's size is an aspect ratio), a blank prompt and a lower-case image_size", async () => {
    const size = await both(endpoints.images!, { ...images, size: "1024x1024" })
    expect(size.client.message).toContain("an aspect ratio such as 16:9")
    expect(size.emulator).toEqual({
      status: 400,
      message: "Invalid 'size': expected an aspect ratio such as 16:9, 1:1."
    })
    const prompt = await both(endpoints.images!, { ...images, prompt: "  " })
    expect(prompt.client).toMatchObject({ field: "prompt", rule: "non-empty" })
    expect(prompt.emulator).toEqual({ status: 400, message: "Invalid 'prompt': must be a non-empty string." })
    const imageSize = await both(endpoints.images!, { ...images, image_size: "2k" })
    expect(imageSize.client.message).toBe('image_size: "2k" is not allowed; allowed: 1K, 2K, 3K, 4K')
    expect(imageSize.emulator).toEqual({ status: 400, message: "Invalid 'image_size': expected 1K, 2K, 3K or 4K." })
  })

  it("E4 aspect_ratio as a ratio or adaptive, and req_key not empty", async () => {
    const e4 = endpoints["E4 text-to-video"]!
    const ratio = await both(e4, { ...t2v, aspect_ratio: "wide" })
    expect(ratio.client).toMatchObject({ field: "aspect_ratio", rule: "one-of" })
    expect(ratio.client.message).toContain("allowed: a ratio such as 16:9, 9:16, 1:1, 4:3, 3:4, 21:9, or adaptive")
    expect(ratio.emulator).toEqual({
      status: 400,
      message: "aspect_ratio must be a ratio such as 16:9, 9:16, 1:1, 4:3, 3:4, 21:9, or adaptive"
    })
    const key = await both(e4, { ...t2v, req_key: "" })
    expect(key.client).toMatchObject({ field: "req_key", rule: "non-empty" })
    expect(key.emulator).toEqual({ status: 400, message: "req_key must not be empty" })
  })

  it("E4 and E5 take long strings and many parts (the contract bounds neither)", async () => {
    for (const body of [
      { ...t2v, model: "m".repeat(201) },
      { ...t2v, prompt: "x".repeat(10_001) }
    ])
      expect((await verdicts(endpoints["E4 text-to-video"]!, body)).answer.status).toBe(200)
    for (const body of [
      { ...easy, size: "123456x1" },
      { ...easy, contents: [{ parts: parts(17) }] }
    ])
      expect((await verdicts(endpoints["E5 Any Shoot creative"]!, body)).answer.status).toBe(200)
  })

  it("E6 URLs whose scheme is in capitals (schemes are case-insensitive)", async () => {
    const body = { ...advanced, productImageUrl: "HTTPS://e.com/a" }
    const { built, answer } = await verdicts(endpoints["E6 Any Shoot advanced"]!, body)
    expect(Result.isSuccess(built)).toBe(true)
    expect(answer.status).toBe(200)
  })

  it("E7 a password of spaces (a password is taken as given), refused as a wrong one", async () => {
    const { built, answer } = await verdicts(endpoints["E7 credentials"]!, { ...emu.platform, password: "   " })
    expect(Result.isSuccess(built)).toBe(true)
    expect(answer).toEqual({ status: 401, message: "invalid username or password" })
    const empty = await both(endpoints["E7 credentials"]!, { ...emu.platform, password: "" })
    expect(empty.client).toMatchObject({ field: "password", message: "password must not be empty" })
    expect(empty.emulator).toEqual({ status: 400, message: "password must not be empty" })
  })
})

describe("images.generate", () => {
  const body = { model: images.model, prompt: "a lighthouse", n: 2 }
  const usage = { input_tokens: expect.any(Number), output_tokens: 2580, total_tokens: expect.any(Number) }

  it("gives the answer's usage beside the images, on the Effect and the Rx faces", async () => {
    const layer = Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey })
    const out = await Effect.runPromise(
      Effect.provide(
        Gateway.use((g) => g.images.generate(body)),
        layer
      )
    )
    expect(out.images).toHaveLength(2)
    expect(out.usage).toEqual(usage)
    expect(out.usage!.total_tokens).toBe(out.usage!.input_tokens! + out.usage!.output_tokens!)
    const gw = createGateway({ baseUrl: emu.url, apiKey: emu.apiKey })
    try {
      expect((await firstValueFrom(gw.images.generate$(body))).usage).toEqual(usage)
    } finally {
      await gw.dispose()
    }
  })
})
