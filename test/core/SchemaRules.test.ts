import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { buildEmbeddingsBody, EmbeddingsBody } from "../../src/core/media/Embeddings.js"
import { buildImagesBody, ImagesBody } from "../../src/core/media/Images.js"
import { buildRerankBody, RerankBody } from "../../src/core/media/Rerank.js"
import {
  AnyShootPart,
  buildAnyShootEasyBody,
  buildPlatformCredentials,
  PlatformCredentials
} from "../../src/core/platform/Platform.js"
import {
  buildLiveSetup,
  LiveBlob,
  LiveRealtimeInput,
  LiveResponseModalities,
  LiveSetup,
  validateLiveClientMessage
} from "../../src/core/realtime/Live.js"
import {
  buildSessionUpdate,
  RealtimeModalitiesV1,
  RealtimeOutputModalitiesV2,
  RealtimeSessionV2,
  validateRealtimeClientEvent
} from "../../src/core/realtime/Realtime.js"
import { BetaBody } from "../../src/core/video/Beta.js"
import { buildVideoBody } from "../../src/core/video/VideoBody.js"

// Each rule below lives in a body's Schema: the Schema alone refuses the value (so the rule cannot be
// dropped from it unnoticed), and the builder reports it with the field, the value and what is allowed.

const is = (schema: Schema.Top, value: unknown): boolean => Schema.is(schema)(value)

describe("rules across fields live in the body Schemas", () => {
  it.effect("rerank: top_n bounded by nothing across fields (E13: default all), at least 1 on its own", () =>
    Effect.gen(function* () {
      const body = { model: "rerank-v1", query: "q", documents: ["a", "b"] }
      expect(is(RerankBody, { ...body, top_n: 2 })).toBe(true)
      expect(is(RerankBody, { ...body, top_n: 3 })).toBe(true)
      expect((yield* buildRerankBody({ ...body, top_n: 3 })).top_n).toBe(3)
      const e = yield* Effect.flip(buildRerankBody({ ...body, top_n: 0 }))
      expect(e).toMatchObject({
        field: "top_n",
        rule: "range",
        message: "top_n: 0 is out of range; allowed: at least 1"
      })
    })
  )

  it.effect("images: a prompt unless contents are given", () =>
    Effect.gen(function* () {
      const body = { model: "zeta-2.5-flash-image", response_format: "b64_json" }
      expect(is(ImagesBody, body)).toBe(false)
      expect(is(ImagesBody, { ...body, contents: [{ role: "user", parts: [{ text: "x" }] }] })).toBe(true)
      expect(is(ImagesBody, { ...body, contents: [] })).toBe(false)
      expect(is(ImagesBody, { ...body, prompt: "a fox" })).toBe(true)
      const e = yield* Effect.flip(buildImagesBody({ model: body.model }))
      expect(e).toMatchObject({ field: "prompt", rule: "required", message: "prompt is required (or contents)" })
    })
  )

  it.effect("Any Shoot: each part holds text and/or an image", () =>
    Effect.gen(function* () {
      expect(is(AnyShootPart, {})).toBe(false)
      expect(is(AnyShootPart, { text: "x" })).toBe(true)
      const e = yield* Effect.flip(buildAnyShootEasyBody({ size: "1x1", contents: [{ parts: [{ text: "x" }, {}] }] }))
      expect(e).toMatchObject({
        field: "contents[0].parts[1]",
        rule: "required",
        message: "contents[0].parts[1] needs text and/or image"
      })
    })
  )
})

