/**
 * Real baseline JPEG files of one colour and any size (JFIF, YCbCr 4:4:4, unit quantisation, each 8×8
 * block only its DC term), for image generation asked with `mime_type: "image/jpeg"`.
 */

/** An 8-bit colour: red, green, blue. */
export type Rgb = readonly [number, number, number]

const marker = (code: number, payload: ReadonlyArray<number>): Array<number> => [
  0xff,
  code,
  (payload.length + 2) >> 8,
  (payload.length + 2) & 0xff,
  ...payload
]

// Annex K's luminance DC table (categories 0–11), and an AC table holding only end-of-block (code `0`).
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
const AC_BITS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
const AC_VALUES = [0x00]

/** The canonical codes of a table (JPEG Annex C): symbol → [code, length]. */
const codesOf = (
  bits: ReadonlyArray<number>,
  values: ReadonlyArray<number>
): Map<number, readonly [number, number]> => {
  const codes = new Map<number, readonly [number, number]>()
  let code = 0
  let k = 0
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < bits[length - 1]!; i++) codes.set(values[k++]!, [code++, length])
    code <<= 1
  }
  return codes
}
const DC_CODES = codesOf(DC_BITS, DC_VALUES)
const EOB = codesOf(AC_BITS, AC_VALUES).get(0)!

/** Entropy-coded bits, MSB first, a 0x00 stuffed after every 0xFF byte, padded with 1-bits. */
const bitWriter = () => {
  const out: Array<number> = []
  let acc = 0
  let count = 0
  const put = (value: number, length: number): void => {
    for (let i = length - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >> i) & 1)
      if (++count === 8) {
        out.push(acc)
        if (acc === 0xff) out.push(0x00)
        acc = 0
        count = 0
      }
    }
  }
  const end = (): Array<number> => {
    if (count > 0) put((1 << (8 - count)) - 1, 8 - count)
    return out
  }
  return { put, end }
}

/** A DC difference: its category's code, then the category's bits (negative values as one's complement). */
const putDc = (w: ReturnType<typeof bitWriter>, diff: number): void => {
  const category = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1
  const [code, length] = DC_CODES.get(category)!
  w.put(code, length)
  if (category > 0) w.put(diff >= 0 ? diff : diff + (1 << category) - 1, category)
}

/** A JPEG of `width`×`height` (1 to 65535) filled with `colour`. */
export const renderJpeg = (colour: Rgb, width: number, height: number): Buffer => {
  const [r, g, b] = colour
  const ycc = [
    0.299 * r + 0.587 * g + 0.114 * b,
    -0.168736 * r - 0.331264 * g + 0.5 * b + 128,
    0.5 * r - 0.418688 * g - 0.081312 * b + 128
  ]
  // With unit quantisation a flat block's DC term is 8 × (sample − 128).
  const dc = ycc.map((v) => Math.max(-1024, Math.min(1016, Math.round(8 * (v - 128)))))
  const w = bitWriter()
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8)
  for (let i = 0; i < blocks; i++)
    for (const c of dc) {
      putDc(w, i === 0 ? c : 0)
      w.put(EOB[0], EOB[1])
    }
  const component = (id: number): Array<number> => [id, 0x11, 0]
  return Buffer.from([
    0xff,
    0xd8,
    ...marker(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...marker(0xdb, [0, ...new Array<number>(64).fill(1)]),
    ...marker(0xc0, [
      8,
      height >> 8,
      height & 0xff,
      width >> 8,
      width & 0xff,
      3,
      ...component(1),
      ...component(2),
      ...component(3)
    ]),
    ...marker(0xc4, [0x00, ...DC_BITS, ...DC_VALUES, 0x10, ...AC_BITS, ...AC_VALUES]),
    ...marker(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]),
    ...w.end(),
    0xff,
    0xd9
  ])
}
