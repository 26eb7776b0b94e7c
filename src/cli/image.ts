/** `umg image`: image generation with a zeta image model (E15), the image written to a file. */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { Gateway } from "../adapters/Gateway.js"
import { DecodeError } from "../core/errors/GatewayError.js"
import { buildImagesBody } from "../core/media/Images.js"
import * as Connection from "./Connection.js"
import { writeBytes } from "./LocalFiles.js"
import * as Output from "./Output.js"

const options = {
  ...Connection.commonOptions,
  model: Options.text("model").pipe(Options.withAlias("m"), Options.withDescription("zeta-2.5-flash-image or zeta-3-pro-image-preview")),
  size: Options.text("size").pipe(Options.withDescription("aspect ratio such as 16:9 or 1:1"), Options.optional),
  output: Options.file("output").pipe(Options.withAlias("o"), Options.withDescription("where to write the image")),
  prompt: Args.text({ name: "PROMPT" })
}

/** The `umg image` command. @category commands */
export const imageCommand = Command.make("image", options, (o) =>
  Effect.gen(function* () {
    const body = yield* buildImagesBody({
      model: o.model,
      prompt: o.prompt,
      ...Option.match(o.size, { onNone: () => ({}), onSome: (size) => ({ size }) })
    })
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const answer = yield* gateway.images.generate(body)
        const first = answer.images[0]
        if (first === undefined) {
          return yield* Effect.fail(new DecodeError({ family: "openai", what: "images response", message: "the answer holds no image" }))
        }
        yield* writeBytes(o.output, first.bytes)
        yield* Output.result(o, { path: o.output, bytes: first.bytes.length, mimeType: first.mimeType ?? null, images: answer.images.length }, () =>
          `wrote ${first.bytes.length} bytes${first.mimeType !== undefined ? ` of ${first.mimeType}` : ""} to ${o.output}`
        )
      })
    )
  })
).pipe(Command.withDescription("generate an image and write it to a file"))
