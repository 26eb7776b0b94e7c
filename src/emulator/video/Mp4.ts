/** The real MP4 every finished emulator video is, and what serving it needs: its bytes, its boxes and byte ranges. */
import { SAMPLE_MP4_BASE64 } from "./sampleMp4.js"

/** The sample video's bytes (2 s of H.264 baseline, 320x180), decoded once. */
export const SAMPLE_MP4: Uint8Array = new Uint8Array(Buffer.from(SAMPLE_MP4_BASE64, "base64"))

/** The sample video as base64, exactly as E3 returns it (no re-encoding per request). */
export const SAMPLE_MP4_B64: string = SAMPLE_MP4_BASE64

/** One top-level ISO-BMFF box: its four-character type, offset and size in bytes. */
export interface Mp4Box {
  readonly type: string
  readonly offset: number
  readonly size: number
}

/**
 * The top-level boxes of an ISO-BMFF file, in order. Stops at the first malformed box header
 * (a size that runs past the end), so a truncated file shows up as missing boxes.
 */
export const topLevelBoxes = (bytes: Uint8Array): ReadonlyArray<Mp4Box> => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const boxes: Array<Mp4Box> = []
  let offset = 0
  while (offset + 8 <= bytes.length) {
    let size = view.getUint32(offset)
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8))
    // size 1: a 64-bit size follows; size 0: the box runs to the end of the file.
    if (size === 1) {
      if (offset + 16 > bytes.length) break
      size = Number(view.getBigUint64(offset + 8))
    } else if (size === 0) size = bytes.length - offset
    if (size < 8 || offset + size > bytes.length) break
    boxes.push({ type, offset, size })
    offset += size
  }
  return boxes
}

/** The answer to a `Range` header for a body of `total` bytes. */
export type RangeAnswer =
  | { readonly kind: "whole" }
  | { readonly kind: "partial"; readonly start: number; readonly end: number }
  | { readonly kind: "unsatisfiable" }

/**
 * Reads a single-range `Range: bytes=…` header (what `<video>` sends). Multi-range and
 * non-byte units are answered with the whole body, as RFC 9110 allows a server to ignore them.
 */
export const parseRange = (header: string | undefined, total: number): RangeAnswer => {
  if (header === undefined) return { kind: "whole" }
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "whole" }
  const first = m[1] === "" ? undefined : Number(m[1])
  const last = m[2] === "" ? undefined : Number(m[2])
  if (first === undefined) {
    // A suffix range: the last `last` bytes.
    if (last === 0 || total === 0) return { kind: "unsatisfiable" }
    return { kind: "partial", start: Math.max(0, total - last!), end: total - 1 }
  }
  if (first >= total || (last !== undefined && last < first)) return { kind: "unsatisfiable" }
  return { kind: "partial", start: first, end: Math.min(total - 1, last ?? total - 1) }
}
