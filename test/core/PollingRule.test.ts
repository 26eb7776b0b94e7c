import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { checkPollSettings, pollingRule, queryGapMs } from "../../src/core/video/PollingRule.js"

describe("checkPollSettings", () => {
  it("defaults to a 4 s interval (the middle of 3–5 s) and a 300 s timeout", () => {
    expect(checkPollSettings({})).toEqual(Result.succeed({ intervalMs: 4000, timeoutMs: 300_000 }))
  })

  it("aims a 5 s interval a little early, since timers only fire late; shorter ones as asked", () => {
    expect(queryGapMs(5000)).toBe(5000 - pollingRule.latenessAllowanceMs)
    expect(queryGapMs(4000)).toBe(4000)
    expect(queryGapMs(3000)).toBe(3000)
    expect(queryGapMs(50)).toBe(50)
  })

  it("accepts both ends of the 3–5 s range", () => {
    expect(Result.isSuccess(checkPollSettings({ intervalMs: pollingRule.minIntervalMs }))).toBe(true)
    expect(Result.isSuccess(checkPollSettings({ intervalMs: pollingRule.maxIntervalMs }))).toBe(true)
  })

  it("refuses an interval outside 3–5 s, naming the field and the allowed range", () => {
    for (const intervalMs of [0, 2999, 5001, Number.NaN]) {
      const result = checkPollSettings({ intervalMs })
      expect(Result.isFailure(result) && result.failure).toMatchObject({ field: "intervalMs", rule: "range" })
      expect(Result.isFailure(result) && result.failure.message).toContain("allowed: 3000 to 5000")
    }
  })

  it("lowers the floor only when told to (an emulator with fast timings), never the ceiling", () => {
    expect(Result.isSuccess(checkPollSettings({ intervalMs: 50 }, 10))).toBe(true)
    expect(Result.isFailure(checkPollSettings({ intervalMs: 6000 }, 10))).toBe(true)
  })

  it("refuses a timeout that is not a positive number", () => {
    for (const timeoutMs of [0, -1, Number.POSITIVE_INFINITY]) {
      const result = checkPollSettings({ timeoutMs })
      expect(Result.isFailure(result) && result.failure.field).toBe("timeoutMs")
    }
  })
})
