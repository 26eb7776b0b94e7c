import fc from "fast-check"
import { Effect, Exit, Result } from "effect"
import { describe, expect, it } from "vitest"
import * as Base64 from "../src/core/wire/Base64.js"
import type { InvalidRequest } from "../src/core/errors/InvalidRequest.js"
import {
  buildEmbeddingsBody,
  decodeEmbeddings,
  EmbeddingsBody,
  encodeEmbeddingBase64
} from "../src/core/media/Embeddings.js"
import { fieldsOf } from "../src/core/validation/Closed.js"
import { platformEnvelopeError, toGatewayError } from "../src/core/wire/ErrorEnvelope.js"
import { buildImagesBody, decodeImages, ImagesBody } from "../src/core/media/Images.js"
import {
  buildLiveSetup,
  decodeLiveServerMessage,
  LiveSetup,
  validateLiveClientMessage
} from "../src/core/realtime/Live.js"
import { decodeModelList, modelListFormatFor } from "../src/core/gateway/Models.js"
import {
  buildSessionUpdate,
  decodeRealtimeServerEvent,
  RealtimeSessionV1,
  RealtimeSessionV2,
  realtimeTextDelta,
  validateRealtimeClientEvent
} from "../src/core/realtime/Realtime.js"
import { buildRerankBody, decodeRerank, RerankBody } from "../src/core/media/Rerank.js"
import { buildSpeechBody, SpeechBody } from "../src/core/media/Speech.js"

/** Runs an Effect and says whether it ended without a defect (a success or a typed failure). */
const endsCleanly = (effect: Effect.Effect<unknown, unknown>): boolean =>
  Exit.isSuccess(Effect.runSyncExit(Effect.result(effect)))

const anything = fc.anything({
  withObjectString: true,
  withNullPrototype: true,
  withTypedArray: true,
  withBigInt: true,
  withDate: true,
  maxDepth: 4
})

// Inputs that look almost right reach deeper into the builders than fully random values do.
const field = <A>(valid: fc.Arbitrary<A>) => fc.oneof(valid, anything)
const nearEmbeddings = fc.record(
  {
    model: field(fc.constantFrom("text-embedding-3-small", "text-embedding-ada-002", "m")),
    input: field(fc.string()),
    encoding_format: field(fc.constantFrom("float", "base64")),
    dimensions: field(fc.integer({ min: -5, max: 4000 }))
  },
  { requiredKeys: [] }
)
const nearRerank = fc.record(
  {
    model: field(fc.constant("rerank-v1")),
    query: field(fc.string()),
    documents: field(fc.array(fc.oneof(fc.string(), fc.record({ text: fc.string() })))),
    top_n: field(fc.integer({ min: -2, max: 8 })),
    return_documents: field(fc.boolean())
  },
  { requiredKeys: [] }
)
const nearSpeech = fc.record(
  {
    model: field(fc.constant("tts")),
    input: field(fc.string()),
    voice: field(fc.constantFrom("alloy", "nova", "marin")),
    response_format: field(fc.constantFrom("mp3", "pcm", "ogg")),
    speed: field(fc.double({ min: -1, max: 5 }))
  },
  { requiredKeys: [] }
)
const nearImages = fc.record(
  {
    model: field(fc.constant("zeta-2.5-flash-image")),
    prompt: field(fc.string()),
    size: field(fc.constantFrom("16:9", "1:1", "1024x1024")),
    n: field(fc.integer({ min: -1, max: 4 })),
    image_size: field(fc.constantFrom("1K", "8K")),
    contents: anything
  },
  { requiredKeys: [] }
)
const nearSession = fc.record(
  {
    modalities: field(fc.array(fc.constantFrom("text", "audio", "video"))),
    output_modalities: field(fc.array(fc.constantFrom("text", "audio"))),
    type: field(fc.constantFrom("realtime", "transcription")),
    voice: field(fc.constant("alloy"))
  },
  { requiredKeys: [] }
)
const realtimeModel = fc.oneof(fc.constantFrom("gpt-realtime", "gpt-realtime-mini", "gpt-realtime-2"), anything)
const clientEvent = fc.record(
  {
    type: field(
      fc.constantFrom(
        "session.update",
        "input_audio_buffer.append",
        "conversation.item.truncate",
        "response.create",
        "response.cancel"
      )
    ),
    session: field(nearSession),
    response: field(nearSession),
    audio: anything,
    item_id: anything,
    content_index: anything,
    audio_end_ms: anything
  },
  { requiredKeys: [] }
)

