/**
 * The AI SDK's language-model call options (`LanguageModelV4CallOptions`) read as umg's `TextRequest`.
 * Its prompt becomes turns, with its function tools, tool choice, structured output (fitted by umg's
 * rules), reasoning effort and sampling settings, `providerOptions.umg` merged into the family's body
 * (`overlayBody`), and what of the call cannot be sent given as warnings.
 */
import type {
  JSONObject,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
  SharedV4Warning
} from "@ai-sdk/provider"
import { UnsupportedFunctionalityError } from "@ai-sdk/provider"
import * as Result from "effect/Result"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import type { SchemaNotExpressible } from "../core/structured/StructuredErrors.js"
import { outputOfJsonSchema } from "../ai/text/TextOutput.js"
import type {
  FilePart,
  ReasoningPart,
  TextMessage,
  TextPart,
  TextRequest,
  TextTool,
  TextToolChoice,
  ToolCallPart,
  ToolResultPart
} from "../ai/text/TextRequest.js"

/** The key of umg's own options and metadata in the AI SDK's `providerOptions` / `providerMetadata`. @category constants */
export const providerKey = "umg"

const umgOptions = (options: SharedV4ProviderOptions | undefined): JSONObject | undefined => options?.[providerKey]

const stringOption = (options: SharedV4ProviderOptions | undefined, key: string): string | undefined => {
  const value = umgOptions(options)?.[key]
  return typeof value === "string" ? value : undefined
}

/** A media type as umg reads it: a top-level segment alone (`image`) stands for any of its kind (`image/*`). */
const mediaTypeOf = (mediaType: string): string => (mediaType.includes("/") ? mediaType : `${mediaType}/*`)

type UserContent = Extract<LanguageModelV4Message, { role: "user" }>["content"][number]
type ToolContent = Extract<LanguageModelV4ToolResultOutput, { type: "content" }>["value"][number]
type FileContent = Extract<UserContent | ToolContent, { type: "file" }>

/** A file of the prompt (a user's, or in a tool result): its data inline or by URL; a provider reference is refused. */
const filePart = (part: FileContent): TextPart | FilePart => {
  const { data } = part
  switch (data.type) {
    case "text":
      return { type: "text", text: data.text }
    case "data":
      return { type: "file", mediaType: mediaTypeOf(part.mediaType), data: data.data, filename: part.filename }
    case "url":
      return { type: "file", mediaType: mediaTypeOf(part.mediaType), data: data.url, filename: part.filename }
    case "reference":
      throw new UnsupportedFunctionalityError({
        functionality: "file references",
        message: "umg sends files inline or by URL; a provider file reference cannot be sent through the gateway"
      })
  }
}

const userPart = (part: UserContent): TextPart | FilePart =>
  part.type === "text" ? { type: "text", text: part.text } : filePart(part)

type ReadResult = Pick<ToolResultPart, "output" | "isError" | "content">

/**
 * A tool result's output. Content parts keep their files in `content` (sent where the family's tool
 * results take files, else named in a warning); a custom part is left out with a warning.
 */
const resultOf = (output: LanguageModelV4ToolResultOutput, warnings: Array<SharedV4Warning>): ReadResult => {
  switch (output.type) {
    case "text":
      return { output: output.value, isError: false }
    case "json":
      return { output: output.value, isError: false }
    case "error-text":
      return { output: output.value, isError: true }
    case "error-json":
      return { output: output.value, isError: true }
    case "execution-denied":
      return {
        output: `The tool call was denied${output.reason === undefined ? "" : `: ${output.reason}`}`,
        isError: true
      }
    case "content": {
      const parts: Array<TextPart | FilePart> = []
      for (const p of output.value) {
        if (p.type === "text") parts.push({ type: "text", text: p.text })
        else if (p.type === "file") parts.push(filePart(p))
        else
          warnings.push({
            type: "unsupported",
            feature: "custom tool-result content",
            details: "a custom part of a tool result is provider-specific; it was not sent"
          })
      }
      const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")
      return parts.some((p) => p.type === "file")
        ? { output: text, isError: false, content: parts }
        : { output: text, isError: false }
    }
  }
}

