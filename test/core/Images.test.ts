import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Base64 from "../../src/core/wire/Base64.js"
import { extendRouteCatalog } from "../../src/core/gateway/Catalog.js"
import { buildImagesBody, decodeImages, imageModels } from "../../src/core/media/Images.js"

const base = { model: "zeta-2.5-flash-image", prompt: "a red fox in snow" }
const bad = (input: unknown) => Effect.flip(buildImagesBody(input))

describe("buildImagesBody", () => {
  it.effect("defaults response_format to b64_json", () =>
    Effect.gen(function* () {
      expect(yield* buildImagesBody(base)).toEqual({ ...base, response_format: "b64_json" })
    })
  )

  it.effect("refuses a model that is not a zeta image model, listing them", () =>
    Effect.gen(function* () {
      const e = yield* bad({ ...base, model: "dall-e-3" })
      expect(e).toMatchObject({ field: "model", rule: "unknown-model" })
      expect(e.message).toContain("zeta-2.5-flash-image, zeta-3-pro-image-preview")
      expect(imageModels).toEqual(["zeta-2.5-flash-image", "zeta-3-pro-image-preview"])
      const other = yield* bad({ ...base, model: "gpt-4o-mini-tts" })
      expect(other).toMatchObject({ field: "model", rule: "route" })
      expect(other.message).toContain("is a speech model, served by speech (POST /v1/audio/speech)")
      const catalog = extendRouteCatalog([{ match: { exact: "zeta-4-image" }, capabilities: ["images"] }])
      expect((yield* buildImagesBody({ ...base, model: "zeta-4-image" }, { catalog })).model).toBe("zeta-4-image")
      expect((yield* buildImagesBody({ ...base, model: "acme-image-1" }, { allowUnknownModels: true })).model).toBe(
        "acme-image-1"
      )
      // An unlisted zeta id is unknown, not another family's model: E15 serves zeta image models here.
      const unlisted = yield* bad({ ...base, model: "zeta-5-image" })
      expect(unlisted).toMatchObject({ field: "model", rule: "unknown-model" })
      expect(unlisted.message).toContain("allowUnknownModels")
      const preview = { ...base, model: "zeta-2.5-flash-image-preview" }
      expect((yield* buildImagesBody(preview, { allowUnknownModels: true })).model).toBe(preview.model)
    })
  )

  it.effect("refuses any response_format but b64_json", () =>
    Effect.gen(function* () {
      const e = yield* bad({ ...base, response_format: "url" })
      expect(e).toMatchObject({ field: "response_format", rule: "one-of" })
      expect(e.message).toContain("b64_json")
    })
  )

  it.effect("checks size, n, image_size and mime_type", () =>
    Effect.gen(function* () {
      const body = yield* buildImagesBody({
        ...base,
        size: "16:9",
        n: 2,
        image_size: "2K",
        mime_type: "image/png",
        quality: "high"
      })
      expect(body).toMatchObject({ size: "16:9", n: 2, image_size: "2K", mime_type: "image/png", quality: "high" })
      expect(yield* bad({ ...base, size: "1024x1024" })).toMatchObject({ field: "size", rule: "one-of" })
      expect(yield* bad({ ...base, n: 0 })).toMatchObject({ field: "n", rule: "range" })
      expect(yield* bad({ ...base, n: 1.5 })).toMatchObject({ field: "n", rule: "type" })
      expect((yield* bad({ ...base, image_size: "8K" })).message).toContain("1K, 2K, 3K, 4K")
      expect(yield* bad({ ...base, mime_type: "text/plain" })).toMatchObject({ field: "mime_type" })
    })
  )

  it.effect("takes n from 1 to 10, the images API's range, naming the field and the range", () =>
    Effect.gen(function* () {
      expect((yield* buildImagesBody({ ...base, n: 10 })).n).toBe(10)
      const e = yield* bad({ ...base, n: 11 })
      expect(e).toMatchObject({ field: "n", rule: "range" })
      expect(e.message).toBe("n: 11 is out of range for zeta-2.5-flash-image; allowed: 1 to 10")
    })
  )

  it.effect("refuses contents that are empty or not an array, with or without a prompt", () =>
    Effect.gen(function* () {
      const empty = yield* bad({ model: base.model, contents: [] })
      expect(empty).toMatchObject({ field: "contents", rule: "non-empty", message: "contents must not be empty" })
      expect(yield* bad({ ...base, contents: [] })).toMatchObject({ field: "contents", rule: "non-empty" })
      const object = yield* bad({ model: base.model, contents: { parts: [{ text: "x" }] } })
      expect(object).toMatchObject({ field: "contents", rule: "type" })
    })
  )

  it.effect("requires a prompt unless contents are given, and passes contents through", () =>
    Effect.gen(function* () {
      expect(yield* bad({ model: base.model })).toMatchObject({ field: "prompt", rule: "required" })
      const contents = [{ role: "user", parts: [{ text: "make it blue" }] }]
      const body = yield* buildImagesBody({ model: base.model, contents })
      expect(body.contents).toEqual(contents)
      expect(body.prompt).toBeUndefined()
    })
  )
})

