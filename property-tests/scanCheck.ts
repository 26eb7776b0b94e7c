// What the properties of the readers that skip the parse tree share (fragment deltas, chat content
// chunks): an oracle independent of the reader, texts to read, and the check that a read agrees.
import { Result } from "effect"
import fc from "fast-check"
import { expect } from "vitest"
import { exceedsJsonDepth } from "../src/core/wire/JsonSafety.js"

/** What `JSON.parse`, the depth bound and a Schema's decode make of a text: its value, or a refusal. */
export type Verdict = { readonly ok: true; readonly value: unknown } | { readonly ok: false }

/** The oracle of a reader: `JSON.parse`, the depth bound, then `decode` (a Schema's `decodeUnknownResult`). */
export const schemaOracle =
  (decode: (json: unknown) => Result.Result<unknown, unknown>) =>
  (data: string, maxDepth: number): Verdict => {
    let json: unknown
    try {
      json = JSON.parse(data)
    } catch {
      return { ok: false }
    }
    if (exceedsJsonDepth(json, maxDepth)) return { ok: false }
    const decoded = decode(json)
    return Result.isSuccess(decoded) ? { ok: true, value: decoded.success } : { ok: false }
  }

/**
 * A reader may decline anything, but what it reads must be exactly what the oracle gives: the same
 * value, and the same keys in the same order.
 */
export const expectReadAgrees = (read: unknown, expected: Verdict): void => {
  if (read === undefined) return
  expect(expected.ok).toBe(true)
  if (!expected.ok) return
  expect(read).toStrictEqual(expected.value)
  expect(JSON.stringify(read)).toBe(JSON.stringify(expected.value))
}

/** Strings of every kind: ASCII, any code unit (lone surrogates, control characters), escapes' own characters, past the 4096 read. */
export const jsonStrings = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom("\\", '"', "\n", "\u0000", "\u001f", "/", "\u2028", "a", "é", "😀", "\ud800") }),
  fc.string({ minLength: 4000, maxLength: 4200, unit: fc.constantFrom("a", "\n") })
)

/**
 * Strings a reader reads itself, any code unit: at most 600 code units, so their JSON literal (an
 * escape is at most six units) stays under the 4096 units read without `JSON.parse`.
 */
export const readableStrings = fc.oneof(fc.string({ maxLength: 600 }), fc.string({ unit: "binary", maxLength: 600 }))

/** Texts one character away from `upstream`: one put in (from `inserted`), taken out, or replaced (by one of `replacing`), or the text cut short. */
export const oneCharAway = (
  upstream: fc.Arbitrary<string>,
  inserted: ReadonlyArray<string>,
  replacing: ReadonlyArray<string>
): fc.Arbitrary<string> =>
  fc.oneof(
    fc.tuple(upstream, fc.nat(), fc.constantFrom(...inserted)).map(([text, at, c]) => {
      const i = at % (text.length + 1)
      return text.slice(0, i) + c + text.slice(i)
    }),
    fc.tuple(upstream, fc.nat()).map(([text, at]) => {
      const i = at % text.length
      return text.slice(0, i) + text.slice(i + 1)
    }),
    fc.tuple(upstream, fc.nat(), fc.constantFrom(...replacing)).map(([text, at, c]) => {
      const i = at % text.length
      return text.slice(0, i) + c + text.slice(i + 1)
    }),
    fc.tuple(upstream, fc.nat()).map(([text, at]) => text.slice(0, at % (text.length + 1)))
  )
