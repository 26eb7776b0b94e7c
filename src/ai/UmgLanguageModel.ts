/**
 * `UmgLanguageModel`: umg as an Effect AI provider. `layer({ model })` provides `LanguageModel` for
 * any text model umg routes (messages-style, chat, responses, native content) over umg's `Gateway` —
 * its validation before sending, its one retry policy, its typed errors mapped to `AiError` — so a
 * program written against `LanguageModel` runs unchanged, and composes with `ExecutionPlan` fallbacks.
 */
import * as LanguageModel from "effect/ai/LanguageModel"
import * as AiModel from "effect/ai/Model"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Gateway, type GatewayService } from "../adapters/Gateway.js"
import { languageModelHooks } from "./LanguageModelHooks.js"
import type { UmgModelConfig } from "./ProviderRequest.js"

/**
 * The model's settings for the calls made within an effect, laid over the layer's `config` (see
 * `withConfigOverride`).
 * @category services
 */
export class Config extends Context.Service<Config, UmgModelConfig>()("umg/ai/UmgLanguageModel/Config") {}

/** `effect` with the model's settings changed for the calls it makes. @category combinators */
export const withConfigOverride =
  (overrides: UmgModelConfig) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Config>> =>
    Effect.flatMap(Effect.serviceOption(Config), (current) =>
      Effect.provideService(effect, Config, { ...Option.getOrUndefined(current), ...overrides })
    )

/** What the model is made of. @category models */
export interface UmgLanguageModelOptions {
  readonly model: string
  readonly config?: UmgModelConfig | undefined
}

/**
 * The `LanguageModel` service of a model, over the `Gateway` in context.
 * @category constructors
 */
export const make = Effect.fnUntraced(function* (options: UmgLanguageModelOptions) {
  const gateway: GatewayService = yield* Gateway
  const configOf = Effect.map(Effect.serviceOption(Config), (o) => ({ ...options.config, ...Option.getOrUndefined(o) }))
  return yield* LanguageModel.make(languageModelHooks(gateway, options.model, configOf))
})

/**
 * A layer of `LanguageModel` for a model, over the `Gateway` in context:
 * `UmgLanguageModel.layer({ model: "epsilon-sonnet-4-5" }).pipe(Layer.provide(Gateway.layerFromEnv))`.
 * @category layers
 */
export const layer = (options: UmgLanguageModelOptions): Layer.Layer<LanguageModel.LanguageModel, never, Gateway> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model as an Effect AI `Model` (provider `umg`): a layer that also names the provider and model,
 * for `ExecutionPlan` steps and `Effect.withExecutionPlan`.
 * @category constructors
 */
export const model = (
  model: string,
  config?: UmgModelConfig
): AiModel.Model<"umg", LanguageModel.LanguageModel, Gateway> => AiModel.make("umg", model, layer({ model, config }))
