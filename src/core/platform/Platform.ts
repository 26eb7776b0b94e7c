/** The platform-style bodies (E4 text-to-video, E5/E6 Any Shoot, E7 credentials), their builders and the `{code, msg, data}` responses. */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { type WithExtra, closedBody, buildWith } from "../validation/Closed.js"
import { conform } from "../validation/Conform.js"
import {
  matching,
  NonBlank,
  nonEmptyArray,
  type RuleAnnotation,
  RuleAnnotationId,
  withRule
} from "../validation/FieldRules.js"
import { isRecord, optional } from "../validation/Rules.js"

// The platform bodies are closed: E4–E6 list every field (anything else goes in `extra`). E5's
// content parts are closed too (`text` and/or `image`).

/** The durations E4 takes, as strings. @category models */
export const platformVideoDurations = ["3", "5", "8", "10", "12"] as const

// E4's aspect ratio: the contract names no values; these are the generic video ones (E1), any W:H
// of one or two digits each, and `adaptive`.
const AspectRatio = Schema.String.pipe(
  matching(/^(?:[1-9]\d?:[1-9]\d?|adaptive)$/, "a ratio such as 16:9, 9:16, 1:1, 4:3, 3:4, 21:9, or adaptive")
)

/** E4: the platform text-to-video body (`aspect_ratio` a `W:H` ratio or `adaptive`; `req_key` not empty). @category models */
export const PlatformTextToVideoBody = Schema.Struct({
  model: NonBlank,
  prompt: NonBlank,
  duration: Schema.Literals(platformVideoDurations),
  aspect_ratio: AspectRatio,
  resolution: Schema.optionalKey(NonBlank),
  return_url: Schema.optionalKey(Schema.Boolean),
  req_key: Schema.optionalKey(NonBlank)
})
/** @category models */
export type PlatformTextToVideoBody = typeof PlatformTextToVideoBody.Type
/** An E4 body as callers write it (`duration` may be an integer), with `extra`. @category models */
export type PlatformTextToVideoInput = WithExtra<
  Omit<PlatformTextToVideoBody, "duration"> & { readonly duration: PlatformTextToVideoBody["duration"] | number }
>

/** One part of an E5 content: text and/or an image (Base64 or URL). @category models */
export const AnyShootPart = Schema.Struct({
  text: Schema.optionalKey(Schema.String),
  image: Schema.optionalKey(NonBlank)
}).pipe(
  withRule<{ readonly text?: string; readonly image?: string }>(
    (part) => part.text !== undefined || part.image !== undefined,
    { rule: "required", message: (field) => `${field} needs text and/or image` }
  )
)
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
export const anyShootAdvancedFields = [
  "productImageUrl",
  "productMaskUrl",
  "templateImageUrl",
  "templateMaskUrl"
] as const
// A URL's scheme is case-insensitive (RFC 3986 §3.1): `HTTPS://` is an http(s) URL.
const HttpUrl = NonBlank.pipe(matching(/^https?:\/\/\S+$/i, "an http(s) URL"))
/** E6: the Any Shoot advanced mode body. @category models */
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

// The password is a secret: its rules never render the value given.
const Password = Schema.String.annotate({
  [RuleAnnotationId]: { rule: "type", message: (field) => `${field}: expected a string` } satisfies RuleAnnotation
}).pipe(withRule<string>((p) => p !== "", { rule: "non-empty", message: (field) => `${field} must not be empty` }))

/** E7: the credentials that buy a platform token; a failure on `password` never shows it. @category models */
export const PlatformCredentials = Schema.Struct({ username: NonBlank, password: Password })
/** @category models */
export type PlatformCredentials = typeof PlatformCredentials.Type

/** The platform envelope `{code, msg, data}` around a given `data` Schema (`code` 200 on success). @category models */
export const PlatformEnvelope = <S extends Schema.Top>(data: S) =>
  Schema.Struct({ code: Schema.Int, msg: Schema.String, data })

/** E4 response: `data.task_id`. @category models */
export const PlatformTextToVideoResponse = PlatformEnvelope(Schema.Struct({ task_id: Schema.NonEmptyString }))
/** E5 response: `data.url`, the generated image. @category models */
export const AnyShootEasyResponse = PlatformEnvelope(Schema.Struct({ url: Schema.NonEmptyString }))
/** E6 response: `data` is the task id. @category models */
export const AnyShootAdvancedResponse = PlatformEnvelope(Schema.NonEmptyString)
/** E7 response: `data` is `Bearer <ACCESS_TOKEN>`. @category models */
export const PlatformTokenResponse = PlatformEnvelope(Schema.String.check(Schema.isPattern(/^Bearer \S+$/)))

const textToVideo = closedBody(PlatformTextToVideoBody, "a platform text-to-video body")
const anyShootEasy = closedBody(AnyShootEasyBody, "an Any Shoot body")
const anyShootAdvanced = closedBody(AnyShootAdvancedBody, "an Any Shoot advanced body")

/** Validates an E4 body by its Schema; `duration` may be given as an integer and is sent as a string. @category constructors */
export const buildPlatformTextToVideoBody = (input: unknown): Effect.Effect<PlatformTextToVideoBody, InvalidRequest> =>
  buildWith(() =>
    Result.gen(function* () {
      const obj = yield* textToVideo.open(input)
      const body = textToVideo.pick(obj)
      if (typeof body.duration === "number" && Number.isInteger(body.duration)) body.duration = String(body.duration)
      return yield* textToVideo.seal(obj, body)
    })
  )

/**
 * Validates an E5 body by its Schema (`size` as `<width>x<height>`, non-empty contents of non-empty
 * parts, each with text and/or an image, closed).
 * @category constructors
 */
export const buildAnyShootEasyBody = (input: unknown): Effect.Effect<AnyShootEasyBody, InvalidRequest> =>
  buildWith(() =>
    Result.gen(function* () {
      const obj = yield* anyShootEasy.open(input)
      return yield* anyShootEasy.seal(obj, anyShootEasy.pick(obj))
    })
  )

/** Validates an E6 body by its Schema: four required http(s) image URLs. @category constructors */
export const buildAnyShootAdvancedBody = (input: unknown): Effect.Effect<AnyShootAdvancedBody, InvalidRequest> =>
  buildWith(() =>
    Result.gen(function* () {
      const obj = yield* anyShootAdvanced.open(input)
      return yield* anyShootAdvanced.seal(obj, anyShootAdvanced.pick(obj))
    })
  )

/**
 * Validates E7 credentials by their Schema (other fields are left out; null means absent); the
 * password never appears in an error message.
 * @category constructors
 */
export const buildPlatformCredentials = (input: unknown): Effect.Effect<PlatformCredentials, InvalidRequest> =>
  buildWith(() => {
    if (!isRecord(input)) return conform(PlatformCredentials, input, "")
    const given: Record<string, unknown> = {}
    for (const key of ["username", "password"] as const) {
      const value = optional(input, key)
      if (value !== undefined) given[key] = value
    }
    return conform(PlatformCredentials, given, "")
  })
