/**
 * `umg platform` and its subcommands as the command tree holds them: flags and help; what they do is
 * `commands/platform.ts`, loaded when one runs.
 */
import { Command, Flag } from "effect/cli"
import { platformVideoDurations } from "../../core/platform/Platform.js"
import { commonOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const load = () => import("../commands/platform.js")

const loginCommand = Command.make("login", { ...commonOptions }, (o) => lazily(load, (m) => m.runLogin(o))).pipe(
  Command.withDescription(
    `get a platform token with UMG_PLATFORM_USERNAME and UMG_PLATFORM_PASSWORD. Example: umg platform login`
  )
)

const textToVideoCommand = Command.make(
  "text-to-video",
  {
    ...commonOptions,
    model: Flag.String("model").pipe(Flag.withAlias("m"), Flag.withDescription("model id")),
    prompt: Flag.String("prompt").pipe(Flag.withDescription("scene description")),
    duration: Flag.Literals("duration", platformVideoDurations).pipe(
      Flag.withDescription("seconds (default 5)"),
      Flag.withDefault("5" as const)
    ),
    aspectRatio: Flag.String("aspect-ratio").pipe(
      Flag.withDescription("e.g. 9:16 (default 16:9)"),
      Flag.withDefault("16:9")
    ),
    resolution: Flag.String("resolution").pipe(Flag.withDescription("e.g. 720p"), Flag.optional)
  },
  (o) => lazily(load, (m) => m.runTextToVideo(o))
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
    ...commonOptions,
    size: Flag.String("size").pipe(
      Flag.withDescription("<width>x<height> (default 1024x1024)"),
      Flag.withDefault("1024x1024")
    ),
    text: Flag.String("text").pipe(Flag.withDescription("what to make (creative mode)"), Flag.optional),
    image: Flag.String("image").pipe(Flag.withDescription("an input image: path or URL (repeatable)"), Flag.atLeast(0)),
    productImageUrl: url("product-image"),
    productMaskUrl: url("product-mask"),
    templateImageUrl: url("template-image"),
    templateMaskUrl: url("template-mask")
  },
  (o) => lazily(load, (m) => m.runShoot(o))
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
