/**
 * The failures of `umg/batch`. They are an input that cannot be sent (nothing of the batch was), an
 * id reused for other inputs, an id that does not exist, a batch the gateway refused for the whole
 * key or account, and a store that cannot be used (locked by another process, unreachable, corrupt).
 * Messages never hold a store password (`Batch.describeStore` and the core's `redactText` hide it).
 */
import * as Data from "effect/Data"
import type { ErrorLike } from "../core/gateway/RetryPolicy.js"

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
 * Why the gateway refused the batch's key or account: `authentication` (401: the key is
 * missing or wrong), `permission` (403: the key may not do this), `billing` (402) or `quota` (out of
 * quota). @category models
 */
export type HaltReason = "authentication" | "permission" | "billing" | "quota"

/**
 * Whether a request of the batch (a submit, a task's poll or its download) was refused for the whole
 * key or account rather than for itself: 401 (`AuthenticationError`), 403 (`PermissionDenied`), 402 or
 * `billing_error`, `insufficient_quota`. Another key or a paid-up account may succeed: the one rule
 * by which a batch halts (see `BatchHalted`). @category decisions
 */
export const haltReasonOf = (error: ErrorLike): HaltReason | undefined => {
  if (error._tag === "AuthenticationError" || error.status === 401) return "authentication"
  if (error._tag === "PermissionDenied" || error.status === 403) return "permission"
  if (error.status === 402 || error.type === "billing_error") return "billing"
  if (error.type === "insufficient_quota") return "quota"
  return undefined
}

/** Whom the gateway refused for `reason`: the `key` (401, 403) or the `account` (402, out of quota). */
export const refusedOf = (reason: HaltReason): "key" | "account" =>
  reason === "authentication" || reason === "permission" ? "key" : "account"

/**
 * When a batch halted for `reason` goes on: "run it again " + this, naming the key as `key` (the CLI
 * names its variable). The one wording of `BatchHalted` and `umg batch status`. @category decisions
 */
export const resumeWhen = (reason: HaltReason, key = "key"): string =>
  ({
    authentication: `with a valid ${key}`,
    permission: `with a ${key} allowed to submit these videos`,
    billing: "once the account can pay",
    quota: "once the account has quota"
  })[reason]

/**
 * What the gateway refused when it halted a batch: a line's `submit` (nothing was made; the line is
 * `pending` again) or the `poll` of a line's running task, or its video's download (the task exists and
 * may succeed; the line stays `running`, to be followed again). @category models
 */
export type HaltStep = "submit" | "poll"

/**
 * The gateway refused a request of the batch for the whole key or account (see `HaltReason`), and the
 * batch stopped submitting at once rather than send every other line to the same refusal. A refused
 * submit made nothing (`step: "submit"`); a refused poll or download of a running task (`"poll"`: a key
 * revoked or rotated while the batch ran) leaves the task, which may still succeed, `running` with its
 * id. Its lines not submitted stay `pending`; running the batch again (with a key or an account that
 * can submit) sends them and follows the running ones to their end. @category errors
 */
export class BatchHalted extends Data.TaggedError("BatchHalted")<{
  readonly id: string
  readonly reason: HaltReason
  /** What was refused: a submit, or the poll (or download) of a running task. */
  readonly step: HaltStep
  /** The line whose submit, or whose task's poll, was refused. */
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
