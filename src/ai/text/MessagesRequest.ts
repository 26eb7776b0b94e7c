/**
 * A `TextRequest` as a messages-style (epsilon) body. System text at the top, user and assistant
 * turns of content blocks (tool results, with their images and PDFs, in the user's turn), tools
 * declared as core/tools does, thinking from the reasoning effort, and structured output through the
 * family's forced tool.
 */
import * as Result from "effect/Result"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { messagesMechanism } from "../../core/structured/Mechanisms.js"
import { messagesTools } from "../../core/tools/MessagesTools.js"
import type { MessagesBodyInput } from "../../core/text/messages/Messages.js"
import { overlayBody } from "./BodyOverlay.js"
import { dropSettings, thinkingDropped } from "./Sampling.js"
import {
  type FilePart,
  type ReasoningEffort,
  defaultMaxOutputTokens,
  type TextPart,
  type TextRequest,
  type ToolResultPart
} from "./TextRequest.js"
import {
  type Built,
  declarationOf,
  fileSource,
  inputObject,
  resultText,
  sides,
  systemText,
  unsupported,
  unsupportedFile
} from "./Turns.js"

type Block = Readonly<Record<string, unknown>>

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"]

/** The thinking budget of an effort (the family takes budgets, not levels); `undefined`: no thinking asked. */
const thinkingBudget = (effort: ReasoningEffort | undefined): number | undefined => {
  switch (effort) {
    case undefined:
    case "none":
      return undefined
    case "minimal":
    case "low":
      return 2048
    case "medium":
      return 8192
    case "high":
      return 16384
    case "xhigh":
    case "max":
      return 32768
  }
}

/**
 * Whether the model thinks: a `thinking` of the request's body (`enabled`, `adaptive`), which is laid
 * over the one built, else a thinking budget asked for.
 */
const thinks = (request: TextRequest, budget: number | undefined): boolean => {
  const overlaid = request.body?.thinking
  const type =
    typeof overlaid === "object" && overlaid !== null && "type" in overlaid
      ? (overlaid as { type?: unknown }).type
      : undefined
  return type === undefined ? budget !== undefined : type === "enabled" || type === "adaptive"
}

/** A file as an image or document block, or the refusal of a media type the family does not take. */
const fileBlock = (part: FilePart, index: number): Result.Result<Block, InvalidRequest> => {
  const source = fileSource(part)
  const image = part.mediaType.startsWith("image/")
  if (!image && part.mediaType !== "application/pdf")
    return unsupportedFile(
      "a messages-style model",
      index,
      part.mediaType,
      `${IMAGE_TYPES.join(", ")}, application/pdf`
    )
  const mediaType = image && part.mediaType === "image/*" ? "image/jpeg" : source.mediaType
  return Result.succeed({
    type: image ? "image" : "document",
    source:
      source._tag === "Url"
        ? { type: "url", url: source.url }
        : { type: "base64", media_type: mediaType, data: source.data }
  })
}

/** Text and file parts as blocks (empty text left out), pushed onto `blocks`; the refusal of a file, if any. */
const pushParts = (
  parts: ReadonlyArray<TextPart | FilePart>,
  index: number,
  blocks: Array<Block>
): InvalidRequest | undefined => {
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text !== "") blocks.push({ type: "text", text: part.text })
      continue
    }
    const block = fileBlock(part, index)
    if (Result.isFailure(block)) return block.failure
    blocks.push(block.success)
  }
  return undefined
}

/** A tool result block: its text, or its content blocks when it holds files (the family takes images and PDFs there). */
const toolResultBlock = (r: ToolResultPart, index: number): Result.Result<Block, InvalidRequest> => {
  const content: Array<Block> = []
  const refused = r.content === undefined ? undefined : pushParts(r.content, index, content)
  if (refused !== undefined) return Result.fail(refused)
  return Result.succeed({
    type: "tool_result",
    tool_use_id: r.id,
    content: r.content === undefined ? resultText(r) : content,
    ...(r.isError ? { is_error: true } : {})
  })
}

const userBlocks = (
  messages: ReturnType<typeof sides>[number]["messages"],
  index: number
): Result.Result<Array<Block>, InvalidRequest> => {
  const blocks: Array<Block> = []
  for (const m of messages) {
    if (m.role === "tool") {
      for (const r of m.parts) {
        const block = toolResultBlock(r, index)
        if (Result.isFailure(block)) return Result.fail(block.failure)
        blocks.push(block.success)
      }
      continue
    }
    if (m.role !== "user") continue
    const refused = pushParts(m.parts, index, blocks)
    if (refused !== undefined) return Result.fail(refused)
  }
  return Result.succeed(blocks)
}

