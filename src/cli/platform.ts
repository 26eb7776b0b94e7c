/**
 * `umg platform`: the platform-style endpoints — `login` (E7; the token is never printed),
 * `text-to-video` (E4) and `shoot` (E5 creative mode, or E6 advanced mode when the four image URLs
 * are given).
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option, Redacted } from "effect"
import { Gateway } from "../adapters/Gateway.js"
import { buildAnyShootAdvancedBody, buildAnyShootEasyBody, buildPlatformTextToVideoBody, platformVideoDurations } from "../core/platform/Platform.js"
import * as Connection from "./Connection.js"
import { imageInput } from "./LocalFiles.js"
import * as Output from "./Output.js"

const loginCommand = Command.make("login", { ...Connection.commonOptions }, (o) =>
  Connection.run(
    o,
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const token = yield* gateway.platform.login()
      // Only the fact and the length: the token is a credential.
      const length = Redacted.value(token).length
      yield* Output.result(o, { loggedIn: true, tokenLength: length }, () => `${Output.colour.green("✓")} logged in (a ${length}-character token; not shown)`)
    })
  )
).pipe(Command.withDescription(`get a platform token with UMG_PLATFORM_USERNAME and UMG_PLATFORM_PASSWORD. Example: umg platform login`))

const textToVideoCommand = Command.make(
  "text-to-video",
  {
    ...Connection.commonOptions,
    model: Options.text("model").pipe(Options.withAlias("m"), Options.withDescription("model id")),
    prompt: Options.text("prompt").pipe(Options.withDescription("scene description")),
    duration: Options.choice("duration", platformVideoDurations).pipe(Options.withDescription("seconds"), Options.withDefault("5" as const)),
    aspectRatio: Options.text("aspect-ratio").pipe(Options.withDescription("e.g. 16:9"), Options.withDefault("16:9")),
    resolution: Options.text("resolution").pipe(Options.withDescription("e.g. 720p"), Options.optional)
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
).pipe(Command.withDescription(`submit a platform text-to-video task. Example: umg platform text-to-video -m MODEL --prompt "a paper boat" --duration 5 --aspect-ratio 16:9`))

const url = (name: string) => Options.text(name).pipe(Options.withDescription(`${name} (URL; advanced mode)`), Options.optional)

const shootCommand = Command.make(
  "shoot",
  {
    ...Connection.commonOptions,
    size: Options.text("size").pipe(Options.withDescription("<width>x<height>, e.g. 1024x1024"), Options.withDefault("1024x1024")),
    text: Options.text("text").pipe(Options.withDescription("what to make (creative mode)"), Options.optional),
    image: Options.text("image").pipe(Options.withDescription("an input image: path or URL (repeatable)"), Options.repeated),
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
        contents: [{ parts: [...Option.match(o.text, { onNone: () => [], onSome: (text) => [{ text }] }), ...images.map((image) => ({ image }))] }]
      })
      yield* Connection.run(
        o,
        Effect.gen(function* () {
          const answer = yield* (yield* Gateway).platform.anyShootEasy(body)
          yield* Output.result(o, answer, () => `image: ${answer.url}`)
        })
      )
    })
).pipe(Command.withDescription(`Any Shoot: creative mode, or advanced mode with the four image URLs. Example: umg platform shoot --size 1024x1024 --text "on a beach" --image https://example.com/product.png`))

/** The `umg platform` command group. @category commands */
export const platformCommand = Command.make("platform").pipe(
  Command.withDescription("platform-style endpoints: login, text-to-video, shoot"),
  Command.withSubcommands([loginCommand, textToVideoCommand, shootCommand])
)
