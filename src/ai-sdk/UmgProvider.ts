/**
 * `createUmg(settings)`: umg as an AI SDK provider (provider specification v4). One provider instance
 * holds one `Gateway` runtime; its language models route each model id to the family umg routes it to,
 * beside embedding, image, speech and reranking models. Retries are umg's (`maxRetries` here): the
 * errors it gives are not retryable, so the AI SDK's own retries never repeat them.
 */
import type {
  EmbeddingModelV4,
  ImageModelV4,
  LanguageModelV4,
  ProviderV4,
  RerankingModelV4,
  SpeechModelV4
} from "@ai-sdk/provider"
import { LoadAPIKeyError, LoadSettingError, NoSuchModelError } from "@ai-sdk/provider"
import { type Redacted, Result } from "effect"
import type { GatewayConfigInput } from "../adapters/GatewayConfig.js"
import { textFamilyOf } from "../ai/text/TextCall.js"
import type { Capability } from "../core/gateway/Catalog.js"
import { routeForCapability } from "../core/gateway/Routing.js"
import { makeEmbeddingModel } from "./EmbeddingModel.js"
import { makeImageModel } from "./ImageModel.js"
import { type LanguageModelContext, makeLanguageModel } from "./LanguageModel.js"
import { makeProviderRuntime } from "./ProviderRuntime.js"
import { makeRerankingModel } from "./RerankingModel.js"
import { makeSpeechModel } from "./SpeechModel.js"

/**
 * The provider's settings: the gateway's address and key (AI SDK style names), and any setting of
 * umg's `Gateway.layer` (`maxRetries`, `timeoutMs`, `headers`, `httpClient`, `allowUnknownModels`, …).
 * @category models
 */
export interface UmgProviderSettings extends Omit<GatewayConfigInput, "baseUrl" | "apiKey"> {
  /** The gateway's `{base_url}`; a trailing `/v1` is dropped (umg adds each endpoint's path). Default: `UMG_BASE_URL`. */
  readonly baseURL?: string | undefined
  /** The gateway key. Default: `UMG_API_KEY`. */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /** The provider's name in the models' `provider` (`umg.chat`, …). Default `umg`. */
  readonly name?: string | undefined
}

/** umg as an AI SDK provider: call it with a model id for a language model. @category models */
export interface UmgProvider extends ProviderV4 {
  (modelId: string): LanguageModelV4
  languageModel(modelId: string): LanguageModelV4
  embeddingModel(modelId: string): EmbeddingModelV4
  /** The same as `embeddingModel`. */
  textEmbeddingModel(modelId: string): EmbeddingModelV4
  imageModel(modelId: string): ImageModelV4
  speechModel(modelId: string): SpeechModelV4
  rerankingModel(modelId: string): RerankingModelV4
  /** Aborts every call in flight and frees the gateway runtime; calls made afterwards are aborted at once. */
  dispose(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

const env = (name: string): string | undefined =>
  typeof process === "undefined" ? undefined : (process.env[name] ?? undefined)

/** The gateway's base address: without trailing slashes or a trailing `/v1`. @category constructors */
export const gatewayBaseUrl = (url: string): string => url.replace(/\/+$/, "").replace(/\/v1$/, "")

/**
 * Creates the provider. Throws `LoadSettingError` (no base URL) or `LoadAPIKeyError` (no key) when
 * neither the settings nor the environment give one.
 * @category constructors
 */
export const createUmg = (settings: UmgProviderSettings = {}): UmgProvider => {
  const { baseURL, apiKey, name, ...config } = settings
  const base = baseURL ?? env("UMG_BASE_URL")
  const key = apiKey ?? env("UMG_API_KEY")
  if (base === undefined)
    throw new LoadSettingError({ message: "createUmg: baseURL is missing; pass it or set UMG_BASE_URL" })
  if (key === undefined)
    throw new LoadAPIKeyError({ message: "createUmg: apiKey is missing; pass it or set UMG_API_KEY" })
  const baseUrl = gatewayBaseUrl(base)
  const runtime = makeProviderRuntime({ ...config, baseUrl, apiKey: key })
  const ctx: LanguageModelContext = { provider: name ?? "umg", baseUrl, runtime }

  const languageModel = (modelId: string): LanguageModelV4 => {
    const family = textFamilyOf(modelId)
    if (family === undefined)
      throw new NoSuchModelError({
        modelId,
        modelType: "languageModel",
        message: `${modelId} is not a text model: umg routes it to another capability (an embedding, image, speech, rerank or video model)`
      })
    return makeLanguageModel(ctx, modelId, family)
  }
  // A model the catalog lists for another capability is refused when asked for, as `languageModel`
  // refuses a model of no text family; an id it does not know is left to the call (`allowUnknownModels`).
  const served = <M>(
    modelId: string,
    capability: Capability,
    modelType: NoSuchModelError["modelType"],
    make: () => M
  ): M => {
    const route = routeForCapability(modelId, capability)
    if (Result.isFailure(route) && route.failure.rule === "route")
      throw new NoSuchModelError({ modelId, modelType, message: route.failure.message })
    return make()
  }
  const embeddingModel = (modelId: string) =>
    served(modelId, "embeddings", "embeddingModel", () => makeEmbeddingModel(ctx, modelId))
  const provider = Object.assign((modelId: string) => languageModel(modelId), {
    specificationVersion: "v4" as const,
    languageModel,
    embeddingModel,
    textEmbeddingModel: embeddingModel,
    imageModel: (modelId: string) => served(modelId, "images", "imageModel", () => makeImageModel(ctx, modelId)),
    speechModel: (modelId: string) => served(modelId, "speech", "speechModel", () => makeSpeechModel(ctx, modelId)),
    rerankingModel: (modelId: string) =>
      served(modelId, "rerank", "rerankingModel", () => makeRerankingModel(ctx, modelId)),
    dispose: runtime.dispose,
    [Symbol.asyncDispose]: runtime.dispose
  })
  return provider
}
