/** Messages-style text (epsilon, E8/E9): bodies, the response, stream events and their accumulator. */
export * from "./Messages.js"
export {
  accumulateMessages,
  finishMessages,
  initialMessagesSnapshot,
  type MessagesBlockProgress,
  messagesAccumulator,
  type MessagesSnapshot,
  stepMessages
} from "./MessagesAccumulator.js"
export {
  decodeMessagesEvent,
  isMessagesDelta,
  MessagesCitationsDelta,
  MessagesContentBlockDelta,
  MessagesContentBlockStart,
  MessagesContentBlockStop,
  MessagesDelta,
  MessagesDeltaUsage,
  MessagesErrorEvent,
  MessagesEvent,
  MessagesInputJsonDelta,
  type MessagesKnownDelta,
  MessagesMessageDelta,
  MessagesMessageStart,
  MessagesMessageStop,
  MessagesOpaqueDelta,
  MessagesPing,
  MessagesSignatureDelta,
  MessagesTextDelta,
  MessagesThinkingDelta,
  MessagesUnknownEvent
} from "./MessagesEvents.js"
export * from "./MessagesResponse.js"
