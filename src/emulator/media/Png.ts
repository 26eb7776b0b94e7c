/**
 * Real PNG files (8-bit RGB, deflated with `node:zlib`, CRC-32 per chunk) with a deterministic
 * pattern drawn from a seed string, for image generation and native `inlineData` image parts.
 */
import { deflateSync } from "node:zlib"
import { hash32, seededRandom } from "../text/TextGen.js"

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

/** CRC-32 (ISO-HDLC, as PNG and zip use it). */
export const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

const chunk = (type: string, data: Uint8Array): Buffer => {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.byteLength, 0)
  head.write(type, 4, "ascii")
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

/** Largest side the emulator draws; bigger requests are scaled down to keep answers small and fast. */
export const MAX_SIDE = 512

/** A PNG of `width`×`height` whose colours and stripes are a function of `seed`. */
export const renderPng = (seed: string, width: number, height: number): Buffer => {
  const w = Math.max(1, Math.min(MAX_SIDE, Math.round(width)))
  const h = Math.max(1, Math.min(MAX_SIDE, Math.round(height)))
  const rnd = seededRandom(hash32(seed))
  const base = [rnd() * 255, rnd() * 255, rnd() * 255]
  const accent = [rnd() * 255, rnd() * 255, rnd() * 255]
  const stripe = 4 + Math.floor(rnd() * 12)
  const raw = Buffer.alloc((w * 3 + 1) * h)
  for (let y = 0; y < h; y++) {
    const row = y * (w * 3 + 1)
    raw[row] = 0 // filter type None
    for (let x = 0; x < w; x++) {
      const onStripe = Math.floor((x + y) / stripe) % 2 === 0
      const shade = (x / w + y / h) / 2
      for (let c = 0; c < 3; c++) {
        const v = onStripe ? accent[c]! : base[c]! * (0.5 + shade / 2)
        raw[row + 1 + x * 3 + c] = Math.max(0, Math.min(255, Math.round(v)))
      }
    }
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // colour type RGB
  ihdr[10] = 0
  ihdr[11] = 0
  ihdr[12] = 0
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", new Uint8Array(0))
  ])
}

/** Pixel size for an aspect ratio (`16:9`) and a size class (`1K`, `2K`, …), scaled to at most `MAX_SIDE`. */
export const imageDimensions = (
  aspectRatio: string | undefined,
  imageSize: string | undefined
): { width: number; height: number } => {
  const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(aspectRatio ?? "1:1")
  const rw = m ? Number(m[1]) : 1
  const rh = m ? Number(m[2]) : 1
  const k = /^(\d)K$/i.exec(imageSize ?? "1K")
  const long = Math.min(MAX_SIDE, 128 * (k ? Number(k[1]) : 1))
  return rw >= rh
    ? { width: long, height: Math.max(1, Math.round((long * rh) / rw)) }
    : { width: Math.max(1, Math.round((long * rw) / rh)), height: long }
}
