/** The platform-style bodies (E4 text-to-video, E5/E6 Any Shoot, E7 credentials), their builders and the `{code, msg, data}` responses. */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { type WithExtra, closedBody, guardReads } from "../validation/Closed.js"
import { matching, NonBlank, nonEmptyArray } from "../validation/FieldRules.js"
import { at, fail, optional, record, requiredString } from "../validation/Rules.js"

// The platform bodies are closed: E4–E6 list every field (anything else goes in `extra`). E5's
// content parts are closed too (`text` and/or `image`).

/** The durations E4 takes, as strings. @category models */
export const platformVideoDurations = ["3", "5", "8", "10", "12"] as const

/** E4: the platform text-to-video body. @category models */
export const PlatformTextToVideoBody = Schema.Struct({
  model: NonBlank,
  prompt: NonBlank,
  duration: Schema.Literal(...platformVideoDurations),
  aspect_ratio: NonBlank,
  resolution: Schema.optional(NonBlank),
  return_url: Schema.optional(Schema.Boolean),
  req_key: Schema.optional(Schema.String)
})
/** @category models */
export type PlatformTextToVideoBody = typeof PlatformTextToVideoBody.Type
/** An E4 body as callers write it (`duration` may be an integer), with `extra`. @category models */
export type PlatformTextToVideoInput = WithExtra<Omit<PlatformTextToVideoBody, "duration"> & { readonly duration: PlatformTextToVideoBody["duration"] | number }>

/** One part of an E5 content: text and/or an image (Base64 or URL). @category models */
export const AnyShootPart = Schema.Struct({ text: Schema.optional(Schema.String), image: Schema.optional(NonBlank) })
/** E5: the Any Shoot creative (easy) mode body. @category models */
export const AnyShootEasyBody = Schema.Struct({
  size: Schema.String.pipe(matching(/^[1-9]\d*x[1-9]\d*$/, "<width>x<height>, e.g. 1024x1024")),
  contents: nonEmptyArray(Schema.Struct({ parts: nonEmptyArray(AnyShootPart) }))
})
/** @category models */
export type AnyShootEasyBody = typeof AnyShootEasyBody.Type
/** An E5 body as callers write it, with `extra`. @category models */
export type AnyShootEasyInput = WithExtra<AnyShootEasyBody>

/** The four image URLs of E6. @category models */
export const anyShootAdvancedFields = ["productImageUrl", "productMaskUrl", "templateImageUrl", "templateMaskUrl"] as const
/** E6: the Any Shoot advanced mode body. @category models */
const HttpUrl = NonBlank.pipe(matching(/^https?:\/\/\S+$/i, "an http(s) URL"))
export const AnyShootAdvancedBody = Schema.Struct({
  productImageUrl: HttpUrl,
  productMaskUrl: HttpUrl,
  templateImageUrl: HttpUrl,
  templateMaskUrl: HttpUrl
})
/** @category models */
export type AnyShootAdvancedBody = typeof AnyShootAdvancedBody.Type
/** An E6 body as callers write it, with `extra`. @category models */
export type AnyShootAdvancedInput = WithExtra<AnyShootAdvancedBody>

/** E7: the credentials that buy a platform token. @category models */
export const PlatformCredentials = Schema.Struct({ username: Schema.NonEmptyString, password: Schema.NonEmptyString })
/** @category models */
export type PlatformCredentials = typeof PlatformCredentials.Type

/** The platform envelope `{code, msg, data}` around a given `data` Schema (`code` 200 on success). @category models */
export const PlatformEnvelope = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.Struct({ code: Schema.Int, msg: Schema.String, data })

/** E4 response: `data.task_id`. @category models */
export const PlatformTextToVideoResponse = PlatformEnvelope(Schema.Struct({ task_id: Schema.NonEmptyString }))
/** E5 response: `data.url`, the generated image. @category models */
export const AnyShootEasyResponse = PlatformEnvelope(Schema.Struct({ url: Schema.NonEmptyString }))
/** E6 response: `data` is the task id. @category models */
export const AnyShootAdvancedResponse = PlatformEnvelope(Schema.NonEmptyString)
/** E7 response: `data` is `Bearer <ACCESS_TOKEN>`. @category models */
export const PlatformTokenResponse = PlatformEnvelope(Schema.String.pipe(Schema.pattern(/^Bearer \S+$/)))

const textToVideo = closedBody(PlatformTextToVideoBody, "a platform text-to-video body")
const anyShootEasy = closedBody(AnyShootEasyBody, "an Any Shoot body")
const anyShootAdvanced = closedBody(AnyShootAdvancedBody, "an Any Shoot advanced body")

/** Validates an E4 body by its Schema; `duration` may be given as an integer and is sent as a string. @category constructors */
export const buildPlatformTextToVideoBody = (input: unknown): Effect.Effect<PlatformTextToVideoBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* textToVideo.open(input)
    const body = textToVideo.pick(obj)
    if (typeof body.duration === "number" && Number.isInteger(body.duration)) body.duration = String(body.duration)
    return yield* textToVideo.seal(obj, body)
  }))

/**
 * Validates an E5 body by its Schema (`size` as `<width>x<height>`, non-empty contents of non-empty
 * parts, closed); each part needs text and/or an image.
 * @category constructors
 */
export const buildAnyShootEasyBody = (input: unknown): Effect.Effect<AnyShootEasyBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* anyShootEasy.open(input)
    const body = yield* anyShootEasy.seal(obj, anyShootEasy.pick(obj))
    for (const [i, content] of body.contents.entries())
      for (const [j, part] of content.parts.entries())
        if (part.text === undefined && part.image === undefined) {
          const path = at(at(at("contents", i), "parts"), j)
          return yield* fail(path, "required", `${path} needs text and/or image`)
        }
    return body
  }))

/** Validates an E6 body by its Schema: four required http(s) image URLs. @category constructors */
export const buildAnyShootAdvancedBody = (input: unknown): Effect.Effect<AnyShootAdvancedBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* anyShootAdvanced.open(input)
    return yield* anyShootAdvanced.seal(obj, anyShootAdvanced.pick(obj))
  }))

/** Validates E7 credentials; the password never appears in an error message. @category constructors */
export const buildPlatformCredentials = (input: unknown): Effect.Effect<PlatformCredentials, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* record(input, "")
    const username = yield* requiredString(obj, "username")
    const password = optional(obj, "password")
    if (password === undefined) return yield* fail("password", "required", "password is required")
    if (typeof password !== "string") return yield* fail("password", "type", "password: expected a string")
    if (password === "") return yield* fail("password", "non-empty", "password must not be empty")
    return { username, password }
  }))
