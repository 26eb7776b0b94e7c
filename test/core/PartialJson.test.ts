import { describe, expect, it } from "vitest"
import { makePartialJson, parsePartialJson, PartialJsonError } from "../../src/core/wire/PartialJson.js"

const snapshotsOf = (pieces: ReadonlyArray<string>): Array<unknown> => {
  const reader = makePartialJson()
  return pieces.map((piece) => {
    reader.push(piece)
    return reader.snapshot()
  })
}

describe("parsePartialJson", () => {
  it.each([
    ["", undefined],
    ["  ", undefined],
    ['{"city": "Par', { city: "Par" }],
    ['{"city": "Paris", "days": [1, 2', { city: "Paris", days: [1] }],
    ['{"city": "Paris", "days": [1, 2 ', { city: "Paris", days: [1, 2] }],
    ['{"a": {"b": [{"c": "x', { a: { b: [{ c: "x" }] } }],
    ['{"ci', {}],
    ['{"city"', {}],
    ['{"city":', {}],
    ['{"city": ', {}],
    ['{"ok": tr', {}],
    ['{"ok": true', { ok: true }],
    ['{"v": nul', {}],
    ['{"v": null', { v: null }],
    ['{"n": -', {}],
    ['{"n": 1.5e', {}],
    ['{"n": 1.5e3,', { n: 1500 }],
    ['{"s": "a\\', { s: "a" }],
    ['{"s": "a\\u00e', { s: "a" }],
    ['{"s": "a\\u00e9', { s: "aé" }],
    ['{"s": "a\\n', { s: "a\n" }],
    ["[", []],
    ["[[], {", [[], {}]],
    ['"top', "top"],
    ["12", undefined],
    ["12 ", 12]
  ])("reads %j as %j", (text, value) => {
    const result = parsePartialJson(text)
    expect(result.value).toStrictEqual(value)
    expect(result.error).toBeUndefined()
  })

  it("says when the value is complete", () => {
    expect(parsePartialJson('{"a": 1}').done).toBe(true)
    expect(parsePartialJson('{"a": 1').done).toBe(false)
    expect(parsePartialJson('{"a": 1}  \n').done).toBe(true)
    expect(parsePartialJson("true").done).toBe(true)
    expect(parsePartialJson("-0.5e-2").done).toBe(false)
  })
})

