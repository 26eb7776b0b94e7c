/**
 * The failures of `umg/batch`. They are an input that cannot be sent (nothing of the batch was), an
 * id reused for other inputs, an id that does not exist, and a store that cannot be used (locked by
 * another process, unreachable, corrupt). Messages never hold a store password
 * (`Batch.describeStore` and the core's `redactText` hide it).
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

/** The store cannot be used: locked by another process, unreachable, or failing a statement. @category errors */
export class BatchStoreError extends Data.TaggedError("BatchStoreError")<{
  readonly reason: "locked" | "unreachable" | "statement"
  readonly message: string
}> {}

/** Every failure of the batch API. @category errors */
export type BatchError = BatchInvalidInput | BatchMismatch | BatchNotFound | BatchStoreError
