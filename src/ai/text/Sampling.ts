/**
 * Sampling settings a model does not take in its current mode, as the official AI SDK providers
 * handle them: dropped from the request, with an `unsupported` warning naming each and saying why.
 * A reasoning model (GPT-5, o-series) takes no `temperature` or `topP` (nor, on chat, penalties); a
 * messages-style model thinking takes no `temperature`, `topP` or `topK`. Fields of the family's own
 * body (`body`) are the caller's and are sent as they are.
 */
import { entryFor } from "../../core/gateway/Catalog.js"
import type { TextRequest } from "./TextRequest.js"
import type { TextWarning } from "./Turns.js"

/**
 * Whether umg's catalog places a model among the reasoning models: the GPT-5 (Pro included) and
 * o-series entries, the ones whose preferred family is responses (`gpt-4o`, `gpt-4.1` and any id the
 * catalog does not match prefer chat; epsilon and zeta models have families of their own). Read from
 * the default catalog, as the frameworks' providers route with it (`textFamilyOf`).
 * @category getters
 */
export const isReasoningModel = (model: string): boolean => entryFor(model).capabilities[0] === "responses"

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