describe("no builder or decoder of the other bodies throws", () => {
  it("builders end cleanly on any input", () => {
    fc.assert(
      fc.property(fc.oneof(anything, nearEmbeddings, nearRerank, nearSpeech, nearImages), (input) => {
        expect(endsCleanly(buildEmbeddingsBody(input))).toBe(true)
        expect(endsCleanly(buildRerankBody(input))).toBe(true)
        expect(endsCleanly(buildSpeechBody(input))).toBe(true)
        expect(endsCleanly(buildImagesBody(input))).toBe(true)
      })
    )
  })

  it("realtime and live builders end cleanly on any model and input", () => {
    fc.assert(
      fc.property(realtimeModel, fc.oneof(anything, nearSession, clientEvent), (model, input) => {
        expect(endsCleanly(buildSessionUpdate(model, input))).toBe(true)
        expect(endsCleanly(validateRealtimeClientEvent(model, input))).toBe(true)
        expect(endsCleanly(buildLiveSetup(model, input))).toBe(true)
        expect(endsCleanly(validateLiveClientMessage(input))).toBe(true)
        expect(endsCleanly(validateLiveClientMessage({ setup: input }))).toBe(true)
      })
    )
  })

  it("decoders end cleanly on any input", () => {
    fc.assert(
      fc.property(anything, fc.integer({ min: -1, max: 5 }), (json, n) => {
        expect(endsCleanly(decodeEmbeddings(json))).toBe(true)
        expect(
          endsCleanly(
            decodeEmbeddings({ object: "list", model: "m", data: [{ object: "embedding", index: 0, embedding: json }] })
          )
        ).toBe(true)
        expect(endsCleanly(decodeRerank(json, n))).toBe(true)
        expect(endsCleanly(decodeImages(json))).toBe(true)
        expect(endsCleanly(decodeImages({ created: 1, data: [{ b64_json: json }] }))).toBe(true)
        expect(endsCleanly(Effect.map(decodeRealtimeServerEvent(json), realtimeTextDelta))).toBe(true)
        expect(endsCleanly(decodeLiveServerMessage(json))).toBe(true)
        for (const format of ["openai", "messages", "native"] as const)
          expect(endsCleanly(decodeModelList(format, json))).toBe(true)
        expect(() => platformEnvelopeError(json)).not.toThrow()
        expect(() => modelListFormatFor(json as Record<string, string>)).not.toThrow()
      })
    )
  })

  it("builders never copy a __proto__ key into a body", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (extra) => {
        const input = JSON.parse(
          `{"model":"text-embedding-3-small","input":"x","extra":{"__proto__":${JSON.stringify(extra)},"meta":{"__proto__":${JSON.stringify(extra)}}}}`
        )
        const body = Effect.runSync(buildEmbeddingsBody(input))
        expect(JSON.stringify(body)).not.toContain("__proto__")
        // At the top level a __proto__ key is an unknown field, refused.
        const top = JSON.parse(`{"model":"text-embedding-3-small","input":"x","__proto__":${JSON.stringify(extra)}}`)
        expect(Effect.runSync(Effect.flip(buildEmbeddingsBody(top))).rule).toBe("unknown-field")
      })
    )
  })
})

describe("base64 embeddings", () => {
  it("floats → little-endian base64 → decode gives the same Float32Array", () => {
    fc.assert(
      fc.property(fc.float32Array({ maxLength: 64 }), (floats) => {
        const response = {
          object: "list",
          model: "m",
          data: [{ object: "embedding", index: 0, embedding: encodeEmbeddingBase64(floats) }]
        }
        const decoded = Effect.runSync(decodeEmbeddings(response)).data[0]!.embedding
        expect(decoded.length).toBe(floats.length)
        for (let i = 0; i < floats.length; i++)
          expect(Object.is(decoded[i], floats[i]) || (Number.isNaN(decoded[i]) && Number.isNaN(floats[i]))).toBe(true)
      })
    )
  })

  it("strict base64 round-trips any bytes and re-encodes to the same text", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = Base64.encode(bytes)
        const back = Base64.decode(text)
        expect(Result.isSuccess(back) && Base64.encode(back.success) === text).toBe(true)
        expect(Result.getOrThrow(back)).toEqual(bytes)
      })
    )
  })
})

