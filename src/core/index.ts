/**
 * `umg/core`: the pure core. Schemas, builders and validators of every body, the model catalog and
 * routing, the SSE parser, stream accumulators and typed errors. Imports `effect` only.
 * One folder per capability, each index naming what it makes public (test/Exports.test.ts pins the
 * list). The machinery the builders and transports share (validation rules, JSON safety, error
 * classification, redaction) stays internal: the rest of umg imports it from its module.
 */
export * from "./errors/index.js"
// Of wire/ and validation/, only these names are public; the rest of them is that machinery.
export type { WithExtra } from "./validation/Closed.js"
export { type ByteText, portableByteText, type Utf8Decode } from "./wire/ByteText.js"
export {
  createSseParser,
  defaultSseMaxBufferSize,
  makeSseParser,
  SseBufferOverflow,
  type SseCallbackParser,
  type SseEvent,
  type SseHandlers,
  type SseLimits,
  type SseParser,
  type SseParserOptions
} from "./wire/Sse.js"
export {
  CountTokensErrorEnvelope,
  CountTokensInvalidToken,
  MessagesErrorEnvelope,
  NativeErrorEnvelope,
  OpenAiErrorEnvelope,
  PlatformErrorEnvelope,
  VideoErrorEnvelope
} from "./wire/ErrorEnvelope.js"
export { defaultMaxJsonDepth } from "./wire/JsonSafety.js"
export { useParserCompiler, type ParserCompiler } from "./validation/ParserCompiler.js"
export {
  makePartialJson,
  parsePartialJson,
  PartialJsonError,
  type PartialJson,
  type PartialJsonLimits,
  type PartialJsonResult
} from "./wire/PartialJson.js"
export type { DecodeOptions, OpaqueTagged, SseRecord } from "./wire/WireJson.js"
export * from "./gateway/index.js"
export * from "./text/index.js"
export * from "./media/index.js"
export * from "./realtime/index.js"
export * from "./video/index.js"
export * from "./platform/index.js"
export * from "./structured/index.js"
export * from "./tools/index.js"
export type { ToolCallDelta } from "./text/ToolCallFragments.js"
