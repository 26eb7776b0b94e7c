// The one "did you mean" rule: body fields (Closed), CLI flags, commands and subcommands (UsageError).
import { describe, expect, it } from "vitest"
import { distance, maxSuggestedNameChars, nearestName } from "../../src/core/validation/DidYouMean.js"
import * as Closed from "../../src/core/validation/Closed.js"

describe("DidYouMean.distance (optimal string alignment, case ignored)", () => {
  it.each([
    ["", "abc", 3],
    ["temp", "TEMP", 0],
    ["ab", "ba", 1],
    ["temprature", "temperature", 1],
    ["--max-tkoens", "--max-tokens", 1],
    ["--eumlator", "--emulator", 1],
    ["ca", "abc", 3],
    ["--zzz", "--json", 4]
  ] as const)("%s ~ %s = %d", (a, b, d) => {
    expect(distance(a, b)).toBe(d)
    expect(distance(b, a)).toBe(d)
  })
})

describe("DidYouMean.nearestName (at most a third of the longer word's letters differ, one edit always allowed)", () => {
  it.each([
    // Body fields.
    ["temprature", ["top_p", "temperature", "model"], "temperature"],
    ["duraton", ["duration", "prompt"], "duration"],
    ["dimension", ["dimensions", "input"], "dimensions"],
    ["modalites", ["modalities", "voice"], "modalities"],
    ["aspectratio", ["aspect_ratio", "duration"], "aspect_ratio"],
    ["productImageURL", ["productImageUrl", "templateMaskUrl"], "productImageUrl"],
    ["zzzzqqqq", ["resolution", "model"], undefined],
    // CLI flags, commands, subcommands.
    ["--temprature", ["--model", "--temperature"], "--temperature"],
    ["--max-tkoens", ["--model", "--max-tokens"], "--max-tokens"],
    ["--eumlator", ["--json", "--emulator"], "--emulator"],
    ["--zzz", ["--json", "--emulator", "--model"], undefined],
    ["chta", ["models", "chat", "embed"], "chat"],
    ["shot", ["text-to-video", "shoot"], "shoot"],
    // The first of equals wins; nothing to choose from, nothing suggested.
    ["cat", ["bat", "hat"], "bat"],
    ["x", [], undefined],
    // Two edits in a six-letter word is a third: suggested; three is not.
    ["abcdxy", ["abcdef"], "abcdef"],
    ["abcxyz", ["abcdef"], undefined]
  ] as const)("%s among %j → %s", (given, known, expected) => {
    expect(nearestName(given, known)).toBe(expected)
  })

  it("suggests nothing for a name longer than the bound (no quadratic work on a hostile key)", () => {
    const long = "a".repeat(maxSuggestedNameChars + 1)
    expect(nearestName(long, [long.slice(1)])).toBeUndefined()
    expect(nearestName(long.slice(1), [long.slice(2)])).toBe(long.slice(2))
  })

  it("is the rule closed bodies use", () => {
    expect(Closed.nearestName).toBe(nearestName)
  })
})
