/**
 * umg's AI SDK reranking model: `doRerank` over the gateway's rerank (E13), its results checked
 * against the documents sent and ranked by relevance.
 */
import type { RerankingModelV4 } from "@ai-sdk/provider"
import { providerKey } from "./Prompt.js"
import type { LanguageModelContext } from "./LanguageModel.js"

type RerankCallOptions = Parameters<RerankingModelV4["doRerank"]>[0]

/**
 * The reranking model of `modelId`: text documents as they are, object documents as the gateway
 * takes them (each with a `text`).
 * @category constructors
 */
export const makeRerankingModel = (ctx: LanguageModelContext, modelId: string): RerankingModelV4 => ({
  specificationVersion: "v4",
  provider: `${ctx.provider}.rerank`,
  modelId,
  doRerank: async (options: RerankCallOptions) => {
    const prepared = ctx.runtime.prepare(options)
    const body = {
      ...options.providerOptions?.[providerKey],
      model: modelId,
      query: options.query,
      documents: options.documents.values,
      ...(options.topN === undefined ? {} : { top_n: options.topN })
    }
    const site = { url: `${ctx.baseUrl}/v1/rerank`, requestBody: body, signal: prepared.signal }
    const answer = await ctx.runtime.run(site, (g) => g.rerank.create(body as never, prepared.options))
    const info = prepared.response()
    return {
      ranking: [...answer.results]
        .sort((a, b) => b.relevance_score - a.relevance_score)
        .map((r) => ({ index: r.index, relevanceScore: r.relevance_score })),
      response: {
        ...(answer.model === undefined ? {} : { modelId: answer.model }),
        ...(info === undefined ? {} : { headers: { ...info.headers } }),
        body: answer
      }
    }
  }
})
