/**
 * Real audio bytes without native tools. A short deterministic tone as PCM16 (raw, WAV, FLAC with
 * verbatim subframes), and valid silent streams for the lossy formats (MPEG-1 Layer III frames,
 * Ogg Opus with silence packets, ADTS AAC-LC frames with empty channel elements).
 */
import { createHash } from "node:crypto"

/** Sample rate of every generated stream except MP3 (which is 48 kHz, silent). */
export const SAMPLE_RATE = 24_000

/** A sine tone of `seconds` at `frequency` Hz, mono 16-bit, with short fades so it starts and ends at zero. */
export const tone = (seconds: number, frequency: number, rate = SAMPLE_RATE): Int16Array => {
  const n = Math.max(1, Math.round(seconds * rate))
  const fade = Math.min(n / 2, rate * 0.01)
  const out = new Int16Array(n)
  for (let i = 0; i < n; i++) {
    const env = Math.min(1, i / fade, (n - 1 - i) / fade)
    out[i] = Math.round(Math.sin((2 * Math.PI * frequency * i) / rate) * 0.3 * 32767 * env)
  }
  return out
}

/** Raw little-endian PCM16. */
export const pcm = (samples: Int16Array): Buffer => {
  const buf = Buffer.alloc(samples.length * 2)
  for (let i = 0; i < samples.length; i++) buf.writeInt16LE(samples[i]!, i * 2)
  return buf
}

/** A RIFF/WAVE file: PCM16 mono at `rate`. */
export const wav = (samples: Int16Array, rate = SAMPLE_RATE): Buffer => {
  const data = pcm(samples)
  const h = Buffer.alloc(44)
  h.write("RIFF", 0, "ascii")
  h.writeUInt32LE(36 + data.length, 4)
  h.write("WAVE", 8, "ascii")
  h.write("fmt ", 12, "ascii")
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20) // PCM
  h.writeUInt16LE(1, 22) // mono
  h.writeUInt32LE(rate, 24)
  h.writeUInt32LE(rate * 2, 28)
  h.writeUInt16LE(2, 32)
  h.writeUInt16LE(16, 34)
  h.write("data", 36, "ascii")
  h.writeUInt32LE(data.length, 40)
  return Buffer.concat([h, data])
}

/** Silent MPEG-1 Layer III, 48 kHz mono 128 kb/s: zero side info and zero main data decode to silence. */
export const mp3Silence = (seconds: number): Buffer => {
  const frames = Math.max(1, Math.ceil((seconds * 48_000) / 1152))
  const frame = Buffer.alloc(384) // 144 * 128000 / 48000, no padding
  frame.set([0xff, 0xfb, 0x94, 0xc0]) // sync, MPEG-1, Layer III, no CRC | 128 kb/s, 48 kHz | mono
  return Buffer.concat(Array.from({ length: frames }, () => frame))
}

const crcTable = (poly: number, bits: 8 | 16 | 32): Uint32Array => {
  const top = 2 ** (bits - 1)
  const mask = 2 ** bits - 1
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n * 2 ** (bits - 8)
    for (let k = 0; k < 8; k++) c = c >= top ? (((c - top) * 2) ^ poly) >>> 0 : c * 2
    t[n] = (c & mask) >>> 0
  }
  return t
}
const CRC8 = crcTable(0x07, 8)
const CRC16 = crcTable(0x8005, 16)
const CRC32 = crcTable(0x04c11db7, 32)

/** MSB-first CRC with zero init and no final xor (FLAC's CRC-8/CRC-16, Ogg's CRC-32). */
const crc = (table: Uint32Array, bits: 8 | 16 | 32, bytes: Uint8Array): number => {
  let c = 0
  const shift = bits - 8
  const mask = bits === 32 ? 0xffffffff : 2 ** bits - 1
  for (const b of bytes) c = ((bits === 8 ? 0 : (c << 8) & mask) ^ table[((c >>> shift) ^ b) & 0xff]!) >>> 0
  return c >>> 0
}

const utf8Number = (n: number): Array<number> =>
  n < 0x80
    ? [n]
    : n < 0x800
      ? [0xc0 | (n >> 6), 0x80 | (n & 0x3f)]
      : [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)]

