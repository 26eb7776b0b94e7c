/**
 * `umg/ai`: umg as an Effect AI provider (Effect 4's `effect/ai`). `UmgLanguageModel.layer({ model })`
 * provides `LanguageModel` for every text family umg routes to, `UmgEmbeddingModel.layer({ model })`
 * provides `EmbeddingModel`; both require umg's `Gateway`.
 */
export * as UmgLanguageModel from "./UmgLanguageModel.js"
export * as UmgEmbeddingModel from "./UmgEmbeddingModel.js"
export { reasonOf, toAiError, type UmgFailure } from "./AiErrors.js"
export { providerKey, type UmgModelConfig } from "./ProviderRequest.js"
export type { ReasoningEffort } from "./text/TextRequest.js"
