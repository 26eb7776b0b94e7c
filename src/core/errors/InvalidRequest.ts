/** The one error of client-side validation: a body that the contract says is wrong never leaves the process. */
import * as Data from "effect/Data"

/**
 * A request failed validation before anything was sent.
 *
 * - `field` is a path into the input, such as `metadata.content[1].role` or `durationSeconds`.
 * - `rule` is a short stable name of the rule that failed (`required`, `one-of`, `range`, …).
 * - `message` names the field, what was given and what is allowed.
 *
 * @category errors
 */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly field: string
  readonly rule: string
  readonly message: string
}> {}