/** A FLAC file: STREAMINFO, then frames of 4096 samples with one verbatim 16-bit subframe each. */
export const flac = (samples: Int16Array, rate = SAMPLE_RATE): Buffer => {
  const block = 4096
  const info = Buffer.alloc(38)
  info.writeUInt32BE(0x80000000 + 34, 0) // last metadata block, type STREAMINFO, length 34
  info.writeUInt16BE(block, 4)
  info.writeUInt16BE(block, 6)
  // min/max frame size (bytes 8..13) left 0 = unknown
  const packed = (BigInt(rate) << 44n) | (0n << 41n) | (15n << 36n) | BigInt(samples.length)
  info.writeBigUInt64BE(packed, 14)
  createHash("md5").update(pcm(samples)).digest().copy(info, 22)
  const frames: Array<Buffer> = []
  for (let start = 0, index = 0; start < samples.length; start += block, index++) {
    const n = Math.min(block, samples.length - start)
    const head = Buffer.from([0xff, 0xf8, 0x77, 0x08, ...utf8Number(index), (n - 1) >> 8, (n - 1) & 0xff])
    const frame = Buffer.alloc(head.length + 1 + 1 + n * 2 + 2)
    head.copy(frame, 0)
    frame[head.length] = crc(CRC8, 8, head)
    frame[head.length + 1] = 0x02 // subframe: verbatim, no wasted bits
    for (let i = 0; i < n; i++) frame.writeInt16BE(samples[start + i]!, head.length + 2 + i * 2)
    frame.writeUInt16BE(crc(CRC16, 16, frame.subarray(0, frame.length - 2)), frame.length - 2)
    frames.push(frame)
  }
  return Buffer.concat([Buffer.from("fLaC", "ascii"), info, ...frames])
}

const oggPage = (
  packets: ReadonlyArray<Buffer>,
  granule: bigint,
  serial: number,
  sequence: number,
  flags: number
): Buffer => {
  const segments = packets.flatMap((p) => {
    const lacing = Array<number>(Math.floor(p.length / 255)).fill(255)
    return [...lacing, p.length % 255]
  })
  const head = Buffer.alloc(27 + segments.length)
  head.write("OggS", 0, "ascii")
  head[5] = flags
  head.writeBigInt64LE(granule, 6)
  head.writeUInt32LE(serial, 14)
  head.writeUInt32LE(sequence, 18)
  head[26] = segments.length
  Buffer.from(segments).copy(head, 27)
  const page = Buffer.concat([head, ...packets])
  page.writeUInt32LE(crc(CRC32, 32, page), 22)
  return page
}

/** Ogg Opus of `seconds` of silence (20 ms CELT packets `F8 FF FE`). */
export const opusSilence = (seconds: number): Buffer => {
  const serial = 0x756d6721
  const preSkip = 312
  const headPacket = Buffer.alloc(19)
  headPacket.write("OpusHead", 0, "ascii")
  headPacket[8] = 1
  headPacket[9] = 1
  headPacket.writeUInt16LE(preSkip, 10)
  headPacket.writeUInt32LE(SAMPLE_RATE, 12)
  const vendor = Buffer.from("umg emulator", "ascii")
  const tags = Buffer.concat([
    Buffer.from("OpusTags", "ascii"),
    Buffer.from([vendor.length, 0, 0, 0]),
    vendor,
    Buffer.alloc(4)
  ])
  const pages = [oggPage([headPacket], 0n, serial, 0, 0x02), oggPage([tags], 0n, serial, 1, 0)]
  const total = Math.max(1, Math.ceil(seconds / 0.02))
  let granule = BigInt(preSkip)
  for (let done = 0, seq = 2; done < total; seq++) {
    const count = Math.min(200, total - done)
    done += count
    granule += BigInt(count * 960)
    pages.push(
      oggPage(
        Array.from({ length: count }, () => Buffer.from([0xf8, 0xff, 0xfe])),
        granule,
        serial,
        seq,
        done === total ? 0x04 : 0
      )
    )
  }
  return Buffer.concat(pages)
}

/** ADTS AAC-LC at 24 kHz mono: frames holding one empty single-channel element (silence). */
export const aacSilence = (seconds: number): Buffer => {
  const raw = [0x01, 0x40, 0x20, 0x07] // SCE, global gain 160, long window, max_sfb 0, END
  const length = 7 + raw.length
  const frame = Buffer.from([
    0xff,
    0xf1,
    0x58,
    0x40 | ((length >> 11) & 3),
    (length >> 3) & 0xff,
    ((length & 7) << 5) | 0x1f,
    0xfc,
    ...raw
  ])
  const frames = Math.max(1, Math.ceil((seconds * SAMPLE_RATE) / 1024))
  return Buffer.concat(Array.from({ length: frames }, () => frame))
}
