/**
 * The one poll loop of video tasks, used by `video.poll`, `video.wait`, `video.generate`, umg/rx and
 * the CLI. Each task's queries start at a fixed rate from the previous query's start (the contract's
 * 3–5 s), each status change is reported once, the poll ends at `succeeded`, `failed` or the
 * caller's timeout. All the polls of one poller share one driver fiber and its timers, and at most
 * `maxInFlight` queries run at once, so ten thousand tasks cost a few hundred bytes each plus the
 * waiting fiber, and share a few keep-alive connections instead of holding one socket each.
 */
import type { Fiber } from "effect"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { TimeoutError, VideoTaskFailed } from "../../core/errors/GatewayError.js"
import { queryGapMs } from "../../core/video/PollingRule.js"

/** What a poll needs of a task: its id, its status and, when failed, its error. @category models */
export interface PollableTask {
  readonly task_id: string
  readonly status: string
  readonly error?: { readonly code: number; readonly message: string } | undefined
}

/** One query's outcome: the task as queried, how many queries so far, and the time since polling began. @category models */
export interface PollUpdate<T> {
  readonly task: T
  readonly polls: number
  readonly elapsedMs: number
}

/** One poll: how to query the task, and the checked settings (`checkPollSettings`). @category models */
export interface PollRequest<T, E> {
  readonly query: Effect.Effect<T, E>
  /** From one query's start to the next (see `queryGapMs`). */
  readonly intervalMs: number
  readonly timeoutMs: number
  /** Names the task in a timeout that comes before any answer. */
  readonly taskId?: string
  /** Called after every answer, with whether the status changed (the first answer always does). */
  readonly onQuery?: (update: PollUpdate<T>, changed: boolean) => void
}

/** A set of polls sharing one driver and one bound on the queries in flight. @category models */
export interface Poller {
  /**
   * Polls until the task succeeds (the result is its last update), fails (`VideoTaskFailed`, after
   * `onQuery` saw the failed status), a query fails (its own error) or `timeoutMs` passes
   * (`TimeoutError`, phase `poll`, interrupting a query in flight). The first query starts at once.
   * Interrupting it stops the poll and interrupts its query in flight.
   */
  readonly watch: <T extends PollableTask, E>(
    request: PollRequest<T, E>
  ) => Effect.Effect<PollUpdate<T>, E | TimeoutError | VideoTaskFailed>
  /**
   * `watch` without a fiber of its own, for callers following thousands of tasks: the poll runs with
   * `services` (`Effect.context()`: its queries, and the driver when this poll starts it, use its
   * `Clock` and scheduler), `onEnd` gets its outcome once, and the returned function stops it (after
   * which `onEnd` is not called).
   */
  readonly start: <T extends PollableTask, E>(
    services: Context.Context<never>,
    request: PollRequest<T, E>,
    onEnd: (exit: Exit.Exit<PollUpdate<T>, E | TimeoutError | VideoTaskFailed>) => void
  ) => () => void
  /**
   * Ends every poll not ended (interrupted: `onEnd` gets an interruption, a `watch` is interrupted,
   * a query in flight too) and, from then on, every poll at its start: the poller's owner (a
   * gateway's layer) is gone.
   */
  readonly close: () => void
  /** Polls not ended, queries running, queries waiting for a turn, and distinct wake-up times armed. */
  readonly stats: () => {
    readonly polls: number
    readonly running: number
    readonly waiting: number
    readonly slots: number
  }
}

/** Options of a poller. @category models */
export interface PollerOptions {
  /** Most queries running at once over all its polls (default 64); the others wait their turn, in order. */
  readonly maxInFlight?: number
  /** Wake-ups are rounded up to this grid, so that polls due within it share one (default 25 ms). */
  readonly gridMs?: number
}

type OnEnd = (exit: Exit.Exit<PollUpdate<PollableTask>, unknown>) => void

