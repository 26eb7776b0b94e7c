/** `umg image` as the command tree holds it: its flags and help; what it does is `commands/image.ts`, loaded when it runs. */
import { Argument, Command, Flag } from "effect/cli"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
  model: Flag.String("model").pipe(
    Flag.withAlias("m"),
    Flag.withDescription("zeta-2.5-flash-image or zeta-3-pro-image-preview")
  ),
  size: Flag.String("size").pipe(Flag.withDescription("aspect ratio such as 16:9 or 1:1"), Flag.optional),
  output: Flag.String("output").pipe(
    Flag.withAlias("o"),
    Flag.withDescription("where to write the image (- for stdout)")
  ),
  prompt: Argument.String("PROMPT").pipe(Argument.withDescription("what to draw; - reads it from standard input")),
  ...modelOptions
}

/** The `umg image` command. @category commands */
export const imageCommand = Command.make("image", options, (o) =>
  lazily(
    () => import("../commands/image.js"),
    (m) => m.runImage(o)
  )
).pipe(
  Command.withDescription(
    `generate an image and write it to a file. Example: umg image -m zeta-2.5-flash-image -o fox.png "a red fox in snow"`
  )
)
