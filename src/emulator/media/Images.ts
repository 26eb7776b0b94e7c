/**
 * E15 `POST /v1/images/generations` for the zeta image models: real images as `b64_json`, in the
 * `mime_type` asked. A PNG's pattern is a function of the prompt, a JPEG or WebP is one colour drawn
 * from it; `output_format` and `usage` come with them. A body the client's builder refuses is a 400
 * naming the field; a model other than the series' is a 404 `model_not_found`.
 */
import { errorBody } from "../server/Family.js"
import { renderJpeg, type Rgb } from "./Jpeg.js"
import { imageDimensions, renderPng } from "./Png.js"
import { renderWebp } from "./Webp.js"
import type { Reply, Route } from "../server/Route.js"
import { canonicalJson, estimateTokens, hash32, seededRandom } from "../text/TextGen.js"

/** The models this endpoint serves. */
export const IMAGE_MODELS = ["zeta-2.5-flash-image", "zeta-3-pro-image-preview"]

const bad = (reply: Reply, message: string, param: string): void =>
  reply.json(400, errorBody("openai", 400, message, { param }))

type Body = Readonly<Record<string, unknown>>

/** The largest `n`: the images API's range (1–10, protocol notes §3.7), as the client's builder has it. */
const MAX_IMAGES = 10
const ASPECT_RATIO = /^[1-9]\d{0,3}:[1-9]\d{0,3}$/
const IMAGE_SIZE = /^[1-4]K$/
const isString = (v: unknown): v is string => typeof v === "string"

/** The colour a seed draws (a PNG's base colour is drawn the same way from its seed). */
const colourOf = (seed: string): Rgb => {
  const rnd = seededRandom(hash32(seed))
  return [Math.round(rnd() * 255), Math.round(rnd() * 255), Math.round(rnd() * 255)]
}

/**
 * The image types the emulator makes, by `mime_type` (and a native-content body's
 * `imageConfig.imageOutputOptions.mimeType`): the `output_format` it answers and the encoder.
 */
const FORMATS: Readonly<
  Record<
    string,
    { readonly outputFormat: string; readonly render: (seed: string, width: number, height: number) => Buffer }
  >
> = {
  "image/png": { outputFormat: "png", render: renderPng },
  "image/jpeg": { outputFormat: "jpeg", render: (seed, w, h) => renderJpeg(colourOf(seed), w, h) },
  "image/webp": { outputFormat: "webp", render: (seed, w, h) => renderWebp(colourOf(seed), w, h) }
}

/** The image types the emulator makes (`mime_type`, `imageOutputOptions.mimeType`), PNG first. */
export const IMAGE_OUTPUT_TYPES: ReadonlyArray<string> = Object.keys(FORMATS)

/** An image of `mimeType` (one of `IMAGE_OUTPUT_TYPES`; PNG otherwise) drawn from `seed`. */
export const renderImage = (mimeType: string | undefined, seed: string, width: number, height: number): Buffer =>
  (FORMATS[mimeType ?? "image/png"] ?? FORMATS["image/png"]!).render(seed, width, height)

/** The first problem of an images body's fields other than `model`, as `[message, param]` (null means absent). */
const problemOf = (b: Body): readonly [string, string] | undefined => {
  const given = (key: string): boolean => b[key] !== undefined && b[key] !== null
  if (given("contents") && !(Array.isArray(b.contents) && b.contents.length > 0))
    return ["Invalid 'contents': expected a non-empty array of turns.", "contents"]
  if (given("prompt") && !(isString(b.prompt) && b.prompt.trim() !== ""))
    return ["Invalid 'prompt': must be a non-empty string.", "prompt"]
  if (!given("prompt") && !given("contents")) return ["Missing required parameter: 'prompt'.", "prompt"]
  if (given("response_format") && b.response_format !== "b64_json")
    return ["Invalid 'response_format': only 'b64_json' is supported for this series.", "response_format"]
  const n = b.n ?? 1
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_IMAGES)
    return [`Invalid 'n': must be an integer between 1 and ${MAX_IMAGES}.`, "n"]
  // `size` is an aspect ratio for this series, not pixels.
  if (given("size") && !(isString(b.size) && ASPECT_RATIO.test(b.size)))
    return ["Invalid 'size': expected an aspect ratio such as 16:9, 1:1.", "size"]
  if (given("image_size") && !(isString(b.image_size) && IMAGE_SIZE.test(b.image_size)))
    return ["Invalid 'image_size': expected 1K, 2K, 3K or 4K.", "image_size"]
  if (given("quality") && !isString(b.quality)) return ["Invalid 'quality': expected a string.", "quality"]
  if (given("mime_type") && !(isString(b.mime_type) && Object.hasOwn(FORMATS, b.mime_type)))
    return [`Invalid 'mime_type': expected one of ${Object.keys(FORMATS).join(", ")}.`, "mime_type"]
  const modalities = b.response_modalities
  if (
    given("response_modalities") &&
    !(isString(modalities) || (Array.isArray(modalities) && modalities.every(isString)))
  )
    return ["Invalid 'response_modalities': expected a string or an array of strings.", "response_modalities"]
  return undefined
}

/** `POST /v1/images/generations`. */
export const imagesRoute: Route = {
  name: "images",
  method: "POST",
  path: "/v1/images/generations",
  handle: (req, reply, ctx) => {
    const body = req.json
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return bad(reply, "We could not parse the JSON body of your request.", "body")
    const b = body as Body
    if (typeof b.model !== "string" || b.model.length === 0)
      return bad(reply, "you must provide a model parameter", "model")
    // An unknown model is a 404 `model_not_found`, as on every other endpoint (the contract's errors).
    if (!IMAGE_MODELS.includes(b.model)) {
      const message = `The model \`${b.model.slice(0, 200)}\` does not exist or is not an image model of this series (${IMAGE_MODELS.join(", ")}).`
      return reply.json(404, errorBody("openai", 404, message, { param: "model", code: "model_not_found" }))
    }
    const problem = problemOf(b)
    if (problem !== undefined) return bad(reply, ...problem)
    const n = typeof b.n === "number" ? b.n : 1
    const size = isString(b.size) ? b.size : undefined
    const imageSize = isString(b.image_size) ? b.image_size : undefined
    const { width, height } = imageDimensions(size, imageSize)
    const seed = canonicalJson({ model: b.model, prompt: b.prompt, contents: b.contents })
    const format = FORMATS[isString(b.mime_type) ? b.mime_type : "image/png"]!
    const data = Array.from({ length: n }, (_, i) => ({
      b64_json: format.render(`${seed}#${i}`, width, height).toString("base64")
    }))
    const input = estimateTokens(typeof b.prompt === "string" ? b.prompt : canonicalJson(b.contents))
    reply.json(200, {
      created: Math.floor(ctx.clock.now() / 1000),
      data,
      output_format: format.outputFormat,
      size: `${width}x${height}`,
      usage: { input_tokens: input, output_tokens: 1290 * n, total_tokens: input + 1290 * n }
    })
  }
}
