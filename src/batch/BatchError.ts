/**
 * The failures of `umg/batch`. They are an input that cannot be sent (nothing of the batch was), an
 * id reused for other inputs, an id that does not exist, a batch the gateway refused for the whole
 * key or account, and a store that cannot be used (locked by another process, unreachable, corrupt).
 * Messages never hold a store password (`Batch.describeStore` and the core's `redactText` hide it).
 */
import * as Data from "effect/Data"

/**
 * An input failed the checks `video.submit` runs. It was never sent; nor were the lines after it.
 * The lines before it were sent only when the input was a stream (checked while the first lines
 * ran): `submitted` says how many. @category errors
 */
export class BatchInvalidInput extends Data.TaggedError("BatchInvalidInput")<{
  /** The input's line (1-based; the input's position when no lines were given). */
  readonly line: number
  /** The field path inside the input, such as `duration`. */
  readonly field: string
  readonly rule: string
  readonly message: string
  /** Lines of the batch submitted before this line was found invalid (absent: none). */
  readonly submitted?: number
}> {}

/** The batch id exists for other inputs (another file, or the same file changed). @category errors */
export class BatchMismatch extends Data.TaggedError("BatchMismatch")<{
  readonly id: string
  readonly message: string
}> {}

/** No batch has this id in the store. @category errors */
export class BatchNotFound extends Data.TaggedError("BatchNotFound")<{
  readonly id: string
  readonly message: string
}> {}

/**
 * Why the gateway refused a submit for the whole key or account: `authentication` (401: the key is
 * missing or wrong), `permission` (403: the key may not do this), `billing` (402) or `quota` (out of
 * quota). @category models
 */
export type HaltReason = "authentication" | "permission" | "billing" | "quota"

/**
 * The gateway refused a submit of the batch for the whole key or account (see `HaltReason`): nothing
 * was made for it, and the batch stopped submitting at once rather than send every other line to the
 * same refusal. Its lines not submitted stay `pending`; running the batch again (with a key or an
 * account that can submit) sends them. Lines already running go on to their end. @category errors
 */
export class BatchHalted extends Data.TaggedError("BatchHalted")<{
  readonly id: string
  readonly reason: HaltReason
  /** The line whose submit was refused. */
  readonly line: number
  /** The HTTP status of the refusal. */
  readonly status?: number
  /** The gateway's error type (`authentication_error`, …). */
  readonly type?: string
  readonly message: string
}> {}

/** The store cannot be used: locked by another process, unreachable, or failing a statement. @category errors */
export class BatchStoreError extends Data.TaggedError("BatchStoreError")<{
  readonly reason: "locked" | "unreachable" | "statement"
  readonly message: string
}> {}

/** Every failure of the batch API. @category errors */
export type BatchError = BatchInvalidInput | BatchMismatch | BatchNotFound | BatchHalted | BatchStoreError
