/**
 * `umg platform`: the platform-style endpoints — `login` (E7; the token is never printed),
 * `text-to-video` (E4) and `shoot` (E5 creative mode, or E6 advanced mode when the four image URLs
 * are given).
 */
import { Effect, Option, Redacted } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import {
  buildAnyShootAdvancedBody,
  buildAnyShootEasyBody,
  buildPlatformTextToVideoBody,
  type platformVideoDurations
} from "../../core/platform/Platform.js"
import * as Connection from "../support/Connection.js"
import { imageInput } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/**
 * A platform token as a result must not show it: the token, with and without its `Bearer ` (a server
 * may echo either in its answer).
 */
const tokenSecrets = (token: Redacted.Redacted<string>): ReadonlyArray<string> => {
  const value = Redacted.value(token)
  const bare = value.replace(/^Bearer\s+/i, "")
  return bare === value ? [value] : [value, bare]
}

/**
 * The token the next submit is sent with, fetched now (the cache of a new process is empty, so the
 * submit would fetch it anyway: no request more), so that its answer is printed without it.
 */
const submitSecrets = Effect.gen(function* () {
  return tokenSecrets(yield* (yield* Gateway).platform.login())
})

/** Runs `umg platform login`. @category commands */
export const runLogin = (o: Connection.CommonOptions) =>
  Connection.run(
    o,
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const token = yield* gateway.platform.login()
      // Only the fact and the length: the token is a credential.
      const length = Redacted.value(token).length
      yield* Output.result(
        o,
        { loggedIn: true, tokenLength: length },
        () => `${Output.colour.green("✓")} logged in (a ${length}-character token; not shown)`,
        tokenSecrets(token)
      )
    })
  )

/** The options of `umg platform text-to-video`. @category models */
export interface TextToVideoOptions extends Connection.CommonOptions {
  readonly model: string
  readonly prompt: string
  readonly duration: (typeof platformVideoDurations)[number]
  readonly aspectRatio: string
  readonly resolution: Option.Option<string>
}

/** Runs `umg platform text-to-video`. @category commands */
export const runTextToVideo = (o: TextToVideoOptions) =>
  Effect.gen(function* () {
    const body = yield* buildPlatformTextToVideoBody({
      model: o.model,
      prompt: o.prompt,
      duration: o.duration,
      aspect_ratio: o.aspectRatio,
      ...Option.match(o.resolution, { onNone: () => ({}), onSome: (resolution) => ({ resolution }) })
    })
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const secrets = yield* submitSecrets
        const submitted = yield* gateway.platform.textToVideo(body)
        yield* Output.result(o, submitted, () => `submitted platform task ${submitted.task_id}`, secrets)
      })
    )
  })

/** The options of `umg platform shoot`. @category models */
export interface ShootOptions extends Connection.CommonOptions {
  readonly size: string
  readonly text: Option.Option<string>
  readonly image: ReadonlyArray<string>
  readonly productImageUrl: Option.Option<string>
  readonly productMaskUrl: Option.Option<string>
  readonly templateImageUrl: Option.Option<string>
  readonly templateMaskUrl: Option.Option<string>
}

/** Runs `umg platform shoot`. @category commands */
export const runShoot = (o: ShootOptions) =>
  Effect.gen(function* () {
    const urls = [
      ["--product-image", o.productImageUrl],
      ["--product-mask", o.productMaskUrl],
      ["--template-image", o.templateImageUrl],
      ["--template-mask", o.templateMaskUrl]
    ] as const
    const given = urls.filter(([, url]) => Option.isSome(url)).map(([flag]) => flag)
    if (given.length > 0) {
      const missing = urls.filter(([, url]) => Option.isNone(url)).map(([flag]) => flag)
      if (missing.length > 0)
        return yield* Effect.fail(
          new InvalidRequest({
            field: missing[0]!,
            rule: "required",
            message: `${missing.join(", ")}: missing; advanced mode takes all four image URLs (given: ${given.join(", ")})`
          })
        )
      const body = yield* buildAnyShootAdvancedBody({
        productImageUrl: Option.getOrUndefined(o.productImageUrl),
        productMaskUrl: Option.getOrUndefined(o.productMaskUrl),
        templateImageUrl: Option.getOrUndefined(o.templateImageUrl),
        templateMaskUrl: Option.getOrUndefined(o.templateMaskUrl)
      })
      return yield* Connection.run(
        o,
        Effect.gen(function* () {
          const secrets = yield* submitSecrets
          const taskId = yield* (yield* Gateway).platform.anyShootAdvanced(body)
          yield* Output.result(o, { task_id: taskId }, () => `submitted advanced shoot task ${taskId}`, secrets)
        })
      )
    }
    if (Option.isNone(o.text) && o.image.length === 0)
      return yield* Effect.fail(
        new InvalidRequest({
          field: "--text",
          rule: "required",
          message:
            "--text, --image: give a text, an image or both (creative mode), or the four image URLs of advanced mode (--product-image, --product-mask, --template-image, --template-mask)"
        })
      )
    const first = Option.isSome(o.text) ? 1 : 0 // the text is the first part
    const images = yield* Effect.forEach(o.image, (i, n) => imageInput(i, `contents[0].parts[${first + n}].image`))
    const body = yield* buildAnyShootEasyBody({
      size: o.size,
      contents: [
        {
          parts: [
            ...Option.match(o.text, { onNone: () => [], onSome: (text) => [{ text }] }),
            ...images.map((image) => ({ image }))
          ]
        }
      ]
    })
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const secrets = yield* submitSecrets
        const answer = yield* (yield* Gateway).platform.anyShootEasy(body)
        yield* Output.result(o, answer, () => `image: ${answer.url}`, secrets)
      })
    )
  })
