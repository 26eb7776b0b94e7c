/**
 * A `TextRequest` as a native-content (zeta) request. `systemInstruction`, `contents` of `user` and
 * `model` turns (text, signed thoughts and function calls with their ids, each part with its thought
 * signature; results as `functionResponse` parts, their text only), `generationConfig` with the
 * thinking the model's class takes (a budget fitted into the model's range), tools declared as
 * core/tools does, and structured output through `responseJsonSchema` (the family's mechanism).
 */
import * as Result from "effect/Result"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import type { NativeRequest } from "../../adapters/groups/Native.js"
import { nativeMechanism } from "../../core/structured/Mechanisms.js"
import { nearestThinkingBudget, parseNativeModel, thinkingLevelOf } from "../../core/text/native/Native.js"
import { nativeTools } from "../../core/tools/NativeTools.js"
import { answerObject } from "../../core/tools/ToolShape.js"
import { overlayBody } from "./BodyOverlay.js"
import type { ReasoningEffort, TextRequest } from "./TextRequest.js"
import {
  type Built,
  type TextWarning,
  declarationOf,
  droppedToolFiles,
  fileSource,
  inputObject,
  resultText,
  sides,
  systemText,
  unsupportedFile
} from "./Turns.js"

type Part = Readonly<Record<string, unknown>>

const userParts = (
  messages: ReturnType<typeof sides>[number]["messages"],
  index: number,
  warnings: Array<TextWarning>
): Result.Result<Array<Part>, InvalidRequest> => {
  const parts: Array<Part> = []
  for (const m of messages) {
    if (m.role === "tool") {
      for (const r of m.parts) {
        const content = resultText(r)
        const response = answerObject({ id: r.id, name: r.name, isError: r.isError, content, output: r.output })
        parts.push({ functionResponse: { name: r.name, id: r.id, response } })
        const dropped = droppedToolFiles("a native-content model", r)
        if (dropped !== undefined) warnings.push(dropped)
      }
      continue
    }
    if (m.role !== "user") continue
    for (const part of m.parts) {
      if (part.type === "text") {
        if (part.text !== "") parts.push({ text: part.text })
        continue
      }
      const source = fileSource(part)
      if (part.mediaType.includes("*"))
        return unsupportedFile("a native-content model", index, part.mediaType, "a full media type such as image/png")
      parts.push(
        source._tag === "Url"
          ? { fileData: { mimeType: part.mediaType, fileUri: source.url } }
          : { inlineData: { mimeType: source.mediaType, data: source.data } }
      )
    }
  }
  return Result.succeed(parts)
}

const signed = (part: { readonly thoughtSignature?: string | undefined }): Part =>
  part.thoughtSignature === undefined ? {} : { thoughtSignature: part.thoughtSignature }

const modelParts = (messages: ReturnType<typeof sides>[number]["messages"]): Array<Part> => {
  const parts: Array<Part> = []
  for (const m of messages) {
    if (m.role !== "assistant") continue
    for (const part of m.parts) {
      // A signature goes back on the part it came on, even an empty one (the model signs its turn there).
      if (part.type === "text") {
        if (part.text !== "" || part.thoughtSignature !== undefined) parts.push({ text: part.text, ...signed(part) })
      } else if (part.type === "reasoning") {
        // A thought goes back only when signed (its signature must be echoed); an unsigned one stays out.
        if (part.thoughtSignature !== undefined) parts.push({ text: part.text, thought: true, ...signed(part) })
      } else
        parts.push({
          // The id goes back with the call (its result names it), whether the model or umg made it.
          functionCall: { name: part.name, id: part.id, args: inputObject(part.input) },
          ...signed(part)
        })
    }
  }
  return parts
}

const BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 32768
}

/** A thinking config, and the warning of an effort the model could not take as asked. */
interface Thinking {
  readonly config?: Readonly<Record<string, unknown>> | undefined
  readonly warning?: string | undefined
}

