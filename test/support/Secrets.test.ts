import { describe, expect, it } from "vitest"
import { secretLeaks } from "./secrets.js"

describe("the secret scan", () => {
  it("finds a secret in a message, a cause's message and a toJSON", () => {
    const inner = new Error("upstream said sk-live-123456")
    const err = Object.assign(new Error("outer", { cause: inner }), { toJSON: () => ({ key: "tok-abcdef" }) })
    const leaks = secretLeaks(err, ["sk-live-123456", "tok-abcdef"])
    expect(leaks.some((l) => l.includes("cause"))).toBe(true)
    expect(leaks.some((l) => l.includes("toJSON"))).toBe(true)
  })
  it("reports nothing for an error that carries no secret", () => {
    expect(secretLeaks(new Error("bad request"), ["sk-live-123456"])).toEqual([])
  })
})
