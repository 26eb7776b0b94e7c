/** The first candidate of a native-content answer or stream chunk, by its `index` (a module of its own: stream readers take it without the decoders). */
/**
 * The first candidate (`index` 0) of an answer or a stream chunk, or `undefined` when it holds none:
 * with `candidateCount` above 1 a chunk may carry only others (the first finished early), so the
 * position alone does not tell. A candidate without `index` counts by its position.
 * @category getters
 */
export const firstCandidate = <C extends { readonly index?: number | undefined }>(response: {
  readonly candidates?: ReadonlyArray<C> | undefined
}): C | undefined => {
  const candidates = response.candidates ?? []
  for (let i = 0; i < candidates.length; i++) if ((candidates[i]!.index ?? i) === 0) return candidates[i]
  return undefined
}