describe("field rules live in the body Schemas", () => {
  it.effect("embeddings: one string, an array pointed to embedMany", () =>
    Effect.gen(function* () {
      expect(is(EmbeddingsBody, { model: "text-embedding-3-small", input: ["a"] })).toBe(false)
      const e = yield* Effect.flip(buildEmbeddingsBody({ model: "text-embedding-3-small", input: ["a", "b"] }))
      expect(e).toMatchObject({
        field: "input",
        rule: "one-text",
        message: "input: an array of 2 given; one request embeds one string; use embedMany for several texts"
      })
      const kind = yield* Effect.flip(buildEmbeddingsBody({ model: "text-embedding-3-small", input: 5 }))
      expect(kind).toMatchObject({ field: "input", rule: "type", message: "input: expected a string, got 5" })
    })
  )

  it.effect("platform credentials: a failure on the password never shows it", () =>
    Effect.gen(function* () {
      expect(is(PlatformCredentials, { username: "u", password: "" })).toBe(false)
      expect(is(PlatformCredentials, { username: " ", password: "p" })).toBe(false)
      const e = yield* Effect.flip(buildPlatformCredentials({ username: "u", password: 271828 }))
      expect(e).toMatchObject({ field: "password", rule: "type", message: "password: expected a string" })
      expect(yield* Effect.flip(buildPlatformCredentials({ username: "u", password: null }))).toMatchObject({
        field: "password",
        rule: "required"
      })
    })
  )

  it.effect("realtime: modality lists carry their count and uniqueness", () =>
    Effect.gen(function* () {
      expect(is(RealtimeModalitiesV1, ["text", "audio"])).toBe(true)
      expect(is(RealtimeModalitiesV1, ["text", "text"])).toBe(false)
      expect(is(RealtimeModalitiesV1, [])).toBe(false)
      expect(is(RealtimeOutputModalitiesV2, ["text", "audio"])).toBe(false)
      const twice = yield* Effect.flip(buildSessionUpdate("gpt-realtime", { modalities: ["text", "text"] }))
      expect(twice).toMatchObject({
        field: "session.modalities[1]",
        rule: "unique",
        message: 'session.modalities[1]: "text" is listed twice'
      })
      const three = yield* Effect.flip(buildSessionUpdate("gpt-realtime", { modalities: ["text", "audio", "text"] }))
      expect(three).toMatchObject({
        field: "session.modalities",
        rule: "max-items",
        message: "session.modalities: 3 items given; allowed: at most 2"
      })
      const two = yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { output_modalities: ["text", "audio"] }))
      expect(two.message).toBe("session.output_modalities: 2 items given; allowed: at most 1")
    })
  )

  it.effect("realtime: a v2 session's type, and each client event's fields", () =>
    Effect.gen(function* () {
      expect(is(RealtimeSessionV2, { type: "transcription" })).toBe(false)
      const type = yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { type: "transcription" }))
      expect(type.message).toBe(
        'session.type: "transcription" is not allowed for realtime v2 session.update; allowed: realtime'
      )
      const truncate = { type: "conversation.item.truncate", item_id: "i", content_index: 0, audio_end_ms: 0 }
      expect(yield* validateRealtimeClientEvent("gpt-realtime", truncate)).toEqual(truncate)
      const below = yield* Effect.flip(validateRealtimeClientEvent("gpt-realtime", { ...truncate, content_index: -1 }))
      expect(below).toMatchObject({
        field: "content_index",
        rule: "range",
        message: "content_index: -1 is out of range; allowed: at least 0"
      })
      const blank = yield* Effect.flip(
        validateRealtimeClientEvent("gpt-realtime", { type: "conversation.item.delete", item_id: " " })
      )
      expect(blank).toMatchObject({ field: "item_id", rule: "non-empty", message: "item_id must not be empty" })
      const missing = yield* Effect.flip(
        validateRealtimeClientEvent("gpt-realtime", { type: "input_audio_buffer.append" })
      )
      expect(missing).toMatchObject({ field: "audio", rule: "required", message: "audio is required" })
    })
  )

  it.effect("live: one response modality, a models/ path, blobs and realtime input", () =>
    Effect.gen(function* () {
      expect(is(LiveResponseModalities, ["TEXT", "AUDIO"])).toBe(false)
      expect(is(LiveSetup, { model: "x" })).toBe(false)
      expect(is(LiveBlob, { data: "AA" })).toBe(false)
      expect(is(LiveRealtimeInput, {})).toBe(false)
      const two = yield* Effect.flip(
        buildLiveSetup("zeta-live-2.5-flash-native-audio", {
          generationConfig: { responseModalities: ["TEXT", "AUDIO"] }
        })
      )
      expect(two.message).toBe(
        "setup.generationConfig.responseModalities: an array of 2 given; a live session takes exactly one of TEXT, AUDIO"
      )
      const path = yield* Effect.flip(validateLiveClientMessage({ setup: { model: "x" } }))
      expect(path).toMatchObject({
        field: "setup.model",
        rule: "format",
        message: 'setup.model: "x" must start with models/'
      })
      const none = yield* Effect.flip(validateLiveClientMessage({ realtimeInput: {} }))
      expect(none.message).toBe(
        "realtimeInput needs one of audio, mediaChunks, video, text, audioStreamEnd, activityStart, activityEnd"
      )
      const mime = yield* Effect.flip(validateLiveClientMessage({ realtimeInput: { audio: { data: "AA" } } }))
      expect(mime).toMatchObject({
        field: "realtimeInput.audio.mimeType",
        rule: "required",
        message: "realtimeInput.audio.mimeType is required"
      })
    })
  )

  it.effect("video: beta personGeneration, named for the model, and a duration written as digits refused", () =>
    Effect.gen(function* () {
      const beta = "beta-3.1-fast-generate-001"
      expect(is(BetaBody, { model: beta, personGeneration: "nobody" })).toBe(false)
      const e = yield* Effect.flip(buildVideoBody({ model: beta, prompt: "a cat", personGeneration: "nobody" }))
      expect(e).toMatchObject({
        field: "personGeneration",
        rule: "one-of",
        message: `personGeneration: "nobody" is not allowed for ${beta}; allowed: allow_all, allow_adult, dont_allow`
      })
      // E1's duration is an integer: "8" is not taken for 8.
      for (const duration of ["8", "eight"]) {
        const e = yield* Effect.flip(buildVideoBody({ model: beta, prompt: "a cat", duration }))
        expect(e).toMatchObject({
          field: "duration",
          rule: "one-of",
          message: `duration: expected an integer, got a string "${duration}"; allowed for ${beta}: 4, 6, 8`
        })
      }
    })
  )
})
