/**
 * `umg`: the Effect face of the Unified Model Gateway client — the `Gateway` service, its config and
 * the types of its calls — and, re-exported, the pure core.
 */
export * from "./core/index.js"
export { Gateway, type GatewayService } from "./adapters/Gateway.js"
export { runToFinal, type ResultStream } from "./adapters/sse/Consume.js"
export {
  type CallOptions,
  type RateLimitInfo,
  type RateLimitWindow,
  type ResponseInfo,
  withResponse,
  type WithResponse
} from "./adapters/CallOptions.js"
export type { ParseOptions, Parsed, StructuredError, StructuredEvent } from "./adapters/structured/Parse.js"
export type { RunToolsConfig, RunToolsError, RunToolsMethod, RunToolsOutputError } from "./adapters/tools/RunTools.js"
export type { OutputError } from "./adapters/tools/ToolOutput.js"
export { toolCallDeltas } from "./adapters/text/ToolCallDeltas.js"
export * as GatewayConfig from "./adapters/GatewayConfig.js"
export type { GatewayConfigInput, NativeAuth } from "./adapters/GatewayConfig.js"
export type { ProxyOptions, ProxySetting } from "./adapters/http/ProxySetting.js"
export type { Limits, LimitsInput } from "./adapters/internal/Limits.js"
export type { SocketLike, SocketOpener, WebSocketSession } from "./adapters/socket/WebSocketSession.js"
export type { RefusedAnswer } from "./adapters/socket/RefusedUpgrade.js"
export type { ChatCalls, ChatGroup } from "./adapters/groups/Chat.js"
export type { EmbeddingsGroup, EmbedManyEvent, EmbedManyOptions } from "./adapters/groups/Embeddings.js"
export type { ImagesGroup } from "./adapters/groups/Images.js"
export type { LiveClientMessage, LiveConnectOptions, LiveGroup, LiveSession } from "./adapters/groups/Live.js"
export type { MessagesCalls, MessagesGroup, TokenCount } from "./adapters/groups/Messages.js"
export type { ListModelsOptions, ModelsGroup } from "./adapters/groups/Models.js"
export type { NativeCalls, NativeGroup, NativeRequest } from "./adapters/groups/Native.js"
export type { PlatformGroup } from "./adapters/groups/Platform.js"
export type {
  RealtimeClientEvent,
  RealtimeConnectOptions,
  RealtimeGroup,
  RealtimeSession
} from "./adapters/groups/Realtime.js"
export type { RerankGroup } from "./adapters/groups/Rerank.js"
export type { ResponsesCalls, ResponsesGroup } from "./adapters/groups/Responses.js"
export type { SpeechAudio, SpeechGroup } from "./adapters/groups/Speech.js"
export type {
  GeneratedVideo,
  GenerateOptions,
  PollOptions,
  VideoGroup,
  VideoInput,
  VideoPollUpdate,
  WaitOptions
} from "./adapters/groups/Video.js"
