import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { parseSse } from "./RawSse.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const speech = (body: Record<string, unknown>): Promise<Response> =>
  fetch(`${emu.url}/v1/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini-tts", input: "Hello there", voice: "alloy", ...body })
  })
const audio = async (format: string): Promise<{ type: string | null; bytes: Buffer }> => {
  const res = await speech({ response_format: format })
  expect(res.status).toBe(200)
  return { type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) }
}

/** Bitwise MSB-first CRC, written independently of the emulator's table version. */
const crcBits = (bytes: Uint8Array, width: number, poly: number): number => {
  let c = 0n
  const top = 1n << BigInt(width - 1)
  const mask = (1n << BigInt(width)) - 1n
  for (const b of bytes) {
    c ^= BigInt(b) << BigInt(width - 8)
    for (let k = 0; k < 8; k++) c = (c & top ? (c << 1n) ^ BigInt(poly) : c << 1n) & mask
  }
  return Number(c)
}

describe("POST /v1/audio/speech", () => {
  it("answers a RIFF WAV of PCM16 24 kHz mono with a real tone", async () => {
    const { type, bytes } = await audio("wav")
    expect(type).toBe("audio/wav")
    expect(bytes.subarray(0, 4).toString("ascii")).toBe("RIFF")
    expect(bytes.subarray(8, 12).toString("ascii")).toBe("WAVE")
    expect(bytes.readUInt16LE(20)).toBe(1)
    expect(bytes.readUInt16LE(22)).toBe(1)
    expect(bytes.readUInt32LE(24)).toBe(24_000)
    expect(bytes.readUInt16LE(34)).toBe(16)
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44)
    const samples = Array.from({ length: (bytes.length - 44) / 2 }, (_, i) => bytes.readInt16LE(44 + i * 2))
    expect(Math.max(...samples)).toBeGreaterThan(5000)
  })

  it("answers raw pcm as the WAV's samples without a header", async () => {
    const wav = (await audio("wav")).bytes
    const { type, bytes } = await audio("pcm")
    expect(type).toBe("audio/pcm")
    expect(bytes.equals(wav.subarray(44))).toBe(true)
  })

  it("answers a FLAC whose verbatim frames decode to the same samples, with valid CRCs", async () => {
    const pcm = (await audio("pcm")).bytes
    const { type, bytes } = await audio("flac")
    expect(type).toBe("audio/flac")
    expect(bytes.subarray(0, 4).toString("ascii")).toBe("fLaC")
    expect(bytes[4]).toBe(0x80) // last metadata block, STREAMINFO
    const packed = bytes.readBigUInt64BE(4 + 4 + 10)
    expect(Number(packed >> 44n)).toBe(24_000)
    expect(Number(packed & 0xfffffffffn)).toBe(pcm.length / 2)
    const decoded: Array<number> = []
    let at = 42
    while (at < bytes.length) {
      expect(bytes.readUInt16BE(at)).toBe(0xfff8)
      let h = at + 4
      while ((bytes[h]! & 0xc0) === 0x80 || h === at + 4) h++ // UTF-8 frame number
      const n = bytes.readUInt16BE(h) + 1
      const headerEnd = h + 2
      expect(bytes[headerEnd]).toBe(crcBits(bytes.subarray(at, headerEnd), 8, 0x07))
      expect(bytes[headerEnd + 1]).toBe(0x02)
      for (let i = 0; i < n; i++) decoded.push(bytes.readInt16BE(headerEnd + 2 + i * 2))
      const end = headerEnd + 2 + n * 2
      expect(bytes.readUInt16BE(end)).toBe(crcBits(bytes.subarray(at, end), 16, 0x8005))
      at = end + 2
    }
    expect(decoded).toEqual(Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(i * 2)))
  })

  it("answers mp3 as a run of MPEG-1 Layer III frames", async () => {
    const { type, bytes } = await audio("mp3")
    expect(type).toBe("audio/mpeg")
    expect(bytes.length % 384).toBe(0)
    for (let at = 0; at < bytes.length; at += 384) expect(bytes.readUInt16BE(at)).toBe(0xfffb)
  })

  it("answers opus as Ogg pages with OpusHead and valid page CRCs", async () => {
    const { type, bytes } = await audio("opus")
    expect(type).toBe("audio/opus")
    expect(bytes.subarray(28, 36).toString("ascii")).toBe("OpusHead")
    let at = 0
    let pages = 0
    let last = 0
    while (at < bytes.length) {
      expect(bytes.subarray(at, at + 4).toString("ascii")).toBe("OggS")
      const segments = bytes[at + 26]!
      const size = 27 + segments + bytes.subarray(at + 27, at + 27 + segments).reduce((s, x) => s + x, 0)
      const page = Buffer.from(bytes.subarray(at, at + size))
      const crc = page.readUInt32LE(22)
      page.writeUInt32LE(0, 22)
      expect(crc).toBe(crcBits(page, 32, 0x04c11db7))
      last = bytes[at + 5]!
      at += size
      pages++
    }
    expect(pages).toBeGreaterThanOrEqual(3)
    expect(last & 0x04).toBe(0x04) // end of stream
  })

  it("answers aac as ADTS frames", async () => {
    const { type, bytes } = await audio("aac")
    expect(type).toBe("audio/aac")
    let at = 0
    while (at < bytes.length) {
      expect(bytes.readUInt16BE(at) & 0xfff6).toBe(0xfff0)
      const length = ((bytes[at + 3]! & 3) << 11) | (bytes[at + 4]! << 3) | (bytes[at + 5]! >> 5)
      at += length
    }
    expect(at).toBe(bytes.length)
  })

  it("defaults to mp3 and makes slower speech longer", async () => {
    const res = await speech({})
    expect(res.headers.get("content-type")).toBe("audio/mpeg")
    const slow = (await (await speech({ response_format: "pcm", speed: 0.5 })).arrayBuffer()).byteLength
    const fast = (await (await speech({ response_format: "pcm", speed: 2 })).arrayBuffer()).byteLength
    expect(slow).toBeGreaterThan(fast)
  })

  it("streams the same bytes as speech.audio.delta events when stream_format is sse", async () => {
    const wav = (await audio("wav")).bytes
    const res = await speech({ response_format: "wav", stream_format: "sse" })
    expect(res.headers.get("content-type")).toContain("text/event-stream")
    const events = parseSse(await res.text()).map(
      (e) => JSON.parse(e.data) as { type: string; audio?: string; usage?: { total_tokens: number } }
    )
    expect(events.at(-1)).toMatchObject({ type: "speech.audio.done", usage: { total_tokens: expect.any(Number) } })
    const bytes = Buffer.concat(
      events.filter((e) => e.type === "speech.audio.delta").map((e) => Buffer.from(e.audio!, "base64"))
    )
    expect(bytes.equals(wav)).toBe(true)
    expect((await speech({ model: "tts-1", stream_format: "sse" })).status).toBe(400)
  })

  for (const [what, body, param] of [
    ["a missing voice", { voice: undefined }, "voice"],
    ["an unknown voice", { voice: "robot" }, "voice"],
    ["a missing input", { input: undefined }, "input"],
    ["an unknown format", { response_format: "ogg" }, "response_format"],
    ["speed above 4", { speed: 5 }, "speed"],
    ["speed below 0.25", { speed: 0.1 }, "speed"]
  ] as const)
    it(`answers ${what} with 400`, async () => {
      const res = await speech(body)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param } })
    })

  it("counts input in characters (code points): 4096 emoji pass, 4097 are refused naming that count", async () => {
    expect((await speech({ input: "😀".repeat(4096) })).status).toBe(200)
    const res = await speech({ input: "😀".repeat(4097) })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { message: string; param: string } }
    expect(body.error.param).toBe("input")
    expect(body.error.message).toContain("maximum length 4096, but got a string with length 4097")
  })

  it("answers a model that is not a speech model with 404", async () => {
    expect((await speech({ model: "gpt-4o" })).status).toBe(404)
  })
})
