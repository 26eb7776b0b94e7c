/**
 * A family's answer read the frameworks' way. Its content in order (text, reasoning, tool calls with
 * their JSON arguments), one finish reason of a shared set with the family's own kept, token usage
 * split the same way for every family, and the answer's id, model and time: one reading, used by a
 * whole answer and by the end of a stream alike.
 */
import type { ChatCompletion } from "../../core/text/chat/ChatResponse.js"
import { isMessagesBlock, type Message } from "../../core/text/messages/MessagesResponse.js"
import type { GenerateContentResponse } from "../../core/text/native/NativeResponse.js"
import { isResponsesItem, type ResponsesResponse } from "../../core/text/responses/ResponsesResponse.js"
import { isRecord } from "../../core/validation/Rules.js"
import { answerText, type TextOutput } from "./TextOutput.js"
import type { TextFamily } from "./TextRequest.js"
import { firstCandidate } from "../../core/text/native/FirstCandidate.js"

/** A family's answer, as its group gives it. @category models */
export type FamilyResponse = Message | ChatCompletion | ResponsesResponse | GenerateContentResponse

/**
 * One piece of an answer's content. `arguments` is the call's JSON text; `thoughtSignature` is the
 * native family's signature of the part it came on (text, reasoning or a call), to send back with it.
 * @category models
 */
export type AnswerContent =
  | { readonly type: "text"; readonly text: string; readonly thoughtSignature?: string | undefined }
  | {
      readonly type: "reasoning"
      readonly text: string
      readonly signature?: string | undefined
      readonly redactedData?: string | undefined
      readonly thoughtSignature?: string | undefined
    }
  | {
      readonly type: "tool-call"
      readonly id: string
      readonly name: string
      readonly arguments: string
      readonly thoughtSignature?: string | undefined
    }

/** Why the answer ended: the shared reason, and the family's own word for it. @category models */
export interface FinishReason {
  readonly unified: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other"
  readonly raw: string | undefined
}

/**
 * Token usage: input split into not cached, read from a cache and written to one; output with its
 * reasoning part; `raw` the family's own usage object.
 * @category models
 */
export interface TextUsage {
  readonly inputTokens: number | undefined
  readonly inputNoCache: number | undefined
  readonly cacheRead: number | undefined
  readonly cacheWrite: number | undefined
  readonly outputTokens: number | undefined
  readonly reasoningTokens: number | undefined
  readonly raw: unknown
}

/** What ends an answer: its finish reason, usage, id, model and time. @category models */
export interface AnswerEnd {
  readonly finish: FinishReason
  readonly usage: TextUsage
  readonly id: string | undefined
  readonly modelId: string | undefined
  readonly timestamp: Date | undefined
}

/** A whole answer: its content and its end. @category models */
export interface TextAnswer extends AnswerEnd {
  readonly content: ReadonlyArray<AnswerContent>
}

const num = (u: unknown): number | undefined => (typeof u === "number" && Number.isFinite(u) ? u : undefined)
const sum = (...xs: ReadonlyArray<number | undefined>): number | undefined =>
  xs.every((x) => x === undefined) ? undefined : xs.reduce<number>((a, x) => a + (x ?? 0), 0)
const detail = (u: unknown, key: string): number | undefined => (isRecord(u) ? num(u[key]) : undefined)
const fromSeconds = (s: number | undefined): Date | undefined => (s === undefined ? undefined : new Date(s * 1000))

const NATIVE_FILTERED: ReadonlySet<string> = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "LANGUAGE"
])

const messagesEnd = (message: Message, output: TextOutput | undefined): AnswerEnd => {
  const raw = message.stop_reason ?? undefined
  const target = output?.target?.name
  const calls = message.content.some((b) => isMessagesBlock(b, "tool_use") && b.name !== target)
  const unified: FinishReason["unified"] =
    raw === "end_turn" || raw === "stop_sequence" || raw === "pause_turn"
      ? "stop"
      : raw === "tool_use"
        ? calls
          ? "tool-calls"
          : "stop"
        : raw === "max_tokens" || raw === "model_context_window_exceeded"
          ? "length"
          : raw === "refusal"
            ? "content-filter"
            : "other"
  const u = message.usage
  const cacheRead = u.cache_read_input_tokens ?? undefined
  const cacheWrite = u.cache_creation_input_tokens ?? undefined
  return {
    finish: { unified, raw },
    usage: {
      inputTokens: sum(u.input_tokens, cacheRead, cacheWrite),
      inputNoCache: u.input_tokens,
      cacheRead,
      cacheWrite,
      outputTokens: u.output_tokens,
      reasoningTokens: undefined,
      raw: u
    },
    id: message.id,
    modelId: message.model,
    timestamp: undefined
  }
}

