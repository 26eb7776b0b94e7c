// Every family's body is closed the same way: a misspelled field is a compile error (the
// `@ts-expect-error` lines fail the type check the day a body type opens up again) and, at run time,
// an `InvalidRequest` naming the field and the nearest known one; `extra` is merged and may not name a
// known field; a model of another family names its family and endpoint; a model unknown to the
// catalog lists the known ones unless `allowUnknownModels`; values that JSON cannot carry are refused
// by path.
import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import type { RoutingOptions } from "../../src/core/gateway/Catalog.js"
import { buildEmbeddingsBody, type EmbeddingsBodyInput } from "../../src/core/media/Embeddings.js"
import { buildImagesBody, type ImagesBodyInput } from "../../src/core/media/Images.js"
import { buildRerankBody } from "../../src/core/media/Rerank.js"
import { buildSpeechBody } from "../../src/core/media/Speech.js"
import {
  type AnyShootAdvancedInput,
  type AnyShootEasyInput,
  buildAnyShootAdvancedBody,
  buildAnyShootEasyBody,
  buildPlatformTextToVideoBody,
  type PlatformTextToVideoInput
} from "../../src/core/platform/Platform.js"
import type { LiveSetupInput } from "../../src/core/realtime/Live.js"
import type { RealtimeSessionInput } from "../../src/core/realtime/Realtime.js"
import { buildChatBody } from "../../src/core/text/chat/ChatBody.js"
import {
  buildCountTokensBody,
  buildMessagesBody,
  type CountTokensBodyInput,
  type MessagesBodyInput
} from "../../src/core/text/messages/Messages.js"
import { buildNativeBody, type NativeBodyInput } from "../../src/core/text/native/Native.js"
import { buildResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"
import { buildVideoBody, type VideoRequest } from "../../src/core/video/VideoBody.js"

const outcome = <A>(effect: Effect.Effect<A, InvalidRequest>): Result.Result<A, InvalidRequest> =>
  Effect.runSync(Effect.result(effect))
const refusal = <A>(effect: Effect.Effect<A, InvalidRequest>): InvalidRequest => {
  const result = outcome(effect)
  if (Result.isSuccess(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.success)}`)
  return result.failure
}
const built = <A>(effect: Effect.Effect<A, InvalidRequest>): A => {
  const result = outcome(effect)
  if (Result.isFailure(result)) throw new Error(`expected a body, got ${result.failure.message}`)
  return result.success
}

interface Family {
  readonly name: string
  readonly build: (input: Record<string, unknown>, options?: RoutingOptions) => Effect.Effect<unknown, InvalidRequest>
  readonly valid: Record<string, unknown>
  /** A misspelled field, its value, and the known field it should be named as. */
  readonly typo: readonly [string, unknown, string]
  /** A known field, for the `extra` collision. */
  readonly known: string
  /** A model of another family, the words naming that family, and its endpoint. */
  readonly wrongFamily?: readonly [string, string, string]
  /** A model the catalog does not know, and one known model the refusal lists. */
  readonly unknown?: readonly [string, string]
}

const messages = [{ role: "user", content: "hi" }]
const families: ReadonlyArray<Family> = [
  {
    name: "messages",
    build: buildMessagesBody,
    valid: { model: "epsilon-sonnet-4-5-20250929", max_tokens: 16, messages },
    typo: ["temprature", 0.2, "temperature"],
    known: "top_k",
    wrongFamily: ["rerank-v1", "is a rerank model", "POST /v1/rerank"],
    unknown: ["epsilon-opus-9", "epsilon-opus-4-5-20251101"]
  },
  {
    name: "count tokens",
    build: buildCountTokensBody,
    valid: { model: "epsilon-sonnet-4-5-20250929", messages },
    typo: ["sytem", "be brief", "system"],
    known: "tools",
    wrongFamily: ["gpt-4o", "is a chat model", "POST /v1/chat/completions"],
    unknown: ["epsilon-opus-9", "epsilon-haiku-4-5-20251001"]
  },
  {
    name: "native content",
    build: (input, options) => buildNativeBody(input.model, input, options),
    valid: { model: "zeta-2.5-flash", contents: [{ role: "user", parts: [{ text: "hi" }] }] },
    typo: ["generationConfg", {}, "generationConfig"],
    known: "safetySettings",
    wrongFamily: ["text-embedding-3-small", "is an embedding model", "POST /v1/embeddings"],
    unknown: ["zeta-9-ultra", "zeta-2.5-pro"]
  },
  {
    name: "chat",
    build: buildChatBody,
    valid: { model: "gpt-4o-mini", messages },
    typo: ["temprature", 0.2, "temperature"],
    known: "seed",
    wrongFamily: ["epsilon-sonnet-4-5-20250929", "is an epsilon (messages-style) model", "POST /v1/messages"],
    unknown: ["gpt-9", "gpt-4o-mini"]
  },
  {
    name: "responses",
    build: buildResponsesBody,
    valid: { model: "gpt-5-pro", input: "hi" },
    typo: ["max_output_token", 16, "max_output_tokens"],
    known: "reasoning",
    wrongFamily: ["tts-1", "is a speech model", "POST /v1/audio/speech"],
    unknown: ["gpt-9", "gpt-5-pro"]
  },
  {
    name: "embeddings",
    build: buildEmbeddingsBody,
    valid: { model: "zeta-embedding-001", input: "hi" },
    typo: ["dimension", 8, "dimensions"],
    known: "encoding_format",
    wrongFamily: ["epsilon-sonnet-4-5-20250929", "is an epsilon (messages-style) model", "POST /v1/messages"],
    unknown: ["text-embedding-4", "zeta-embedding-001"]
  },
  {
    name: "rerank",
    build: buildRerankBody,
    valid: { model: "rerank-v1", query: "q", documents: ["a", "b"] },
    typo: ["top_m", 1, "top_n"],
    known: "return_documents",
    wrongFamily: ["gpt-4o", "is a chat model", "POST /v1/chat/completions"],
    unknown: ["rerank-v9", "rerank-v1"]
  },
  {
    name: "speech",
    build: buildSpeechBody,
    valid: { model: "gpt-4o-mini-tts", input: "hi", voice: "nova" },
    typo: ["voise", "nova", "voice"],
    known: "speed",
    wrongFamily: ["text-embedding-3-small", "is an embedding model", "POST /v1/embeddings"],
    unknown: ["tts-2", "tts-1-hd"]
  },
  {
    name: "images",
    build: buildImagesBody,
    valid: { model: "zeta-2.5-flash-image", prompt: "a fox" },
    typo: ["promt", "a fox", "prompt"],
    known: "quality",
    wrongFamily: ["rerank-v1", "is a rerank model", "POST /v1/rerank"],
    unknown: ["picture-1", "zeta-3-pro-image-preview"]
  },
  {
    name: "video",
    build: buildVideoBody,
    valid: { model: "alpha-2", prompt: "a fox" },
    typo: ["promt", "a fox", "prompt"],
    known: "seconds",
    wrongFamily: ["gpt-4o", "is a chat model", "POST /v1/chat/completions"],
    unknown: ["alpha-9", "alpha-2"]
  },
  {
    name: "platform text-to-video (E4)",
    build: buildPlatformTextToVideoBody,
    valid: { model: "m", prompt: "a cat", duration: "5", aspect_ratio: "16:9" },
    typo: ["aspect_ration", "16:9", "aspect_ratio"],
    known: "resolution"
  },
  {
    name: "platform Any Shoot (E5)",
    build: buildAnyShootEasyBody,
    valid: { size: "1024x768", contents: [{ parts: [{ text: "a bag" }] }] },
    typo: ["contens", [], "contents"],
    known: "size"
  },
  {
    name: "platform Any Shoot advanced (E6)",
    build: buildAnyShootAdvancedBody,
    valid: {
      productImageUrl: "https://a",
      productMaskUrl: "https://b",
      templateImageUrl: "https://c",
      templateMaskUrl: "https://d"
    },
    typo: ["productImageURL", "https://a", "productImageUrl"],
    known: "templateMaskUrl"
  }
]

describe.each(families)("the $name body", (family) => {
  it("builds the valid body, and refuses an unknown field naming the nearest known one", () => {
    built(family.build(family.valid))
    const [typo, value, near] = family.typo
    const e = refusal(family.build({ ...family.valid, [typo]: value }))
    expect(e).toMatchObject({ field: typo, rule: "unknown-field" })
    expect(e.message).toContain(`unknown field \`${typo}\`; did you mean \`${near}\`?`)
    const far = refusal(family.build({ ...family.valid, zzzzqqqq: 1 }))
    expect(far.message).not.toContain("did you mean")
    expect(far.message).toContain(near)
  })

  it("merges extra into the body and refuses an extra key that names a known field", () => {
    expect(built(family.build({ ...family.valid, extra: { brand_new_knob: { on: true } } }))).toMatchObject({
      brand_new_knob: { on: true }
    })
    const e = refusal(family.build({ ...family.valid, extra: { [family.known]: 1 } }))
    expect(e).toMatchObject({ field: `extra.${family.known}`, rule: "extra-known" })
  })

  it("refuses what JSON cannot carry, naming the path, and never mutates its input", () => {
    expect(refusal(family.build({ ...family.valid, extra: { big: 1n } }))).toMatchObject({
      field: "extra.big",
      rule: "json"
    })
    const cyclic: Record<string, unknown> = { ...family.valid, extra: {} }
    ;(cyclic.extra as Record<string, unknown>).self = cyclic
    expect(refusal(family.build(cyclic))).toMatchObject({ rule: "json" })
    const input = structuredClone(family.valid)
    built(family.build(input))
    expect(input).toEqual(family.valid)
  })

  // Platform bodies carry no catalog model (E5, E6) or one the catalog does not list (E4): these cases
  // exist only for the families that have them, so nothing is reported as skipped.
  const wrongFamily = family.wrongFamily
  if (wrongFamily !== undefined)
    it("refuses a model of another family, naming its family and endpoint", () => {
      const [model, words, endpoint] = wrongFamily
      const e = refusal(family.build({ ...family.valid, model }))
      expect(e).toMatchObject({ field: "model", rule: "route" })
      expect(e.message).toContain(words)
      expect(e.message).toContain(endpoint)
      // allowUnknownModels lets an unlisted id through, never another family's model.
      expect(refusal(family.build({ ...family.valid, model }, { allowUnknownModels: true }))).toMatchObject({
        rule: "route"
      })
    })

  const unknown = family.unknown
  if (unknown !== undefined)
    it("refuses a model the catalog does not know, listing the known ones, unless allowUnknownModels", () => {
      const [model, listed] = unknown
      const e = refusal(family.build({ ...family.valid, model }))
      expect(e).toMatchObject({ field: "model", rule: "unknown-model" })
      expect(e.message).toContain("known: ")
      expect(e.message).toContain(listed)
      expect(e.message).toContain("allowUnknownModels")
      built(family.build({ ...family.valid, model }, { allowUnknownModels: true }))
    })
})

