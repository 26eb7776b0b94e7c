/**
 * umg's AI SDK embedding model: `doEmbed` over `embeddings.embedMany`. The gateway takes one text per
 * request; `embedMany` validates every text first, keeps a bounded concurrency that backs off on
 * 429s, and gives the vectors in input order, with the input tokens its requests reported.
 */
import type { EmbeddingModelV4, EmbeddingModelV4CallOptions, EmbeddingModelV4Result } from "@ai-sdk/provider"
import type { EmbedManyOptions } from "../adapters/groups/Embeddings.js"
import { embeddingUsage } from "../ai/text/EmbeddingUsage.js"
import { providerKey } from "./Prompt.js"
import type { LanguageModelContext } from "./LanguageModel.js"

/** The most texts one `doEmbed` call takes; the AI SDK splits larger batches. @category constants */
export const maxEmbeddingsPerCall = 2048

/**
 * The embedding model of `modelId`. `providerOptions.umg` holds fields of the embeddings body
 * (`encoding_format`, `user`) and `embedMany`'s own (`concurrency`, `maxRateLimitRetries`).
 * @category constructors
 */
export const makeEmbeddingModel = (ctx: LanguageModelContext, modelId: string): EmbeddingModelV4 => ({
  specificationVersion: "v4",
  provider: `${ctx.provider}.embeddings`,
  modelId,
  maxEmbeddingsPerCall,
  // embedMany already sends the texts concurrently, within its own bound.
  supportsParallelCalls: false,
  doEmbed: async (options: EmbeddingModelV4CallOptions): Promise<EmbeddingModelV4Result> => {
    const prepared = ctx.runtime.prepare(options)
    const body = {
      ...options.providerOptions?.[providerKey],
      model: modelId,
      inputs: options.values,
      ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions })
    }
    const site = { url: `${ctx.baseUrl}/v1/embeddings`, requestBody: body, signal: prepared.signal }
    const usage = embeddingUsage()
    const vectors = await ctx.runtime.run(site, (g) =>
      g.embeddings.embedMany({ ...(body as EmbedManyOptions), onEvent: usage.onEvent }, prepared.options)
    )
    const info = prepared.response()
    const tokens = usage.inputTokens()
    return {
      embeddings: vectors.map((v) => Array.from(v)),
      ...(tokens === undefined ? {} : { usage: { tokens } }),
      warnings: [],
      ...(info === undefined ? {} : { response: { headers: { ...info.headers } } })
    }
  }
})
