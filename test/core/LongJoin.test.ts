import { describe, expect, it } from "vitest"
import { joinLong, LONG_JOIN } from "../../src/core/wire/LongJoin.js"

/** `count` pieces of `size` code units each, cycling through `alphabet`. */
const piecesOf = (alphabet: ReadonlyArray<string>, count: number, size: number): Array<string> => {
  const pieces: Array<string> = []
  for (let i = 0; i < count; i++) {
    let piece = ""
    while (piece.length < size) piece += alphabet[(i + piece.length) % alphabet.length]!
    pieces.push(piece)
  }
  return pieces
}

const units = (pieces: ReadonlyArray<string>): number => pieces.reduce((n, p) => n + p.length, 0)

describe("joinLong", () => {
  it("joins ASCII pieces as join does", () => {
    const pieces = piecesOf(["a", "b", "c", "+", "/"], 80, 8 * 1024)
    expect(units(pieces)).toBeGreaterThanOrEqual(LONG_JOIN)
    expect(joinLong(pieces, units(pieces))).toBe(pieces.join(""))
  })

  it("joins text dense in multi-byte and astral characters (the buffer grows) as join does", () => {
    const pieces = piecesOf(["日", "本", "é", "😀", "x"], 70, 8 * 1024)
    expect(joinLong(pieces, units(pieces))).toBe(pieces.join(""))
  })

  it("gives the same string again with the buffer kept from a longer line, and for empty pieces", () => {
    const long = piecesOf(["q", "ñ"], 90, 8 * 1024)
    expect(joinLong(long, units(long))).toBe(long.join(""))
    const shorter = ["", ...piecesOf(["z", "€"], 66, 8 * 1024), ""]
    expect(joinLong(shorter, units(shorter))).toBe(shorter.join(""))
  })
})
