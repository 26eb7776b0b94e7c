/**
 * The batch journal's writer in one process, committing the slots' operations in groups. Operations
 * (`Store.Op`) from every slot are queued and run by one fiber, as many as are waiting in one
 * transaction, so a thousand lines changing state cost a few transactions, not a thousand. A caller resumes once its operation's
 * transaction has committed; an operation whose group failed is run again alone, so one bad
 * operation fails only its own caller.
 */
import { Context, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { BatchStoreError } from "./BatchError.js"
import * as Store from "./Store.js"

/** The journal's writer. @category models */
export interface JournalService {
  /** Runs the operation in the next group transaction; `what` names it in a failure. */
  readonly run: <A>(what: string, op: Store.Op<A>) => Effect.Effect<A, BatchStoreError>
  /** Operations queued and groups committed so far (tests, benches). */
  readonly stats: () => { readonly queued: number; readonly groups: number; readonly ops: number }
}

/** The journal's tag. @category tags */
export class Journal extends Context.Service<Journal, JournalService>()("umg/batch/Journal") {}

interface Item {
  readonly what: string
  readonly op: Store.Op<unknown>
  resume: ((exit: Exit.Exit<unknown, BatchStoreError>) => void) | undefined
}

// Operations per transaction: a group stays a few milliseconds of work.
const maxGroup = 256

/**
 * The writer, running while the scope is open. When the scope closes it first finishes what is
 * queued; an operation queued after that runs alone, in the caller's fiber.
 * @category constructors
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const provide = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.provideService(effect, SqlClient.SqlClient, sql)
  const queue: Array<Item> = []
  let wake: (() => void) | undefined
  let busy = false
  let closed = false
  let groups = 0
  let ops = 0
  let drained: (() => void) | undefined

  const alone = (item: Item) => Effect.exit(provide(Store.run(item.what, item.op)))

  const flush = Effect.gen(function* () {
    const group = queue.splice(0, maxGroup).filter((item) => item.resume !== undefined)
    if (group.length === 0) return
    groups++
    ops += group.length
    const exit = yield* Effect.exit(provide(Store.runAll(group.map((item) => item.op))))
    if (Exit.isSuccess(exit)) {
      group.forEach((item, i) => item.resume?.(Exit.succeed(exit.value[i])))
      return
    }
    for (const item of group) {
      const one = yield* alone(item)
      item.resume?.(one)
    }
  })

  const idle = Effect.callback<void>((resume) => {
    if (queue.length > 0) return resume(Effect.void)
    wake = () => {
      wake = undefined
      resume(Effect.void)
    }
    return Effect.sync(() => {
      wake = undefined
    })
  })

  const writer = Effect.gen(function* () {
    for (;;) {
      yield* idle
      // Let the fibers that are ready add their operations to this group.
      yield* Effect.yieldNow
      busy = true
      yield* Effect.uninterruptible(flush)
      busy = false
      if (queue.length === 0) drained?.()
    }
  })

  yield* Effect.forkScoped(writer)
  yield* Effect.addFinalizer(() =>
    Effect.callback<void>((resume) => {
      if (!busy && queue.length === 0) {
        closed = true
        return resume(Effect.void)
      }
      drained = () => {
        closed = true
        resume(Effect.void)
      }
    })
  )

  const run = <A>(what: string, op: Store.Op<A>): Effect.Effect<A, BatchStoreError> =>
    Effect.suspend(() => {
      if (closed) return provide(Store.run(what, op))
      return Effect.callback<A, BatchStoreError>((resume) => {
        const item: Item = {
          what,
          op: op as Store.Op<unknown>,
          resume: (exit) => {
            item.resume = undefined
            resume(exit as Exit.Exit<A, BatchStoreError>)
          }
        }
        queue.push(item)
        wake?.()
        // An interrupted caller's operation is dropped if it has not started yet.
        return Effect.sync(() => {
          item.resume = undefined
        })
      })
    })

  return Journal.of({ run, stats: () => ({ queued: queue.length, groups, ops }) })
})

/** The journal on the store's `SqlClient`. @category layers */
export const layer: Layer.Layer<Journal, never, SqlClient.SqlClient> = Layer.effect(Journal, make)
