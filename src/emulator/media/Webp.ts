/**
 * Real lossless WebP files (VP8L) of one colour and any size, for image generation asked with
 * `mime_type: "image/webp"`: every prefix code holds one symbol, so the pixels take no bits at all.
 */
import type { Rgb } from "./Jpeg.js"

/** VP8L's bits, least significant first. */
const bitWriter = () => {
  const out: Array<number> = []
  let acc = 0
  let count = 0
  const put = (value: number, length: number): void => {
    for (let i = 0; i < length; i++) {
      acc |= ((value >> i) & 1) << count
      if (++count === 8) {
        out.push(acc)
        acc = 0
        count = 0
      }
    }
  }
  const end = (): Array<number> => (count > 0 ? [...out, acc] : out)
  return { put, end }
}

/** A WebP of `width`×`height` (1 to 16384) filled with `colour`, opaque. */
export const renderWebp = (colour: Rgb, width: number, height: number): Buffer => {
  const [r, g, b] = colour
  const w = bitWriter()
  w.put(0x2f, 8) // VP8L signature
  w.put(width - 1, 14)
  w.put(height - 1, 14)
  w.put(0, 1) // no alpha used
  w.put(0, 3) // version 0
  w.put(0, 1) // no transform
  w.put(0, 1) // no colour cache
  w.put(0, 1) // no meta prefix codes: one group
  // Green (with lengths), red, blue, alpha, distance: a simple code of one 8-bit symbol each.
  for (const symbol of [g, r, b, 255, 0]) {
    w.put(1, 1) // simple code
    w.put(0, 1) // one symbol
    w.put(1, 1) // of 8 bits
    w.put(symbol, 8)
  }
  const vp8l = Buffer.from(w.end())
  const padded = vp8l.length % 2 === 0 ? vp8l : Buffer.concat([vp8l, Buffer.alloc(1)])
  const head = Buffer.alloc(20)
  head.write("RIFF", 0, "ascii")
  head.writeUInt32LE(12 + padded.length, 4)
  head.write("WEBPVP8L", 8, "ascii")
  head.writeUInt32LE(vp8l.length, 16)
  return Buffer.concat([head, padded])
}
