/** Native-content text and images (zeta, E10): bodies, the response, stream chunks and their accumulator. */
export {
  buildNativeBody,
  NativeBody,
  type NativeBodyInput,
  NativeContentParam,
  NativeGenerationConfig,
  NativeImageConfig,
  nativeModalities,
  NativeModel,
  NativeModelClass,
  NativePartParam,
  nativeSafetyThresholds,
  NativeSuffix,
  NativeThinkingConfig,
  NativeTool,
  parseNativeModel
} from "./Native.js"
// `isNativeComplete` is left out: the native group's end-of-stream test, not part of umg's public API.
export {
  accumulateNative,
  finishNative,
  initialNativeSnapshot,
  nativeAccumulator,
  type NativeSnapshot,
  stepNative
} from "./NativeAccumulator.js"
export {
  decodeGenerateContentResponse,
  decodeNativeChunk,
  GenerateContentResponse,
  NativeBlob,
  NativeCandidate,
  NativeChunk,
  NativeContent,
  NativeFunctionCall,
  NativePart,
  NativePromptFeedback,
  NativeStreamError,
  nativeText,
  NativeUsageMetadata
} from "./NativeResponse.js"
