import { describe, expect, it } from "vitest"
import { exceedsJsonDepth, findUnsendable, pathSegment } from "../../src/core/wire/JsonSafety.js"

const nested = (depth: number): unknown => {
  let v: unknown = 1
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

describe("JSON safety", () => {
  it("tells a value nested past the bound, without recursion, even 100,000 deep", () => {
    expect(exceedsJsonDepth(nested(64), 64)).toBe(false)
    expect(exceedsJsonDepth(nested(65), 64)).toBe(true)
    expect(exceedsJsonDepth(nested(100_000), 64)).toBe(true)
  })
  it("accepts plain JSON data and names where a BigInt, function, NaN or undefined item is", () => {
    expect(findUnsendable({ a: [1, "x", null, { b: true }], c: undefined })).toBeUndefined()
    expect(findUnsendable({ a: { b: 1n } })?.path).toBe("a.b")
    expect(findUnsendable({ f: () => 1 })?.reason).toMatch(/function/)
    expect(findUnsendable({ n: [0, Number.NaN] })?.path).toBe("n[1]")
    expect(findUnsendable([1, undefined])?.path).toBe("[1]")
    expect(findUnsendable({ d: new Date(0) })?.path).toBe("d")
  })
  it("refuses a cycle but accepts the same object referenced twice", () => {
    const shared = { x: 1 }
    expect(findUnsendable({ a: shared, b: shared })).toBeUndefined()
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = { back: cyclic }
    expect(findUnsendable(cyclic)?.reason).toMatch(/cycle/)
  })
  it("refuses nesting deeper than the bound, naming the path", () => {
    expect(findUnsendable(nested(64), 64)).toBeUndefined()
    expect(findUnsendable(nested(100_000), 64)?.reason).toMatch(/deeper than 64/)
  })
  it("makes an id one path segment: dot segments and slashes refused, the rest encoded", () => {
    for (const bad of ["", ".", "..", "a/b", "..%2f", "%2e%2e", "a\\b"]) expect(pathSegment(bad)).toBeUndefined()
    expect(pathSegment("video_abc")).toBe("video_abc")
    expect(pathSegment("a b?c#d")).toBe("a%20b%3Fc%23d")
  })
})
