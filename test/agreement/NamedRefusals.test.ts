// Refusals both sides make, each naming the field and what it allows (client message, emulator
// answer), for rules one side used to leave open: responses `top_logprobs` (chat's 0–20 integer), the
// type a generated image comes in (png, jpeg, webp: images `mime_type` and native
// `imageOutputOptions.mimeType`), `cache_control` on a document block or a block kind passed through;
// and what both take: a native tools member written null (proto3 JSON: absent), an image in the type asked.
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildImagesBody } from "../../src/core/media/Images.js"
import { buildMessagesBody } from "../../src/core/text/messages/Messages.js"
import { buildNativeBody } from "../../src/core/text/native/Native.js"
import { buildResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

interface Answer {
  readonly status: number
  readonly json: { readonly error?: { readonly message?: string; readonly param?: string } } & Record<string, unknown>
}

const post = async (path: string, body: unknown): Promise<Answer> => {
  const res = await fetch(`${emu.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: res.status, json: (await res.json()) as Answer["json"] }
}

const refusal = (built: Effect.Effect<unknown, InvalidRequest>): InvalidRequest => {
  const r = Effect.runSync(Effect.result(built))
  if (Result.isSuccess(r)) throw new Error("the client built it")
  return r.failure
}

const built = <A>(effect: Effect.Effect<A, InvalidRequest>): A => Effect.runSync(effect)

describe("both sides refuse, naming the field and what it allows", () => {
  it("responses top_logprobs outside 0 to 20 or not an integer (chat's rule)", async () => {
    const base = { model: "gpt-5", input: "hi", max_output_tokens: 64 }
    expect(refusal(buildResponsesBody({ ...base, top_logprobs: 21 }))).toMatchObject({
      field: "top_logprobs",
      rule: "range",
      message: "top_logprobs: 21 is out of range for gpt-5; allowed: 0 to 20"
    })
    expect(refusal(buildResponsesBody({ ...base, top_logprobs: -1 })).field).toBe("top_logprobs")
    expect(await post("/v1/responses", { ...base, top_logprobs: 21 })).toMatchObject({
      status: 400,
      json: {
        error: {
          param: "top_logprobs",
          message: "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got 21 instead."
        }
      }
    })
    expect(await post("/v1/responses", { ...base, top_logprobs: 1.5 })).toMatchObject({
      status: 400,
      json: { error: { param: "top_logprobs", message: "Invalid type for 'top_logprobs': expected an integer." } }
    })
    expect((await post("/v1/responses", built(buildResponsesBody({ ...base, top_logprobs: 20 })))).status).toBe(200)
  })

  it("an images mime_type other than png, jpeg or webp", async () => {
    const base = { model: "zeta-2.5-flash-image", prompt: "a fox" }
    expect(refusal(buildImagesBody({ ...base, mime_type: "image/gif" }))).toMatchObject({
      field: "mime_type",
      message: 'mime_type: "image/gif" is not allowed; allowed: image/png, image/jpeg, image/webp'
    })
    expect(await post("/v1/images/generations", { ...base, mime_type: "image/gif" })).toMatchObject({
      status: 400,
      json: {
        error: {
          param: "mime_type",
          message: "Invalid 'mime_type': expected one of image/png, image/jpeg, image/webp."
        }
      }
    })
  })

  it("a native imageOutputOptions.mimeType other than png, jpeg or webp", async () => {
    const model = "zeta-2.5-flash-image"
    const body = {
      contents: [{ role: "user", parts: [{ text: "a fox" }] }],
      generationConfig: {
        responseModalities: ["IMAGE"],
        imageConfig: { imageOutputOptions: { mimeType: "image/gif" } }
      }
    }
    expect(refusal(buildNativeBody(model, body))).toMatchObject({
      field: "generationConfig.imageConfig.imageOutputOptions.mimeType",
      message:
        'generationConfig.imageConfig.imageOutputOptions.mimeType: "image/gif" is not allowed; allowed: image/png, image/jpeg, image/webp'
    })
    const answer = await post(`/v1beta/models/${model}:generateContent`, body)
    expect(answer.status).toBe(400)
    expect(answer.json.error?.message).toContain(
      "image_output_options.mime_type: must be one of image/png, image/jpeg, image/webp"
    )
  })

  it("cache_control of another type on a document block and on a block kind passed through", async () => {
    const doc = { type: "text", media_type: "text/plain", data: "a page" }
    for (const block of [
      { type: "document", source: doc, cache_control: { type: "forever" } },
      { type: "search_result", source: "s", cache_control: { type: "forever" } }
    ]) {
      const body = {
        model: "epsilon-sonnet-4-5-20250929",
        max_tokens: 64,
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }, block] }]
      }
      expect(refusal(buildMessagesBody(body))).toMatchObject({
        field: "messages[0].content[1].cache_control.type",
        message: 'messages[0].content[1].cache_control.type: "forever" is not allowed; allowed: ephemeral, persistent'
      })
      const answer = await post("/v1/messages", body)
      expect(answer.status).toBe(400)
      expect(answer.json.error?.message).toContain(
        "messages[0].content[1].cache_control.type must be one of ephemeral, persistent"
      )
    }
  })
})

describe("both sides take", () => {
  it("a native tools member written null, as absent (proto3 JSON), and send it on as given", async () => {
    const model = "zeta-2.5-flash"
    for (const tools of [
      [{ functionDeclarations: null }],
      [{ functionDeclarations: null, vendorSearch: {} }],
      [{ functionDeclarations: [{ name: "f" }], vendorSearch: null }]
    ]) {
      const body = built(buildNativeBody(model, { contents: [{ role: "user", parts: [{ text: "hi" }] }], tools }))
      expect(body.tools).toEqual(tools)
      expect((await post(`/v1beta/models/${model}:generateContent`, body)).status).toBe(200)
    }
  })

  it("a native image in the type imageOutputOptions asks for", async () => {
    const model = "zeta-2.5-flash-image"
    for (const [mimeType, magic] of [
      ["image/jpeg", "ffd8ff"],
      ["image/webp", "52494646"],
      ["image/png", "89504e47"]
    ] as const) {
      const body = built(
        buildNativeBody(model, {
          contents: [{ role: "user", parts: [{ text: "a fox" }] }],
          generationConfig: { responseModalities: ["IMAGE"], imageConfig: { imageOutputOptions: { mimeType } } }
        })
      )
      const answer = await post(`/v1beta/models/${model}:generateContent`, body)
      expect(answer.status).toBe(200)
      const candidates = answer.json.candidates as ReadonlyArray<{
        content: { parts: ReadonlyArray<{ inlineData?: { mimeType: string; data: string } }> }
      }>
      const image = candidates[0]!.content.parts.find((p) => p.inlineData !== undefined)!.inlineData!
      expect(image.mimeType).toBe(mimeType)
      expect(Buffer.from(image.data, "base64").toString("hex").startsWith(magic)).toBe(true)
    }
  })
})
