import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DecodeError } from "../../src/core/errors/GatewayError.js"
import {
  decodeWith,
  JsonObject,
  JsonValue,
  opaqueTagged,
  parseJsonText,
  typedPayload
} from "../../src/core/wire/WireJson.js"

const polluted = () =>
  JSON.parse('{"a":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"b":[{"__proto__":{"p":1}}]}}')

describe("WireJson", () => {
  it("JsonObject drops __proto__, constructor and prototype keys at every depth", () => {
    const out = Schema.decodeUnknownSync(JsonObject)(polluted()) as {
      a: Record<string, unknown> & { b: Array<object> }
    }
    expect(Object.keys(out.a)).toEqual(["b"])
    expect(Object.getPrototypeOf(out.a)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(out.a.b[0])).toBe(Object.prototype)
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
  })

  it("JsonObject refuses arrays and primitives", () => {
    expect(Result.isFailure(Schema.decodeUnknownResult(JsonObject)([]))).toBe(true)
    expect(Result.isFailure(Schema.decodeUnknownResult(JsonObject)("x"))).toBe(true)
  })

  it("JsonValue passes any value through, sanitised", () => {
    expect(Schema.decodeUnknownSync(JsonValue)(3)).toBe(3)
    expect(Object.keys((Schema.decodeUnknownSync(JsonValue)(polluted()) as { a: object }).a)).toEqual(["b"])
  })

  it("opaqueTagged refuses the known types so a malformed known block cannot slip through", () => {
    const Opaque = opaqueTagged(["text"], "Opaque")
    expect(Result.isFailure(Schema.decodeUnknownResult(Opaque)({ type: "text" }))).toBe(true)
    expect(Result.getOrThrow(Schema.decodeUnknownResult(Opaque)({ type: "web_search_tool_result", id: "x" }))).toEqual({
      type: "web_search_tool_result",
      id: "x"
    })
  })

  it("parseJsonText gives a DecodeError, never an exception, on bad input", () => {
    const bad = parseJsonText("{", "messages", "messages event")
    expect(Result.isFailure(bad) && bad.failure).toBeInstanceOf(DecodeError)
    expect(Result.isFailure(parseJsonText(undefined, "native", "chunk"))).toBe(true)
    expect(Result.getOrThrow(parseJsonText('{"a":1}', "native", "chunk"))).toEqual({ a: 1 })
  })

  it("decodeWith names what was decoded in the DecodeError", () => {
    const result = decodeWith(Schema.Struct({ a: Schema.Number }), "openai", "thing")({ a: "x" })
    expect(Result.isFailure(result) && result.failure.what).toBe("thing")
    expect(Result.isFailure(result) && result.failure.family).toBe("openai")
  })

  it("typedPayload prefers the payload type and falls back to the SSE event name", () => {
    expect(typedPayload({ type: "a" }, "b")).toEqual({ type: "a", payload: { type: "a" } })
    expect(typedPayload({ x: 1 }, "b")).toEqual({ type: "b", payload: { x: 1, type: "b" } })
    expect(typedPayload(5, "b")).toEqual({ type: "b", payload: 5 })
  })
})
