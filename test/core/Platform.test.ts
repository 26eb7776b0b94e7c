import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import {
  AnyShootAdvancedResponse,
  AnyShootEasyResponse,
  buildAnyShootAdvancedBody,
  buildAnyShootEasyBody,
  buildPlatformCredentials,
  buildPlatformTextToVideoBody,
  PlatformEnvelope,
  PlatformTextToVideoResponse,
  PlatformTokenResponse
} from "../../src/core/platform/Platform.js"

const t2v = { model: "m", prompt: "a cat", duration: "5", aspect_ratio: "16:9" }

describe("buildPlatformTextToVideoBody (E4)", () => {
  it.effect("accepts the required fields and the optional ones, rendering an integer duration as a string", () =>
    Effect.gen(function* () {
      expect(yield* buildPlatformTextToVideoBody(t2v)).toEqual(t2v)
      const body = yield* buildPlatformTextToVideoBody({
        ...t2v,
        duration: 12,
        resolution: "1080p",
        return_url: true,
        req_key: "k",
        extra: { note: 1 }
      })
      expect(body).toEqual({ ...t2v, duration: "12", resolution: "1080p", return_url: true, req_key: "k", note: 1 })
      const typo = yield* Effect.flip(buildPlatformTextToVideoBody({ ...t2v, duration: 5, aspectratio: "16:9" }))
      expect(typo).toMatchObject({ field: "aspectratio", rule: "unknown-field" })
      expect(typo.message).toContain("did you mean `aspect_ratio`?")
    })
  )

  it.effect("refuses a missing required field and a duration outside 3, 5, 8, 10, 12", () =>
    Effect.gen(function* () {
      for (const key of ["model", "prompt", "duration", "aspect_ratio"]) {
        const { [key]: _, ...rest } = t2v as Record<string, unknown>
        expect(yield* Effect.flip(buildPlatformTextToVideoBody(rest))).toMatchObject({ field: key, rule: "required" })
      }
      const e = yield* Effect.flip(buildPlatformTextToVideoBody({ ...t2v, duration: "6" }))
      expect(e).toMatchObject({ field: "duration", message: 'duration: "6" is not allowed; allowed: 3, 5, 8, 10, 12' })
      expect((yield* Effect.flip(buildPlatformTextToVideoBody({ ...t2v, return_url: "yes" }))).field).toBe("return_url")
    })
  )

  it.effect("takes an aspect_ratio that is a W:H ratio or adaptive, and a req_key that is not empty", () =>
    Effect.gen(function* () {
      for (const aspect_ratio of ["9:16", "21:9", "adaptive"])
        expect((yield* buildPlatformTextToVideoBody({ ...t2v, aspect_ratio })).aspect_ratio).toBe(aspect_ratio)
      for (const aspect_ratio of ["wide", "16x9", "0:9", "16:"]) {
        const e = yield* Effect.flip(buildPlatformTextToVideoBody({ ...t2v, aspect_ratio }))
        expect(e).toMatchObject({ field: "aspect_ratio", rule: "one-of" })
        expect(e.message).toBe(
          `aspect_ratio: "${aspect_ratio}" is not allowed; allowed: a ratio such as 16:9, 9:16, 1:1, 4:3, 3:4, 21:9, or adaptive`
        )
      }
      for (const req_key of ["", "  "])
        expect(yield* Effect.flip(buildPlatformTextToVideoBody({ ...t2v, req_key }))).toMatchObject({
          field: "req_key",
          rule: "non-empty",
          message: "req_key must not be empty"
        })
    })
  )
})

