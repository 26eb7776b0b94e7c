/**
 * `umg/rx`: the Observable face of the Unified Model Gateway client — `createGateway(config)` with
 * every call a cold Observable, and the operators for token streams, video polling and batches.
 */
export { createGateway, type Rx, type RxGateway, type RxGatewayConfig, type RxTextHelpers } from "./createGateway.js"
export type { GatewayLogger, RxLogOptions } from "./RxLogging.js"
export type { GatewayLogLevel } from "../core/validation/LogLevelSetting.js"
export type { CallOptions, ResponseInfo } from "../adapters/CallOptions.js"
export { type RxRunTools, type RxRunToolsConfig, type RxToolDefinition, tool, type ToolContext } from "./runTools.js"
export { type ToolCallDelta, toolCallDeltas } from "./toolCallDeltas.js"
export { GatewayDisposed } from "./GatewayDisposed.js"
export { type ObservableError, type TypedObservable } from "./TypedObservable.js"
export type { RxSession, SessionState } from "./RxSession.js"
export { type TokenEvent, type TokenFamily, tokenFamilyOf } from "./TokenEvent.js"
export { textDeltas, textOf } from "./textDeltas.js"
export { thinkingDeltas, thinkingOf } from "./thinkingDeltas.js"
export { type ToolCall, toolCalls } from "./toolCalls.js"
export { accumulateMessage, type SnapshotOf } from "./accumulateMessage.js"
export {
  makePoller,
  type PollableTask,
  type Poller,
  type PollerOptions,
  type PollRequest,
  pollTask$,
  type PollTaskOptions,
  type PollUpdate
} from "./pollTask.js"
export { progressOf, videoProgress, type VideoProgress } from "./videoProgress.js"
export { type RxVideoGroup, type VideoGenerateEvent, type VideoPollOptions } from "./videoGroup.js"
export { mapConcurrent, type MapConcurrentEvent, type MapConcurrentOptions } from "./mapConcurrent.js"
export { type EmbedManyRxOptions } from "./embedMany.js"
export { batchObservables, type BatchLike, type RxBatch } from "./batchObservables.js"
