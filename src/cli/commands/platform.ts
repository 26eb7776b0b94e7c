/**
 * `umg platform`: the platform-style endpoints — `login` (E7; the token is never printed),
 * `text-to-video` (E4) and `shoot` (E5 creative mode, or E6 advanced mode when the four image URLs
 * are given).
 */
import { Command, Flag } from "effect/cli"
import { Effect, Option, Redacted } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import {
  buildAnyShootAdvancedBody,
  buildAnyShootEasyBody,
  buildPlatformTextToVideoBody,
  platformVideoDurations
} from "../../core/platform/Platform.js"
import * as Connection from "../support/Connection.js"
import { imageInput } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

const loginCommand = Command.make("login", { ...Connection.commonOptions }, (o) =>
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
        () => `${Output.colour.green("✓")} logged in (a ${length}-character token; not shown)`
      )
    })
  )
).pipe(
  Command.withDescription(
    `get a platform token with UMG_PLATFORM_USERNAME and UMG_PLATFORM_PASSWORD. Example: umg platform login`
  )
)

const textToVideoCommand = Command.make(
  "text-to-video",
  {
    ...Connection.commonOptions,
    model: Flag.String("model").pipe(Flag.withAlias("m"), Flag.withDescription("model id")),
    prompt: Flag.String("prompt").pipe(Flag.withDescription("scene description")),
    duration: Flag.Literals("duration", platformVideoDurations).pipe(
      Flag.withDescription("seconds"),
      Flag.withDefault("5" as const)
    ),
    aspectRatio: Flag.String("aspect-ratio").pipe(Flag.withDescription("e.g. 16:9"), Flag.withDefault("16:9")),
    resolution: Flag.String("resolution").pipe(Flag.withDescription("e.g. 720p"), Flag.optional)
  },
  (o) =>
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
          const submitted = yield* gateway.platform.textToVideo(body)
          yield* Output.result(o, submitted, () => `submitted platform task ${submitted.task_id}`)
        })
      )
    })
).pipe(
  Command.withDescription(
    `submit a platform text-to-video task. Example: umg platform text-to-video -m MODEL --prompt "a paper boat" --duration 5 --aspect-ratio 16:9`
  )
)

const url = (name: string) =>
  Flag.String(name).pipe(Flag.withDescription(`${name} (URL; advanced mode)`), Flag.optional)

const shootCommand = Command.make(
  "shoot",
  {
    ...Connection.commonOptions,
    size: Flag.String("size").pipe(
      Flag.withDescription("<width>x<height>, e.g. 1024x1024"),
      Flag.withDefault("1024x1024")
    ),
    text: Flag.String("text").pipe(Flag.withDescription("what to make (creative mode)"), Flag.optional),
    image: Flag.String("image").pipe(Flag.withDescription("an input image: path or URL (repeatable)"), Flag.atLeast(0)),
    productImageUrl: url("product-image"),
    productMaskUrl: url("product-mask"),
    templateImageUrl: url("template-image"),
    templateMaskUrl: url("template-mask")
  },
  (o) =>
    Effect.gen(function* () {
      const advanced = [o.productImageUrl, o.productMaskUrl, o.templateImageUrl, o.templateMaskUrl].some(Option.isSome)
      if (advanced) {
        const body = yield* buildAnyShootAdvancedBody({
          productImageUrl: Option.getOrUndefined(o.productImageUrl),
          productMaskUrl: Option.getOrUndefined(o.productMaskUrl),
          templateImageUrl: Option.getOrUndefined(o.templateImageUrl),
          templateMaskUrl: Option.getOrUndefined(o.templateMaskUrl)
        })
        return yield* Connection.run(
          o,
          Effect.gen(function* () {
            const taskId = yield* (yield* Gateway).platform.anyShootAdvanced(body)
            yield* Output.result(o, { task_id: taskId }, () => `submitted advanced shoot task ${taskId}`)
          })
        )
      }
      const images = yield* Effect.forEach(o.image, (i, n) => imageInput(i, `contents[0].parts[${n + 1}].image`))
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
          const answer = yield* (yield* Gateway).platform.anyShootEasy(body)
          yield* Output.result(o, answer, () => `image: ${answer.url}`)
        })
      )
    })
).pipe(
  Command.withDescription(
    `Any Shoot: creative mode, or advanced mode with the four image URLs. Example: umg platform shoot --size 1024x1024 --text "on a beach" --image https://example.com/product.png`
  )
)

/** The `umg platform` command group. @category commands */
export const platformCommand = Command.make("platform").pipe(
  Command.withDescription("platform-style endpoints: login, text-to-video, shoot"),
  Command.withSubcommands([loginCommand, textToVideoCommand, shootCommand])
)
