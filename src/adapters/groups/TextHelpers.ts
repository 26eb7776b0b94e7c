/**
 * The text groups' structured output (`parse`, `parseStream`) and tool loop (`runTools`): the module a
 * text group's `withHelpers` has `LoadedOnUse.textHelpers` bring on the group's first helper call.
 */
export {
  chatParse,
  chatParseStream,
  messagesParse,
  messagesParseStream,
  nativeParse,
  nativeParseStream,
  responsesParse,
  responsesParseStream
} from "../structured/Parse.js"
export { chatRunTools, messagesRunTools, nativeRunTools, responsesRunTools } from "../tools/RunTools.js"