type AssistantContent = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number]

const assistantPart = (part: AssistantContent): TextPart | ReasoningPart | ToolCallPart | undefined => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text, thoughtSignature: stringOption(part.providerOptions, "thoughtSignature") }
    case "reasoning":
      return {
        type: "reasoning",
        text: part.text,
        signature: stringOption(part.providerOptions, "signature"),
        redactedData: stringOption(part.providerOptions, "redactedData"),
        thoughtSignature: stringOption(part.providerOptions, "thoughtSignature")
      }
    case "tool-call":
      // A call the provider ran itself has no place in the gateway's conversation.
      if (part.providerExecuted === true) return undefined
      return {
        type: "tool-call",
        id: part.toolCallId,
        name: part.toolName,
        input: part.input,
        thoughtSignature: stringOption(part.providerOptions, "thoughtSignature")
      }
    default:
      return undefined
  }
}

/** The prompt as turns; what of it cannot be sent goes to `warnings`. @category constructors */
export const messagesOf = (
  prompt: LanguageModelV4CallOptions["prompt"],
  warnings: Array<SharedV4Warning> = []
): ReadonlyArray<TextMessage> =>
  prompt.map((message): TextMessage => {
    switch (message.role) {
      case "system":
        return { role: "system", text: message.content }
      case "user":
        return { role: "user", parts: message.content.map(userPart) }
      case "assistant":
        return {
          role: "assistant",
          parts: message.content.flatMap((p) => {
            const part = assistantPart(p)
            return part === undefined ? [] : [part]
          })
        }
      case "tool":
        return {
          role: "tool",
          parts: message.content.flatMap((p): Array<ToolResultPart> =>
            p.type === "tool-result"
              ? [{ type: "tool-result", id: p.toolCallId, name: p.toolName, ...resultOf(p.output, warnings) }]
              : []
          )
        }
    }
  })

const toolChoiceOf = (choice: LanguageModelV4CallOptions["toolChoice"]): TextToolChoice | undefined => {
  if (choice === undefined) return undefined
  return choice.type === "tool" ? { tool: choice.toolName } : choice.type
}

/** A request and the warnings of what could not be sent. @category models */
export interface ReadCall {
  readonly request: TextRequest
  readonly warnings: Array<SharedV4Warning>
}

/**
 * The request of an AI SDK call to `model`. Refused before sending (`InvalidRequest`,
 * `SchemaNotExpressible`) when its output schema cannot be sent; `providerOptions.umg` must be an
 * object of the family's body fields.
 * @category constructors
 */
export const requestOf = (
  model: string,
  options: LanguageModelV4CallOptions
): Result.Result<ReadCall, InvalidRequest | SchemaNotExpressible> => {
  const warnings: Array<SharedV4Warning> = []
  const tools: Array<TextTool> = []
  for (const tool of options.tools ?? []) {
    if (tool.type === "function")
      tools.push({
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema as Readonly<Record<string, unknown>>,
        strict: tool.strict,
        strictCapable: false
      })
    else warnings.push({ type: "unsupported", feature: `provider tool ${tool.id}` })
  }
  if (options.includeRawChunks === true) warnings.push({ type: "unsupported", feature: "includeRawChunks" })
  const format = options.responseFormat
  const output =
    format?.type === "json"
      ? outputOfJsonSchema(format.schema as Readonly<Record<string, unknown>> | undefined, {
          name: format.name,
          description: format.description
        })
      : Result.succeed(undefined)
  return Result.map(output, (out) => ({
    warnings,
    request: {
      model,
      messages: messagesOf(options.prompt, warnings),
      maxOutputTokens: options.maxOutputTokens,
      temperature: options.temperature,
      topP: options.topP,
      topK: options.topK,
      stopSequences: options.stopSequences,
      seed: options.seed,
      presencePenalty: options.presencePenalty,
      frequencyPenalty: options.frequencyPenalty,
      tools,
      toolChoice: toolChoiceOf(options.toolChoice),
      output: out,
      reasoning: options.reasoning === "provider-default" ? undefined : options.reasoning,
      body: umgOptions(options.providerOptions)
    }
  }))
}