describe("toGatewayError", () => {
  const secret = fc.stringMatching(/^[A-Za-z0-9]{12,20}$/).map((s) => `sek_${s}`)
  const headerName = fc.oneof(
    fc.constantFrom(
      "authorization",
      "x-api-key",
      "x-vendor-api-key",
      "cookie",
      "set-cookie",
      "retry-after",
      "retry-after-ms",
      "request-id",
      "x-request-id",
      "Authorization"
    ),
    fc.string({ maxLength: 12 })
  )
  const envelope = fc.oneof(
    fc.record({
      type: fc.constant("error"),
      error: fc.record({ type: fc.string(), message: fc.string() }),
      request_id: fc.string()
    }),
    fc.record({ error: fc.record({ code: fc.integer(), message: fc.string(), status: fc.string() }) }),
    fc.record({ error: fc.record({ message: fc.string(), type: fc.string() }) }),
    fc.record({ code: fc.integer(), msg: fc.string(), data: fc.jsonValue({ maxDepth: 2 }) })
  )
  const body = fc.oneof(
    anything,
    envelope,
    envelope.map((e) => JSON.stringify(e)),
    fc.string({ maxLength: 2000 })
  )
  const status = fc.oneof(fc.integer({ min: 100, max: 599 }), fc.integer(), anything)
  const family = fc.oneof(
    fc.constantFrom("messages", "count_tokens", "native", "openai", "video", "platform", "realtime", "live"),
    anything
  )

  it("is total, returns a gateway error, caps its message and copies no header value but the request id", () => {
    fc.assert(
      fc.property(
        family,
        status,
        fc.array(fc.tuple(headerName, secret), { maxLength: 6 }),
        body,
        anything,
        (fam, st, pairs, b, now) => {
          const headers = Object.fromEntries(pairs)
          const e = toGatewayError({ family: fam, status: st, headers, body: b, now } as never)
          expect([
            "AuthenticationError",
            "PermissionDenied",
            "NotFound",
            "RateLimited",
            "BadRequest",
            "UpstreamError",
            "ServerError",
            "PlatformError"
          ]).toContain(e._tag)
          expect(typeof e.message).toBe("string")
          expect(e.message.length).toBeLessThanOrEqual(500)
          const shown = JSON.stringify(e) + String(e.message) + String(e.type) + String(e.requestId)
          const isRequestId = (name: string) => ["request-id", "x-request-id"].includes(name.toLowerCase())
          // The request id is shown; another header that happens to hold the same text is not checked.
          const requestIds = pairs.filter(([name]) => isRequestId(name)).map(([, value]) => value)
          for (const [name, value] of pairs) {
            if (isRequestId(name) || requestIds.some((id) => id.includes(value))) continue
            expect(shown).not.toContain(value)
          }
        }
      )
    )
  })
})

describe("closed bodies", () => {
  const bodies: ReadonlyArray<
    readonly [
      string,
      (input: Record<string, unknown>) => Effect.Effect<unknown, InvalidRequest>,
      Record<string, unknown>,
      ReadonlyArray<string>
    ]
  > = [
    ["embeddings", buildEmbeddingsBody, { model: "text-embedding-3-small", input: "x" }, fieldsOf(EmbeddingsBody)],
    ["rerank", buildRerankBody, { model: "rerank-v1", query: "q", documents: ["a"] }, fieldsOf(RerankBody)],
    ["speech", buildSpeechBody, { model: "tts-1", input: "x", voice: "alloy" }, fieldsOf(SpeechBody)],
    ["images", buildImagesBody, { model: "zeta-2.5-flash-image", prompt: "a fox" }, fieldsOf(ImagesBody)],
    [
      "realtime session",
      (session) => Effect.map(buildSessionUpdate("gpt-realtime-2", session), (e) => e.session),
      { instructions: "hi" },
      [...fieldsOf(RealtimeSessionV2), ...fieldsOf(RealtimeSessionV1), "modalities"]
    ],
    [
      "live setup",
      (setup) => Effect.map(buildLiveSetup("zeta-live-2.5-flash-native-audio", setup), (m) => m.setup),
      {},
      fieldsOf(LiveSetup)
    ]
  ]
  // Names that are no field of any of these bodies, nor `extra`, nor an unsafe key.
  const name = fc
    .stringMatching(/^[a-z][a-z_]{0,15}$/)
    .filter(
      (k) =>
        k !== "extra" && k !== "constructor" && k !== "prototype" && bodies.every(([, , , known]) => !known.includes(k))
    )

  it("refuse a top-level field they do not know, naming it, and send it when it travels in extra", () => {
    fc.assert(
      fc.property(fc.constantFrom(...bodies), name, fc.jsonValue({ maxDepth: 2 }), ([, build, valid], key, value) => {
        const refused = Effect.runSync(Effect.result(build({ ...valid, [key]: value })))
        expect(Result.isFailure(refused) && refused.failure.rule).toBe("unknown-field")
        expect(Result.isFailure(refused) && refused.failure.field.endsWith(key)).toBe(true)
        const sent = Effect.runSync(build({ ...valid, extra: { [key]: value } }))
        expect((sent as Record<string, unknown>)[key]).toEqual(value)
      }),
      { seed: 1226 }
    )
  })
})
