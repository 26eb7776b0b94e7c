/**
 * The `Gateway` service: every endpoint of the Unified Model Gateway grouped by capability, each
 * call validating its body with the core before sending it over the shared HTTP transport.
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import type { HttpClient } from "effect/http"
import * as GatewayConfig from "./GatewayConfig.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import * as GroupContext from "./internal/GroupContext.js"
import { secretsOf } from "./internal/Secrets.js"
import { traceGroup as traced } from "./internal/Telemetry.js"
import * as HttpTransport from "./http/HttpTransport.js"
// The platform picks the socket opener: package.json `imports` maps `#umg/socket` to the Node `ws`
// opener by default and to the browser's own WebSocket under the `browser` condition.
import { defaultSocketOpener, defaultSocketOpenerWith } from "#umg/socket"
import * as PlatformToken from "./http/PlatformToken.js"
import * as Chat from "./groups/Chat.js"
import * as Embeddings from "./groups/Embeddings.js"
import * as Images from "./groups/Images.js"
import type * as Live from "./groups/Live.js"
import * as LoadedOnUse from "./groups/LoadedOnUse.js"
import { loadOnUse } from "./internal/LoadOnUse.js"
// The platform picks how the deferred groups' modules come: imported now on Node, on first use in browsers.
import { groupModules } from "#umg/group-modules"
import * as Messages from "./groups/Messages.js"
import * as Models from "./groups/Models.js"
import * as Native from "./groups/Native.js"
import * as Platform from "./groups/Platform.js"
import type * as Realtime from "./groups/Realtime.js"
import * as Rerank from "./groups/Rerank.js"
import * as Responses from "./groups/Responses.js"
import * as Speech from "./groups/Speech.js"
import type * as Video from "./groups/Video.js"
import { useParserCompiler } from "../core/validation/ParserCompiler.js"
import { platformParserCompiler } from "#umg/schema-jit"

// The platform's Schema parser compiler (Effect's JIT compiler outside browsers, none in them), chosen
// here, when the service's module loads and before any of its parsers is made.
if (platformParserCompiler !== undefined) useParserCompiler(platformParserCompiler)

/** The calls of the gateway, by capability. @category models */
export interface GatewayService {
  readonly models: Models.ModelsGroup
  readonly messages: Messages.MessagesGroup
  readonly native: Native.NativeGroup
  readonly chat: Chat.ChatGroup
  readonly responses: Responses.ResponsesGroup
  readonly embeddings: Embeddings.EmbeddingsGroup
  readonly rerank: Rerank.RerankGroup
  readonly speech: Speech.SpeechGroup
  readonly images: Images.ImagesGroup
  readonly video: Video.VideoGroup
  readonly realtime: Realtime.RealtimeGroup
  readonly live: Live.LiveGroup
  readonly platform: Platform.PlatformGroup
}

/**
 * Builds the service from resolved settings over the `HttpClient` of the context. Made in a scope
 * (a layer's), the video polls still running when it closes are stopped then (interrupted).
 * @category constructors
 */
export const makeWithHttpClient = (
  config: GatewayConfig.GatewayConfig
): Effect.Effect<GatewayService, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const transport = yield* HttpTransport.fromContext(config)
    // What the groups hold outside any call ends with the scope the service is made in (a layer's).
    const lifetime = GroupContext.makeLifetime()
    const scope = yield* Effect.serviceOption(Scope.Scope)
    if (Option.isSome(scope)) yield* Scope.addFinalizer(scope.value, Effect.sync(lifetime.close))
    const ctx = GroupContext.make(config, transport, lifetime.onClose)
    const tokens = yield* PlatformToken.make(config, transport)
    const open = Option.getOrElse(config.webSocket, () =>
      config.proxy === undefined ? defaultSocketOpener : defaultSocketOpenerWith(config.proxy)
    )
    // What no call's error may show, whatever way it reached the error: read when a call fails.
    const configured = secretsOf(config)
    const secrets = () => [...configured, ...tokens.secrets()]
    const traceGroup = <G extends object>(group: string, calls: G): G => traced(group, calls, secrets)
    return {
      models: traceGroup("models", yield* Models.make(ctx)),
      messages: Messages.withHelpers(traceGroup("messages", Messages.make(ctx))),
      native: Native.withHelpers(traceGroup("native", Native.make(ctx))),
      chat: Chat.withHelpers(traceGroup("chat", Chat.make(ctx))),
      responses: Responses.withHelpers(traceGroup("responses", Responses.make(ctx))),
      embeddings: traceGroup("embeddings", Embeddings.make(ctx)),
      rerank: traceGroup("rerank", Rerank.make(ctx)),
      speech: traceGroup("speech", Speech.make(ctx)),
      images: traceGroup("images", Images.make(ctx)),
      // Made on their first call; in browsers their modules load then (a page that only chats ships none).
      video: LoadedOnUse.video(loadOnUse(groupModules.video, (m) => traceGroup("video", m.make(ctx)))),
      realtime: LoadedOnUse.realtime(
        loadOnUse(groupModules.realtime, (m) => traceGroup("realtime", m.make(ctx, open)))
      ),
      live: LoadedOnUse.live(loadOnUse(groupModules.live, (m) => traceGroup("live", m.make(ctx, open)))),
      platform: traceGroup("platform", Platform.make(ctx, tokens))
    }
  })