/**
 * The thinking config of an effort for the model's class: a level (3), none for others, or a budget
 * (2.5) fitted into what the model takes (`nearestThinkingBudget`), with a warning when thinking could
 * not be turned off or on as asked (`zeta-2.5-pro` cannot turn it off: its smallest budget is sent).
 */
const thinkingConfig = (model: string, effort: ReasoningEffort | undefined): Thinking => {
  if (effort === undefined) return {}
  const parsed = parseNativeModel(model)
  if (Result.isFailure(parsed) || parsed.success.suffix !== undefined) return {}
  const { base, modelClass } = parsed.success
  if (modelClass === "3")
    return {
      config: {
        includeThoughts: true,
        thinkingLevel: thinkingLevelOf(effort)
      }
    }
  if (modelClass !== "2.5") return {}
  const asked = BUDGETS[effort]
  const budget = nearestThinkingBudget(base, asked)
  // Thoughts are asked for only where thinking was asked and is on: "none" on pro shows none.
  const config =
    asked === 0 || budget === 0 ? { thinkingBudget: budget } : { includeThoughts: true, thinkingBudget: budget }
  if ((asked === 0) === (budget === 0)) return { config }
  return {
    config,
    warning: `reasoning ${JSON.stringify(effort)}: ${base} cannot turn thinking ${asked === 0 ? "off" : "on"}; thinkingBudget ${budget} is sent instead`
  }
}

const toolConfigOf = (request: TextRequest): Readonly<Record<string, unknown>> | undefined => {
  const choice = request.toolChoice
  if (choice === undefined || request.tools.length === 0) return undefined
  if (typeof choice !== "string") return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.tool] } }
  return { functionCallingConfig: { mode: choice === "required" ? "ANY" : choice.toUpperCase() } }
}

/**
 * The native-content request (body and model) of a request.
 * @category constructors
 */
export const nativeRequest = (request: TextRequest): Result.Result<Built<NativeRequest>, InvalidRequest> =>
  Result.gen(function* () {
    const contents: Array<{ role: "user" | "model"; parts: Array<Part> }> = []
    const warnings: Array<TextWarning> = []
    for (const [i, turn] of sides(request).entries()) {
      const parts = turn.side === "user" ? yield* userParts(turn.messages, i, warnings) : modelParts(turn.messages)
      if (parts.length > 0) contents.push({ role: turn.side === "user" ? "user" : "model", parts })
    }
    const thinking = thinkingConfig(request.model, request.reasoning)
    if (thinking.warning !== undefined)
      warnings.push({
        kind: "compatibility",
        feature: "reasoning",
        message: thinking.warning,
        details: thinking.warning
      })
    const generationConfig = {
      ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.topP === undefined ? {} : { topP: request.topP }),
      ...(request.topK === undefined ? {} : { topK: request.topK }),
      ...(request.stopSequences === undefined ? {} : { stopSequences: request.stopSequences }),
      ...(request.seed === undefined ? {} : { seed: request.seed }),
      ...(request.presencePenalty === undefined ? {} : { presencePenalty: request.presencePenalty }),
      ...(request.frequencyPenalty === undefined ? {} : { frequencyPenalty: request.frequencyPenalty }),
      ...(thinking.config === undefined ? {} : { thinkingConfig: thinking.config })
    }
    const system = systemText(request)
    const toolConfig = toolConfigOf(request)
    let body = {
      model: request.model,
      contents,
      ...(Object.keys(generationConfig).length === 0 ? {} : { generationConfig }),
      ...(system === undefined ? {} : { systemInstruction: { parts: [{ text: system }] } }),
      ...(toolConfig === undefined ? {} : { toolConfig })
    } as unknown as NativeRequest
    if (request.tools.length > 0) body = nativeTools.declare(body, request.tools.map(declarationOf))
    const target = request.output?.target
    if (request.output !== undefined)
      body =
        target === undefined
          ? { ...body, generationConfig: { ...body.generationConfig, responseMimeType: "application/json" } }
          : yield* nativeMechanism.request(body, target)
    return { body: overlayBody(body, request.body), warnings }
  })
