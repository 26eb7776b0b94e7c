/**
 * `umg batch status ID`: the counts per state of a batch, read from its store (six count rows, not
 * its lines). It loads the store's SQL client only, not the batch engine or the gateway, so it
 * answers at once even beside a running batch.
 */
import * as Effect from "effect/Effect"
import type { Counts } from "../../batch/Store.js"
import { storeOf } from "../../batch/Settings.js"
import { readStatus } from "../../batch/StoreAccess.js"
import * as Output from "../support/Output.js"

/** The counts as one line: `12/40 done · 3 running · 1 submitting · 20 pending · 0 failed · 0 unknown`. @category output */
export const countsText = (c: Counts): string =>
  `${Output.bar(c.succeeded + c.failed + c.unknown, c.total)} ${c.succeeded} succeeded · ${c.running} running · ${c.submitting} submitting · ${c.pending} pending · ${c.failed} failed · ${c.unknown} unknown`

/** The options of `umg batch status`. @category models */
export interface BatchStatusOptions {
  readonly json: boolean
  readonly id: string
  readonly store: string
}

/** Runs `umg batch status`. @category commands */
export const runBatchStatus = (o: BatchStatusOptions) =>
  Effect.gen(function* () {
    const c = yield* readStatus(storeOf(o.store), o.id)
    const { total: _total, ...perState } = c
    yield* Output.result(o, perState, () => countsText(c))
  })
