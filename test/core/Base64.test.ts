import { Result } from "effect"
import { describe, expect, it } from "vitest"
import * as Base64 from "../../src/core/wire/Base64.js"

const bytes = (text: string) => new TextEncoder().encode(text)

describe("Base64", () => {
  it("encodes the RFC 4648 test vectors", () => {
    const vectors: Array<[string, string]> = [
      ["", ""],
      ["f", "Zg=="],
      ["fo", "Zm8="],
      ["foo", "Zm9v"],
      ["foob", "Zm9vYg=="],
      ["fooba", "Zm9vYmE="],
      ["foobar", "Zm9vYmFy"]
    ]
    for (const [plain, encoded] of vectors) {
      expect(Base64.encode(bytes(plain))).toBe(encoded)
      expect(Result.getOrThrow(Base64.decode(encoded))).toEqual(bytes(plain))
    }
  })

  it("refuses whitespace, the URL alphabet, misplaced padding and bad lengths", () => {
    for (const text of ["Zm9v\n", "Zm 9v", "Zm9-", "Zm_v", "Z===", "Zg=a", "=Zm9", "Zm9", "Zg==Zg==", "Zm9v===="])
      expect(Result.isFailure(Base64.decode(text)), text).toBe(true)
  })

  it("refuses non-zero bits before the padding (non-canonical input)", () => {
    expect(Result.isFailure(Base64.decode("Zh=="))).toBe(true)
    expect(Result.isFailure(Base64.decode("Zm9="))).toBe(true)
  })

  it("refuses characters outside ASCII even when their low byte is in the alphabet", () => {
    // U+0141 has low byte 0x41 ('A').
    expect(Result.isFailure(Base64.decode("\u0141AAA"))).toBe(true)
  })

  it("round-trips every byte value", () => {
    const all = new Uint8Array(256).map((_, i) => i)
    expect(Result.getOrThrow(Base64.decode(Base64.encode(all)))).toEqual(all)
  })
})