const chatEnd = (completion: ChatCompletion): AnswerEnd => {
  const choice = completion.choices.find((c) => c.index === 0) ?? completion.choices[0]
  const raw = choice?.finish_reason ?? undefined
  const unified: FinishReason["unified"] =
    raw === "stop"
      ? "stop"
      : raw === "length"
        ? "length"
        : raw === "tool_calls" || raw === "function_call"
          ? "tool-calls"
          : raw === "content_filter"
            ? "content-filter"
            : "other"
  const u = completion.usage ?? undefined
  const cacheRead = detail(u?.prompt_tokens_details, "cached_tokens")
  return {
    finish: { unified, raw },
    usage: {
      inputTokens: u?.prompt_tokens,
      inputNoCache: u === undefined ? undefined : u.prompt_tokens - (cacheRead ?? 0),
      cacheRead,
      cacheWrite: undefined,
      outputTokens: u?.completion_tokens,
      reasoningTokens: detail(u?.completion_tokens_details, "reasoning_tokens"),
      raw: u
    },
    id: completion.id,
    modelId: completion.model,
    timestamp: fromSeconds(completion.created)
  }
}

const responsesEnd = (response: ResponsesResponse): AnswerEnd => {
  const calls = response.output.some((item) => isResponsesItem(item, "function_call"))
  const incomplete = response.incomplete_details?.reason ?? undefined
  const raw = incomplete ?? response.status
  const unified: FinishReason["unified"] =
    response.status === "failed"
      ? "error"
      : incomplete === "max_output_tokens"
        ? "length"
        : incomplete === "content_filter"
          ? "content-filter"
          : incomplete !== undefined
            ? "other"
            : calls
              ? "tool-calls"
              : "stop"
  const u = response.usage ?? undefined
  const cacheRead = detail(u?.input_tokens_details, "cached_tokens")
  return {
    finish: { unified, raw },
    usage: {
      inputTokens: u?.input_tokens,
      inputNoCache: u === undefined ? undefined : u.input_tokens - (cacheRead ?? 0),
      cacheRead,
      cacheWrite: undefined,
      outputTokens: u?.output_tokens,
      reasoningTokens: detail(u?.output_tokens_details, "reasoning_tokens"),
      raw: u
    },
    id: response.id,
    modelId: response.model,
    timestamp: fromSeconds(response.created_at)
  }
}

/**
 * A native answer's end. A prompt blocked (no candidate finished, `promptFeedback.blockReason`) ends
 * with `content-filter`, the block reason (`SAFETY`, …) as the raw reason, as the official provider has it.
 */
const nativeEnd = (response: GenerateContentResponse): AnswerEnd => {
  const candidate = firstCandidate(response)
  const blocked = candidate?.finishReason === undefined ? response.promptFeedback?.blockReason : undefined
  const raw = candidate?.finishReason ?? blocked
  const calls = (candidate?.content?.parts ?? []).some((p) => p.functionCall !== undefined)
  const unified: FinishReason["unified"] =
    raw === "STOP"
      ? calls
        ? "tool-calls"
        : "stop"
      : raw === "MAX_TOKENS"
        ? "length"
        : blocked !== undefined || (raw !== undefined && NATIVE_FILTERED.has(raw))
          ? "content-filter"
          : raw === "MALFORMED_FUNCTION_CALL"
            ? "error"
            : "other"
  const u = response.usageMetadata
  const cacheRead = u?.cachedContentTokenCount
  return {
    finish: { unified, raw },
    usage: {
      inputTokens: u?.promptTokenCount,
      inputNoCache: u?.promptTokenCount === undefined ? undefined : u.promptTokenCount - (cacheRead ?? 0),
      cacheRead,
      cacheWrite: undefined,
      outputTokens: sum(u?.candidatesTokenCount, u?.thoughtsTokenCount),
      reasoningTokens: u?.thoughtsTokenCount,
      raw: u
    },
    id: response.responseId,
    modelId: response.modelVersion,
    timestamp: response.createTime === undefined ? undefined : new Date(response.createTime)
  }
}

/**
 * How a family's answer ends. A messages-style answer whose only tool call is the structured output's
 * tool ends with `stop`, as the value is the answer.
 * @category getters
 */
export const answerEnd = (family: TextFamily, response: FamilyResponse, output?: TextOutput): AnswerEnd => {
  switch (family) {
    case "messages":
      return messagesEnd(response as Message, output)
    case "chat":
      return chatEnd(response as ChatCompletion)
    case "responses":
      return responsesEnd(response as ResponsesResponse)
    case "native":
      return nativeEnd(response as GenerateContentResponse)
  }
}

