/**
 * The input tokens of one `embeddings.embedMany` as both providers report them: the sum of its
 * requests' `usage.prompt_tokens`, known only when every request reported its usage.
 */
import type { EmbedManyEvent } from "../../adapters/groups/Embeddings.js"

/** The input tokens of a call, counted from its events: `onEvent` goes with the call, `inputTokens` is read once it ended. @category models */
export interface EmbeddingUsage {
  readonly onEvent: (event: EmbedManyEvent) => void
  /** The summed input tokens, or `undefined` when a request reported none (a partial sum would understate). */
  readonly inputTokens: () => number | undefined
}

/** A count for one call (one per call: calls running together each have their own). @category constructors */
export const embeddingUsage = (): EmbeddingUsage => {
  let sum = 0
  let complete = true
  return {
    onEvent: (event) => {
      if (event.type !== "result") return
      if (event.usage === undefined) complete = false
      else sum += event.usage.prompt_tokens
    },
    inputTokens: () => (complete ? sum : undefined)
  }
}