describe("closed body types", () => {
  it("make a misspelled field a compile error, closed nested objects too, and keep extra typed", () => {
    const native: NativeBodyInput = {
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      // @ts-expect-error `temprature` is not a generationConfig field
      generationConfig: { temprature: 0.2 }
    }
    // @ts-expect-error `sytem` is not a count-tokens field
    const count: CountTokensBodyInput = { model: "epsilon-sonnet-4-5-20250929", messages: [], sytem: "x" }
    const thinking: MessagesBodyInput = {
      model: "epsilon-sonnet-4-5-20250929",
      max_tokens: 2048,
      messages: [],
      // @ts-expect-error `budget_token` is not a thinking field
      thinking: { type: "enabled", budget_token: 1025 }
    }
    // @ts-expect-error `promt` is not an images field
    const images: ImagesBodyInput = { model: "zeta-2.5-flash-image", promt: "a fox" }
    // @ts-expect-error `dimension` is not an embeddings field
    const embeddings: EmbeddingsBodyInput = { model: "zeta-embedding-001", input: "x", dimension: 8 }
    // @ts-expect-error `durationSecond` is not a video request field
    const video: VideoRequest = { model: "beta-3.1-fast-generate-001", prompt: "x", durationSecond: 8 }
    // @ts-expect-error `modalites` is not a realtime session field
    const session: RealtimeSessionInput = { modalites: ["text"] }
    // @ts-expect-error `systemInstructions` is not a live setup field
    const live: LiveSetupInput = { systemInstructions: {} }
    const e4: PlatformTextToVideoInput = {
      model: "m",
      prompt: "p",
      duration: 5,
      aspect_ratio: "16:9",
      // @ts-expect-error `aspect_ration` is not an E4 field
      aspect_ration: "1:1"
    }
    // @ts-expect-error `siz` is not an E5 field
    const e5: AnyShootEasyInput = { size: "1x1", contents: [], siz: "1x1" }
    const e6: AnyShootAdvancedInput = {
      productImageUrl: "a",
      productMaskUrl: "b",
      templateImageUrl: "c",
      templateMaskUrl: "d",
      // @ts-expect-error `productImageURL` is not an E6 field
      productImageURL: "a"
    }
    // The escape hatch is typed: an object of extra fields, on every body.
    const withExtra: VideoRequest = { model: "alpha-2", prompt: "x", extra: { new_knob: 1 } }
    // @ts-expect-error `extra` must be an object
    const badExtra: LiveSetupInput = { extra: 5 }
    expect([
      native,
      count,
      thinking,
      images,
      embeddings,
      video,
      session,
      live,
      e4,
      e5,
      e6,
      withExtra,
      badExtra
    ]).toHaveLength(13)
  })
})
