/** `umg image`: image generation with a zeta image model (E15), the image written to a file. */
import { Argument, Command, Flag } from "effect/cli"
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { DecodeError } from "../../core/errors/GatewayError.js"
import { buildImagesBody } from "../../core/media/Images.js"
import * as Connection from "../support/Connection.js"
import { ensureWritable, isStdout, writeBytes } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

const options = {
  ...Connection.commonOptions,
  model: Flag.String("model").pipe(
    Flag.withAlias("m"),
    Flag.withDescription("zeta-2.5-flash-image or zeta-3-pro-image-preview")
  ),
  size: Flag.String("size").pipe(Flag.withDescription("aspect ratio such as 16:9 or 1:1"), Flag.optional),
  output: Flag.String("output").pipe(
    Flag.withAlias("o"),
    Flag.withDescription("where to write the image (- for stdout)")
  ),
  prompt: Argument.String("PROMPT")
}

/** The `umg image` command. @category commands */
export const imageCommand = Command.make("image", options, (o) =>
  Effect.gen(function* () {
    const body = yield* buildImagesBody({
      model: o.model,
      prompt: o.prompt,
      ...Option.match(o.size, { onNone: () => ({}), onSome: (size) => ({ size }) })
    })
    // The call costs money: the output is checked before it is made.
    yield* ensureWritable(o.output)
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const answer = yield* gateway.images.generate(body)
        const first = answer.images[0]
        if (first === undefined) {
          return yield* Effect.fail(
            new DecodeError({ family: "openai", what: "images response", message: "the answer holds no image" })
          )
        }
        yield* writeBytes(o.output, first.bytes)
        const summary = `wrote ${first.bytes.length} bytes${first.mimeType !== undefined ? ` of ${first.mimeType}` : ""} to ${isStdout(o.output) ? "stdout" : o.output}`
        // With `-o -` stdout carries the image itself; the summary goes to stderr.
        if (isStdout(o.output)) yield* Output.note(summary)
        else
          yield* Output.result(
            o,
            {
              path: o.output,
              bytes: first.bytes.length,
              mimeType: first.mimeType ?? null,
              images: answer.images.length
            },
            () => summary
          )
      })
    )
  })
).pipe(
  Command.withDescription(
    `generate an image and write it to a file. Example: umg image -m zeta-2.5-flash-image -o fox.png "a red fox in snow"`
  )
)
