/** The image generation body (E15, zeta image models) checked before sending, and its `b64_json` response decoded to bytes. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Base64 from "../wire/Base64.js"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { ensureRoute } from "../gateway/Routing.js"
import { knownModels, type RoutingOptions } from "../gateway/Catalog.js"
import { type WithExtra, closedBody, buildWith, ModelId } from "../validation/Closed.js"
import { acrossFields, ImageOutputType, matching, NonBlank, nonEmptyArray, range } from "../validation/FieldRules.js"
import { at } from "../validation/Rules.js"

/** The zeta image models of E15, as the one model catalog lists them. Extend the catalog for a new id. @category models */
export const imageModels: ReadonlyArray<string> = knownModels("images")

/** The `image_size` values of the zeta image models. @category models */
export const imageSizes = ["1K", "2K", "3K", "4K"] as const

const ASPECT_RATIO = /^[1-9]\d{0,3}:[1-9]\d{0,3}$/

// `n`: the images API's range (protocol notes §3.7); the contract says only "integer".
const imageCount = { min: 1, max: 10 } as const

/**
 * The request body of `POST /v1/images/generations` (E15; closed: other fields go in `extra`), with
 * its rules: `prompt` non-empty, `size` an aspect ratio (the contract's; not pixels), `n` an integer
 * from 1 to 10, `image_size` 1K/2K/3K/4K, `mime_type` one of `imageOutputTypes` (png, jpeg, webp),
 * `response_format` `b64_json`,
 * `contents` a non-empty array, and `prompt` unless `contents`. The items of `contents` stay open:
 * their format is not shown.
 * @category schemas
 */
export const ImagesBody = acrossFields(
  Schema.Struct({
    model: ModelId,
    prompt: Schema.optionalKey(NonBlank),
    response_format: Schema.Literal("b64_json"),
    size: Schema.optionalKey(
      Schema.String.pipe(matching(ASPECT_RATIO, "an aspect ratio such as 16:9, 9:16, 1:1, 4:3, 3:4"))
    ),
    quality: Schema.optionalKey(Schema.String),
    n: Schema.optionalKey(Schema.Int.pipe(range(imageCount))),
    image_size: Schema.optionalKey(Schema.Literals(imageSizes)),
    mime_type: Schema.optionalKey(ImageOutputType),
    response_modalities: Schema.optionalKey(Schema.Union([Schema.String, Schema.Array(Schema.String)])),
    // A list of turns (image-to-image, multi-turn); an empty one says nothing, so it does not stand in for `prompt`.
    contents: Schema.optionalKey(nonEmptyArray(Schema.Unknown))
  }),
  "required",
  (body) => (body.prompt === undefined && body.contents === undefined ? { key: "prompt", detail: "" } : undefined),
  (field) => `${field} is required (or contents)`
)
/** @category models */
export type ImagesBody = typeof ImagesBody.Type
/** An images body as callers write it (`response_format` may be left out), with `extra`. @category models */
export type ImagesBodyInput = WithExtra<Omit<ImagesBody, "response_format"> & { readonly response_format?: "b64_json" }>

const imagesBody = closedBody(ImagesBody, "an images body")

/**
 * Validates an image request for a zeta image model (from the catalog), then the Schema's rules.
 * `prompt` is required unless `contents` (a non-empty array of turns for image-to-image or
 * multi-turn; their format is not shown, so they pass through sanitized) is given. `response_format`
 * is set to `b64_json`, the only one this series answers.
 * @category constructors
 */
export const buildImagesBody = (
  input: unknown,
  options: RoutingOptions = {}
): Effect.Effect<ImagesBody, InvalidRequest> =>
  buildWith(() =>
    imagesBody.build(input, (model) => ensureRoute(model, "images", options), {
      adjust: (body) => {
        if (body.response_format === undefined) body.response_format = "b64_json"
      }
    })
  )

/** One generated image: base64 bytes (`b64_json`), maybe a `url` or `revised_prompt`. @category schemas */
export const ImagesResponseItem = Schema.Struct({
  b64_json: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  revised_prompt: Schema.optionalKey(Schema.String)
})

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const TokenDetails = Schema.Struct({
  image_tokens: Schema.optionalKey(NonNegativeInt),
  text_tokens: Schema.optionalKey(NonNegativeInt)
})

// The tokens an images request used (protocol notes §3.7).
// Every field tolerated missing: an unusual usage must not cost the images it came with.
const ImagesUsage = Schema.Struct({
  input_tokens: Schema.optionalKey(NonNegativeInt),
  output_tokens: Schema.optionalKey(NonNegativeInt),
  total_tokens: Schema.optionalKey(NonNegativeInt),
  input_tokens_details: Schema.optionalKey(TokenDetails),
  output_tokens_details: Schema.optionalKey(TokenDetails)
})
/** The `usage` of an images response: input, output and total tokens, maybe with details. @category models */
export type ImagesUsage = typeof ImagesUsage.Type

