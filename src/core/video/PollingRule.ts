/**
 * The gateway's polling rule for video tasks, in one place for every poll. Query every 3–5 s
 * (measured from one query's start to the next) until `succeeded` or `failed`, within a
 * caller-chosen timeout (default 300 s).
 */
import * as Result from "effect/Result"
import { InvalidRequest } from "../errors/InvalidRequest.js"

/**
 * The interval bounds and defaults of the contract's polling rule, in milliseconds. The default interval
 * is the middle of the 3–5 s range, so that a query started up to a second late (a busy event loop,
 * a queue of queries) still keeps every gap inside the range.
 * @category constants
 */
export const pollingRule = {
  minIntervalMs: 3_000,
  maxIntervalMs: 5_000,
  defaultIntervalMs: 4_000,
  defaultTimeoutMs: 300_000,
  /** How much earlier than the 5 s ceiling a query is aimed at, for the lateness of timers. */
  latenessAllowanceMs: 250
} as const

/**
 * The time from one query's start to the next one's: `intervalMs`, but never closer to the 5 s
 * ceiling than `latenessAllowanceMs` (asked for 5000, the poll aims at 4750), since a timer only ever
 * fires late and a gap past 5 s breaks the rule.
 * @category getters
 */
export const queryGapMs = (intervalMs: number): number =>
  Math.min(intervalMs, pollingRule.maxIntervalMs - pollingRule.latenessAllowanceMs)

/** Checked poll settings. @category models */
export interface PollSettings {
  readonly intervalMs: number
  readonly timeoutMs: number
}

/**
 * Checks a poll's `intervalMs` (default 4000) and `timeoutMs` (default 300 000). An interval outside
 * `[minIntervalMs, 5000]` is refused with an `InvalidRequest` naming the field and the allowed range
 * rather than silently changed. `minIntervalMs` defaults to the contract's 3000; lower it only against an
 * emulator with fast timings — the 5 s ceiling stays.
 * @category validators
 */
export const checkPollSettings = (
  options: { readonly intervalMs?: number | undefined; readonly timeoutMs?: number | undefined },
  minIntervalMs: number = pollingRule.minIntervalMs
): Result.Result<PollSettings, InvalidRequest> => {
  const lo = Math.max(0, Math.min(minIntervalMs, pollingRule.maxIntervalMs))
  const intervalMs = options.intervalMs ?? pollingRule.defaultIntervalMs
  const timeoutMs = options.timeoutMs ?? pollingRule.defaultTimeoutMs
  if (!(intervalMs >= lo && intervalMs <= pollingRule.maxIntervalMs))
    return Result.fail(
      new InvalidRequest({
        field: "intervalMs",
        rule: "range",
        message: `intervalMs: ${intervalMs} is out of range (the gateway's polling rule); allowed: ${lo} to ${pollingRule.maxIntervalMs}`
      })
    )
  if (!(timeoutMs > 0 && Number.isFinite(timeoutMs)))
    return Result.fail(
      new InvalidRequest({
        field: "timeoutMs",
        rule: "range",
        message: `timeoutMs: ${timeoutMs} is out of range; allowed: a positive number of milliseconds`
      })
    )
  return Result.succeed({ intervalMs, timeoutMs })
}
