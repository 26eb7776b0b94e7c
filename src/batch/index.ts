/**
 * `umg/batch`: durable video batches on Effect's workflow and cluster modules — SQLite in one
 * process, PostgreSQL for many. Each input is submitted at most once across crashes, restarts and
 * runners; a submit whose answer was lost is reported `unknown`, never sent again unless asked.
 */
export * as Batch from "./Batch.js"
export type { BatchHandle, BatchResult, BatchService, LayerOptions, StoreConfig, VideoBatchOptions } from "./Batch.js"
export {
  BatchHalted,
  BatchInvalidInput,
  BatchMismatch,
  BatchNotFound,
  BatchStoreError,
  type BatchError,
  type HaltReason,
  type HaltStep
} from "./BatchError.js"
export type { CancelResult, Counts, Halt, Ingest, LineState, Refusal, Status } from "./Store.js"
export type { NumberedInput } from "./Ingest.js"
