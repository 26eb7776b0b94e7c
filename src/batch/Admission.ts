/**
 * Which batches a process runs: on a SQLite store only those it was asked to run, on PostgreSQL every
 * batch of the database (workers share them all).
 *
 * A slot stopped by Ctrl-C is left un-ended so that the cluster runs it again later, and on a SQLite
 * store this one process owns every shard: without this gate, running any batch would also run, and
 * pay for, every batch stopped earlier in that store. A slot of a batch not asked for waits here
 * before it touches anything, until its own batch is run again (`Batch.video`), or the process ends.
 */
import { Context, Deferred, Effect, Layer } from "effect"

/** The gate. @category models */
export interface AdmissionService {
  /** Lets the slots of this batch run in this process. */
  readonly admit: (batchId: string) => Effect.Effect<void>
  /** Completes once the slots of this batch may run in this process. */
  readonly admitted: (batchId: string) => Effect.Effect<void>
}

/** The gate's tag. @category tags */
export class Admission extends Context.Service<Admission, AdmissionService>()("umg/batch/Admission") {}

/** Every batch runs (PostgreSQL runners). @category layers */
export const all: Layer.Layer<Admission> = Layer.succeed(
  Admission,
  Admission.of({ admit: () => Effect.void, admitted: () => Effect.void })
)

/** Only the batches this process was asked to run (a SQLite store). @category layers */
export const asked: Layer.Layer<Admission> = Layer.sync(Admission, () => {
  const gates = new Map<string, Deferred.Deferred<void>>()
  const gateOf = (batchId: string) => {
    const known = gates.get(batchId)
    if (known !== undefined) return known
    const made = Deferred.makeUnsafe<void>()
    gates.set(batchId, made)
    return made
  }
  return Admission.of({
    admit: (batchId) => Effect.asVoid(Effect.suspend(() => Deferred.succeed(gateOf(batchId), undefined))),
    admitted: (batchId) => Effect.suspend(() => Deferred.await(gateOf(batchId)))
  })
})
