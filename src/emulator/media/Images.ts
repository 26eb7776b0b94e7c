/**
 * E15 `POST /v1/images/generations` for the zeta image models: `{created, data: [{b64_json}]}` of
 * real PNGs whose pattern is a function of the prompt; `response_format` other than `b64_json` is 400.
 */
import { errorBody } from "../server/Family.js"
import { imageDimensions, renderPng } from "./Png.js"
import type { Reply, Route } from "../server/Route.js"
import { canonicalJson, estimateTokens } from "../text/TextGen.js"

/** The models this endpoint serves. */
export const IMAGE_MODELS = ["zeta-2.5-flash-image", "zeta-3-pro-image-preview"]

const bad = (reply: Reply, message: string, param: string): void =>
  reply.json(400, errorBody("openai", 400, message, { param }))

/** `size` as an aspect ratio: `16:9` as is, `1024x768` reduced to its ratio. */
const aspectOf = (size: unknown): string | undefined => {
  if (typeof size !== "string") return undefined
  const m = /^(\d+)[x*](\d+)$/.exec(size)
  return m ? `${m[1]}:${m[2]}` : size
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
    const b = body as Record<string, unknown>
    if (typeof b.model !== "string" || b.model.length === 0)
      return bad(reply, "you must provide a model parameter", "model")
    if (!IMAGE_MODELS.includes(b.model))
      return bad(
        reply,
        `Invalid 'model': ${b.model} is not an image model of this series (${IMAGE_MODELS.join(", ")}).`,
        "model"
      )
    const hasContents = Array.isArray(b.contents) && b.contents.length > 0
    if (!hasContents && (typeof b.prompt !== "string" || b.prompt.length === 0))
      return bad(reply, "Missing required parameter: 'prompt'.", "prompt")
    if (b.response_format !== undefined && b.response_format !== "b64_json")
      return bad(reply, "Invalid 'response_format': only 'b64_json' is supported for this series.", "response_format")
    const n = b.n ?? 1
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 4)
      return bad(reply, "Invalid 'n': must be an integer between 1 and 4.", "n")
    const size = aspectOf(b.size)
    if (size !== undefined && !/^\d+(\.\d+)?:\d+(\.\d+)?$/.test(size))
      return bad(reply, "Invalid 'size': expected an aspect ratio such as 16:9.", "size")
    const imageSize = typeof b.image_size === "string" ? b.image_size : undefined
    if (imageSize !== undefined && !/^[1-4]K$/i.test(imageSize))
      return bad(reply, "Invalid 'image_size': expected 1K, 2K, 3K or 4K.", "image_size")
    const { width, height } = imageDimensions(size, imageSize)
    const seed = canonicalJson({ model: b.model, prompt: b.prompt, contents: b.contents })
    const data = Array.from({ length: n }, (_, i) => ({
      b64_json: renderPng(`${seed}#${i}`, width, height).toString("base64")
    }))
    const input = estimateTokens(typeof b.prompt === "string" ? b.prompt : canonicalJson(b.contents))
    reply.json(200, {
      created: Math.floor(ctx.clock.now() / 1000),
      data,
      output_format: "png",
      size: `${width}x${height}`,
      usage: { input_tokens: input, output_tokens: 1290 * n, total_tokens: input + 1290 * n }
    })
  }
}