/**
 * Builds the service from resolved settings over the config's `httpClient` layer, or the
 * platform's default client (umg's Node client; `FetchHttpClient` in browsers) when none is given.
 * The client (its agents, their idle connections, a brought layer's own resources) lives as long as
 * the scope: the layer's, for `Gateway.layer`.
 * @category constructors
 */
export const make = (config: GatewayConfig.GatewayConfig): Effect.Effect<GatewayService, never, Scope.Scope> =>
  Effect.flatMap(Layer.build(HttpTransport.clientLayerOf(config)), (context) =>
    Effect.provideContext(makeWithHttpClient(config), context)
  )

/**
 * A setting read through a `Config` that `GatewayConfig.make` refuses: a `ConfigError` whose cause
 * (a `SourceError`) has the `InvalidRequest` naming it as its cause.
 */
const settingProblem = (error: InvalidRequest): Config.ConfigError =>
  new Config.ConfigError(new ConfigProvider.SourceError({ message: error.message, cause: error }))

/**
 * The resolved settings a `Config` of `layerConfig` gives: settings resolved already (their
 * `platformUrl` an `Option`) as they are, a user's settings through `GatewayConfig.make`. A setting
 * `make` refuses — there, or in a `Config.map(…, GatewayConfig.make)` of the config — is a `ConfigError`.
 */
const resolvedConfig = (
  config: Config.Config<GatewayConfig.GatewayConfigInput | GatewayConfig.GatewayConfig>
): Effect.Effect<GatewayConfig.GatewayConfig, Config.ConfigError> =>
  Effect.catchDefect(
    Effect.flatMap(config, (settings) =>
      Effect.sync(() =>
        Option.isOption(settings.platformUrl)
          ? (settings as GatewayConfig.GatewayConfig)
          : GatewayConfig.make(settings as GatewayConfig.GatewayConfigInput)
      )
    ),
    (defect) => (defect instanceof InvalidRequest ? Effect.fail(settingProblem(defect)) : Effect.die(defect))
  )

/**
 * The gateway client. `Gateway.layer(config)` from settings, `Gateway.layerFromEnv` from the
 * `UMG_*` environment variables.
 * @category services
 */
export class Gateway extends Context.Service<Gateway, GatewayService>()("umg/Gateway") {
  /**
   * A layer from settings (an API key given as a string is wrapped in `Redacted`). Throws
   * `InvalidRequest` naming the setting when one is not allowed: `baseUrl` or `platformUrl` not an
   * http(s) URL, an empty `apiKey`, a number out of its range (`timeoutMs: Infinity`, `maxRetries: -1`,
   * `limits.maxJsonDepth: 100`; see `GatewayConfig.make`).
   */
  static layer(config: GatewayConfig.GatewayConfigInput): Layer.Layer<Gateway> {
    return Layer.effect(Gateway, make(GatewayConfig.make(config)))
  }
  /**
   * A layer from settings that requires an `HttpClient` (like `@effect/ai-openai`'s
   * `OpenAiClient.layer`), so a Node, undici or tracing client can be brought:
   * `Gateway.layerWithoutHttpClient(config).pipe(Layer.provide(FetchHttpClient.layer))`.
   * `Gateway.layer(config)` is this with the platform's default client provided.
   */
  static layerWithoutHttpClient(
    config: GatewayConfig.GatewayConfigInput
  ): Layer.Layer<Gateway, never, HttpClient.HttpClient> {
    return Layer.effect(Gateway, makeWithHttpClient(GatewayConfig.make(config)))
  }
  /**
   * A layer from a `Config` of settings — a user's (`GatewayConfigInput`, checked here) or resolved ones
   * (`GatewayConfig`) — e.g. `Gateway.layerConfig(Config.all({ baseUrl: Config.String("BASE_URL"),
   * apiKey: Config.Redacted("API_KEY") }))`. A setting not allowed (as `GatewayConfig.make` says, also
   * when thrown by a `Config.map(…, GatewayConfig.make)`) fails building with a `ConfigError` naming it.
   */
  static layerConfig(
    config: Config.Config<GatewayConfig.GatewayConfigInput | GatewayConfig.GatewayConfig>
  ): Layer.Layer<Gateway, Config.ConfigError> {
    return Layer.effect(Gateway, Effect.flatMap(resolvedConfig(config), make))
  }
  /**
   * A layer from `UMG_BASE_URL`, `UMG_API_KEY` (required: building fails naming the variable),
   * `UMG_PLATFORM_URL`, `UMG_PLATFORM_USERNAME`, `UMG_PLATFORM_PASSWORD`.
   */
  static readonly layerFromEnv: Layer.Layer<Gateway, Config.ConfigError> = Layer.effect(
    Gateway,
    Effect.flatMap(GatewayConfig.fromEnv, make)
  )
}
