/**
 * `umg batch status ID`: the counts per state of a batch, read from its store (seven count rows, not
 * its lines), and the line that refused it, if one did, or the gateway's refusal that halted it. It
 * loads the store's SQL client only, not the batch engine or the gateway, so it answers at once even
 * beside a running batch. It exits 0; 2 (invalid input) for a batch an invalid line stopped (its
 * lines from that one on are not stored and it waits, pending, until the corrected input is run
 * again); 1 for a batch halted by the gateway refusing the key or account (its lines wait, pending,
 * until it is run again with a key or account that can submit).
 */
import * as Effect from "effect/Effect"
import { refusedOf, resumeWhen } from "../../batch/BatchError.js"
import type { Counts, Halt, Refusal } from "../../batch/Store.js"
import { storeOf } from "../../batch/Settings.js"
import { readProgress } from "../../batch/StoreAccess.js"
import { ExitCode } from "../support/ExitCode.js"
import * as Output from "../support/Output.js"

/**
 * The counts as one line: `12/40 done · 3 running · 1 submitting · 20 pending · 0 failed · 0 unknown`,
 * and `· 4 cancelled` when lines were cancelled. @category output
 */
export const countsText = (c: Counts): string =>
  `${Output.bar(c.succeeded + c.failed + c.unknown + c.cancelled, c.total)} ${c.succeeded} succeeded · ${c.running} running · ${c.submitting} submitting · ${c.pending} pending · ${c.failed} failed · ${c.unknown} unknown${c.cancelled > 0 ? ` · ${c.cancelled} cancelled` : ""}`

/** Why a batch stopped taking lines, and what to do about it, in two lines. @category output */
export const refusalText = (r: Refusal): string => {
  // The stored message names its line already (`line 2: duration: …`); the text names it once.
  const message = r.message.startsWith(`line ${r.line}: `) ? r.message.slice(`line ${r.line}: `.length) : r.message
  return [
    `refused at line ${r.line} (field ${r.field}): ${message}`,
    `the batch waits and sends nothing more: fix line ${r.line} and run the same command again; it goes on where it stopped, sending no line twice.`
  ].join("\n")
}

/** Why a batch halted, and what to do about it, in two lines. @category output */
export const haltText = (h: Halt): string =>
  [
    h.step === "submit"
      ? `halted at line ${h.line}: the gateway refused the ${refusedOf(h.reason)} (${h.message}); nothing was made for it`
      : `halted at line ${h.line}: the gateway refused the ${refusedOf(h.reason)} when following its task (${h.message}); the task may still succeed: the line stays running`,
    `the batch sends nothing more and its lines not submitted wait, pending: run the same command again ${resumeWhen(h.reason, "UMG_API_KEY")}; it goes on where it stopped.`
  ].join("\n")

/** The options of `umg batch status` and `umg batch cancel`: a batch in a store. @category models */
export interface BatchStoreOptions {
  readonly json: boolean
  readonly id: string
  readonly store: string
}

/** The counts per state, as `--json` prints them (no `total`). @category output */
export const perState = ({ total: _total, ...c }: Counts): Omit<Counts, "total"> => c

/** Runs `umg batch status`. @category commands */
export const runBatchStatus = (o: BatchStoreOptions) =>
  Effect.gen(function* () {
    const { counts, ingest, halt } = yield* readProgress(storeOf(o.store), o.id)
    const refused = ingest.refused
    yield* Output.result(
      o,
      {
        ...perState(counts),
        ...(refused === null
          ? {}
          : { refused: { line: refused.line, field: refused.field, message: refused.message } }),
        ...(halt === null
          ? {}
          : {
              halted: {
                line: halt.line,
                step: halt.step,
                reason: halt.reason,
                status: halt.status,
                message: halt.message
              }
            })
      },
      () =>
        [
          countsText(counts),
          ...(refused === null ? [] : [refusalText(refused)]),
          ...(halt === null ? [] : [haltText(halt)])
        ].join("\n")
    )
    // A refused or halted batch goes no further by itself: a script waiting for it to end must stop waiting.
    if (refused !== null) process.exitCode = ExitCode.invalidInput
    else if (halt !== null) process.exitCode = ExitCode.failure
  })
