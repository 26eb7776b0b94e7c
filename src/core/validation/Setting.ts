/**
 * The one check of a numeric setting or option: a time limit, a retry count, a concurrency, a bound.
 * It must be a finite number in its range, and a whole one where it counts things; anything else is
 * an `InvalidRequest` (rule `range`) naming the field, the value and what is allowed. The layer's
 * settings, the per-call options, `runTools` and `embedMany` all check through it.
 */
import * as Result from "effect/Result"
import { InvalidRequest } from "../errors/InvalidRequest.js"

/** What a numeric setting allows. @category models */
export interface SettingRange {
  readonly min: number
  readonly max: number
  /** Only whole numbers (counts). */
  readonly whole?: boolean
  /** Said after the range in the message (`ms`). */
  readonly unit?: string
}

/** The longest delay a host timer keeps (a longer one fires at once): the bound of every time limit. @category constants */
export const maxTimerMs = 2_147_483_647

/** A time limit in milliseconds: 1 ms to `maxTimerMs`. @category constants */
export const timeLimit: SettingRange = { min: 1, max: maxTimerMs, unit: "ms" }

/** A delay in milliseconds, none allowed: 0 to `maxTimerMs`. @category constants */
export const delay: SettingRange = { min: 0, max: maxTimerMs, unit: "ms" }

/** A retry count: 0 to 100. @category constants */
export const retryCount: SettingRange = { min: 0, max: 100, whole: true }

/** How many run at once (requests, handlers): 1 to 1000. @category constants */
export const concurrency: SettingRange = { min: 1, max: 1000, whole: true }

// The value as the message shows it: never more than a short prefix of what was given.
const shown = (value: unknown): string =>
  typeof value === "number"
    ? String(value)
    : typeof value === "string"
      ? JSON.stringify(value.slice(0, 40))
      : value === null
        ? "null"
        : typeof value === "object"
          ? "an object"
          : `a ${typeof value}`

/**
 * `value` when it is allowed by `range`, else an `InvalidRequest` naming `field`: for example
 * `timeoutMs: Infinity is out of range; allowed: a number from 1 to 2147483647 ms`.
 * @category validation
 */
export const checkSetting = (
  field: string,
  value: unknown,
  range: SettingRange
): Result.Result<number, InvalidRequest> =>
  typeof value === "number" &&
  Number.isFinite(value) &&
  value >= range.min &&
  value <= range.max &&
  (range.whole !== true || Number.isInteger(value))
    ? Result.succeed(value)
    : Result.fail(
        new InvalidRequest({
          field,
          rule: "range",
          message: `${field}: ${shown(value)} is out of range; allowed: ${range.whole === true ? "a whole number" : "a number"} from ${range.min} to ${range.max}${range.unit === undefined ? "" : ` ${range.unit}`}`
        })
      )

/** `checkSetting` of an optional value: `fallback` when it is `undefined`. @category validation */
export const settingOr = (
  field: string,
  value: unknown,
  range: SettingRange,
  fallback: number
): Result.Result<number, InvalidRequest> =>
  value === undefined ? Result.succeed(fallback) : checkSetting(field, value, range)
