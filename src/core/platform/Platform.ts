/** The platform-style bodies (E4 text-to-video, E5/E6 Any Shoot, E7 credentials), their builders and the `{code, msg, data}` responses. */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { type WithExtra, closedBody, guardReads, refuseUnknownFields } from "../validation/Closed.js"
import { array, at, boolean, fail, integerLike, notAllowed, optional, record, requiredString, sanitize, string } from "../validation/Rules.js"

// The platform bodies are closed: E4–E6 list every field (anything else goes in `extra`). E5's
// content parts are closed too (`text` and/or `image`).

/** The durations E4 takes, as strings. @category models */
export const platformVideoDurations = ["3", "5", "8", "10", "12"] as const

/** E4: the platform text-to-video body. @category models */
export const PlatformTextToVideoBody = Schema.Struct(
  {
    model: Schema.NonEmptyString,
    prompt: Schema.NonEmptyString,
    duration: Schema.Literal(...platformVideoDurations),
    aspect_ratio: Schema.NonEmptyString,
    resolution: Schema.optional(Schema.NonEmptyString),
    return_url: Schema.optional(Schema.Boolean),
    req_key: Schema.optional(Schema.String)
  }
)
/** @category models */
export type PlatformTextToVideoBody = typeof PlatformTextToVideoBody.Type
/** An E4 body as callers write it (`duration` may be an integer), with `extra`. @category models */
export type PlatformTextToVideoInput = WithExtra<Omit<PlatformTextToVideoBody, "duration"> & { readonly duration: PlatformTextToVideoBody["duration"] | number }>

/** One part of an E5 content: text and/or an image (Base64 or URL). @category models */
export const AnyShootPart = Schema.Struct({ text: Schema.optional(Schema.String), image: Schema.optional(Schema.String) })
/** E5: the Any Shoot creative (easy) mode body. @category models */
export const AnyShootEasyBody = Schema.Struct(
  {
    size: Schema.String.pipe(Schema.pattern(/^[1-9]\d*x[1-9]\d*$/)),
    contents: Schema.NonEmptyArray(Schema.Struct({ parts: Schema.NonEmptyArray(AnyShootPart) }))
  }
)
/** @category models */
export type AnyShootEasyBody = typeof AnyShootEasyBody.Type
/** An E5 body as callers write it, with `extra`. @category models */
export type AnyShootEasyInput = WithExtra<AnyShootEasyBody>

/** The four image URLs of E6. @category models */
export const anyShootAdvancedFields = ["productImageUrl", "productMaskUrl", "templateImageUrl", "templateMaskUrl"] as const
/** E6: the Any Shoot advanced mode body. @category models */
export const AnyShootAdvancedBody = Schema.Struct(
  {
    productImageUrl: Schema.NonEmptyString,
    productMaskUrl: Schema.NonEmptyString,
    templateImageUrl: Schema.NonEmptyString,
    templateMaskUrl: Schema.NonEmptyString
  }
)
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

const nonEmpty = (v: unknown, field: string) => string(v, field, { nonEmpty: true })
const textToVideo = closedBody(PlatformTextToVideoBody, "a platform text-to-video body")
const anyShootEasy = closedBody(AnyShootEasyBody, "an Any Shoot body")
const anyShootAdvanced = closedBody(AnyShootAdvancedBody, "an Any Shoot advanced body")

/** Validates an E4 body; `duration` may be given as an integer and is sent as a string. @category constructors */
export const buildPlatformTextToVideoBody = (input: unknown): Effect.Effect<PlatformTextToVideoBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* textToVideo.open(input)
    const body: Record<string, unknown> = { model: yield* requiredString(obj, "model"), prompt: yield* requiredString(obj, "prompt") }
    const rawDuration = optional(obj, "duration")
    if (rawDuration === undefined) return yield* fail("duration", "required", "duration is required")
    const duration = String(yield* integerLike(rawDuration, "duration"))
    if (!(platformVideoDurations as ReadonlyArray<string>).includes(duration)) return yield* notAllowed("duration", rawDuration, platformVideoDurations)
    body.duration = duration
    body.aspect_ratio = yield* requiredString(obj, "aspect_ratio")
    const resolution = optional(obj, "resolution")
    if (resolution !== undefined) body.resolution = yield* nonEmpty(resolution, "resolution")
    const returnUrl = optional(obj, "return_url")
    if (returnUrl !== undefined) body.return_url = yield* boolean(returnUrl, "return_url")
    const reqKey = optional(obj, "req_key")
    if (reqKey !== undefined) body.req_key = yield* string(reqKey, "req_key")
    return yield* textToVideo.seal(obj, body)
  }))

/** Validates an E5 body: `size` as `<width>x<height>`, contents each with parts of text and/or image. @category constructors */
export const buildAnyShootEasyBody = (input: unknown): Effect.Effect<AnyShootEasyBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* anyShootEasy.open(input)
    const size = yield* requiredString(obj, "size")
    if (!/^[1-9]\d*x[1-9]\d*$/.test(size)) return yield* notAllowed("size", size, "<width>x<height>, e.g. 1024x1024")
    const rawContents = optional(obj, "contents")
    if (rawContents === undefined) return yield* fail("contents", "required", "contents is required")
    const contents = yield* array(rawContents, "contents", { nonEmpty: true })
    const outContents: Array<Record<string, unknown>> = []
    for (let i = 0; i < contents.length; i++) {
      const path = at("contents", i)
      const content = yield* record(contents[i], path)
      yield* refuseUnknownFields(content, ["parts"], path, "a content")
      const rawParts = optional(content, "parts")
      if (rawParts === undefined) return yield* fail(at(path, "parts"), "required", `${at(path, "parts")} is required`)
      const parts = yield* array(rawParts, at(path, "parts"), { nonEmpty: true })
      const outParts: Array<Record<string, unknown>> = []
      for (let j = 0; j < parts.length; j++) {
        const partPath = at(at(path, "parts"), j)
        const part = yield* record(parts[j], partPath)
        yield* refuseUnknownFields(part, ["text", "image"], partPath, "a part")
        const text = optional(part, "text")
        const image = optional(part, "image")
        if (text === undefined && image === undefined) return yield* fail(partPath, "required", `${partPath} needs text and/or image`)
        if (text !== undefined) yield* string(text, at(partPath, "text"))
        if (image !== undefined) yield* nonEmpty(image, at(partPath, "image"))
        outParts.push(sanitize(part) as Record<string, unknown>)
      }
      outContents.push({ parts: outParts })
    }
    return yield* anyShootEasy.seal(obj, { size, contents: outContents })
  }))

/** Validates an E6 body: four required image URLs. @category constructors */
export const buildAnyShootAdvancedBody = (input: unknown): Effect.Effect<AnyShootAdvancedBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const obj = yield* anyShootAdvanced.open(input)
    const body: Record<string, unknown> = {}
    for (const key of anyShootAdvancedFields) {
      const url = yield* requiredString(obj, key)
      if (!/^https?:\/\/\S+$/i.test(url)) return yield* notAllowed(key, url, "an http(s) URL")
      body[key] = url
    }
    return yield* anyShootAdvanced.seal(obj, body)
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