const assistantBlocks = (messages: ReturnType<typeof sides>[number]["messages"]): Array<Block> => {
  const blocks: Array<Block> = []
  for (const m of messages) {
    if (m.role !== "assistant") continue
    for (const part of m.parts) {
      if (part.type === "text") {
        if (part.text !== "") blocks.push({ type: "text", text: part.text })
      } else if (part.type === "reasoning") {
        // Thinking goes back only as it came (signed, or redacted): unsigned reasoning is refused upstream.
        if (part.redactedData !== undefined) blocks.push({ type: "redacted_thinking", data: part.redactedData })
        else if (part.signature !== undefined)
          blocks.push({ type: "thinking", thinking: part.text, signature: part.signature })
      } else blocks.push({ type: "tool_use", id: part.id, name: part.name, input: inputObject(part.input) })
    }
  }
  return blocks
}

const toolChoiceOf = (request: TextRequest): MessagesBodyInput["tool_choice"] => {
  const choice = request.toolChoice
  if (choice === undefined || request.tools.length === 0) return undefined
  if (choice === "auto") return { type: "auto" }
  if (choice === "none") return { type: "none" }
  if (choice === "required") return { type: "any" }
  return { type: "tool", name: choice.tool }
}

/**
 * The tools sent beside structured output's tool, which takes the tool choice's place (the answer is
 * a forced tool call): none for `none`, the named one only for a named tool, else all of them.
 */
const toolsBesideOutput = (request: TextRequest): TextRequest["tools"] => {
  const choice = request.toolChoice
  if (choice === "none") return []
  if (typeof choice === "object") return request.tools.filter((t) => t.name === choice.tool)
  return request.tools
}

/**
 * The messages-style body of a request. `max_tokens` is the request's `maxOutputTokens`, or
 * `defaultMaxOutputTokens`, plus the thinking budget when thinking is asked (the family counts thinking
 * within `max_tokens`, and the budget must stay below it), as the official provider does; umg knows no
 * model's output limit, so a sum past it is the gateway's to refuse. Structured output with tools
 * declares the output tool beside the tools the tool choice allows (`none`: none; a named tool: that
 * one) and asks for any tool (`tool_choice: any`), as the output tool then ends the turn; with no tool
 * beside it, the output tool is forced. A model thinking (a budget asked, or the body's `thinking`
 * `enabled` or `adaptive`) is sent no `temperature`, `top_p` or `top_k`: each is dropped with a
 * warning, as the official provider does.
 * @category constructors
 */
export const messagesBody = (asked: TextRequest): Result.Result<Built<MessagesBodyInput>, InvalidRequest> => {
  // Plain steps, not `Result.gen`: every call to a messages-style model is built here.
  const budget = thinkingBudget(asked.reasoning)
  const thinking = thinks(asked, budget)
    ? dropSettings(asked, thinkingDropped, "when thinking is enabled")
    : { request: asked, warnings: [] }
  const request = thinking.request
  const turns: Array<{ role: "user" | "assistant"; content: Array<Block> }> = []
  const all = sides(request)
  for (let i = 0; i < all.length; i++) {
    const turn = all[i]!
    let content: Array<Block>
    if (turn.side === "user") {
      const blocks = userBlocks(turn.messages, i)
      if (Result.isFailure(blocks)) return Result.fail(blocks.failure)
      content = blocks.success
    } else content = assistantBlocks(turn.messages)
    if (content.length > 0) turns.push({ role: turn.side, content })
  }
  const system = systemText(request)
  const target = request.output?.target
  // With a schema the output tool takes the tool choice's place: see `toolsBesideOutput`.
  const tools = target === undefined ? request.tools : toolsBesideOutput(request)
  const choice = target === undefined ? toolChoiceOf(request) : undefined
  const fields: Record<string, unknown> = {
    model: request.model,
    messages: turns,
    // The thinking budget counts toward max_tokens: it is added, so the answer keeps maxOutputTokens.
    max_tokens: (request.maxOutputTokens ?? defaultMaxOutputTokens) + (budget ?? 0)
  }
  if (system !== undefined) fields.system = system
  if (request.temperature !== undefined) fields.temperature = request.temperature
  if (request.topP !== undefined) fields.top_p = request.topP
  if (request.topK !== undefined) fields.top_k = request.topK
  if (request.stopSequences !== undefined) fields.stop_sequences = request.stopSequences
  if (budget !== undefined) fields.thinking = { type: "enabled", budget_tokens: budget }
  if (choice !== undefined) fields.tool_choice = choice
  let body = fields as unknown as MessagesBodyInput
  if (tools.length > 0) body = messagesTools.declare(body, tools.map(declarationOf))
  const warnings = [
    ...unsupported("a messages-style model", request, ["seed", "presencePenalty", "frequencyPenalty"]),
    ...thinking.warnings
  ]
  if (request.output !== undefined && target === undefined)
    warnings.push({
      feature: "responseFormat",
      details: "JSON output without a schema is not supported by a messages-style model; the answer is text",
      message: "JSON output without a schema is not supported by a messages-style model; the answer is text"
    })
  const built = (b: MessagesBodyInput): Built<MessagesBodyInput> => ({
    body: overlayBody(b, request.body),
    warnings
  })
  if (target === undefined) return Result.succeed(built(body))
  return Result.map(messagesMechanism.request(body, target), (withOutput) =>
    built(tools.length > 0 ? { ...withOutput, tool_choice: { type: "any" } } : withOutput)
  )
}