describe("decodeImages", () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

  it.effect("decodes b64_json to bytes and keeps the revised prompt", () =>
    Effect.gen(function* () {
      const decoded = yield* decodeImages({
        created: 1700000000,
        data: [{ b64_json: Base64.encode(png), revised_prompt: "a fox" }]
      })
      expect(decoded.created).toBe(1700000000)
      expect(decoded.images[0]!.bytes).toEqual(png)
      expect(decoded.images[0]!.revisedPrompt).toBe("a fox")
    })
  )

  it.effect("reads a data URL prefix and its MIME type", () =>
    Effect.gen(function* () {
      const decoded = yield* decodeImages({
        created: 1,
        data: [{ b64_json: `data:image/png;base64,${Base64.encode(png)}` }]
      })
      expect(decoded.images[0]).toEqual({ bytes: png, mimeType: "image/png" })
    })
  )

  it.effect("reads the MIME type of bare b64_json from the image's signature, and leaves it out for other bytes", () =>
    Effect.gen(function* () {
      const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])
      const gif = new TextEncoder().encode("GIF89a")
      const webp = new TextEncoder().encode("RIFF\x24\0\0\0WEBPVP8 ")
      const riff = new TextEncoder().encode("RIFF\x24\0\0\0WAVEfmt ")
      const decoded = yield* decodeImages({
        created: 1,
        data: [png, jpeg, gif, webp, riff, png.subarray(0, 7)].map((bytes) => ({ b64_json: Base64.encode(bytes) }))
      })
      expect(decoded.images.map((image) => image.mimeType)).toEqual([
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        undefined,
        undefined
      ])
      expect(decoded.images[4]).not.toHaveProperty("mimeType")
      // A data URL's type is kept as sent.
      const named = yield* decodeImages({
        created: 1,
        data: [{ b64_json: `data:image/webp;base64,${Base64.encode(png)}` }]
      })
      expect(named.images[0]!.mimeType).toBe("image/webp")
    })
  )

  it.effect("keeps the answer's usage as given, and leaves it out when the answer has none", () =>
    Effect.gen(function* () {
      const usage = {
        input_tokens: 12,
        input_tokens_details: { image_tokens: 0, text_tokens: 12 },
        output_tokens: 1290,
        total_tokens: 1302
      }
      const item = { b64_json: Base64.encode(png) }
      const decoded = yield* decodeImages({ created: 1, data: [item], output_format: "png", size: "128x128", usage })
      expect(decoded.usage).toEqual(usage)
      expect(yield* decodeImages({ created: 1, data: [item] })).not.toHaveProperty("usage")
      const bad = yield* Effect.flip(decodeImages({ created: 1, data: [item], usage: { input_tokens: -1 } }))
      expect(bad).toMatchObject({ _tag: "DecodeError", what: "images response" })
    })
  )

  it.effect("keeps the answer's size, output_format, quality and background, named as the openai SDK names them", () =>
    Effect.gen(function* () {
      const item = { b64_json: Base64.encode(png) }
      const facts = { size: "1024x1024", output_format: "png", quality: "high", background: "opaque" } as const
      const decoded = yield* decodeImages({ created: 1, data: [item], ...facts })
      expect(decoded).toEqual({ created: 1, images: [{ bytes: png, mimeType: "image/png" }], ...facts })
      // Each is kept on its own; absent or null, it is left out.
      const some = yield* decodeImages({ created: 1, data: [item], output_format: "webp", quality: null })
      expect(some.output_format).toBe("webp")
      for (const key of ["size", "quality", "background"]) expect(some).not.toHaveProperty(key)
      const none = yield* decodeImages({ created: 1, data: [item] })
      for (const key of Object.keys(facts)) expect(none).not.toHaveProperty(key)
    })
  )

  it.effect("fails on a size, output_format, quality or background that is not a string, naming it", () =>
    Effect.gen(function* () {
      const item = { b64_json: Base64.encode(png) }
      for (const key of ["size", "output_format", "quality", "background"]) {
        const e = yield* Effect.flip(decodeImages({ created: 1, data: [item], [key]: 1024 }))
        expect(e).toMatchObject({ _tag: "DecodeError", what: "images response" })
        expect(e.message).toContain(key)
      }
    })
  )

  it.effect("fails on an item without b64_json, on bad base64, and on the wrong shape", () =>
    Effect.gen(function* () {
      expect((yield* Effect.flip(decodeImages({ created: 1, data: [{ url: "https://x" }] }))).message).toContain(
        "b64_json"
      )
      expect((yield* Effect.flip(decodeImages({ created: 1, data: [{ b64_json: "not base64!" }] }))).message).toContain(
        "data[0].b64_json"
      )
      expect(yield* Effect.flip(decodeImages({ data: [] }))).toMatchObject({
        _tag: "DecodeError",
        what: "images response"
      })
    })
  )
})