describe("makePartialJson", () => {
  it("shows a number that is the whole text only at end()", () => {
    const reader = makePartialJson()
    reader.push("-0.5e-")
    reader.push("2")
    expect(reader.snapshot()).toBeUndefined()
    reader.end()
    expect(reader.snapshot()).toBe(-0.005)
    expect(reader.done).toBe(true)
    expect(reader.error).toBeUndefined()
  })

  it("reads any cut of the text the same (strings, escapes and numbers across pieces)", () => {
    const text = '{"s": "x\\u00e9\\"y", "n": [10.25e+2, -0], "t": true}'
    const whole = parsePartialJson(text).value
    for (let i = 0; i <= text.length; i++) {
      const reader = makePartialJson()
      reader.push(text.slice(0, i))
      reader.push(text.slice(i))
      expect(reader.snapshot()).toStrictEqual(whole)
    }
    expect(whole).toStrictEqual(JSON.parse(text))
  })

  it("grows a string value by appending, piece by piece", () => {
    expect(snapshotsOf(['{"text": "He', "llo", ", wor", 'ld"}'])).toStrictEqual([
      { text: "He" },
      { text: "Hello" },
      { text: "Hello, wor" },
      { text: "Hello, world" }
    ])
  })

  it("shares finished values between snapshots and never changes one it handed out", () => {
    const reader = makePartialJson()
    reader.push('{"done": {"a": [1, 2]}, "list": [{"x": 1}, ')
    const first = reader.snapshot() as { done: unknown; list: Array<unknown> }
    reader.push('{"x": 2}, {"x": "gro')
    const second = reader.snapshot() as { done: unknown; list: Array<unknown> }
    expect(second.done).toBe(first.done)
    expect(second.list[0]).toBe(first.list[0])
    expect(first).toStrictEqual({ done: { a: [1, 2] }, list: [{ x: 1 }] })
    expect(second).toStrictEqual({ done: { a: [1, 2] }, list: [{ x: 1 }, { x: 2 }, { x: "gro" }] })
  })

  it("hands out the same snapshot while nothing visible changes", () => {
    const reader = makePartialJson()
    reader.push('{"a": "x"')
    const first = reader.snapshot()
    reader.push(', "b')
    expect(reader.snapshot()).toBe(first)
    reader.push('": 12')
    expect(reader.snapshot()).toBe(first)
    reader.push(",")
    expect(reader.snapshot()).toStrictEqual({ a: "x", b: 12 })
  })

  it("hands out the same snapshot when a string, array or object closes: its closing shows nothing new", () => {
    for (const [open, close] of [
      ['{"a": "x', '"'],
      ['{"a": ["x"', "]"],
      ['{"a": {"b": "y"', "}"],
      ['"x', '"'],
      ['["x"', "]"],
      ['{"a": "x"', "}"]
    ] as const) {
      const reader = makePartialJson()
      reader.push(open)
      const before = reader.snapshot()
      reader.push(close)
      expect(reader.snapshot(), `${open}${close}`).toBe(before)
    }
    // A number, true, false and null show only once complete: their end is a change.
    const reader = makePartialJson()
    reader.push('{"a": tru')
    const before = reader.snapshot()
    reader.push("e")
    expect(reader.snapshot()).toStrictEqual({ a: true })
    expect(reader.snapshot()).not.toBe(before)
  })

  it("reads __proto__, constructor and prototype keys and leaves their members out, polluting nothing", () => {
    const reader = makePartialJson()
    reader.push('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "prototype": 1, ')
    reader.push('"a": {"__proto__": [1, {"polluted": "partial')
    const partial = reader.snapshot() as Record<string, unknown>
    expect(partial).toStrictEqual({ a: {} })
    reader.push('"}]}, "b": 2}')
    const value = reader.snapshot() as Record<string, unknown>
    expect(value).toStrictEqual({ a: {}, b: 2 })
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toStrictEqual(["a", "b"])
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    expect(reader.done).toBe(true)
  })

  it("keeps the last value of a repeated key, in the key's first place, as JSON.parse does", () => {
    const text = '{"a": 1, "b": 2, "a": "x"}'
    const value = parsePartialJson(text).value
    expect(value).toStrictEqual(JSON.parse(text))
    expect(Object.keys(value as object)).toStrictEqual(["a", "b"])
  })

  it.each([
    ["[1,]", 3, 'unexpected "]" at offset 3: expected a value (an object, array, string, number, true, false or null)'],
    ['{"a" 1}', 5, 'unexpected "1" at offset 5: expected ":" after the key'],
    ["{,}", 1, 'unexpected "," at offset 1: expected a key (a string) or "}"'],
    ["[1 2]", 3, 'unexpected "2" at offset 3: expected "," or "]"'],
    ['{"a": 1]', 7, 'unexpected "]" at offset 7: expected "," or "}"'],
    ["01", 1, 'unexpected "1" at offset 1: expected ".", "e" or the end of the number after a leading 0'],
    ["-x", 1, 'unexpected "x" at offset 1: expected a digit after "-"'],
    ["1.e3", 2, 'unexpected "e" at offset 2: expected a digit after "."'],
    ["1e+}", 3, 'unexpected "}" at offset 3: expected a digit in the exponent'],
    ["tru e", 3, 'unexpected " " at offset 3: expected "e" (the rest of true)'],
    [
      '"a\\x"',
      3,
      'unexpected "x" at offset 3: expected an escape: one of \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits'
    ],
    ['"\\u12g4"', 5, 'unexpected "g" at offset 5: expected a hex digit in a \\u escape'],
    [
      '"a\tb"',
      2,
      'unexpected "\\t" at offset 2: expected an escape such as \\n or \\u0001 in place of a control character in a string'
    ],
    ["{} {}", 3, 'unexpected "{" at offset 3: expected nothing but whitespace after the value'],
    ["'a'", 0, 'unexpected "\'" at offset 0: expected a value (an object, array, string, number, true, false or null)']
  ])("fails on %j at offset %i", (text, offset, message) => {
    const { error } = parsePartialJson(text)
    expect(error).toBeInstanceOf(PartialJsonError)
    expect(error).toMatchObject({ _tag: "PartialJsonError", reason: "syntax", offset, message })
  })

  it("keeps the error, and the snapshot of the text before it, whatever comes next", () => {
    const reader = makePartialJson()
    reader.push('{"a": "xy')
    reader.push('z\u0001", "b": 1}')
    expect(reader.error?.offset).toBe(10)
    expect(reader.snapshot()).toStrictEqual({ a: "xyz" })
    reader.push('"}')
    reader.end()
    expect(reader.error?.reason).toBe("syntax")
    expect(reader.snapshot()).toStrictEqual({ a: "xyz" })
    expect(reader.done).toBe(false)
  })

  it("fails with truncated when end() comes before the value is complete", () => {
    for (const text of ["", '{"a": 1', '"abc', "-", "1.", "tr"]) {
      const reader = makePartialJson()
      reader.push(text)
      reader.end()
      expect(reader.error).toMatchObject({ reason: "truncated", offset: text.length })
      expect(reader.done).toBe(false)
    }
  })

  it("bounds the nesting depth (64 by default, a top-level container is depth 1)", () => {
    expect(parsePartialJson("[".repeat(64)).error).toBeUndefined()
    expect(parsePartialJson("[".repeat(65)).error).toMatchObject({
      reason: "too-deep",
      offset: 64,
      message: "nesting deeper than 64 levels (the JSON depth bound)"
    })
    expect(parsePartialJson('{"a": {"b": [', { maxDepth: 2 }).error?.reason).toBe("too-deep")
    expect(parsePartialJson('{"a": {"b": 1}}', { maxDepth: 2 }).error).toBeUndefined()
  })

  it("bounds the text's size, counting every piece pushed", () => {
    const reader = makePartialJson({ maxLength: 10 })
    reader.push('["abcde",')
    expect(reader.error).toBeUndefined()
    reader.push(" 12]")
    expect(reader.error).toMatchObject({
      reason: "too-large",
      offset: 10,
      message: "the text is longer than 10 characters (the size bound)"
    })
    expect(reader.snapshot()).toStrictEqual(["abcde"])
    expect(reader.length).toBe(13)
  })

  it("reads a deep text without recursion and a long string in linear time", () => {
    const deep = makePartialJson({ maxDepth: 100_000 })
    deep.push("[".repeat(50_000) + "]".repeat(50_000))
    expect(deep.done).toBe(true)
    const long = makePartialJson()
    const chunk = "x".repeat(16)
    long.push('{"content": "')
    for (let i = 0; i < 100_000; i++) {
      long.push(chunk)
      long.snapshot()
    }
    long.push('"}')
    expect((long.snapshot() as { content: string }).content.length).toBe(1_600_000)
  })
})
