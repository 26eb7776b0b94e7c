/**
 * A shared timer for many polls: callbacks due at nearly the same time are bucketed on a time grid
 * and share one scheduled action, so ten thousand polling tasks need a few hundred timers, not ten
 * thousand independent timer chains.
 */
import { asyncScheduler, type SchedulerLike, Subscription } from "rxjs"

interface Entry {
  readonly run: () => void
}

interface Slot {
  readonly start: (release: () => void) => void
  running: boolean
  released: boolean
}

interface Bucket {
  readonly at: number
  readonly entries: Set<Entry>
  action: Subscription
}

const shared = new WeakMap<SchedulerLike, PollClock>()

/**
 * Runs callbacks once within a time window, sharing one scheduler action per grid slot. Time is the
 * scheduler's (`TestScheduler` in tests gives virtual time).
 * @category models
 */
export class PollClock {
  private readonly buckets = new Map<number, Bucket>()
  private readonly waiting = new Set<Slot>()
  private running = 0
  private draining = false

  /**
   * @param scheduler where time comes from and where the bucket actions run.
   * @param resolutionMs the grid: a callback whose window spans a grid point runs on it (0 = exact times).
   * @param maxInFlight most queries of this clock's polls running at once; more wait their turn
   *   (FIFO), so that a burst of thousands of polls queues in memory instead of piling up sockets
   *   and timing out.
   */
  constructor(
    readonly scheduler: SchedulerLike = asyncScheduler,
    readonly resolutionMs: number = 50,
    readonly maxInFlight: number = 256
  ) {}

  /** The clock shared by every poll on `scheduler` that does not bring its own. @category constructors */
  static shared(scheduler: SchedulerLike = asyncScheduler): PollClock {
    let clock = shared.get(scheduler)
    if (clock === undefined) shared.set(scheduler, (clock = new PollClock(scheduler)))
    return clock
  }

  /** The scheduler's time, in milliseconds. */
  now(): number {
    return this.scheduler.now()
  }

  /** Callbacks waiting to run. */
  get pending(): number {
    let n = 0
    for (const bucket of this.buckets.values()) n += bucket.entries.size
    return n
  }

  /** Scheduler actions currently armed (one per occupied grid slot). */
  get timers(): number {
    return this.buckets.size
  }

  /** Queries running, and queries waiting for a turn. */
  get queries(): { readonly running: number; readonly waiting: number } {
    return { running: this.running, waiting: this.waiting.size }
  }

  /**
   * Starts a query now when fewer than `maxInFlight` run, else when one ends. `start` gets the
   * `release` to call when its query ends (calling it twice is harmless). Unsubscribing the result
   * gives up the turn while waiting, or releases it while running.
   */
  acquire(start: (release: () => void) => void): Subscription {
    const slot: Slot = { start, running: false, released: false }
    this.waiting.add(slot)
    this.drain()
    return new Subscription(() => this.release(slot))
  }

  private release(slot: Slot): void {
    if (slot.released) return
    slot.released = true
    if (!slot.running) {
      this.waiting.delete(slot)
      return
    }
    this.running--
    this.drain()
  }

  // A trampoline: a query that ends synchronously releases inside `start`, which must not recurse.
  private drain(): void {
    if (this.draining) return
    this.draining = true
    try {
      for (const slot of this.waiting) {
        if (this.running >= this.maxInFlight) break
        this.waiting.delete(slot)
        slot.running = true
        this.running++
        slot.start(() => this.release(slot))
      }
    } finally {
      this.draining = false
    }
    if (this.running < this.maxInFlight && this.waiting.size > 0) this.drain()
  }

  /**
   * Runs `run` once, no sooner than `earliestMs` and no later than `latestMs` from now: on the first
   * grid point in that window, or exactly at `earliestMs` when the window holds none. Unsubscribing
   * the result cancels it; the slot's action is cancelled when its last callback goes.
   */
  schedule(run: () => void, earliestMs: number, latestMs: number = earliestMs): Subscription {
    const now = this.now()
    const due = now + Math.max(0, earliestMs)
    const latest = Math.max(due, now + latestMs)
    const grid = this.resolutionMs > 0 ? Math.ceil(due / this.resolutionMs) * this.resolutionMs : due
    const at = grid <= latest ? grid : due
    const entry: Entry = { run }
    let bucket = this.buckets.get(at)
    if (bucket === undefined) {
      const created: Bucket = { at, entries: new Set([entry]), action: Subscription.EMPTY }
      this.buckets.set(at, created)
      // The entry is in the bucket before the action exists, in case a scheduler runs it at once.
      created.action = this.scheduler.schedule(() => this.fire(created), Math.max(0, at - now))
      bucket = created
    } else bucket.entries.add(entry)
    const owner = bucket
    return new Subscription(() => {
      if (owner.entries.delete(entry) && owner.entries.size === 0 && this.buckets.get(owner.at) === owner) {
        this.buckets.delete(owner.at)
        owner.action.unsubscribe()
      }
    })
  }

  private fire(bucket: Bucket): void {
    // Host timers may fire a millisecond before the wall clock says so; "no sooner than" is a promise.
    const early = bucket.at - this.now()
    if (early > 0) {
      bucket.action = this.scheduler.schedule(() => this.fire(bucket), early)
      return
    }
    if (this.buckets.get(bucket.at) === bucket) this.buckets.delete(bucket.at)
    const entries = [...bucket.entries]
    bucket.entries.clear()
    for (const entry of entries) entry.run()
  }
}
