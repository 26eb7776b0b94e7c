/**
 * The fields a caller lays over a body umg built (`providerOptions.umg`, umg/ai's `config.body`),
 * merged into it: one rule for every family, so an overlay adds to what umg built and never wipes it.
 */
import { isRecord } from "../../core/validation/Rules.js"

type Fields = Readonly<Record<string, unknown>>

/**
 * `overlay` laid over `body`, deeply: where both hold a plain object under a key the two are merged
 * key by key, so `{ generationConfig: { candidateCount: 1 } }` keeps the built `generationConfig`'s
 * other fields; anything else (an array, a string, a number, `null`) replaces the built value whole.
 * A key whose overlay value is `undefined` keeps the built value. Neither argument is changed.
 * @category combinators
 */
export const overlayBody = <Body extends Fields>(body: Body, overlay: Fields | undefined): Body =>
  overlay === undefined ? body : (merge(body, overlay) as Body)

const merge = (base: Fields, overlay: Fields): Fields => {
  const out: Record<string, unknown> = { ...base }
  for (const key of Object.keys(overlay)) {
    const value = overlay[key]
    if (value === undefined) continue
    const built = base[key]
    // Defined, not assigned: a `__proto__` key is a field like any other, never the object's prototype.
    Object.defineProperty(out, key, {
      value: isRecord(built) && isRecord(value) ? merge(built, value) : value,
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return out
}
