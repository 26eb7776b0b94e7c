import { inflateSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { crc32 } from "../../src/emulator/media/Png.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const generate = (body: Record<string, unknown>): Promise<Response> =>
  fetch(`${emu.url}/v1/images/generations`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "zeta-2.5-flash-image", prompt: "a red fox", ...body })
  })
type Result = { created: number; data: Array<{ b64_json: string }> }

/** Walks the PNG chunks, checking each CRC, and returns the size and the inflated pixel data. */
const readPng = (png: Buffer): { width: number; height: number; raw: Buffer } => {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  let at = 8
  let width = 0
  let height = 0
  const idat: Array<Buffer> = []
  for (;;) {
    const len = png.readUInt32BE(at)
    const type = png.subarray(at + 4, at + 8).toString("ascii")
    const data = png.subarray(at + 8, at + 8 + len)
    expect(png.readUInt32BE(at + 8 + len)).toBe(crc32(png.subarray(at + 4, at + 8 + len)))
    if (type === "IHDR") [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)]
    if (type === "IDAT") idat.push(data)
    at += 12 + len
    if (type === "IEND") break
  }
  return { width, height, raw: inflateSync(Buffer.concat(idat)) }
}

describe("POST /v1/images/generations", () => {
  it("answers b64_json of a real PNG whose pixels match its header", async () => {
    const res = await generate({ size: "16:9" })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Result
    expect(body.created).toEqual(expect.any(Number))
    const { width, height, raw } = readPng(Buffer.from(body.data[0]!.b64_json, "base64"))
    expect(width / height).toBeCloseTo(16 / 9, 1)
    expect(raw.length).toBe((width * 3 + 1) * height)
  })

  it("draws the same picture for the same prompt and another for another prompt", async () => {
    const a = ((await (await generate({})).json()) as Result).data[0]!.b64_json
    const b = ((await (await generate({})).json()) as Result).data[0]!.b64_json
    const c = ((await (await generate({ prompt: "a blue whale" })).json()) as Result).data[0]!.b64_json
    expect(a).toBe(b)
    expect(a).not.toBe(c)
  })

  it("answers n images", async () => {
    expect(((await (await generate({ n: 3 })).json()) as Result).data).toHaveLength(3)
  })

  it("serves the zeta 3 pro image model and answers another model 404 model_not_found, as other endpoints do", async () => {
    expect((await generate({ model: "zeta-3-pro-image-preview" })).status).toBe(200)
    for (const model of ["gpt-image-1", "zeta-9-image", "zeta-2.5-flash"]) {
      const res = await generate({ model })
      expect(res.status).toBe(404)
      expect(await res.json()).toMatchObject({
        error: { type: "invalid_request_error", param: "model", code: "model_not_found" }
      })
    }
  })

  it("answers a response_format other than b64_json with 400", async () => {
    const res = await generate({ response_format: "url" })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param: "response_format" } })
    expect((await generate({ response_format: "b64_json" })).status).toBe(200)
  })

  it("answers the mime_type asked: a JPEG or a WebP of the size it reports, with that output_format", async () => {
    type Answer = Result & { output_format: string; size: string }
    const answer = async (mime_type?: string): Promise<Answer> => {
      const res = await generate({ size: "16:9", ...(mime_type === undefined ? {} : { mime_type }) })
      expect(res.status).toBe(200)
      return (await res.json()) as Answer
    }
    const [png, jpeg, webp] = await Promise.all([answer(), answer("image/jpeg"), answer("image/webp")])
    const bytes = (a: Answer) => Buffer.from(a.data[0]!.b64_json, "base64")
    expect([png.output_format, jpeg.output_format, webp.output_format]).toEqual(["png", "jpeg", "webp"])
    const { width, height } = readPng(bytes(png))
    expect(png.size).toBe(`${width}x${height}`)
    // JPEG: SOI, then markers up to the baseline frame header, which carries height then width; EOI last.
    const jpg = bytes(jpeg)
    expect([jpg[0], jpg[1], jpg.at(-2), jpg.at(-1)]).toEqual([0xff, 0xd8, 0xff, 0xd9])
    let at = 2
    while (jpg[at + 1] !== 0xc0) at += 2 + jpg.readUInt16BE(at + 2)
    expect(`${jpg.readUInt16BE(at + 7)}x${jpg.readUInt16BE(at + 5)}`).toBe(jpeg.size)
    // WebP: RIFF….WEBP with a lossless VP8L chunk whose header holds width − 1 and height − 1 in 14 bits each.
    const wp = bytes(webp)
    expect([wp.toString("ascii", 0, 4), wp.toString("ascii", 8, 16)]).toEqual(["RIFF", "WEBPVP8L"])
    expect(wp.readUInt32LE(4)).toBe(wp.length - 8)
    const bits = wp.readUInt32LE(21)
    expect(`${(bits & 0x3fff) + 1}x${((bits >>> 14) & 0x3fff) + 1}`).toBe(webp.size)
  })

  it("answers a mime_type it cannot make with 400 naming the types it makes", async () => {
    const res = await generate({ mime_type: "image/gif" })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { param: string; message: string } }
    expect(body.error.param).toBe("mime_type")
    expect(body.error.message).toContain("image/png, image/jpeg, image/webp")
  })

  it("answers a missing prompt with 400", async () => {
    expect((await generate({ prompt: undefined })).status).toBe(400)
  })
})
