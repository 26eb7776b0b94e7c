/**
 * The emulator's state that every route shares: options with their defaults, the accepted keys and
 * their profiles, the clock (real, fast or virtual), request counters and the fault plan.
 */

import { FaultPlan } from "./Faults.js"

export type { Fault, SseErrorFault } from "./Faults.js"

/** What a key may use: `full` sees every model; `restricted` reproduces the contract's access outcomes. */
export type KeyProfile = "full" | "restricted"

export interface EmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  readonly port?: number | undefined
  /** Host to bind; default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Keys the gateway accepts, with their profile. Default: one full key and one restricted key. */
  readonly keys?: Readonly<Record<string, KeyProfile>> | undefined
  /** Platform credentials accepted by E7. */
  readonly platform?:
    | {
        readonly username?: string | undefined
        readonly password?: string | undefined
        readonly tokenTtlMs?: number | undefined
      }
    | undefined
  /**
   * Timing of video tasks: how long a task stays `submitted`→`queued` and `in_progress`.
   * `fast` sets every timing small enough for tests and the demo.
   */
  readonly video?: { readonly queuedMs?: number | undefined; readonly inProgressMs?: number | undefined } | undefined
  /** Text replies: words per reply and the pause between streamed tokens. */
  readonly text?: { readonly replyWords?: number | undefined; readonly tokenDelayMs?: number | undefined } | undefined
  /** Fast timings everywhere (tests, demo). */
  readonly fast?: boolean | undefined
  /** Use a virtual clock that only moves with `advanceTime(ms)`. */
  readonly virtualClock?: boolean | undefined
  /**
   * Origins a browser page may call the emulator from: by default loopback pages only
   * (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`, which covers the browser example);
   * a list adds exact origins, `"*"` allows any.
   */
  readonly corsOrigins?: "*" | ReadonlyArray<string> | undefined
  /**
   * Send rate-limit headers on the OpenAI-style (`x-ratelimit-*`) and messages-style
   * (`anthropic-ratelimit-*`) routes. Off by default: the contract does not show the gateway's.
   */
  readonly rateLimitHeaders?: boolean | undefined
}

export interface ResolvedOptions {
  readonly port: number
  readonly host: string
  readonly keys: ReadonlyMap<string, KeyProfile>
  readonly platform: { readonly username: string; readonly password: string; readonly tokenTtlMs: number }
  readonly video: { readonly queuedMs: number; readonly inProgressMs: number }
  readonly text: { readonly replyWords: number; readonly tokenDelayMs: number }
  readonly corsOrigins: "*" | ReadonlyArray<string>
  readonly rateLimitHeaders: boolean
}

export const DEFAULT_KEY = "umg-emulator-key"
export const RESTRICTED_KEY = "umg-emulator-restricted-key"
export const DEFAULT_PLATFORM_USER = "umg-demo"
export const DEFAULT_PLATFORM_PASSWORD = "umg-demo-password"

export const resolveOptions = (o: EmulatorOptions = {}): ResolvedOptions => {
  const fast = o.fast === true
  return {
    port: o.port ?? 0,
    corsOrigins: o.corsOrigins ?? [],
    rateLimitHeaders: o.rateLimitHeaders === true,
    host: o.host ?? "127.0.0.1",
    keys: new Map(Object.entries(o.keys ?? { [DEFAULT_KEY]: "full", [RESTRICTED_KEY]: "restricted" })),
    platform: {
      username: o.platform?.username ?? DEFAULT_PLATFORM_USER,
      password: o.platform?.password ?? DEFAULT_PLATFORM_PASSWORD,
      tokenTtlMs: o.platform?.tokenTtlMs ?? 60 * 60_000
    },
    video: {
      queuedMs: o.video?.queuedMs ?? (fast ? 150 : 2_000),
      inProgressMs: o.video?.inProgressMs ?? (fast ? 350 : 4_000)
    },
    text: {
      replyWords: o.text?.replyWords ?? 24,
      tokenDelayMs: o.text?.tokenDelayMs ?? (fast ? 0 : 15)
    }
  }
}

/** Real or virtual time, in milliseconds. Routes read time only through this. */
export interface Clock {
  now(): number
  /** Moves a virtual clock forward (a real clock ignores it and returns false). */
  advance(ms: number): boolean
  readonly virtual: boolean
}

export const makeClock = (virtual: boolean): Clock => {
  if (!virtual) return { now: () => Date.now(), advance: () => false, virtual: false }
  let t = Date.UTC(2026, 0, 1)
  return {
    now: () => t,
    advance: (ms) => {
      t += Math.max(0, ms)
      return true
    },
    virtual: true
  }
}

/** Counts every request the emulator acts on, by route name (`messages`, `video.submit`, …). */
export class Counters {
  private readonly counts = new Map<string, number>()
  increment(route: string): void {
    this.counts.set(route, (this.counts.get(route) ?? 0) + 1)
  }
  get(route: string): number {
    return this.counts.get(route) ?? 0
  }
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts)
  }
  reset(): void {
    this.counts.clear()
  }
}

/** Everything a route handler may use. */
export interface EmulatorContext {
  readonly options: ResolvedOptions
  readonly clock: Clock
  readonly counters: Counters
  readonly faults: FaultPlan
  /** The base URL the server is reachable at (`http://127.0.0.1:PORT`), set once listening. */
  baseUrl: string
}

export const makeContext = (o: EmulatorOptions = {}): EmulatorContext => ({
  options: resolveOptions(o),
  clock: makeClock(o.virtualClock === true),
  counters: new Counters(),
  faults: new FaultPlan(),
  baseUrl: ""
})

/**
 * The context of the same emulator with none of its stored state: what routes keep (prompt cache,
 * responses, conversations, video tasks, platform tokens) is keyed by the context, so a new one
 * starts empty. Options, clock, counters and faults carry over, the counters and faults emptied.
 */
export const renewContext = (ctx: EmulatorContext): EmulatorContext => {
  ctx.counters.reset()
  ctx.faults.clear()
  return { ...ctx }
}

/** The context of each started emulator (a new one after its `reset()`), for tests that set its state. */
const contexts = new WeakMap<object, () => EmulatorContext>()

/** Records where `emulator`'s current context is read. */
export const keepContext = (emulator: object, current: () => EmulatorContext): void => {
  contexts.set(emulator, current)
}

/** The current context of an emulator `startEmulator` made (its routes' state: stores, clock, faults). */
export const contextOf = (emulator: object): EmulatorContext => {
  const current = contexts.get(emulator)
  if (current === undefined) throw new Error("not an emulator made by startEmulator")
  return current()
}
