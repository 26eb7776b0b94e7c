/**
 * umg's AI SDK image model: `doGenerate` over the gateway's image generation (E15). The gateway's zeta
 * image models take an aspect ratio (`aspectRatio`) rather than pixel sizes and answer base64, decoded
 * strictly to bytes.
 */
import type { ImageModelV4, ImageModelV4ProviderMetadata, JSONObject, SharedV4Warning } from "@ai-sdk/provider"
import type { DecodedImages } from "../core/media/Images.js"
import { providerKey } from "./Prompt.js"
import type { LanguageModelContext } from "./LanguageModel.js"

type ImageCallOptions = Parameters<ImageModelV4["doGenerate"]>[0]

/**
 * `providerMetadata.umg.images`: per image, its revised prompt and what the answer says of the images
 * (`size`, `quality`, `background`, `outputFormat`), under the names `@ai-sdk/openai` gives them; a
 * value the answer leaves out is left out.
 */
const metadataOf = (answer: DecodedImages): ImageModelV4ProviderMetadata => {
  const shared: JSONObject = {}
  if (answer.size !== undefined) shared.size = answer.size
  if (answer.quality !== undefined) shared.quality = answer.quality
  if (answer.background !== undefined) shared.background = answer.background
  if (answer.output_format !== undefined) shared.outputFormat = answer.output_format
  return {
    [providerKey]: {
      images: answer.images.map((image) =>
        image.revisedPrompt === undefined ? { ...shared } : { revisedPrompt: image.revisedPrompt, ...shared }
      )
    }
  }
}

/**
 * The image model of `modelId`. `providerOptions.umg` holds fields of the images body (`image_size`,
 * `mime_type`, `quality`, …); `providerMetadata.umg.images` says, per image, what the answer said of it.
 * @category constructors
 */
export const makeImageModel = (ctx: LanguageModelContext, modelId: string): ImageModelV4 => ({
  specificationVersion: "v4",
  provider: `${ctx.provider}.images`,
  modelId,
  maxImagesPerCall: undefined,
  doGenerate: async (options: ImageCallOptions) => {
    const warnings: Array<SharedV4Warning> = []
    if (options.size !== undefined)
      warnings.push({
        type: "unsupported",
        feature: "size",
        details: "the gateway takes an aspectRatio (16:9, 1:1, …)"
      })
    if (options.seed !== undefined) warnings.push({ type: "unsupported", feature: "seed" })
    if (options.files !== undefined || options.mask !== undefined)
      warnings.push({ type: "unsupported", feature: "image editing (files, mask)" })
    const prepared = ctx.runtime.prepare(options)
    const body = {
      ...options.providerOptions[providerKey],
      model: modelId,
      response_format: "b64_json",
      n: options.n,
      ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
      ...(options.aspectRatio === undefined ? {} : { size: options.aspectRatio })
    }
    const site = { url: `${ctx.baseUrl}/v1/images/generations`, requestBody: body, signal: prepared.signal }
    const answer = await ctx.runtime.run(site, (g) => g.images.generate(body as never, prepared.options))
    const info = prepared.response()
    const usage = answer.usage
    return {
      images: answer.images.map((image) => image.bytes),
      warnings,
      response: { timestamp: new Date(answer.created * 1000), modelId, headers: info?.headers },
      providerMetadata: metadataOf(answer),
      ...(usage === undefined
        ? {}
        : {
            usage: {
              inputTokens: usage.input_tokens,
              outputTokens: usage.output_tokens,
              totalTokens: usage.total_tokens
            }
          })
    }
  }
})
