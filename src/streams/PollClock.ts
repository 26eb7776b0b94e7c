/**
 * A shared timer for many polls: callbacks due at nearly the same time are bucketed on a time grid
 * and share one scheduled action, so ten thousand polling tasks need a few hundred timers, not ten
 * thousand independent timer chains.
 */
import { asyncScheduler, type SchedulerLike, Subscription } from "rxjs"

interface Entry {
  readonly run: () => void
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

  /**
   * @param scheduler where time comes from and where the bucket actions run.
   * @param resolutionMs the grid: a callback whose window spans a grid point runs on it (0 = exact times).
   */
  constructor(
    readonly scheduler: SchedulerLike = asyncScheduler,
    readonly resolutionMs: number = 50
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