// A poll's whole state: a plain object of a few hundred bytes, not a fiber or a stream.
interface Entry {
  readonly query: Effect.Effect<PollableTask, unknown>
  readonly gapMs: number
  readonly timeoutMs: number
  readonly start: number
  readonly deadline: number
  readonly onQuery: ((update: PollUpdate<PollableTask>, changed: boolean) => void) | undefined
  readonly onEnd: OnEnd
  taskId: string | undefined
  polls: number
  lastStart: number
  lastStatus: string | undefined
  /** The wake-up slot it sits in: its next query's when scheduled, its deadline's while waiting or running. */
  slot: number | undefined
  state: "scheduled" | "waiting" | "running" | "done"
  fiber: Fiber.Fiber<PollableTask, unknown> | undefined
}

/**
 * What a task the gateway answers `failed` fails with: `VideoTaskFailed` with its id, `error.code` and
 * message (code 0 and a general message when the answer has no `error`). The one rule of the poller
 * and of `umg video download`. @category errors
 */
export const taskFailure = (task: PollableTask): VideoTaskFailed =>
  new VideoTaskFailed({
    family: "video",
    taskId: task.task_id,
    code: task.error?.code ?? 0,
    message: task.error?.message ?? "the video task failed"
  })

/** Default bound on the queries in flight of one poller. @category constants */
export const defaultMaxInFlight = 64

/** A poll's timeout, naming the task when an answer named it. */
const timedOut = (entry: Entry) =>
  new TimeoutError({
    family: "video",
    phase: "poll",
    timeoutMs: entry.timeoutMs,
    message: `${entry.taskId === undefined ? "the task" : `task ${entry.taskId}`} did not finish within ${entry.timeoutMs} ms`,
    ...(entry.taskId === undefined ? {} : { taskId: entry.taskId })
  })

/** A new poll's state, waiting for its first query. */
const newEntry = <T extends PollableTask, E>(
  request: PollRequest<T, E>,
  onEnd: (exit: Exit.Exit<PollUpdate<T>, E | TimeoutError | VideoTaskFailed>) => void,
  begun: number
): Entry => ({
  query: request.query as Effect.Effect<PollableTask, unknown>,
  gapMs: queryGapMs(request.intervalMs),
  timeoutMs: request.timeoutMs,
  start: begun,
  deadline: begun + request.timeoutMs,
  onQuery: request.onQuery as Entry["onQuery"],
  // Entries are type-erased; this entry only ever ends with its own query's `T` and `E`.
  onEnd: onEnd as unknown as OnEnd,
  taskId: request.taskId,
  polls: 0,
  lastStart: begun,
  lastStatus: undefined,
  slot: undefined,
  state: "waiting",
  fiber: undefined
})

/**
 * Records one answer on its poll and tells its `onQuery`; the poll's outcome when this answer ends it
 * (succeeded, failed, or `onQuery` threw), `undefined` when it polls on.
 */
const settle = (
  entry: Entry,
  task: PollableTask,
  at: number
): Exit.Exit<PollUpdate<PollableTask>, unknown> | undefined => {
  const changed = task.status !== entry.lastStatus
  entry.lastStatus = task.status
  entry.taskId = task.task_id
  const update: PollUpdate<PollableTask> = { task, polls: entry.polls, elapsedMs: at - entry.start }
  let thrown: { readonly error: unknown } | undefined
  try {
    entry.onQuery?.(update, changed)
  } catch (error) {
    thrown = { error }
  }
  if (thrown !== undefined) return Exit.die(thrown.error)
  if (task.status === "succeeded") return Exit.succeed(update)
  if (task.status === "failed") return Exit.fail(taskFailure(task))
  return undefined
}

