/** `umg image`: image generation with a zeta image model (E15), the image written to a file. */
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { writeAtomically } from "../../batch/AtomicFile.js"
import { DecodeError } from "../../core/errors/GatewayError.js"
import { buildImagesBody } from "../../core/media/Images.js"
import * as Connection from "../support/Connection.js"
import { isStdout, jsonNotWithStdout, promptText, writeBytes, writingTo } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** The options of `umg image`. @category models */
export interface ImageOptions extends Connection.CommonOptions {
  readonly model: string
  readonly size: Option.Option<string>
  readonly output: string
  readonly prompt: string
}

/** Runs `umg image`. @category commands */
export const runImage = (o: ImageOptions) =>
  Effect.gen(function* () {
    yield* jsonNotWithStdout("umg image", o.output, o.json)
    const body = yield* buildImagesBody(
      {
        model: o.model,
        prompt: yield* promptText(o.prompt),
        ...Option.match(o.size, { onNone: () => ({}), onSome: (size) => ({ size }) })
      },
      yield* Connection.routing(o)
    )
    // The call costs money: the output is checked (its folders made) before it is made, and if the
    // call fails the folders made for it go again; the file is written whole or not at all.
    yield* writingTo(
      o.output,
      Connection.run(
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
          yield* isStdout(o.output) ? writeBytes(o.output, first.bytes) : writeAtomically(o.output, first.bytes)
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
    )
  })
