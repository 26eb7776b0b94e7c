/**
 * A `TextRequest` as a chat-completions body. One message per turn (a `tool` message per result, its
 * text only), tools declared as core/tools does, `reasoning_effort`, and structured output through
 * `response_format` (the family's mechanism); a stream asks for its usage chunk.
 */
import * as Result from "effect/Result"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { chatMechanism } from "../../core/structured/Mechanisms.js"
import type { ChatBodyInput } from "../../core/text/chat/ChatBody.js"
import { chatTools } from "../../core/tools/ChatTools.js"
import { overlayBody } from "./BodyOverlay.js"
import { dropSettings, dropsSampling, fitOpenAiEffort, reasoningChatDropped } from "./Sampling.js"
import type { TextMessage, TextRequest } from "./TextRequest.js"
import {
  type Built,
  type TextWarning,
  declarationOf,
  droppedToolFiles,
  fileSource,
  fileUrl,
  resultText,
  unsupported,
  unsupportedFile
} from "./Turns.js"

type Message = Readonly<Record<string, unknown>>

const AUDIO_FORMATS: Readonly<Record<string, string>> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3"
}

const userMessage = (
  message: Extract<TextMessage, { role: "user" }>,
  index: number
): Result.Result<Message, InvalidRequest> => {
  const texts = message.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))
  if (texts.length === message.parts.length) return Result.succeed({ role: "user", content: texts.join("") })
  const content: Array<Message> = []
  for (const part of message.parts) {
    if (part.type === "text") {
      content.push({ type: "text", text: part.text })
      continue
    }
    const source = fileSource(part)
    const audio = AUDIO_FORMATS[part.mediaType]
    if (part.mediaType.startsWith("image/")) content.push({ type: "image_url", image_url: { url: fileUrl(source) } })
    else if (audio !== undefined && source._tag === "Base64")
      content.push({ type: "input_audio", input_audio: { data: source.data, format: audio } })
    else if (part.mediaType === "application/pdf" && source._tag === "Base64")
      content.push({
        type: "file",
        file: { filename: part.filename ?? `part-${index}.pdf`, file_data: fileUrl(source) }
      })
    else
      return unsupportedFile("a chat model", index, part.mediaType, "image/*, audio/wav, audio/mpeg, application/pdf")
  }
  return Result.succeed({ role: "user", content })
}

const assistantMessage = (message: Extract<TextMessage, { role: "assistant" }>): Message => {
  let text = ""
  const calls: Array<Message> = []
  for (const part of message.parts) {
    if (part.type === "text") text += part.text
    else if (part.type === "tool-call")
      calls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: JSON.stringify(part.input) }
      })
  }
  return calls.length === 0
    ? { role: "assistant", content: text }
    : { role: "assistant", content: text === "" ? null : text, tool_calls: calls }
}

const toolChoiceOf = (request: TextRequest): ChatBodyInput["tool_choice"] => {
  const choice = request.toolChoice
  if (choice === undefined || request.tools.length === 0) return undefined
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.tool } }
}

/**
 * The chat body of a request; `stream` asks for the usage chunk (`stream_options.include_usage`). A
 * reasoning model (`dropsSampling`) is sent no `temperature`, `top_p` or penalties: each is dropped
 * with a warning, as the official provider does.
 * @category constructors
 */
export const chatBody = (asked: TextRequest, stream: boolean): Result.Result<Built<ChatBodyInput>, InvalidRequest> => {
  const reasoning = dropsSampling(asked)
    ? dropSettings(asked, reasoningChatDropped, "for reasoning models")
    : { request: asked, warnings: [] }
  const request = reasoning.request
  // Plain steps, not `Result.gen`: every call to a chat model is built here.
  const messages: Array<Message> = []
  const dropped: Array<TextWarning> = []
  for (let i = 0; i < request.messages.length; i++) {
    const m = request.messages[i]!
    if (m.role === "system") messages.push({ role: "system", content: m.text })
    else if (m.role === "user") {
      const message = userMessage(m, i)
      if (Result.isFailure(message)) return Result.fail(message.failure)
      messages.push(message.success)
    } else if (m.role === "assistant") messages.push(assistantMessage(m))
    else
      for (const r of m.parts) {
        messages.push({ role: "tool", tool_call_id: r.id, content: resultText(r) })
        const warning = droppedToolFiles("a chat model", r)
        if (warning !== undefined) dropped.push(warning)
      }
  }
  const choice = toolChoiceOf(request)
  const fitted = fitOpenAiEffort(request.model, request.reasoning)
  const fields: Record<string, unknown> = { model: request.model, messages }
  if (request.maxOutputTokens !== undefined) fields.max_completion_tokens = request.maxOutputTokens
  if (request.temperature !== undefined) fields.temperature = request.temperature
  if (request.topP !== undefined) fields.top_p = request.topP
  if (request.stopSequences !== undefined) fields.stop = [...request.stopSequences]
  if (request.seed !== undefined) fields.seed = request.seed
  if (request.presencePenalty !== undefined) fields.presence_penalty = request.presencePenalty
  if (request.frequencyPenalty !== undefined) fields.frequency_penalty = request.frequencyPenalty
  // `none` goes only to a model known to take it; elsewhere it is left out (the model's default).
  if (fitted.effort !== undefined && (fitted.effort !== "none" || fitted.known)) fields.reasoning_effort = fitted.effort
  if (choice !== undefined) fields.tool_choice = choice
  if (stream) fields.stream_options = { include_usage: true }
  let body = fields as unknown as ChatBodyInput
  if (request.tools.length > 0) body = chatTools.declare(body, request.tools.map(declarationOf))
  const built = (b: ChatBodyInput): Built<ChatBodyInput> => ({
    body: overlayBody(b, request.body),
    warnings: [...unsupported("a chat model", request, ["topK"]), ...fitted.warnings, ...reasoning.warnings, ...dropped]
  })
  if (request.output === undefined) return Result.succeed(built(body))
  const target = request.output.target
  if (target === undefined) return Result.succeed(built({ ...body, response_format: { type: "json_object" } }))
  return Result.map(chatMechanism.request(body, target), built)
}
