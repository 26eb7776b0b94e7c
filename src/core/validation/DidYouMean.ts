/**
 * "Did you mean": the known name closest to a misspelt one, when it is close enough to be a likely
 * misspelling. The one rule behind every suggestion umg makes — an unknown body field
 * (`temprature` → `temperature`) and an unknown CLI flag, command or subcommand.
 */

/** Names longer than this get no suggestion (the distance costs length², and such a name is no typo). @category models */
export const maxSuggestedNameChars = 64

/**
 * The optimal string alignment distance of two words, case ignored: insertions, deletions,
 * substitutions and a swap of two neighbouring letters each count as one edit (`temprature` →
 * `temperature` is one, `--max-tkoens` → `--max-tokens` is one).
 * @category decisions
 */
export const distance = (a: string, b: string): number => {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  // Three rows: the one before last (for swaps), the last, the current.
  let before: Array<number> = []
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j)
  for (let i = 1; i <= x.length; i++) {
    const current = [i]
    for (let j = 1; j <= y.length; j++) {
      let v = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) v = Math.min(v, before[j - 2]! + 1)
      current[j] = v
    }
    before = previous
    previous = current
  }
  return previous[y.length]!
}

/**
 * Whether `known` is close enough to `given` to be suggested: at most a third of the longer word's
 * letters differ (and always one edit allowed), by `distance`.
 * @category decisions
 */
export const isNearMiss = (given: string, known: string, edits: number = distance(given, known)): boolean =>
  edits <= Math.max(1, Math.floor(Math.max(given.length, known.length) / 3))

/**
 * The known name closest to `given` by `distance` (the first of equals, in the order given), when
 * it is a near miss (`isNearMiss`); `undefined` otherwise, and for a name longer than
 * `maxSuggestedNameChars`.
 * @category decisions
 */
export const nearestName = (given: string, known: ReadonlyArray<string>): string | undefined => {
  if (given.length > maxSuggestedNameChars) return undefined
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const d = distance(given, candidate)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best !== undefined && isNearMiss(given, best, bestDistance) ? best : undefined
}
