/**
 * Effect AI's provider options (`LanguageModel.ProviderOptions`) read as umg's `TextRequest`. The
 * prompt becomes turns, the toolkit's tools are sent with their parameters fitted by umg's rules (with
 * the way back from a call's JSON arguments to the tool's parameters), and `generateObject`'s schema
 * becomes structured output through the family's mechanism.
 */
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { type AnySchema, fitSchema } from "../core/structured/AnySchema.js"
import { fitJsonSchema, type FittedSchema, type JsonSchemaObject } from "../core/structured/JsonSchemaFit.js"
import type { SchemaNotExpressible } from "../core/structured/StructuredErrors.js"
import { isRecord } from "../core/validation/Rules.js"
import { outputOfFitted } from "./text/TextOutput.js"
import type {
  FilePart,
  ReasoningEffort,
  ReasoningPart,
  TextMessage,
  TextPart,
  TextRequest,
  TextTool,
  TextToolChoice,
  ToolCallPart
} from "./text/TextRequest.js"

/** The key of umg's own options and metadata on Effect AI's prompt and response parts. @category constants */
export const providerKey = "umg"

/**
 * A model's settings, sent with every call (Effect AI's `generateText` takes none of its own):
 * sampling, the reasoning effort, and `body`, fields of the family's body merged into the one built
 * (plain objects key by key, at any depth; arrays and other values replace).
 * @category models
 */
export interface UmgModelConfig {
  readonly maxOutputTokens?: number | undefined
  readonly temperature?: number | undefined
  readonly topP?: number | undefined
  readonly topK?: number | undefined
  readonly stopSequences?: ReadonlyArray<string> | undefined
  readonly seed?: number | undefined
  readonly presencePenalty?: number | undefined
  readonly frequencyPenalty?: number | undefined
  readonly reasoning?: ReasoningEffort | undefined
  readonly body?: Readonly<Record<string, unknown>> | undefined
}

/** A toolkit tool as sent: its declaration, and how a call's JSON arguments become its parameters. @category models */
export interface SentTool {
  readonly tool: TextTool
  /** The call's arguments as the tool's `parametersSchema` reads them (its encoded side). */
  readonly params: (json: unknown) => unknown
}

const stringOption = (options: Prompt.ProviderOptions, key: string): string | undefined => {
  const umg = options[providerKey]
  const value = isRecord(umg) ? umg[key] : undefined
  return typeof value === "string" ? value : undefined
}

const userPart = (part: Prompt.UserMessagePart): TextPart | FilePart =>
  part.type === "text"
    ? { type: "text", text: part.text }
    : { type: "file", mediaType: part.mediaType, data: part.data, filename: part.fileName }

const assistantPart = (part: Prompt.AssistantMessagePart): TextPart | ReasoningPart | ToolCallPart | undefined => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text, thoughtSignature: stringOption(part.options, "thoughtSignature") }
    case "reasoning":
      return {
        type: "reasoning",
        text: part.text,
        signature: stringOption(part.options, "signature"),
        redactedData: stringOption(part.options, "redactedData"),
        thoughtSignature: stringOption(part.options, "thoughtSignature")
      }
    case "tool-call":
      return part.providerExecuted
        ? undefined
        : {
            type: "tool-call",
            id: part.id,
            name: part.name,
            input: part.params,
            thoughtSignature: stringOption(part.options, "thoughtSignature")
          }
    default:
      return undefined
  }
}

/** The prompt as turns. @category constructors */
export const messagesOf = (prompt: Prompt.Prompt): ReadonlyArray<TextMessage> =>
  prompt.content.map((message): TextMessage => {
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
          parts: message.content.flatMap((p) =>
            p.type === "tool-result"
              ? [{ type: "tool-result" as const, id: p.id, name: p.name, output: p.result, isError: p.isFailure }]
              : []
          )
        }
    }
  })

