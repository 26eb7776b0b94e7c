/** OpenAI-style chat completions (E16): bodies, the response, stream chunks and their accumulator. */
export {
  accumulateChat,
  chatAccumulator,
  type ChatSnapshot,
  finishChat,
  initialChatSnapshot,
  stepChat
} from "./ChatAccumulator.js"
export * from "./ChatBody.js"
export {
  ChatChoice,
  ChatChunkChoice,
  ChatChunkEvent,
  ChatCompletion,
  ChatCompletionChunk,
  ChatDelta,
  ChatDoneEvent,
  ChatErrorEvent,
  ChatMessage,
  ChatStreamError,
  ChatStreamEvent,
  ChatToolCall,
  ChatToolCallDelta,
  ChatUsage,
  decodeChatCompletion,
  decodeChatEvent
} from "./ChatResponse.js"