/** The wake-up times of a poller's polls, rounded up to a grid so that polls due within it share one. */
interface Slots {
  readonly size: () => number
  /** Files the entry under the slot of `at` (out of any other), waking the driver if it sleeps past it. */
  readonly put: (entry: Entry, at: number) => void
  readonly remove: (entry: Entry) => void
  /** Takes every slot due by `t` out, each entry of it to `each` (a driver's round starts here). */
  readonly due: (t: number, each: (entry: Entry) => void) => void
  /** Wakes the driver (or, before its wait is armed, the next wait it arms). */
  readonly requestWake: () => void
  /** Sleeps until the earliest slot, or until woken; the driver's wait. */
  readonly sleep: (now: () => number) => Effect.Effect<void>
  /** Marks the driver stopped: nothing to wake until it starts again. */
  readonly idle: () => void
  /** Every entry filed (each poll not ended is, under its next query or its deadline). */
  readonly entries: () => Array<Entry>
}

const makeSlots = (gridMs: number): Slots => {
  const slots = new Map<number, Set<Entry>>()
  let sleepingUntil = Number.POSITIVE_INFINITY
  let wake: (() => void) | undefined
  // A wake-up asked for before the driver's wait was armed (its fibers start later): taken by that wait.
  let woken = false
  const requestWake = () => {
    if (wake !== undefined) wake()
    else woken = true
  }
  const slotOf = (t: number) => Math.ceil(t / gridMs) * gridMs

  const remove = (entry: Entry) => {
    if (entry.slot === undefined) return
    const set = slots.get(entry.slot)
    if (set !== undefined && set.delete(entry) && set.size === 0) slots.delete(entry.slot)
    entry.slot = undefined
  }
  const put = (entry: Entry, at: number) => {
    remove(entry)
    const key = slotOf(at)
    const set = slots.get(key)
    if (set === undefined) slots.set(key, new Set([entry]))
    else set.add(entry)
    entry.slot = key
    if (key < sleepingUntil) requestWake()
  }
  const due = (t: number, each: (entry: Entry) => void) => {
    // Everything is looked at afresh from here, so an earlier request to wake is answered already.
    woken = false
    for (const [key, set] of slots) {
      if (key > t) continue
      slots.delete(key)
      for (const entry of set) {
        entry.slot = undefined
        each(entry)
      }
    }
  }

  const earliest = () => {
    let min = Number.POSITIVE_INFINITY
    for (const key of slots.keys()) if (key < min) min = key
    return min
  }

  const wakeUp = Effect.callback<void>((resume) => {
    if (woken) {
      woken = false
      return resume(Effect.void)
    }
    const mine = () => {
      if (wake === mine) wake = undefined
      resume(Effect.void)
    }
    wake = mine
    return Effect.sync(() => {
      if (wake === mine) wake = undefined
    })
  })

  const sleep = (now: () => number): Effect.Effect<void> =>
    Effect.suspend(() => {
      const next = earliest()
      sleepingUntil = next
      return Effect.map(Effect.raceFirst(Effect.sleep(Math.max(0, next - now())), wakeUp), () => {
        sleepingUntil = Number.POSITIVE_INFINITY
      })
    })

  return {
    size: () => slots.size,
    put,
    remove,
    due,
    requestWake,
    sleep,
    idle: () => {
      sleepingUntil = Number.POSITIVE_INFINITY
    },
    entries: () => [...slots.values()].flatMap((set) => [...set])
  }
}

/**
 * A poller. A gateway makes one for its lifetime (so polls of different gateways, and of tests with
 * their own `TestClock`, never share a clock); its driver runs only while some poll is live.
 * @category constructors
 */
