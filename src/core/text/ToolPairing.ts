/**
 * The pairing of tool calls and their results in a conversation, as each text family's upstream
 * checks it. A result must answer a call made in the turn it answers, and (where the family says
 * so) every call of that turn needs a result. A body that breaks it is refused upstream with a 400
 * after a round trip; the builders refuse it first, naming the field.
 *
 * One rule, four wire shapes: each family says where its calls and results are (`PairedTurn`), and
 * `pairingIssue` checks them all the same way.
 */
import type * as Schema from "effect/Schema"
import { acrossFields, detailed } from "../validation/FieldRules.js"
import { describe, isRecord, type Json } from "../validation/Rules.js"

/** Which failure `pairingIssue` looks for: a result that answers no call, or a call left unanswered. @category models */
export type PairingRule = "one-of" | "complete"

/** A call, or a result: what it names (an id, or a function's name) and where it is. @category models */
export interface Paired {
  readonly id: unknown
  readonly key: ReadonlyArray<PropertyKey>
}

/** One turn of results and the calls it answers. @category models */
export interface PairedTurn {
  /** What the answered turn called, in order. */
  readonly calls: ReadonlyArray<Paired>
  /** Where the calls are, in words (`the tool_calls of messages[1]`). */
  readonly callsWhere: string
  readonly results: ReadonlyArray<Paired>
  /**
   * When every call needs a result here, what is missing, in words (`tool_result in messages[2]`);
   * `false` when not.
   */
  readonly complete: string | false
}

/** A failure: the path of the field at fault and what is wrong with it. @category models */
export interface PairingIssue {
  readonly key: ReadonlyArray<PropertyKey>
  readonly detail: string
}

/**
 * The first failure of `rule` among `turns`, in order: for `one-of`, a result that answers nothing
 * its turn called; for `complete`, a call left without a result in a turn that must answer them all.
 * @category validators
 */
export const pairingIssue = (turns: ReadonlyArray<PairedTurn>, rule: PairingRule): PairingIssue | undefined => {
  for (const turn of turns) {
    if (rule === "one-of") {
      const ids = turn.calls.map((c) => c.id)
      const stray = turn.results.find((r) => !ids.includes(r.id))
      if (stray !== undefined)
        return {
          key: stray.key,
          detail: `${describe(stray.id)} answers no call; allowed: ${
            ids.length === 0 ? "none" : ids.map(describe).join(", ")
          } (${turn.callsWhere})`
        }
    } else if (turn.complete !== false) {
      const answered = new Set(turn.results.map((r) => r.id))
      const missing = turn.calls.find((c) => !answered.has(c.id))
      if (missing !== undefined)
        return {
          key: missing.key,
          detail: `${describe(missing.id)} has no ${turn.complete}; every call needs one`
        }
    }
  }
  return undefined
}

/**
 * A body schema with the pairing rule on the turns `turnsOf` finds in it: rule `one-of`, then rule
 * `complete`.
 * @category constructors
 */
export const withToolPairing =
  <T>(turnsOf: (body: T) => ReadonlyArray<PairedTurn>) =>
  <S extends Schema.Top & { readonly Type: T }>(self: S) =>
    acrossFields(
      acrossFields(self, "one-of", (body) => pairingIssue(turnsOf(body), "one-of"), detailed),
      "complete",
      (body) => pairingIssue(turnsOf(body as T), "complete"),
      detailed
    )

/** The records of an array (anything else: none), with their indexes. @category utils */
export const recordsOf = (value: unknown): ReadonlyArray<readonly [Json, number]> =>
  Array.isArray(value) ? value.flatMap((item: unknown, i) => (isRecord(item) ? [[item, i] as const] : [])) : []
