/**
 * `UmgEmbeddingModel`: umg's embeddings as Effect AI's `EmbeddingModel`. `embedMany` goes through
 * the gateway's `embeddings.embedMany` (one text per request, every text validated first, bounded
 * concurrency that backs off on 429s, vectors in input order, usage the input tokens its requests
 * reported); `embed` calls made together are batched by Effect AI's request resolver into one.
 */
import * as EmbeddingModel from "effect/ai/EmbeddingModel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { EmbedManyOptions } from "../adapters/groups/Embeddings.js"
import { Gateway } from "../adapters/Gateway.js"
import { toAiError } from "./AiErrors.js"
import { embeddingUsage } from "./text/EmbeddingUsage.js"

/** The model and the fields of its requests (`dimensions`, `concurrency`, …). @category models */
export type UmgEmbeddingModelOptions = Omit<EmbedManyOptions, "inputs" | "onEvent">

/**
 * The `EmbeddingModel` service of a model, over the `Gateway` in context.
 * @category constructors
 */
export const make = Effect.fnUntraced(function* (options: UmgEmbeddingModelOptions) {
  const gateway = yield* Gateway
  return yield* EmbeddingModel.make({
    embedMany: ({ inputs }) => {
      const usage = embeddingUsage()
      return gateway.embeddings.embedMany({ ...options, inputs, onEvent: usage.onEvent }).pipe(
        Effect.map((vectors) => ({
          results: vectors.map((v) => Array.from(v)),
          usage: { inputTokens: usage.inputTokens() }
        })),
        Effect.mapError((error) => toAiError(error, "UmgEmbeddingModel", "embedMany", "/v1/embeddings"))
      )
    }
  })
})

/**
 * A layer of `EmbeddingModel` for a model, over the `Gateway` in context.
 * @category layers
 */
export const layer = (options: UmgEmbeddingModelOptions): Layer.Layer<EmbeddingModel.EmbeddingModel, never, Gateway> =>
  Layer.effect(EmbeddingModel.EmbeddingModel, make(options))
