/**
 * The public surface, pinned: each entry point's runtime exports by exact name, and the members of the
 * namespaces they export. An export added by accident (an internal reached through an `export *`) fails
 * here instead of becoming API. Changing a list is a decision about the public API: document the name
 * (README, docs/ARCHITECTURE.md "Public entry points") and say it in the CHANGELOG. Types are not
 * listed (they leave no trace at run time); tsc and the README samples (test/readme) check what
 * users write.
 */
import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { Gateway } from "../src/adapters/Gateway.js"
import * as batch from "../src/batch/index.js"
import * as core from "../src/core/index.js"
import * as emulator from "../src/emulator/index.js"
import * as umg from "../src/index.js"
import * as rx from "../src/streams/index.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

const namesOf = (module: object): Array<string> => Object.keys(module).sort()

/** Each entry point's runtime exports; `umg`'s are listed beside the core it re-exports whole. */
const expected = {
  "umg": [
    "Gateway", "GatewayConfig", "runToFinal"
  ],
  "umg/core": [
    "AlphaBody", "AnyShootAdvancedBody", "AnyShootAdvancedResponse", "AnyShootEasyBody", "AnyShootEasyResponse", "AnyShootPart", "AssistantContent",
    "AuthenticationError", "BadRequest", "BetaBody", "BodyShape", "Capability", "ChatBody", "ChatChoice", "ChatChunkChoice", "ChatChunkEvent",
    "ChatCompletion", "ChatCompletionChunk", "ChatDelta", "ChatDoneEvent", "ChatErrorEvent", "ChatMessage", "ChatMessageParam", "ChatRoles",
    "ChatStreamError", "ChatStreamEvent", "ChatToolCall", "ChatToolCallDelta", "ChatUsage", "ContentBlockParam", "CountTokensBody",
    "CountTokensErrorEnvelope", "CountTokensInvalidToken", "DecodeError", "DeltaBody", "DeltaContentItem", "DeltaImageItem", "DeltaTextItem",
    "DocumentBlockParam", "EmbeddingItem", "EmbeddingsBody", "EmbeddingsResponse", "EncodingFormat", "GammaBody", "GenerateContentResponse",
    "ImageBlockParam", "ImagesBody", "ImagesResponse", "ImagesResponseItem", "IncompleteStream", "InvalidRequest", "LiveBlob", "LiveClientContent",
    "LiveGenerationConfig", "LivePart", "LiveRealtimeInput", "LiveResponseModalities", "LiveServerContent", "LiveServerMessage", "LiveSetup",
    "LiveSetupMessage", "LiveToolResponse", "MarkerFlags", "Message", "MessageParam", "MessagesBody", "MessagesCacheControl",
    "MessagesCitationsDelta", "MessagesContentBlock", "MessagesContentBlockDelta", "MessagesContentBlockStart", "MessagesContentBlockStop",
    "MessagesDelta", "MessagesDeltaUsage", "MessagesErrorEnvelope", "MessagesErrorEvent", "MessagesEvent", "MessagesImageMediaTypes",
    "MessagesInputJsonDelta", "MessagesMessageDelta", "MessagesMessageStart", "MessagesMessageStop", "MessagesModelList", "MessagesOpaqueBlock",
    "MessagesOpaqueDelta", "MessagesPing", "MessagesRedactedThinkingBlock", "MessagesSignatureDelta", "MessagesTextBlock", "MessagesTextDelta",
    "MessagesThinkingBlock", "MessagesThinkingConfig", "MessagesThinkingDelta", "MessagesTool", "MessagesToolChoice", "MessagesToolUseBlock",
    "MessagesUnknownEvent", "MessagesUsage", "ModelNotAvailable", "ModelRecord", "NativeBlob", "NativeBody", "NativeCandidate", "NativeChunk",
    "NativeContent", "NativeContentParam", "NativeErrorEnvelope", "NativeFunctionCall", "NativeGenerationConfig", "NativeImageConfig", "NativeModel",
    "NativeModelClass", "NativeModelList", "NativePart", "NativePartParam", "NativePromptFeedback", "NativeStreamError", "NativeSuffix",
    "NativeThinkingConfig", "NativeTool", "NativeUsageMetadata", "NotFound", "OpenAiErrorEnvelope", "OpenAiModelList", "PermissionDenied",
    "PlatformCredentials", "PlatformEnvelope", "PlatformError", "PlatformErrorEnvelope", "PlatformTextToVideoBody", "PlatformTextToVideoResponse",
    "PlatformTokenResponse", "RateLimited", "RealtimeAudioDoneEvent", "RealtimeAudioV2", "RealtimeDeltaEvent", "RealtimeErrorEvent",
    "RealtimeModalitiesV1", "RealtimeOtherEvent", "RealtimeOutputModalitiesV2", "RealtimeResponseEvent", "RealtimeServerEvent",
    "RealtimeSessionEvent", "RealtimeSessionUpdate", "RealtimeSessionV1", "RealtimeSessionV2", "RealtimeTextDoneEvent",
    "RealtimeTranscriptDoneEvent", "RedactedThinkingBlockParam", "RerankBody", "RerankDocument", "RerankResponse", "RerankResult", "ResponsesBody",
    "ResponsesCompleted", "ResponsesContentPart", "ResponsesContentPartAdded", "ResponsesContentPartDone", "ResponsesCreated", "ResponsesDoneEvent",
    "ResponsesErrorEvent", "ResponsesEvent", "ResponsesFailed", "ResponsesFunctionCallArgumentsDelta", "ResponsesFunctionCallArgumentsDone",
    "ResponsesFunctionCallItem", "ResponsesInProgress", "ResponsesIncomplete", "ResponsesInputItem", "ResponsesMessageItem", "ResponsesOutputItem",
    "ResponsesOutputItemAdded", "ResponsesOutputItemDone", "ResponsesOutputText", "ResponsesOutputTextDelta", "ResponsesOutputTextDone",
    "ResponsesQueued", "ResponsesReasoningItem", "ResponsesReasoningSummaryPartAdded", "ResponsesReasoningSummaryTextDelta",
    "ResponsesReasoningSummaryTextDone", "ResponsesRefusal", "ResponsesRefusalDelta", "ResponsesRefusalDone", "ResponsesResponse", "ResponsesRoles",
    "ResponsesSummaryPart", "ResponsesUnknownEvent", "ResponsesUsage", "RetryPolicy", "Route", "ServerError", "SpeechBody", "SseBufferOverflow",
    "TextBlockParam", "ThinkingBlockParam", "TimeoutError", "ToolResultBlockParam", "ToolResultContentBlock", "ToolUseBlockParam", "TransportError",
    "UpstreamError", "VideoAudio", "VideoBody", "VideoCatalog", "VideoDownloadResult", "VideoErrorEnvelope", "VideoFamily", "VideoMode",
    "VideoModelLimits", "VideoQueryResponse", "VideoSubmitResponse", "VideoTaskError", "VideoTaskFailed", "VideoTaskStatus", "accumulateChat",
    "accumulateMessages", "accumulateNative", "accumulateResponses", "alphaSizes", "anyShootAdvancedFields", "appendToolRound",
    "betaPersonGeneration", "buildAlphaBody", "buildAnyShootAdvancedBody", "buildAnyShootEasyBody", "buildBetaBody", "buildChatBody",
    "buildCountTokensBody", "buildDeltaBody", "buildEmbeddingsBody", "buildGammaBody", "buildImagesBody", "buildLiveSetup", "buildMessagesBody",
    "buildNativeBody", "buildPlatformCredentials", "buildPlatformTextToVideoBody", "buildRerankBody", "buildResponsesBody", "buildSessionUpdate",
    "buildSpeechBody", "buildVideoBody", "chatAccumulator", "checkPollSettings", "createSseParser", "decodeChatCompletion", "decodeChatEvent",
    "decodeEmbeddings", "decodeGenerateContentResponse", "decodeImages", "decodeLiveServerMessage", "decodeMessage", "decodeMessagesEvent",
    "decodeModelList", "decodeNativeChunk", "decodeRealtimeServerEvent", "decodeRerank", "decodeResponsesEvent", "decodeResponsesResponse",
    "decodeVideoDownload", "defaultMaxJsonDepth", "defaultRouteCatalog", "defaultSseMaxBufferSize", "defaultVideoCatalog", "deltaImageRoles",
    "embeddingModelOf", "embeddingModels", "embeddingSizes", "encodeEmbeddingBase64", "extendRouteCatalog", "finishChat", "finishMessages",
    "finishNative", "finishResponses", "float32FromLittleEndian", "gammaMaxSeed", "gammaSizes", "imageModels", "imageSizes", "initialChatSnapshot",
    "initialMessagesSnapshot", "initialNativeSnapshot", "initialResponsesSnapshot", "isKnownModel", "isMessagesBlock", "isResponsesItem",
    "isVideoTaskFinal", "knownModels", "liveAudioChunks", "liveModalities", "liveText", "lookupVideoModel", "makeSseParser", "makeVideoCatalog",
    "markerFrameRates", "markerRatios", "markerResolutions", "mergeMarkerFlags", "messageText", "messagesAccumulator", "modelOwnerOf",
    "nativeAccumulator", "nativeModalities", "nativeSafetyThresholds", "nativeText", "parseMarkerFlags", "parseNativeModel",
    "platformVideoDurations", "pollingRule", "realtimeAudioDelta", "realtimeModels", "realtimeStyles", "realtimeTextDelta",
    "realtimeTranscriptDelta", "realtimeVersion", "renderMarkerFlags", "responsesAccumulator", "responsesOutputText", "routeFor",
    "routeForCapability", "speechContentType", "speechContentTypes", "speechFormatOf", "speechFormats", "speechVoices", "stepChat", "stepMessages",
    "stepNative", "stepResponses", "tokenFamilyOf", "tokenText", "tokenThinking", "validateLiveClientMessage", "validateRealtimeClientEvent",
    "videoAspectRatios", "videoBodySchemas", "videoFamilyDefaults", "videoFamilyFields", "videoFamilyOf", "videoGenericFields", "videoModeFields",
    "videoModelIds", "videoModels", "videoResolutions", "withVideoModels"
  ],
  "umg/rx": [
    "GatewayDisposed", "accumulateMessage", "batchObservables", "createGateway", "mapConcurrent", "pollTask$", "progressOf", "textDeltas", "textOf",
    "thinkingDeltas", "thinkingOf", "tokenFamilyOf", "toolCalls", "videoProgress"
  ],
  "umg/batch": [
    "Batch", "BatchInvalidInput", "BatchMismatch", "BatchNotFound", "BatchStoreError"
  ],
  "umg/emulator": [
    "DEFAULT_KEY", "RESTRICTED_KEY", "startEmulator"
  ]
} as const