/** A tool's parameters fitted: a dynamic tool's own JSON Schema, else its `parametersSchema`'s. */
const fittedParameters = (tool: Tool.Any): Result.Result<FittedSchema, SchemaNotExpressible> => {
  if (Tool.isDynamic(tool) && tool.jsonSchema !== undefined) {
    const { $defs, ...root } = tool.jsonSchema as JsonSchemaObject
    return fitJsonSchema(root, isRecord($defs) ? $defs : {})
  }
  return fitSchema(tool.parametersSchema as unknown as AnySchema<unknown>)
}

/**
 * The way from a call's JSON arguments to what the tool's `parametersSchema` decodes: the fitting
 * undone (`relax`), then decoded through the schema's JSON codec and encoded by the schema (a `Date`
 * sent as text becomes the schema's own encoding). Arguments that do not decode are left as they are,
 * for Effect AI to report with its own error.
 */
const paramsOf = (tool: Tool.Any, fitted: FittedSchema): ((json: unknown) => unknown) => {
  if (Tool.isDynamic(tool) && tool.jsonSchema !== undefined) return fitted.relax
  const schema = tool.parametersSchema as unknown as Schema.Codec<unknown, unknown>
  const fromJson = Schema.decodeUnknownExit(Schema.toCodecJson(schema))
  const encode = Schema.encodeUnknownExit(schema)
  return (json) => {
    const relaxed = fitted.relax(json)
    const decoded = fromJson(relaxed)
    if (decoded._tag === "Failure") return relaxed
    const encoded = encode(decoded.value)
    return encoded._tag === "Success" ? encoded.value : relaxed
  }
}

/** The tools sent: user-defined and dynamic ones (provider-defined tools are not the gateway's), fitted. @category constructors */
export const toolsOf = (
  tools: ReadonlyArray<Tool.Any>,
  choice: LanguageModel.ToolChoice<string>
): Result.Result<ReadonlyArray<SentTool>, SchemaNotExpressible> => {
  const allowed = typeof choice === "object" && "oneOf" in choice ? new Set(choice.oneOf) : undefined
  const out: Array<SentTool> = []
  for (const tool of tools) {
    if (Tool.isProviderDefined(tool) || (allowed !== undefined && !allowed.has(tool.name))) continue
    const fitted = fittedParameters(tool)
    if (Result.isFailure(fitted)) return Result.fail(fitted.failure)
    out.push({
      tool: {
        name: tool.name,
        description: Tool.getDescription(tool),
        parameters: fitted.success.schema,
        strict: Tool.getStrictMode(tool),
        strictCapable: fitted.success.strict
      },
      params: paramsOf(tool, fitted.success)
    })
  }
  return Result.succeed(out)
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): TextToolChoice => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { tool: choice.tool }
  return choice.mode === "required" ? "required" : "auto"
}

/** A request and its tools as sent. @category models */
export interface ReadOptions {
  readonly request: TextRequest
  readonly tools: ReadonlyMap<string, SentTool>
}

/**
 * The request of Effect AI's provider options to `model` with the model's `config`. Refused before
 * sending when a tool's parameters or the output's schema cannot be sent (`SchemaNotExpressible`),
 * or the output's name is not allowed (`InvalidRequest`).
 * @category constructors
 */
export const requestOf = (
  model: string,
  options: LanguageModel.ProviderOptions,
  config: UmgModelConfig
): Effect.Effect<ReadOptions, InvalidRequest | SchemaNotExpressible> =>
  Effect.fromResult(
    // Plain steps, not `Result.gen`: every call of the model goes through here.
    Result.flatMap(toolsOf(options.tools, options.toolChoice), (sent) => {
      const format = options.responseFormat
      const output =
        format.type === "json"
          ? Result.flatMap(fitSchema(format.schema as unknown as AnySchema<unknown>), (fitted) =>
              outputOfFitted(fitted, { name: format.objectName })
            )
          : Result.succeed(undefined)
      return Result.map(output, (output): ReadOptions => {
        const { body, ...sampling } = config
        return {
          tools: new Map(sent.map((s) => [s.tool.name, s])),
          request: {
            model,
            ...sampling,
            messages: messagesOf(options.prompt),
            tools: sent.map((s) => s.tool),
            toolChoice: sent.length === 0 ? undefined : toolChoiceOf(options.toolChoice),
            output,
            body
          }
        }
      })
    })
  )
