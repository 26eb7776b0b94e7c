/** The options of `embeddings.embedMany$`, and how they map onto the adapters' one `embeddings.embedMany`, which the Observable runs. */
import type { EmbedManyEvent, EmbedManyOptions } from "../adapters/groups/Embeddings.js"

/** Options of `embedMany$`: the embeddings body without `input`, plus the batch settings. @category models */
export type EmbedManyRxOptions = Omit<EmbedManyOptions, "inputs" | "onEvent" | "maxRateLimitRetries"> & {
  /** Retries of one text after a 429 before the batch fails with `RateLimited` (default 8). */
  readonly maxRetries?: number | undefined
}

/** The Effect call's options for `embedMany$(inputs, options)`, its events going to `onEvent`. @category constructors */
export const embedManyOptions = (
  inputs: ReadonlyArray<string>,
  options: EmbedManyRxOptions,
  onEvent: (event: EmbedManyEvent) => void
): EmbedManyOptions => {
  const { maxRetries, ...rest } = options
  return { ...rest, inputs, ...(maxRetries === undefined ? {} : { maxRateLimitRetries: maxRetries }), onEvent }
}
