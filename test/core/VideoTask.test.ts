import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import {
  decodeVideoDownload,
  isVideoTaskFinal,
  VideoQueryResponse,
  VideoSubmitResponse
} from "../../src/core/video/VideoTask.js"

const download = (over: Record<string, unknown> = {}) => ({
  success: true,
  generation_id: "video_1",
  task_id: "video_1",
  format: "mp4",
  size: 4,
  base64: "AAECAw==",
  data_url: "data:video/mp4;base64,AAECAw==",
  ...over
})
const decodeFails = (json: unknown) => Effect.flip(decodeVideoDownload(json))

describe("video task Schemas", () => {
  it("decode a submit answer and refuse one with another status", () => {
    const ok = { task_id: "video_abc", status: "submitted", format: "mp4" }
    expect(Schema.decodeUnknownSync(VideoSubmitResponse)(ok)).toEqual(ok)
    expect(Result.isFailure(Schema.decodeUnknownResult(VideoSubmitResponse)({ ...ok, status: "queued" }))).toBe(true)
  })

  it("decode query answers with url, with an integer error, and refuse an unknown status or a non-integer code", () => {
    const decode = Schema.decodeUnknownResult(VideoQueryResponse)
    expect(decode({ task_id: "video_1", status: "succeeded", format: "mp4", url: "https://v/1.mp4" })).toMatchObject({
      _tag: "Success"
    })
    expect(
      decode({ task_id: "video_1", status: "failed", format: "mp4", error: { code: 400, message: "rejected" } })
    ).toMatchObject({
      success: { error: { code: 400, message: "rejected" } }
    })
    expect(decode({ task_id: "video_1", status: "in_progress" })).toMatchObject({ _tag: "Success" })
    expect(decode({ task_id: "video_1", status: "running" })).toMatchObject({ _tag: "Failure" })
    expect(decode({ task_id: "video_1", status: "failed", error: { code: "E1", message: "x" } })).toMatchObject({
      _tag: "Failure"
    })
  })

  it("tell final states from waiting ones", () => {
    expect(
      ["submitted", "queued", "in_progress", "succeeded", "failed"].map((s) => isVideoTaskFinal(s as never))
    ).toEqual([false, false, false, true, true])
  })
})

describe("decodeVideoDownload", () => {
  it.effect("returns the bytes of a consistent download result", () =>
    Effect.gen(function* () {
      const result = yield* decodeVideoDownload(download())
      expect([...result.bytes]).toEqual([0, 1, 2, 3])
      expect(result).toMatchObject({ taskId: "video_1", generationId: "video_1", format: "mp4", size: 4 })
    })
  )

  it.effect("refuses base64 with characters outside the alphabet, line breaks or bad padding", () =>
    Effect.gen(function* () {
      for (const base64 of [
        "AAEC Aw==",
        "AAEC\nAw==",
        "AAECAw=",
        "AAECA===",
        "AA=CAw==",
        "AAECAx==",
        "AAEC-w==",
        "AAECAw%="
      ]) {
        const e = yield* decodeFails(download({ base64, data_url: `data:video/mp4;base64,${base64}` }))
        expect(e).toMatchObject({ _tag: "DecodeError", family: "video", what: "video download" })
        expect(e.message).toContain("base64")
      }
    })
  )

  it.effect("refuses a size that is not the byte length and a data_url that differs from base64", () =>
    Effect.gen(function* () {
      expect((yield* decodeFails(download({ size: 5 }))).message).toContain("size says 5 bytes but base64 holds 4")
      expect((yield* decodeFails(download({ data_url: "data:video/mp4;base64,AAECAA==" }))).message).toContain(
        "data_url"
      )
      expect((yield* decodeFails(download({ data_url: "data:image/png;base64,AAECAw==" }))).message).toContain(
        "data_url"
      )
    })
  )

  it.effect("refuses a failed download, a wrong format and a non-object, never throwing", () =>
    Effect.gen(function* () {
      expect((yield* decodeFails(download({ success: false }))).message).toContain("success: false")
      expect((yield* decodeFails(download({ format: "webm" }))).family).toBe("video")
      expect((yield* decodeFails(null))._tag).toBe("DecodeError")
      expect((yield* decodeFails(download({ size: -1 })))._tag).toBe("DecodeError")
    })
  )
})