describe("buildAnyShootEasyBody (E5)", () => {
  it.effect("accepts a size and contents whose parts hold text and/or an image", () =>
    Effect.gen(function* () {
      const body = {
        size: "1024x768",
        contents: [
          { parts: [{ text: "a bag" }, { image: "https://i" }, { text: "t", image: "data:image/png;base64,AA==" }] }
        ]
      }
      expect(yield* buildAnyShootEasyBody(body)).toEqual(body)
    })
  )

  it.effect("refuses a size that is not <w>x<h>, empty contents and an empty part, naming the path", () =>
    Effect.gen(function* () {
      expect(
        (yield* Effect.flip(buildAnyShootEasyBody({ size: "1024*768", contents: [{ parts: [{ text: "x" }] }] }))).field
      ).toBe("size")
      expect((yield* Effect.flip(buildAnyShootEasyBody({ size: "1x1", contents: [] }))).field).toBe("contents")
      expect((yield* Effect.flip(buildAnyShootEasyBody({ size: "1x1", contents: [{}] }))).field).toBe(
        "contents[0].parts"
      )
      expect(
        (yield* Effect.flip(buildAnyShootEasyBody({ size: "1x1", contents: [{ parts: [{ text: "x" }, {}] }] }))).field
      ).toBe("contents[0].parts[1]")
      expect(
        (yield* Effect.flip(buildAnyShootEasyBody({ size: "1x1", contents: [{ parts: [{ image: 3 }] }] }))).field
      ).toBe("contents[0].parts[0].image")
    })
  )
})

describe("buildAnyShootAdvancedBody (E6)", () => {
  it.effect("needs all four image URLs", () =>
    Effect.gen(function* () {
      const body = {
        productImageUrl: "https://a",
        productMaskUrl: "https://b",
        templateImageUrl: "https://c",
        templateMaskUrl: "https://d"
      }
      expect(yield* buildAnyShootAdvancedBody(body)).toEqual(body)
      expect((yield* Effect.flip(buildAnyShootAdvancedBody({ ...body, templateMaskUrl: undefined }))).field).toBe(
        "templateMaskUrl"
      )
      expect(
        (yield* Effect.flip(buildAnyShootAdvancedBody({ ...body, productMaskUrl: "mask.png" }))).message
      ).toContain("an http(s) URL")
    })
  )
})

describe("buildPlatformCredentials (E7)", () => {
  it.effect("needs a non-empty username and password and never shows the password", () =>
    Effect.gen(function* () {
      expect(yield* buildPlatformCredentials({ username: "u", password: "p" })).toEqual({
        username: "u",
        password: "p"
      })
      expect((yield* Effect.flip(buildPlatformCredentials({ username: "", password: "p" }))).field).toBe("username")
      expect((yield* Effect.flip(buildPlatformCredentials({ username: "u", password: "" }))).field).toBe("password")
      const e = yield* Effect.flip(buildPlatformCredentials({ username: "u", password: 123456789 }))
      expect(e.field).toBe("password")
      expect(e.message).not.toContain("123456789")
    })
  )
})

describe("platform response Schemas", () => {
  it("decode the envelope of each endpoint and refuse a wrong data shape", () => {
    const ok = <S extends Schema.Codec<unknown, unknown>>(s: S, u: unknown) =>
      Result.isSuccess(Schema.decodeUnknownResult(s)(u))
    expect(ok(PlatformTextToVideoResponse, { code: 200, msg: "ok", data: { task_id: "t1" } })).toBe(true)
    expect(ok(PlatformTextToVideoResponse, { code: 200, msg: "ok", data: "t1" })).toBe(false)
    expect(ok(AnyShootEasyResponse, { code: 200, msg: "ok", data: { url: "https://img" } })).toBe(true)
    expect(ok(AnyShootAdvancedResponse, { code: 200, msg: "ok", data: "task-9" })).toBe(true)
    expect(ok(AnyShootAdvancedResponse, { code: 200, msg: "ok", data: { id: 1 } })).toBe(false)
    expect(ok(PlatformTokenResponse, { code: 200, msg: "ok", data: "Bearer abc.def" })).toBe(true)
    expect(ok(PlatformTokenResponse, { code: 200, msg: "ok", data: "abc.def" })).toBe(false)
    expect(ok(PlatformEnvelope(Schema.Number), { code: 200.5, msg: "ok", data: 1 })).toBe(false)
  })
})