// What the answer says of its images (the OpenAI images shape): strings, as the gateway may pass
// values of its own (`size` is pixels here, the request's an aspect ratio); null stands for absent.
const ImageFact = Schema.optionalKey(Schema.NullOr(Schema.String))

/**
 * The images response, in the OpenAI images shape (the contract does not show it; docs/ARCHITECTURE.md,
 * protocol notes §3.7): `created`, `data`, and when the gateway gives them `size`, `output_format`,
 * `quality`, `background` and `usage`.
 * @category schemas
 */
export const ImagesResponse = Schema.Struct({
  created: Schema.Number,
  data: Schema.Array(ImagesResponseItem),
  size: ImageFact,
  output_format: ImageFact,
  quality: ImageFact,
  background: ImageFact,
  usage: Schema.optionalKey(ImagesUsage)
})
/** @category models */
export type ImagesResponse = typeof ImagesResponse.Type

/**
 * A decoded image: its bytes, its MIME type (the one a `data:` URL named, else the one its first
 * bytes show: PNG, JPEG, GIF or WebP; absent when neither tells) and the revised prompt if any.
 * @category models
 */
export interface DecodedImage {
  readonly bytes: Uint8Array
  readonly mimeType?: string
  readonly revisedPrompt?: string
}

// Some gateways wrap b64_json in a data URL; the prefix is read, the base64 after it is still strict.
const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,/

const decodeResponse = decodeWith(ImagesResponse, "openai", "images response")

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, from = 0): boolean =>
  signature.every((byte, i) => bytes[from + i] === byte)

/**
 * A decoded images response: when it was made, its images and, when the gateway gives them, what it
 * says of them and the usage. The names are the openai SDK's (`ImagesResponse`).
 * @category models
 */
export interface DecodedImages {
  readonly created: number
  readonly images: ReadonlyArray<DecodedImage>
  /** The size of the images made, in pixels (`1024x1024`); the request's `size` is an aspect ratio. */
  readonly size?: string
  /** Their format: `png`, `webp` or `jpeg`. */
  readonly output_format?: string
  /** Their quality: `low`, `medium` or `high`. */
  readonly quality?: string
  /** Their background: `transparent` or `opaque`. */
  readonly background?: string
  readonly usage?: ImagesUsage
}

const imageFacts = ["size", "output_format", "quality", "background"] as const

/** The MIME type an image's first bytes show (its format's signature), or `undefined` for other bytes. */
const imageTypeOf = (bytes: Uint8Array): string | undefined => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif" // GIF8
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp" // RIFF….WEBP
  return undefined
}

/**
 * Decodes an images response: every item must carry `b64_json`, decoded strictly to bytes; `size`,
 * `output_format`, `quality`, `background` and `usage` are kept as given (left out when absent or
 * null). Fails with `DecodeError`, never throws.
 * @category decoding
 */
export const decodeImages = (json: unknown, options?: DecodeOptions): Effect.Effect<DecodedImages, DecodeError> =>
  Effect.suspend(() => {
    const fail = (message: string) =>
      Effect.fail(new DecodeError({ family: "openai", what: "images response", message }))
    const parsed = decodeResponse(json, options)
    if (Result.isFailure(parsed)) return Effect.fail(parsed.failure)
    const images: Array<DecodedImage> = []
    for (const [i, item] of parsed.success.data.entries()) {
      const field = `${at("data", i)}.b64_json`
      if (item.b64_json === undefined)
        return fail(
          `${field} is missing${item.url !== undefined ? " (a url was sent; this series answers b64_json only)" : ""}`
        )
      const prefix = DATA_URL.exec(item.b64_json)
      const bytes = Base64.decode(prefix ? item.b64_json.slice(prefix[0].length) : item.b64_json)
      if (Result.isFailure(bytes)) return fail(`${field}: ${bytes.failure}`)
      const mimeType = prefix?.[1] ?? imageTypeOf(bytes.success)
      images.push({
        bytes: bytes.success,
        ...(mimeType !== undefined ? { mimeType } : {}),
        ...(item.revised_prompt !== undefined ? { revisedPrompt: item.revised_prompt } : {})
      })
    }
    const answer = parsed.success
    const decoded: { -readonly [K in keyof DecodedImages]: DecodedImages[K] } = { created: answer.created, images }
    for (const key of imageFacts) {
      const value = answer[key]
      if (value !== undefined && value !== null) decoded[key] = value
    }
    if (answer.usage !== undefined) decoded.usage = answer.usage
    return Effect.succeed(decoded)
  })
