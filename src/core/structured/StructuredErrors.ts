/** The typed failures of structured output: a schema that cannot be sent, a value or an answer that does not match. */
import * as Data from "effect/Data"
import type { TokenFamily } from "../text/TokenEvent.js"

/**
 * The schema cannot be expressed as the JSON Schema a provider accepts for structured output; refused
 * before anything is sent. `path` is a JSON Pointer into the generated JSON Schema (`""` for the root,
 * `/properties/user/properties/id`, …), `message` names the part and what to do instead.
 * @category errors
 */
export class SchemaNotExpressible extends Data.TaggedError("SchemaNotExpressible")<{
  readonly path: string
  readonly message: string
}> {}

/**
 * A value did not match its schema. `issue` is the schema library's own issue text (one line per
 * issue, each with its path); `message` says where and what.
 * @category errors
 */
export class SchemaMismatch extends Data.TaggedError("SchemaMismatch")<{
  readonly message: string
  readonly issue: string
}> {}

/**
 * The model's answer was not the structured value asked for: its text is not JSON (`issue` names the
 * syntax error) or its JSON does not match the schema (`issue` is the schema's issue text). `raw` is
 * the answer's JSON text as received, so nothing is lost. When the output limit ended the answer
 * (`finish_reason: length`, `MAX_TOKENS`, …), the message says so: the likely cause, and its cure.
 * @category errors
 */
export class OutputMismatch extends Data.TaggedError("OutputMismatch")<{
  readonly family: TokenFamily
  readonly message: string
  readonly raw: string
  readonly issue: string
}> {}

/**
 * The model declined to give the structured value (chat `message.refusal`, a responses `refusal`
 * content part, a messages-style answer without the forced tool call, a native answer stopped for
 * safety). `refusal` is the model's own explanation, or the stop reason when it gave none.
 * @category errors
 */
export class OutputRefused extends Data.TaggedError("OutputRefused")<{
  readonly family: TokenFamily
  readonly message: string
  readonly refusal: string
}> {}
