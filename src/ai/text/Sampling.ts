/**
 * Sampling settings a model does not take in its current mode, and the reasoning effort a GPT-5
 * release takes, as the official AI SDK providers handle them. A setting not taken is dropped from the
 * request with an `unsupported` warning naming it and saying why; an effort is fitted the way
 * `@ai-sdk/openai` fits it.
 * A reasoning model (GPT-5, o-series) takes no `temperature` or `topP` (nor, on chat, penalties); a
 * messages-style model thinking takes no `temperature`, `topP` or `topK`. Fields of the family's own
 * body (`body`) are the caller's and are sent as they are.
 */
import { entryFor } from "../../core/gateway/Catalog.js"
import type { ReasoningEffort, TextRequest } from "./TextRequest.js"
import type { TextWarning } from "./Turns.js"

/**
 * Whether umg's catalog places a model among the reasoning models: the GPT-5 (Pro included) and
 * o-series entries, the ones whose preferred family is responses (`gpt-4o`, `gpt-4.1` and any id the
 * catalog does not match prefer chat; epsilon and zeta models have families of their own). Read from
 * the default catalog, as the frameworks' providers route with it (`textFamilyOf`).
 * @category getters
 */
export const isReasoningModel = (model: string): boolean => entryFor(model).capabilities[0] === "responses"

/**
 * Whether a reasoning model is sent no sampling settings with this request: always, but for GPT-5.1
 * and later GPT-5 releases asked for reasoning `none`, which take them as a model that does not
 * reason does (as @ai-sdk/openai reads its model ids).
 * @category getters
 */
export const dropsSampling = (request: TextRequest): boolean =>
  isReasoningModel(request.model) && !(request.reasoning === "none" && (gpt5ReleaseOf(request.model)?.minor ?? 0) >= 1)

/** A GPT-5 model id read: its minor version (`gpt-5.2-codex`: 2; `gpt-5`: 0), and whether it is a standard release. */
interface Gpt5Release {
  readonly minor: number
  /** `gpt-5[.N]` itself, its `-mini` or `-nano`, or a dated snapshot of one (not `-pro`, `-codex`, `-chat`, …). */
  readonly standard: boolean
}

/** How umg reads a GPT-5 model id, the one reading both rules above and below use; `undefined` for any other model. */
const gpt5ReleaseOf = (model: string): Gpt5Release | undefined => {
  const match = /^gpt-5(?:\.(\d+))?(-.*)?$/.exec(model)
  if (match === null) return undefined
  const variant = match[2]
  return {
    minor: match[1] === undefined ? 0 : Number(match[1]),
    standard: variant === undefined || /^(?:-(?:mini|nano))?(?:-\d{4}-\d{2}-\d{2})?$/.test(variant)
  }
}

/**
 * The reasoning efforts a standard GPT-5 release takes (`gpt-5`, `-mini`, `-nano`, dated snapshots),
 * by minor version as @ai-sdk/openai lists them; `undefined` for any other model (sent as asked).
 */
const gpt5Efforts = (model: string): ReadonlyArray<ReasoningEffort> | undefined => {
  const release = gpt5ReleaseOf(model)
  if (release === undefined || !release.standard) return undefined
  const minor = release.minor
  if (minor === 0) return ["minimal", "low", "medium", "high"]
  if (minor === 1) return ["none", "low", "medium", "high"]
  return minor < 6 ? ["none", "low", "medium", "high", "xhigh"] : ["none", "low", "medium", "high", "xhigh", "max"]
}

/** The levels a fit moves along, lowest first (`none` is below them all). */
const levels: ReadonlyArray<ReasoningEffort> = ["minimal", "low", "medium", "high", "xhigh", "max"]

/** The effort an OpenAI-style model is sent, and the warning saying it was fitted. @category models */
export interface FittedEffort {
  readonly effort: ReasoningEffort | undefined
  /** Whether umg knows the efforts the model takes (a standard GPT-5 release). */
  readonly known: boolean
  readonly warnings: ReadonlyArray<TextWarning>
}

/**
 * The effort an OpenAI-style model is sent for `reasoning`. A standard GPT-5 release gets the asked
 * effort when it takes it, else the nearest it takes — the next lower first, then the next higher,
 * as @ai-sdk/openai fits it — with a `compatibility` warning in its words; any other model gets the
 * asked effort, `max` sent as `xhigh`.
 * @category constructors
 */
export const fitOpenAiEffort = (model: string, reasoning: ReasoningEffort | undefined): FittedEffort => {
  if (reasoning === undefined) return { effort: undefined, known: false, warnings: [] }
  const takes = gpt5Efforts(model)
  if (takes === undefined) return { effort: reasoning === "max" ? "xhigh" : reasoning, known: false, warnings: [] }
  const at = levels.indexOf(reasoning)
  const candidates = [reasoning, ...levels.slice(0, Math.max(at, 0)).reverse(), ...levels.slice(at + 1)]
  const effort = candidates.find((candidate) => takes.includes(candidate))!
  if (effort === reasoning) return { effort, known: true, warnings: [] }
  const details = `reasoning "${reasoning}" is not directly supported by this model. mapped to effort "${effort}".`
  return {
    effort,
    known: true,
    warnings: [{ kind: "compatibility", feature: "reasoning", details, message: `${details} (${model})` }]
  }
}

/** The settings a reasoning model takes none of on responses, in the official provider's order. @category constants */
export const reasoningResponsesDropped: ReadonlyArray<keyof TextRequest> = ["temperature", "topP"]

/** The settings a reasoning model takes none of on chat, in the official provider's order. @category constants */
export const reasoningChatDropped: ReadonlyArray<keyof TextRequest> = [
  "temperature",
  "topP",
  "frequencyPenalty",
  "presencePenalty"
]

/** The settings a messages-style model takes none of while thinking, in the official provider's order. @category constants */
export const thinkingDropped: ReadonlyArray<keyof TextRequest> = ["temperature", "topK", "topP"]

/** A request without some of its settings, and the warnings naming those it had. @category models */
export interface Dropped {
  readonly request: TextRequest
  readonly warnings: ReadonlyArray<TextWarning>
}

/**
 * `request` without the settings `names` it has, each named by an `unsupported` warning whose details
 * say why, in the official providers' words (`temperature is not supported for reasoning models`);
 * `when` is the reason's end (`for reasoning models`, `when thinking is enabled`).
 * @category constructors
 */
export const dropSettings = (request: TextRequest, names: ReadonlyArray<keyof TextRequest>, when: string): Dropped => {
  const present = names.filter((name) => request[name] !== undefined)
  if (present.length === 0) return { request, warnings: [] }
  const kept: Record<string, unknown> = { ...request }
  const warnings: Array<TextWarning> = []
  for (const name of present) {
    delete kept[name]
    const details = `${String(name)} is not supported ${when}`
    warnings.push({ feature: String(name), details, message: `${details} (${request.model}); not sent` })
  }
  return { request: kept as unknown as TextRequest, warnings }
}
