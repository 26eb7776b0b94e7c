/**
 * A `TextRequest` as a responses body. The conversation as `input` items (messages, `function_call`
 * and `function_call_output` items, an output holding files as input content), tools declared as
 * core/tools does, `reasoning.effort` with its summary, and structured output through `text.format`.
 */
import * as Result from "effect/Result"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { responsesMechanism } from "../../core/structured/Mechanisms.js"
import type { ResponsesBodyInput } from "../../core/text/responses/ResponsesBody.js"
import { responsesTools } from "../../core/tools/ResponsesTools.js"
import { overlayBody } from "./BodyOverlay.js"
import { dropSettings, dropsSampling, fitOpenAiEffort, reasoningResponsesDropped } from "./Sampling.js"
import type { FilePart, TextMessage, TextPart, TextRequest, ToolResultPart } from "./TextRequest.js"
import { type Built, declarationOf, fileSource, fileUrl, resultText, unsupported, unsupportedFile } from "./Turns.js"

type Item = Readonly<Record<string, unknown>>

/** Text and file parts as input content (`input_text`, `input_image`, `input_file`), or the refusal of a file. */
const inputContent = (
  parts: ReadonlyArray<TextPart | FilePart>,
  index: number
): Result.Result<Array<Item>, InvalidRequest> => {
  const content: Array<Item> = []
  for (const part of parts) {
    if (part.type === "text") {
      content.push({ type: "input_text", text: part.text })
      continue
    }
    const source = fileSource(part)
    if (part.mediaType.startsWith("image/")) content.push({ type: "input_image", image_url: fileUrl(source) })
    else if (part.mediaType === "application/pdf")
      content.push(
        source._tag === "Url"
          ? { type: "input_file", file_url: source.url }
          : { type: "input_file", filename: part.filename ?? `part-${index}.pdf`, file_data: fileUrl(source) }
      )
    else return unsupportedFile("a responses model", index, part.mediaType, "image/*, application/pdf")
  }
  return Result.succeed(content)
}

/** A tool result as a `function_call_output`: its text, or its input content when it holds files. */
const outputItem = (r: ToolResultPart, index: number): Result.Result<Item, InvalidRequest> =>
  r.content === undefined
    ? Result.succeed({ type: "function_call_output", call_id: r.id, output: resultText(r) })
    : Result.map(inputContent(r.content, index), (output) => ({ type: "function_call_output", call_id: r.id, output }))

const assistantItems = (message: Extract<TextMessage, { role: "assistant" }>): Array<Item> => {
  const items: Array<Item> = []
  let text = ""
  const flush = () => {
    if (text !== "") items.push({ role: "assistant", content: text })
    text = ""
  }
  for (const part of message.parts) {
    if (part.type === "text") text += part.text
    else if (part.type === "tool-call") {
      flush()
      items.push({ type: "function_call", call_id: part.id, name: part.name, arguments: JSON.stringify(part.input) })
    }
  }
  flush()
  return items
}

const toolChoiceOf = (request: TextRequest): ResponsesBodyInput["tool_choice"] => {
  const choice = request.toolChoice
  if (choice === undefined || request.tools.length === 0) return undefined
  return typeof choice === "string" ? choice : { type: "function", name: choice.tool }
}

/**
 * The responses body of a request (the whole conversation sent each time, as core/tools does: the
 * contract does not say responses are stored). A reasoning model (`dropsSampling`) is sent no
 * `temperature` or `top_p`: each is dropped with a warning, as the official provider does.
 * @category constructors
 */
export const responsesBody = (asked: TextRequest): Result.Result<Built<ResponsesBodyInput>, InvalidRequest> =>
  Result.gen(function* () {
    const reasoning = dropsSampling(asked)
      ? dropSettings(asked, reasoningResponsesDropped, "for reasoning models")
      : { request: asked, warnings: [] }
    const request = reasoning.request
    const input: Array<Item> = []
    for (const [i, m] of request.messages.entries()) {
      if (m.role === "system") input.push({ role: "system", content: m.text })
      else if (m.role === "user") input.push({ role: "user", content: yield* inputContent(m.parts, i) })
      else if (m.role === "assistant") input.push(...assistantItems(m))
      else for (const r of m.parts) input.push(yield* outputItem(r, i))
    }
    const choice = toolChoiceOf(request)
    const fitted = fitOpenAiEffort(request.model, request.reasoning)
    const effort = fitted.effort
    let body: ResponsesBodyInput = {
      model: request.model,
      input: input as unknown as NonNullable<ResponsesBodyInput["input"]>,
      ...(request.maxOutputTokens === undefined ? {} : { max_output_tokens: request.maxOutputTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.topP === undefined ? {} : { top_p: request.topP }),
      ...(effort === undefined ? {} : { reasoning: { effort, summary: "auto" } }),
      ...(choice === undefined ? {} : { tool_choice: choice })
    }
    if (request.tools.length > 0) body = responsesTools.declare(body, request.tools.map(declarationOf))
    const target = request.output?.target
    if (request.output !== undefined)
      body =
        target === undefined
          ? { ...body, text: { format: { type: "json_object" } } }
          : yield* responsesMechanism.request(body, target)
    return {
      body: overlayBody(body, request.body),
      warnings: [
        ...unsupported("a responses model", request, [
          "topK",
          "stopSequences",
          "seed",
          "presencePenalty",
          "frequencyPenalty"
        ]),
        ...fitted.warnings,
        ...reasoning.warnings
      ]
    }
  })