/** The members of the namespaces the entry points export. */
const namespaces = {
  GatewayConfig: [
    "EnvProblem", "envIntegers", "envProblem", "envProblemOf", "envSettings", "fromEnv", "make"
  ],
  RetryPolicy: [
    "backoffMs", "decide", "decideError", "defaultRetryBudget", "errorProvesNotActed", "failureOfError", "isRetryableStatus", "isTransientError",
    "permanentErrorTypes", "provesNotActed", "retrying", "serverDelayMs"
  ],
  Batch: [
    "BatchInvalidInput", "BatchMismatch", "BatchNotFound", "BatchStoreError", "Batches", "LineStates", "attach", "defaultSqlitePath",
    "describeStore", "digestOf", "layer", "postgres", "readStatus", "sqlite", "status", "storeOf", "video", "worker"
  ],

} as const

const modules = { "umg/core": core, "umg/rx": rx, "umg/batch": batch, "umg/emulator": emulator } as const

describe("the public entry points", () => {
  it("are the package's entry points, each pointing at its source in the umg-source condition", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> }
    const sources = Object.fromEntries(
      Object.entries(pkg.exports)
        .filter(([key]) => key !== "./package.json")
        .map(([key, target]) => [key === "." ? "umg" : `umg/${key.slice(2)}`, (target as { "umg-source": string })["umg-source"]])
    )
    expect(sources).toEqual({
      umg: "./src/index.ts",
      "umg/core": "./src/core/index.ts",
      "umg/rx": "./src/streams/index.ts",
      "umg/batch": "./src/batch/index.ts",
      "umg/emulator": "./src/emulator/index.ts"
    })
  })

  for (const [entry, module] of Object.entries(modules)) {
    it(`${entry} exports exactly its documented names`, () => {
      expect(namesOf(module)).toEqual(expected[entry as keyof typeof modules])
    })
  }

  it("umg exports the core, the same objects and nothing of it left out, plus the Gateway, its config and runToFinal", () => {
    expect(namesOf(umg)).toEqual([...expected["umg/core"], ...expected.umg].sort())
    const reexported = umg as unknown as Record<string, unknown>
    const own = core as unknown as Record<string, unknown>
    for (const name of expected["umg/core"]) expect(reexported[name], name).toBe(own[name])
  })

  it("umg's Gateway is the adapters' service, with its layers", () => {
    expect(umg.Gateway).toBe(Gateway)
    expect(umg.Gateway.key).toBe("umg/Gateway")
    expect(typeof umg.Gateway.layer).toBe("function")
    expect(Object.keys(umg.Gateway)).toContain("layerFromEnv")
  })

  it("the namespaces hold exactly their documented members", () => {
    expect(namesOf(umg.GatewayConfig)).toEqual(namespaces.GatewayConfig)
    expect(namesOf(core.RetryPolicy)).toEqual(namespaces.RetryPolicy)
    expect(umg.RetryPolicy).toBe(core.RetryPolicy)
    expect(namesOf(batch.Batch)).toEqual(namespaces.Batch)
  })

  it("umg/batch's errors are the Batch namespace's own classes", () => {
    for (const name of ["BatchInvalidInput", "BatchMismatch", "BatchNotFound", "BatchStoreError"] as const) expect(batch[name], name).toBe(batch.Batch[name])
  })
})