const messagesContent = (message: Message, output: TextOutput | undefined): Array<AnswerContent> => {
  const out: Array<AnswerContent> = []
  for (const block of message.content) {
    if (isMessagesBlock(block, "text")) out.push({ type: "text", text: block.text })
    else if (isMessagesBlock(block, "thinking"))
      out.push({ type: "reasoning", text: block.thinking, signature: block.signature })
    else if (isMessagesBlock(block, "redacted_thinking"))
      out.push({ type: "reasoning", text: "", redactedData: block.data })
    else if (isMessagesBlock(block, "tool_use")) {
      // The structured output's tool carries the value: it is the answer's text.
      if (block.name === output?.target?.name) out.push({ type: "text", text: JSON.stringify(block.input) })
      else out.push({ type: "tool-call", id: block.id, name: block.name, arguments: JSON.stringify(block.input) })
    }
  }
  return out
}

const chatContent = (completion: ChatCompletion): Array<AnswerContent> => {
  const message = (completion.choices.find((c) => c.index === 0) ?? completion.choices[0])?.message
  if (message === undefined) return []
  const out: Array<AnswerContent> = []
  if (message.content !== null && message.content !== "") out.push({ type: "text", text: message.content })
  for (const call of message.tool_calls ?? [])
    if (call.type === "function")
      out.push({
        type: "tool-call",
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments.trim() === "" ? "{}" : call.function.arguments
      })
  return out
}

const responsesContent = (response: ResponsesResponse): Array<AnswerContent> => {
  const out: Array<AnswerContent> = []
  for (const item of response.output) {
    if (isResponsesItem(item, "reasoning")) {
      const text = item.summary.map((s) => s.text).join("\n\n")
      if (text !== "") out.push({ type: "reasoning", text })
    } else if (isResponsesItem(item, "message")) {
      for (const part of item.content)
        if (part.type === "output_text" && typeof part["text"] === "string" && part["text"] !== "")
          out.push({ type: "text", text: part["text"] })
    } else if (isResponsesItem(item, "function_call"))
      out.push({
        type: "tool-call",
        id: item.call_id,
        name: item.name,
        arguments: item.arguments.trim() === "" ? "{}" : item.arguments
      })
  }
  return out
}

/**
 * A native text or thought part's content. An empty part counts only for its signature, which goes to
 * the content before it when that is of its kind and unsigned (the core's accumulator joins such parts
 * of a stream alike), else stands as an empty part of its own, to go back where it came.
 */
const pushNativeText = (
  out: Array<AnswerContent>,
  thought: boolean,
  text: string,
  signature: string | undefined
): void => {
  const type = thought ? "reasoning" : "text"
  const signed = signature === undefined ? {} : { thoughtSignature: signature }
  if (text !== "") {
    out.push({ type, text, ...signed })
    return
  }
  if (signature === undefined) return
  const last = out[out.length - 1]
  if (last !== undefined && last.type === type && last.thoughtSignature === undefined)
    out[out.length - 1] = { ...last, ...signed }
  else out.push({ type, text, ...signed })
}

const nativeContent = (response: GenerateContentResponse, callId: (index: number) => string): Array<AnswerContent> => {
  const out: Array<AnswerContent> = []
  let calls = 0
  for (const part of firstCandidate(response)?.content?.parts ?? []) {
    if (part.functionCall !== undefined) {
      const call = part.functionCall
      out.push({
        type: "tool-call",
        id: call.id ?? callId(calls),
        name: call.name,
        arguments: JSON.stringify(call.args ?? {}),
        thoughtSignature: part.thoughtSignature
      })
      calls++
    } else if (part.text !== undefined) pushNativeText(out, part.thought === true, part.text, part.thoughtSignature)
  }
  return out
}

/** The text parts of a structured answer joined and read as the framework's schema reads them (`answerText`). */
const withOutputText = (content: Array<AnswerContent>, output: TextOutput | undefined): Array<AnswerContent> => {
  if (output === undefined || output.streamable) return content
  const text = content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("")
  const rest = content.filter((c) => c.type !== "text")
  // A native signature of the text stays with it (the last one, as a stream of the text keeps it).
  let signed = {}
  for (const c of content)
    if (c.type === "text" && c.thoughtSignature !== undefined) signed = { thoughtSignature: c.thoughtSignature }
  return text === "" ? rest : [...rest, { type: "text", text: answerText(output, text), ...signed }]
}

/**
 * A family's whole answer. `callId` names a native call sent without an id (by its position among the
 * answer's calls).
 * @category getters
 */
export const textAnswer = (
  family: TextFamily,
  response: FamilyResponse,
  output: TextOutput | undefined,
  callId: (index: number) => string
): TextAnswer => {
  const content =
    family === "messages"
      ? messagesContent(response as Message, output)
      : family === "chat"
        ? chatContent(response as ChatCompletion)
        : family === "responses"
          ? responsesContent(response as ResponsesResponse)
          : nativeContent(response as GenerateContentResponse, callId)
  return { ...answerEnd(family, response, output), content: withOutputText(content, output) }
}
