import { describe, expect, it } from "vitest"
import { parseRange, SAMPLE_MP4, SAMPLE_MP4_B64, topLevelBoxes } from "../../src/emulator/video/Mp4.js"

describe("the sample MP4", () => {
  it("parses as ISO-BMFF with ftyp first and moov and mdat present, covering every byte", () => {
    const boxes = topLevelBoxes(SAMPLE_MP4)
    expect(boxes[0]!.type).toBe("ftyp")
    const types = boxes.map((b) => b.type)
    expect(types).toContain("moov")
    expect(types).toContain("mdat")
    // faststart: the index comes before the media, so playback can begin while downloading.
    expect(types.indexOf("moov")).toBeLessThan(types.indexOf("mdat"))
    const last = boxes[boxes.length - 1]!
    expect(last.offset + last.size).toBe(SAMPLE_MP4.length)
  })

  it("is H.264 (an avc1 sample entry) and small", () => {
    expect(Buffer.from(SAMPLE_MP4).includes(Buffer.from("avc1"))).toBe(true)
    expect(SAMPLE_MP4.length).toBeLessThan(50 * 1024)
    expect(Buffer.from(SAMPLE_MP4_B64, "base64")).toEqual(Buffer.from(SAMPLE_MP4))
  })

  it("shows a truncated file as missing boxes", () => {
    const types = topLevelBoxes(SAMPLE_MP4.subarray(0, SAMPLE_MP4.length - 1)).map((b) => b.type)
    expect(types).not.toContain("mdat")
  })
})

describe("parseRange", () => {
  it("reads first-last, open-ended and suffix ranges, clamped to the body", () => {
    expect(parseRange("bytes=0-99", 1000)).toEqual({ kind: "partial", start: 0, end: 99 })
    expect(parseRange("bytes=900-", 1000)).toEqual({ kind: "partial", start: 900, end: 999 })
    expect(parseRange("bytes=900-5000", 1000)).toEqual({ kind: "partial", start: 900, end: 999 })
    expect(parseRange("bytes=-10", 1000)).toEqual({ kind: "partial", start: 990, end: 999 })
    expect(parseRange("bytes=-5000", 1000)).toEqual({ kind: "partial", start: 0, end: 999 })
  })

  it("answers ranges past the end as unsatisfiable and ignores what it does not support", () => {
    expect(parseRange("bytes=1000-", 1000)).toEqual({ kind: "unsatisfiable" })
    expect(parseRange("bytes=5-4", 1000)).toEqual({ kind: "unsatisfiable" })
    expect(parseRange("bytes=-0", 1000)).toEqual({ kind: "unsatisfiable" })
    expect(parseRange(undefined, 1000)).toEqual({ kind: "whole" })
    expect(parseRange("bytes=0-1,5-6", 1000)).toEqual({ kind: "whole" })
    expect(parseRange("items=0-1", 1000)).toEqual({ kind: "whole" })
  })
})