export const make = (options: PollerOptions = {}): Poller => {
  const maxInFlight = Math.max(1, Math.floor(options.maxInFlight ?? defaultMaxInFlight))
  const slots = makeSlots(Math.max(1, options.gridMs ?? 25))
  const waiting = new Set<Entry>()
  let polls = 0
  let running = 0
  // The driver and what it runs with: the services (and clock) of the poll that started it.
  let services: Context.Context<never> | undefined
  let clock: Clock.Clock | undefined
  let driving = false
  let closed = false

  const now = () => clock!.currentTimeMillisUnsafe()

  // Ends a poll; `result` is undefined when its caller stopped it (there is no one to tell).
  const finish = (entry: Entry, result: Exit.Exit<PollUpdate<PollableTask>, unknown> | undefined) => {
    if (entry.state === "done") return
    if (entry.state === "waiting") waiting.delete(entry)
    entry.state = "done"
    slots.remove(entry)
    polls--
    // A query still running is interrupted; its turn is given back when it has really stopped.
    const fiber = entry.fiber
    entry.fiber = undefined
    fiber?.interruptUnsafe()
    if (result !== undefined) entry.onEnd(result)
    // Nothing left: let a driver sleeping toward a far deadline end now, not then.
    if (slots.size() === 0) slots.requestWake()
  }

  const answered = (entry: Entry, exit: Exit.Exit<PollableTask, unknown>) => {
    running--
    if (entry.state !== "done") {
      entry.fiber = undefined
      if (Exit.isFailure(exit)) finish(entry, Exit.failCause(exit.cause))
      else {
        const end = settle(entry, exit.value, now())
        if (end !== undefined) finish(entry, end)
        else if (entry.state === "running") {
          // Fixed rate from this query's start, so the cadence never drifts by the query's latency.
          entry.state = "scheduled"
          slots.put(entry, Math.min(entry.lastStart + entry.gapMs, entry.deadline))
        }
      }
    }
    pump()
  }

  const startQuery = (entry: Entry) => {
    entry.state = "running"
    entry.lastStart = now()
    entry.polls++
    running++
    const fiber = Effect.runForkWith(services!)(entry.query)
    entry.fiber = fiber
    fiber.addObserver((exit) => answered(entry, exit))
  }

  let pumping = false
  // Starts waiting queries while turns are free; a trampoline, since an answer can come back at once.
  const pump = () => {
    if (pumping) return
    pumping = true
    try {
      for (const entry of waiting) {
        if (running >= maxInFlight) break
        waiting.delete(entry)
        startQuery(entry)
      }
    } finally {
      pumping = false
    }
  }

  const enqueue = (entry: Entry) => {
    entry.state = "waiting"
    waiting.add(entry)
    // While it waits and runs, its wake-up is its deadline.
    slots.put(entry, entry.deadline)
  }

  const fireDue = (t: number) => {
    slots.due(t, (entry) => {
      if (t >= entry.deadline) finish(entry, Exit.fail(timedOut(entry)))
      else if (entry.state === "scheduled") enqueue(entry)
    })
    pump()
  }

  const drive: Effect.Effect<void> = Effect.gen(function* () {
    for (;;) {
      fireDue(now())
      if (slots.size() === 0) {
        driving = false
        slots.idle()
        return
      }
      yield* slots.sleep(now)
    }
  })

  const start = <T extends PollableTask, E>(
    context: Context.Context<never>,
    request: PollRequest<T, E>,
    onEnd: (exit: Exit.Exit<PollUpdate<T>, E | TimeoutError | VideoTaskFailed>) => void
  ): (() => void) => {
    if (closed) {
      onEnd(Exit.interrupt())
      return () => {}
    }
    if (!driving) {
      services = context
      clock = Context.get(context, Clock.Clock)
    }
    const entry = newEntry(request, onEnd, now())
    polls++
    enqueue(entry)
    if (!driving) {
      driving = true
      Effect.runForkWith(services!)(drive)
    }
    pump()
    return () => finish(entry, undefined)
  }

  const watch = <T extends PollableTask, E>(
    request: PollRequest<T, E>
  ): Effect.Effect<PollUpdate<T>, E | TimeoutError | VideoTaskFailed> =>
    Effect.flatMap(Effect.context<never>(), (context) =>
      Effect.callback<PollUpdate<T>, E | TimeoutError | VideoTaskFailed>((resume) => {
        const stop = start(context, request, resume)
        return Effect.sync(stop)
      })
    )

  const close = (): void => {
    closed = true
    for (const entry of slots.entries()) finish(entry, Exit.interrupt())
  }

  return { start, watch, close, stats: () => ({ polls, running, waiting: waiting.size, slots: slots.size() }) }
}
