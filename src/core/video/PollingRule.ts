/**
 * The gateway's polling rule for video tasks, in one place for the Effect and RxJS poll loops: query
 * every 3–5 s until `succeeded` or `failed`, within a caller-chosen timeout (default 300 s).
 */
import { Either } from "effect"
import { InvalidRequest } from "../errors/InvalidRequest.js"

/** The interval bounds and defaults of the spec's polling rule, in milliseconds. @category constants */
export const pollingRule = {
  minIntervalMs: 3_000,
  maxIntervalMs: 5_000,
  defaultIntervalMs: 5_000,
  defaultTimeoutMs: 300_000
} as const

/** Checked poll settings. @category models */
export interface PollSettings {
  readonly intervalMs: number
  readonly timeoutMs: number
}

/**
 * Checks a poll's `intervalMs` (default 5000) and `timeoutMs` (default 300 000). An interval outside
 * `[minIntervalMs, 5000]` is refused with an `InvalidRequest` naming the field and the allowed range
 * rather than silently changed. `minIntervalMs` defaults to the spec's 3000; lower it only against an
 * emulator with fast timings — the 5 s ceiling stays.
 * @category validators
 */
export const checkPollSettings = (
  options: { readonly intervalMs?: number | undefined; readonly timeoutMs?: number | undefined },
  minIntervalMs: number = pollingRule.minIntervalMs
): Either.Either<PollSettings, InvalidRequest> => {
  const lo = Math.max(0, Math.min(minIntervalMs, pollingRule.maxIntervalMs))
  const intervalMs = options.intervalMs ?? pollingRule.defaultIntervalMs
  const timeoutMs = options.timeoutMs ?? pollingRule.defaultTimeoutMs
  if (!(intervalMs >= lo && intervalMs <= pollingRule.maxIntervalMs))
    return Either.left(
      new InvalidRequest({
        field: "intervalMs",
        rule: "range",
        message: `intervalMs: ${intervalMs} is out of range (the gateway's polling rule); allowed: ${lo} to ${pollingRule.maxIntervalMs}`
      })
    )
  if (!(timeoutMs > 0 && Number.isFinite(timeoutMs)))
    return Either.left(
      new InvalidRequest({
        field: "timeoutMs",
        rule: "range",
        message: `timeoutMs: ${timeoutMs} is out of range; allowed: a positive number of milliseconds`
      })
    )
  return Either.right({ intervalMs, timeoutMs })
}
