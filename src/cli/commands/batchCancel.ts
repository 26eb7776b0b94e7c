/**
 * `umg batch cancel ID`: cancels a batch in its store, even while another process runs it. Its lines
 * not submitted yet become `cancelled` and are never submitted; those submitted already are followed
 * to their end by the process running the batch. It loads the store's SQL client only, not the batch
 * engine or the gateway (which has no way to cancel a video task). A finished or already cancelled
 * batch is left as it is and said so; all three exit 0, an unknown id exits 2 (`BatchNotFound`).
 */
import * as Effect from "effect/Effect"
import type { CancelResult } from "../../batch/Store.js"
import { storeOf } from "../../batch/Settings.js"
import { cancelStored } from "../../batch/StoreAccess.js"
import { type BatchStoreOptions, countsText, perState } from "./batchStatus.js"
import * as Output from "../support/Output.js"

/** What the cancel did, in one or two lines. @category output */
export const cancelText = (r: CancelResult): string => {
  const c = r.counts
  const inFlight = c.submitting + c.running
  const head =
    r.outcome === "finished"
      ? `batch ${r.id} had ended: nothing to cancel`
      : r.outcome === "already-cancelled"
        ? `batch ${r.id} was cancelled already: nothing to do`
        : `batch ${r.id} cancelled: ${r.cancelled} lines not submitted will never be${
            inFlight > 0 ? `; its ${inFlight} submitted lines are followed to their end while the batch runs` : ""
          }`
  return `${head}\n${countsText(c)}`
}

/** Runs `umg batch cancel`. @category commands */
export const runBatchCancel = (o: BatchStoreOptions) =>
  Effect.gen(function* () {
    const result = yield* cancelStored(storeOf(o.store), o.id)
    yield* Output.result(
      o,
      { id: result.id, outcome: result.outcome, cancelled: result.cancelled, counts: perState(result.counts) },
      () => cancelText(result)
    )
  })
